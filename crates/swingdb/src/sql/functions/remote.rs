//! Tables named by a URL instead of a name: `SELECT * FROM 'db://NAME'` reads a
//! pipe (see `crate::pipe`), `SELECT * FROM 'postgresql://...?table=t'` a
//! PostgreSQL table or query (see `crate::pipe::postgres`). Looking such a
//! table up meets the exporter or connects to the server, so it happens once
//! per statement, when the statement is planned.

use crate::error::Result;
use crate::pipe::postgres::{self, PgUrl};
use crate::pipe::{PipeTable, PipeUrl, Receiver, Rendezvous};
use datafusion::datasource::TableProvider;
use std::sync::Arc;

/// Whether `name` is a URL this module resolves.
pub fn is_url(name: &str) -> bool {
    PipeUrl::is_pipe(name) || PgUrl::is_postgres(name)
}

/// The table the URL `name` stands for.
pub async fn url_table(name: &str) -> Result<Arc<dyn TableProvider>> {
    if PgUrl::is_postgres(name) {
        return Ok(Arc::new(postgres::table(&PgUrl::parse(name)?).await?));
    }
    let url = PipeUrl::parse(name)?;
    Ok(Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, &url)?)?))
}
