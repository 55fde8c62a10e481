//! The syscall layer: everything above it sees `OwnedFd`s, slices and `io::Result`s.
//!
//! nix makes the calls (`AlgAddr`, the `ALG_SET_*` socket options and control messages,
//! `send`, `read`, `readv`, `splice`, `vmsplice`, `sendfile`, pipes). The crate's one
//! `unsafe` block is where nix stops: taking ownership of the descriptor `accept4` returns
//! (nix 0.30 gives a `RawFd`). nix has no `MSG_MORE` flag: libc's value goes through
//! `MsgFlags::from_bits_retain`.

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, SpliceFFlags};
use nix::sys::socket::{self, AlgAddr, ControlMessage, MsgFlags, SockFlag, sockopt};

/// `ALG_OP_ENCRYPT` / `ALG_OP_DECRYPT` (linux/if_alg.h).
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Encrypt,
    Decrypt,
}

/// Retries `f` while it fails with `EINTR`; nix's `Errno` becomes an `io::Error`.
fn retry<T>(mut f: impl FnMut() -> nix::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(Errno::EINTR) => continue,
            other => return other.map_err(io::Error::from),
        }
    }
}

/// `socket(AF_ALG, SOCK_SEQPACKET)` bound to `(kind, name)`: the transform socket.
pub fn bind(kind: &str, name: &str) -> io::Result<OwnedFd> {
    // Both fields of sockaddr_alg are NUL-terminated C strings in fixed arrays
    // (linux/if_alg.h: 14 and 64 bytes); nix's `AlgAddr::new` would panic on longer ones.
    const TYPE_LEN: usize = 14;
    const NAME_LEN: usize = 64;
    if kind.len() >= TYPE_LEN || name.len() >= NAME_LEN || name.contains('\0') {
        return Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG));
    }
    let fd = socket::socket(
        socket::AddressFamily::Alg,
        socket::SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC,
        None,
    )?;
    socket::bind(fd.as_raw_fd(), &AlgAddr::new(kind, name))?;
    Ok(fd)
}

/// `setsockopt(SOL_ALG, ALG_SET_KEY)` on a transform socket (also seeds an rng).
pub fn set_key(tfm: BorrowedFd<'_>, key: &[u8]) -> io::Result<()> {
    socket::setsockopt(&tfm, sockopt::AlgSetKey::default(), &key)?;
    Ok(())
}

/// `setsockopt(SOL_ALG, ALG_SET_AEAD_AUTHSIZE)`: the tag length is the option's length.
pub fn set_authsize(tfm: BorrowedFd<'_>, tag_len: usize) -> io::Result<()> {
    socket::setsockopt(&tfm, sockopt::AlgSetAeadAuthSize, &tag_len)?;
    Ok(())
}

/// `accept` on a transform socket (a new operation socket sharing the transform and its key)
/// or on an operation socket (the same, starting from a copy of its state: algif_hash).
pub fn accept(sock: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let fd = retry(|| socket::accept4(sock.as_raw_fd(), SockFlag::SOCK_CLOEXEC))?;
    // SAFETY: `fd` was just returned by accept4 and is owned by nothing else (nix returns
    // it as a `RawFd`).
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `getsockopt(SOL_SOCKET, SO_SNDBUF)`.
pub fn send_buffer(fd: BorrowedFd<'_>) -> io::Result<usize> {
    Ok(socket::getsockopt(&fd, sockopt::SndBuf)?)
}

/// Control data for one `sendmsg` on an operation socket.
#[derive(Default)]
pub struct Control<'a> {
    pub op: Option<Op>,
    pub iv: Option<&'a [u8]>,
    pub assoclen: Option<u32>,
}

/// `MSG_MORE` or nothing (nix's `MsgFlags` does not name `MSG_MORE`: libc's value).
fn flags(more: bool) -> MsgFlags {
    if more { MsgFlags::from_bits_retain(libc::MSG_MORE) } else { MsgFlags::empty() }
}

