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
/* The R vector of a taken result column (it takes over column's owner). */
SEXP swingdb_vector_of(swingdb_column *column, int integer64);
/* What a vector is (ALTREP class, state, data address), for tests. */
SEXP swingdb_r_vector_info(SEXP x);
/* Writes element 1 through the writable data pointer, for tests. */
SEXP swingdb_r_write_first(SEXP x, SEXP value);

#endif
