//! What a process sees when a segment file changes under its mapping.
//!
//! Segment files are mapped, never read into private memory (see
//! `segment.rs`): arrays handed to numpy, pyarrow or R are windows into the
//! files. swingdb never changes a published file, but another program may
//! (a backup or sync tool, a cleanup script, an editor). Reading a page past
//! the end of a file truncated while mapped raises SIGBUS, which ends the
//! process; a file overwritten in place is read as its new bytes.
//!
//! The engine checks each file's size before every scan (see
//! `segment/scan_checks.rs`), so a file truncated between statements fails the next
//! one with `CorruptionError` naming it, and the process lives. A file
//! truncated during a scan, or under arrays already handed out, still
//! faults: the bytes are gone, and there is nothing true to read in their
//! place (zeros would be silent wrong answers). For those, the handler
//! installed here writes which file and byte failed to stderr, then gives
//! the signal to the handler installed before it (Python's `faulthandler`,
//! R's) or to the default action, which ends the process.
//!
//! The handler only makes system calls that are safe in a signal handler
//! (`open`, `read`, `write`, `close`, `sigaction`, `raise`): it finds the
//! mapping in `/proc/self/maps` rather than in swingdb's own tables, whose
//! locks the faulting thread may hold.

use std::sync::Once;

/// Installs the handler (once per process; later calls do nothing). Called
/// before the first segment is mapped.
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: a handler of the signature SA_SIGINFO asks for; PREVIOUS
        // is written here once, before the handler can run (it is not yet
        // installed while `sigaction` fills it), and only read after.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::addr_of_mut!(PREVIOUS));
        }
    });
}

/// The handler SIGBUS had before [`install`].
static mut PREVIOUS: libc::sigaction = unsafe { std::mem::zeroed() };

extern "C" fn on_bus_error(signal: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t with SA_SIGINFO.
    let (address, sent) = unsafe { ((*info).si_addr() as usize, (*info).si_code <= 0) };
    let mut message = Message::default();
    if describe(address, &mut message) {
        // SAFETY: writes bytes of a live buffer to stderr.
        unsafe { libc::write(2, message.bytes.as_ptr().cast(), message.len) };
    }
    // The handler before this one takes the signal: the faulting read runs
    // again when this returns, and faults again. A signal another process
    // sent is raised again instead.
    // SAFETY: PREVIOUS was filled by `install` before this could run.
    unsafe {
        libc::sigaction(signal, std::ptr::addr_of!(PREVIOUS), std::ptr::null_mut());
        if sent {
            libc::raise(signal);
        }
    }
}

/// A message built without allocating (in a signal handler).
struct Message {
    bytes: [u8; 2048],
    len: usize,
}

impl Default for Message {
    fn default() -> Self {
        Self { bytes: [0; 2048], len: 0 }
    }
}

impl Message {
    fn push(&mut self, text: &[u8]) {
        let room = self.bytes.len() - self.len;
        let n = text.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&text[..n]);
        self.len += n;
    }

    fn push_number(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push(&digits[at..]);
    }
}

/// Writes into `message` which segment file `address` maps and at which
/// byte, if it is in one (a file whose name ends in `.arrow`).
fn describe(address: usize, message: &mut Message) -> bool {
    // SAFETY: a NUL-terminated path; the descriptor is closed below.
    let fd = unsafe { libc::open(c"/proc/self/maps".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return false;
    }
    let mut buffer = [0u8; 8192];
    let (mut filled, mut found) = (0, false);
    loop {
        // SAFETY: reads into the unfilled part of a live buffer.
        let n = unsafe { libc::read(fd, buffer[filled..].as_mut_ptr().cast(), buffer.len() - filled) };
        if n <= 0 {
            if filled > 0 {
                found = found || line_describes(&buffer[..filled], address, message);
            }
            break;
        }
        filled += n as usize;
        let mut start = 0;
        while let Some(end) = buffer[start..filled].iter().position(|&b| b == b'\n') {
            if line_describes(&buffer[start..start + end], address, message) {
                found = true;
            }
            start += end + 1;
        }
        if found {
            break;
        }
        // A line longer than the buffer is skipped whole.
        if start == 0 && filled == buffer.len() {
            filled = 0;
            continue;
        }
        buffer.copy_within(start..filled, 0);
        filled -= start;
    }
    // SAFETY: the descriptor opened above.
    unsafe { libc::close(fd) };
    found
}

/// Whether `line` of `/proc/self/maps` (`start-end perms offset dev inode
/// path`) maps a segment file at `address`; if so, says so in `message`.
fn line_describes(line: &[u8], address: usize, message: &mut Message) -> bool {
    let mut fields = line.split(|&b| b == b' ').filter(|f| !f.is_empty());
    let Some(range) = fields.next() else { return false };
    let Some(dash) = range.iter().position(|&b| b == b'-') else { return false };
    let (Some(start), Some(end)) = (hex(&range[..dash]), hex(&range[dash + 1..])) else { return false };
    if !(start..end).contains(&(address as u64)) {
        return false;
    }
    let (_perms, Some(offset)) = (fields.next(), fields.next().and_then(hex)) else { return false };
    let (_device, _inode) = (fields.next(), fields.next());
    // The path is the rest of the line (it may hold spaces).
    let Some(path_at) = line.iter().position(|&b| b == b'/') else { return false };
    let path = &line[path_at..];
    let path = path.strip_suffix(b" (deleted)").unwrap_or(path);
    if !path.ends_with(b".arrow") {
        return false;
    }
    message.push(b"swingdb: the segment file ");
    message.push(path);
    message.push(b" was changed while this process had it mapped (truncated by another program): reading its byte ");
    message.push_number(offset + (address as u64 - start));
    message.push(
        b" failed (SIGBUS), and the process cannot go on. Only swingdb may change the files of a database; \
          restore it from a backup or a snapshot, and check it with verify().\n",
    );
    true
}

fn hex(digits: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(digits).ok()?;
    u64::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_the_maps_names_the_file_and_byte_of_an_address_inside_it() {
        let line = b"7f0000001000-7f0000003000 r--s 00002000 fd:01 1234   /data/my db/segments/ab-1.arrow (deleted)";
        let mut message = Message::default();
        assert!(line_describes(line, 0x7f0000001010, &mut message));
        let text = String::from_utf8_lossy(&message.bytes[..message.len]).to_string();
        assert!(text.contains("segment file /data/my db/segments/ab-1.arrow was changed"), "{text}");
        assert!(text.contains("its byte 8208 failed"), "{text}");
        assert!(!line_describes(line, 0x7f0000003000, &mut Message::default()), "past the end");
        let other = b"7f0000001000-7f0000003000 r--p 00000000 fd:01 99 /usr/lib/libc.so.6";
        assert!(!line_describes(other, 0x7f0000001010, &mut Message::default()), "not a segment");
    }

    #[test]
    fn an_address_of_no_segment_is_not_described() {
        let on_stack = 0u64;
        assert!(!describe(&on_stack as *const u64 as usize, &mut Message::default()));
    }
}
