//! Ctrl-C in the shell: while a statement runs, SIGINT cancels it (the
//! engine asks [`pressed`] through its signal check) and the shell goes on;
//! at the prompt the line editor sees Ctrl-C as a key instead.

use std::sync::atomic::{AtomicBool, Ordering};

static PRESSED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    PRESSED.store(true, Ordering::SeqCst);
}

/// Routes SIGINT to the running statement instead of ending the process.
pub fn install() {
    // SAFETY: the handler only stores to an atomic; sigaction is given a
    // zeroed, valid struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
    swingdb::set_signal_check(Box::new(|| PRESSED.swap(false, Ordering::SeqCst)));
}

/// Forgets a Ctrl-C pressed while no statement ran.
pub fn clear() {
    PRESSED.store(false, Ordering::SeqCst);
}
