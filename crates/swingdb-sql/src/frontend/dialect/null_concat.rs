//! `concat` and `concat_ws` over arguments that all fold to NULL.
//!
//! DataFusion simplifies both by dropping their NULL literal arguments, and
//! when none is left (for `concat_ws`: only the separator) the call it leaves
//! is one it refuses: `SELECT concat((CAST(NULL AS VARCHAR) || 'ab') || 'a')
//! FROM t` failed with "concat does not support zero arguments", where
//! DuckDB and PostgreSQL answer `''`. Each function is registered again under
//! its own name, wrapped: the same function, whose simplification is kept
//! only when it leaves enough arguments, and which stays wrapped through it.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
};
use std::sync::Arc;

/// The functions wrapped, with the fewest arguments each accepts.
pub const CONCATS: [(&str, usize); 2] = [("concat", 1), ("concat_ws", 2)];

/// `inner` (one of [`CONCATS`]), never simplified to fewer than `least`
/// arguments.
pub fn null_tolerant(inner: Arc<ScalarUDF>, least: usize) -> ScalarUDF {
    ScalarUDF::new_from_impl(NullTolerantConcat { inner, least })
}

/// A concatenation whose simplification keeps at least `least` arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
struct NullTolerantConcat {
    inner: Arc<ScalarUDF>,
    least: usize,
}

impl ScalarUDFImpl for NullTolerantConcat {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        self.inner.invoke_with_args(args)
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        Ok(match self.inner.simplify(args.clone(), info)? {
            // The call DataFusion builds names its own function: wrapped
            // again, so a later pass still goes through this one.
            ExprSimplifyResult::Simplified(Expr::ScalarFunction(ScalarFunction { func, args: simplified }))
                if func.name() == self.inner.name() =>
            {
                match simplified.len() < self.least {
                    // Evaluated as written, NULL arguments are skipped.
                    true => ExprSimplifyResult::Original(args),
                    false => ExprSimplifyResult::Simplified(Expr::ScalarFunction(ScalarFunction {
                        func: Arc::new(null_tolerant(func, self.least)),
                        args: simplified,
                    })),
                }
            }
            other => other,
        })
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}
