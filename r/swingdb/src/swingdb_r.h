/* The R package's C side: entry points (swingdb_r.c) and result vectors
 * (vectors.c), over swingdb's C interface. */
#ifndef SWINGDB_R_H
#define SWINGDB_R_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

#include "swingdb.h"

/* Registers the ALTREP classes of result vectors. */
void swingdb_register_vectors(DllInfo *dll);
/* An external pointer that owns a result column once one is taken into
 * swingdb_holder_column(holder) (its finalizer frees it; empty until then):
 * made before the column is taken, so that no R allocation failure (an R
 * error jumps out of C) can leave a column without an owner. */
SEXP swingdb_column_holder(void);
swingdb_column *swingdb_holder_column(SEXP holder);
/* The R vector of a holder's column (an ALTREP vector that keeps the holder,
 * or a copy, after which the column is freed). */
SEXP swingdb_vector_of(SEXP holder, int integer64);
/* What a vector is (ALTREP class, state, data address), for tests. */
SEXP swingdb_r_vector_info(SEXP x);
/* Writes element 1 through the writable data pointer, for tests. */
SEXP swingdb_r_write_first(SEXP x, SEXP value);

#endif
