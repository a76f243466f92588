//! The control connection between the two ends of a transfer: JSON messages,
//! each preceded by its length, and the data sockets passed along as file
//! descriptors (`SCM_RIGHTS`).
//!
//! ```text
//! exporter                                 importer
//!    Hello (schema, workers, offer) ──▶ ◀── Hello (workers, wants)
//!                                      ◀── Take (segments) | Stream
//!  Take:   (importer links the offered segment files)
//!                                      ◀── Done (rows)           | Abort (why)
//!  Stream: Sockets (n) + n descriptors ──▶
//!          n Arrow IPC streams, one per socket, in parallel ══▶
//!          Sent (rows, checksums per stream) ──▶
//!                                      ◀── Done (rows)           | Abort (why)
//!  Either side may send Abort (why) instead of its next message.
//! ```

use super::link::{is_stopped, Link};
use super::url::Compression;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use swingdb_storage::error::{Error, ErrorKind};
use swingdb_storage::SegmentMeta;

/// The version of this protocol; both ends must speak the same.
pub const PROTOCOL: u32 = 1;

/// Largest control message accepted (an offer of many segments is the largest).
const MAX_MESSAGE: usize = 256 << 20;

/// The stored segments an exporter offers instead of streaming their rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Offer {
    /// The exporter's `segments/` directory.
    pub dir: PathBuf,
    /// The segments, in table order (file names inside `dir`).
    pub segments: Vec<SegmentMeta>,
}

/// What each side says first.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    /// [`PROTOCOL`].
    pub protocol: u32,
    /// The sender's process id.
    pub pid: u32,
    /// Streams this side asks for.
    pub workers: usize,
    /// Compression this side asks for.
    pub compression: Option<Compression>,
    /// Whether this side asks for checksums.
    pub verify: bool,
    /// The exporter's schema (an Arrow IPC stream with no batches).
    #[serde(default)]
    pub schema: Vec<u8>,
    /// Stored segments the exporter can hand over as files.
    #[serde(default)]
    pub offer: Option<Offer>,
}

/// One control message.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// The first message of each side.
    Hello(Hello),
    /// Importer: send the rows as streams.
    Stream,
    /// Importer: I take the offered segment files.
    Take,
    /// Exporter: `count` data sockets follow as descriptors.
    Sockets { count: usize },
    /// Exporter: every stream is written; rows and (with verify) CRC-32 of each stream's bytes.
    Sent { rows: Vec<u64>, crc32: Vec<u32> },
    /// Importer: everything arrived (and matched); the transfer succeeded.
    Done { rows: u64 },
    /// Either side gives up, saying why.
    Abort { message: String },
}

/// Writes `message` to `stream`.
pub fn send(stream: &mut impl Write, message: &Message) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
    frame.extend_from_slice(&body);
    stream.write_all(&frame)
}

/// Reads the next message from `stream`; an end of the connection is an
/// `UnexpectedEof` error. Reads exactly the message's bytes, never more (a
/// descriptor-carrying byte may follow).
pub fn receive(stream: &mut impl Read) -> io::Result<Message> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_MESSAGE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a control message of {len} bytes is too large"),
        ));
    }
    // Memory grows with the bytes that arrive, not with what the length
    // claims: a partner announcing a large frame and sending nothing more
    // costs nothing until its bytes come (and the read times out if they
    // do not, see [`Link`]).
    let mut body = Vec::new();
    stream.by_ref().take(len as u64).read_to_end(&mut body)?;
    if body.len() < len {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection ended inside a control message"));
    }
    serde_json::from_slice(&body).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A control buffer with room for `count` descriptors.
fn control_buffer(count: usize) -> Vec<u8> {
    // SAFETY: CMSG_SPACE is a pure size computation.
    vec![0u8; unsafe { libc::CMSG_SPACE((count * std::mem::size_of::<RawFd>()) as u32) } as usize]
}

/// A message header of one byte of data (`iov`) and the control buffer
/// `control`; both must outlive every use of the header.
fn message_header(iov: &mut libc::iovec, control: &mut [u8]) -> libc::msghdr {
    // SAFETY: msghdr is plain data; the pointers set here are the caller's buffers.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = control.len() as _;
    msg
}

/// Sends `fds` along `link` with one byte of data.
pub fn send_fds(link: &Link, fds: &[RawFd]) -> io::Result<()> {
    link.wait(|stream| send_fds_once(stream, fds))
}

fn send_fds_once(stream: &UnixStream, fds: &[RawFd]) -> io::Result<()> {
    let payload = [0u8; 1];
    let mut iov = libc::iovec { iov_base: payload.as_ptr() as *mut libc::c_void, iov_len: 1 };
    let data_len = std::mem::size_of_val(fds) as u32;
    let mut control = control_buffer(fds.len());
    let msg = message_header(&mut iov, &mut control);
    // SAFETY: the control buffer has room for one header with `fds` as data.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(data_len) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, fds.len());
    }
    loop {
        // SAFETY: msg is fully initialised.
        let rc = unsafe { libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if rc == 1 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if rc < 0 && e.kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return Err(if rc < 0 { e } else { io::Error::other("descriptors were not sent") });
    }
}

/// Receives exactly `count` descriptors sent with [`send_fds`].
pub fn receive_fds(link: &Link, count: usize) -> io::Result<Vec<OwnedFd>> {
    link.wait(|stream| receive_fds_once(stream, count))
}

fn receive_fds_once(stream: &UnixStream, count: usize) -> io::Result<Vec<OwnedFd>> {
    let mut payload = [0u8; 1];
    let mut iov = libc::iovec { iov_base: payload.as_mut_ptr() as *mut libc::c_void, iov_len: 1 };
    let mut control = control_buffer(count);
    let mut msg = message_header(&mut iov, &mut control);
    let rc = loop {
        // SAFETY: msg points at live buffers; MSG_CMSG_CLOEXEC keeps the descriptors from leaking into children.
        let rc = unsafe { libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if rc < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        break rc;
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    if rc == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the connection ended before the data sockets arrived",
        ));
    }
    let mut fds = Vec::new();
    // SAFETY: walking the control messages the kernel filled in.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let n = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<RawFd>();
                let data = libc::CMSG_DATA(cmsg) as *const RawFd;
                for i in 0..n {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 || fds.len() != count {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("expected {count} data sockets, got {}", fds.len()),
        ));
    }
    Ok(fds)
}

/// Maps an I/O failure on the control connection of pipe `name` to an error
/// that says what the partner did (or that the user stopped the wait).
pub fn lost(name: &str, partner: &str, e: io::Error) -> Error {
    let nothing = if partner == "exporter" { "; nothing was imported" } else { "" };
    if is_stopped(&e) {
        return Error::new(
            ErrorKind::Interrupted,
            format!("pipe '{name}': interrupted while waiting for the {partner}{nothing}"),
        );
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof | io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => Error::operational(format!(
            "pipe '{name}': the {partner} went away before the transfer finished (it failed, was cancelled or was killed){nothing}"
        )),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Error::operational(format!(
            "pipe '{name}': the {partner} was silent for longer than the pipe's timeout (stopped or hung?){nothing}; \
             raise ?timeout= (seconds, or none) if it is only slow"
        )),
        _ => Error::io(format!("pipe '{name}'"), e),
    }
}