/// `sendmsg` of `data` with `ctrl`; `more` sets `MSG_MORE`. Returns the bytes the kernel took.
pub fn sendmsg(
    fd: BorrowedFd<'_>,
    ctrl: &Control<'_>,
    data: &[&[u8]],
    more: bool,
) -> io::Result<usize> {
    let op = ctrl.op.map(|op| match op {
        Op::Encrypt => libc::ALG_OP_ENCRYPT,
        Op::Decrypt => libc::ALG_OP_DECRYPT,
    });
    // Fixed arrays, not Vecs: this runs on every operation (nix allocates the encoded
    // control buffer itself, a few dozen bytes).
    let filler = 0;
    let mut cmsgs = [ControlMessage::AlgSetOp(&filler); 3];
    let mut n = 0;
    if let Some(op) = &op {
        cmsgs[n] = ControlMessage::AlgSetOp(op);
        n += 1;
    }
    if let Some(iv) = ctrl.iv {
        cmsgs[n] = ControlMessage::AlgSetIv(iv);
        n += 1;
    }
    if let Some(len) = &ctrl.assoclen {
        cmsgs[n] = ControlMessage::AlgSetAeadAssoclen(len);
        n += 1;
    }
    let mut iov = [IoSlice::new(&[]); 2];
    if data.len() > iov.len() {
        return Err(io::Error::from(Errno::EINVAL));
    }
    for (v, d) in iov.iter_mut().zip(data) {
        *v = IoSlice::new(d);
    }
    let (cmsgs, iov) = (&cmsgs[..n], &iov[..data.len()]);
    retry(|| socket::sendmsg::<()>(fd.as_raw_fd(), iov, cmsgs, flags(more), None))
}

/// `send` of `data` with no control message: the kernel's shorter path for the data-only
/// sends of hashes and of later cipher rounds (no `msghdr`/iovec array to copy in).
pub fn send(fd: BorrowedFd<'_>, data: &[u8], more: bool) -> io::Result<usize> {
    retry(|| socket::send(fd.as_raw_fd(), data, flags(more)))
}

/// One `read` into `buf`.
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    retry(|| nix::unistd::read(fd, buf))
}

/// `readv` into several buffers in order.
pub fn readv(fd: BorrowedFd<'_>, bufs: &mut [&mut [u8]]) -> io::Result<usize> {
    let mut iov: Vec<IoSliceMut<'_>> = bufs.iter_mut().map(|b| IoSliceMut::new(b)).collect();
    retry(|| nix::sys::uio::readv(fd, &mut iov))
}

/// `pipe2(O_CLOEXEC)`: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(nix::unistd::pipe2(OFlag::O_CLOEXEC)?)
}

/// `fcntl(F_SETPIPE_SZ)`: returns the pipe's new capacity.
pub fn set_pipe_size(fd: BorrowedFd<'_>, size: usize) -> io::Result<usize> {
    let size = libc::c_int::try_from(size).map_err(|_| io::Error::from(Errno::EINVAL))?;
    Ok(nix::fcntl::fcntl(fd, FcntlArg::F_SETPIPE_SZ(size))?.max(0) as usize)
}

/// `vmsplice` of `data` into the pipe's write end: the pipe references the caller's pages.
///
/// The kernel keeps references to the pages of `data` until they leave the pipe, so the caller
/// must drain the pipe (splice it to its destination) before `data` can change, or the pipe
/// delivers the changed bytes. Every caller drains the pipe before returning, and drops the
/// pipe on an error. (No memory safety is at stake, the pages stay pinned, hence a safe
/// function, as nix's is.)
pub fn vmsplice(pipe_w: BorrowedFd<'_>, data: &[u8]) -> io::Result<usize> {
    retry(|| nix::fcntl::vmsplice(pipe_w, &[IoSlice::new(data)], SpliceFFlags::empty()))
}

/// `splice` of up to `len` bytes from `from` to `to`; `more` sets `SPLICE_F_MORE`.
pub fn splice(
    from: BorrowedFd<'_>,
    mut offset: Option<&mut i64>,
    to: BorrowedFd<'_>,
    len: usize,
    more: bool,
) -> io::Result<usize> {
    let flags = if more { SpliceFFlags::SPLICE_F_MORE } else { SpliceFFlags::empty() };
    retry(|| nix::fcntl::splice(from, offset.as_deref_mut(), to, None, len, flags))
}

/// `sendfile` of up to `len` bytes of `file` from `*offset` to the socket; advances `*offset`.
pub fn sendfile(
    sock: BorrowedFd<'_>,
    file: BorrowedFd<'_>,
    offset: &mut i64,
    len: usize,
) -> io::Result<usize> {
    let mut off = libc::off_t::try_from(*offset).map_err(|_| io::Error::from(Errno::EOVERFLOW))?;
    let n = retry(|| nix::sys::sendfile::sendfile(sock, file, Some(&mut off), len))?;
    #[allow(clippy::useless_conversion)] // off_t is 32-bit on 32-bit targets.
    {
        *offset = i64::from(off);
    }
    Ok(n)
}

/// The page size (`sysconf(_SC_PAGESIZE)`), 4096 if unknown.
pub fn page_size() -> usize {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE) {
        Ok(Some(n)) if n > 0 => n as usize,
        _ => 4096,
    }
}
