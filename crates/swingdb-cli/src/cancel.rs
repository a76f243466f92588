//! A running statement in the shell: Ctrl-C (SIGINT) cancels it (the engine
//! asks through its signal check) and the shell goes on, while at the prompt
//! the line editor sees Ctrl-C as a key instead; one that runs long shows
//! its progress.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

static PRESSED: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);

/// Routes SIGINT to the running statement instead of ending the process.
/// (signal-hook's handler only sets the flag, and restarts interrupted
/// system calls, as the line editor's reads expect.)
pub fn install() {
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, PRESSED.clone()) {
        eprintln!("Ctrl-C will end the shell instead of the statement: {e}");
    }
    swingdb::set_signal_check(Box::new(|| PRESSED.swap(false, Ordering::SeqCst)));
}

/// Forgets a Ctrl-C pressed while no statement ran.
pub fn clear() {
    PRESSED.store(false, Ordering::SeqCst);
}

/// Shows the progress of statements that run longer than `after` on
/// standard error, when that is a terminal: a bar, rows read of how many,
/// bytes, time left. `None`: no progress is shown.
pub fn show_progress(con: &swingdb::Connection, after: Option<std::time::Duration>) {
    use std::io::{IsTerminal, Write};
    let Some(after) = after.filter(|_| std::io::stderr().is_terminal()) else {
        con.interrupt_handle().set_progress_display(None, std::time::Duration::ZERO);
        return;
    };
    let display: swingdb::ProgressDisplay = std::sync::Arc::new(|report: Option<&swingdb::ProgressReport>| {
        let mut err = std::io::stderr();
        let Some(r) = report else {
            let _ = write!(err, "\r\x1b[K");
            return;
        };
        let line = match r.total_rows {
            Some(total) => {
                let share = (r.rows as f64 / total as f64).min(1.0);
                let filled = (share * 30.0) as usize;
                let left = r.seconds_left().map(|s| format!(", {s:.0} s left")).unwrap_or_default();
                format!(
                    "[{}{}] {:>3.0}% {}/{} rows, {}{left}",
                    "#".repeat(filled),
                    " ".repeat(30 - filled),
                    share * 100.0,
                    r.rows,
                    total,
                    bytes(r.bytes)
                )
            }
            None => format!("{} rows read, {}, {:.0} s", r.rows, bytes(r.bytes), r.elapsed.as_secs_f64()),
        };
        let _ = write!(err, "\r\x1b[K{line}");
        let _ = err.flush();
    });
    con.interrupt_handle().set_progress_display(Some(display), after);
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n => format!("{:.1} KiB", n as f64 / 1024.0),
    }
}
