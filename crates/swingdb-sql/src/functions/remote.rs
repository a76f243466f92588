//! Tables named by a URL instead of a name: `SELECT * FROM 'db://NAME'` reads a
//! pipe (see `swingdb_pipe`), `SELECT * FROM 'postgresql://...?table=t'` a
//! PostgreSQL table or query (see `swingdb_pipe::postgres`). Looking such a
//! table up meets the exporter or connects to the server, so it happens once
//! per statement, when the statement is planned, and never while a statement
//! is only described (see [`without_url_tables`]).

use datafusion::datasource::TableProvider;
use std::cell::Cell;
use std::future::Future;
use std::sync::Arc;
use swingdb_pipe::postgres::{self, PgUrl};
use swingdb_pipe::{PipeTable, PipeUrl, Receiver, Rendezvous};
use swingdb_storage::error::Result;

tokio::task_local! {
    /// Set while a statement is planned only to be described: whether its
    /// plan asked for a URL table (which was then not looked up).
    static DESCRIBING: Cell<bool>;
}

/// Runs `planning` with URL tables not looked up (they are "not found"),
/// and tells whether it asked for one: a statement is described without
/// meeting an exporter or connecting to a server.
pub async fn without_url_tables<T>(planning: impl Future<Output = T>) -> (T, bool) {
    DESCRIBING
        .scope(Cell::new(false), async {
            let outcome = planning.await;
            (outcome, DESCRIBING.with(Cell::get))
        })
        .await
}

/// Whether a URL table asked for now is to be left alone (see
/// [`without_url_tables`]); notes that one was asked for.
pub fn url_tables_withheld() -> bool {
    DESCRIBING.try_with(|asked| asked.set(true)).is_ok()
}

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
