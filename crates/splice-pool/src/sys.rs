//! The syscall layer: every system call the crate makes goes through here, as thin wrappers
//! over `nix` that return the raw `Errno` so callers can tell `EAGAIN`, `EINTR`, `EINVAL` and
//! friends apart. This is the only module with `unsafe` (one `ioctl`).

use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, SpliceFFlags};
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::stat::SFlag;

/// A fresh pipe, `(read end, write end)`, both `O_CLOEXEC | O_NONBLOCK`.
pub(crate) fn pipe() -> Result<(OwnedFd, OwnedFd), Errno> {
    nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)
}

/// `F_SETPIPE_SZ`; the kernel rounds up to a power-of-two number of pages and returns the
/// size it set. Fails with `EPERM` over `/proc/sys/fs/pipe-max-size` for an unprivileged
/// process and with `EPERM`/`EBUSY`/`ENOMEM` over the per-user quota.
pub(crate) fn set_pipe_size(fd: BorrowedFd<'_>, size: usize) -> Result<usize, Errno> {
    let size = i32::try_from(size).map_err(|_| Errno::EINVAL)?;
    nix::fcntl::fcntl(fd, FcntlArg::F_SETPIPE_SZ(size)).map(|n| n as usize)
}

/// `F_GETPIPE_SZ`: the pipe's capacity in bytes.
pub(crate) fn pipe_size(fd: BorrowedFd<'_>) -> Result<usize, Errno> {
    nix::fcntl::fcntl(fd, FcntlArg::F_GETPIPE_SZ).map(|n| n as usize)
}

/// `ioctl(FIONREAD)`: the number of bytes a pipe (or socket) holds unread.
pub(crate) fn bytes_readable(fd: BorrowedFd<'_>) -> Result<usize, Errno> {
    let mut n: nix::libc::c_int = 0;
    // SAFETY: FIONREAD writes one `int` through the pointer, which points at `n`, a live,
    // aligned `c_int` on our stack; the descriptor is borrowed, so it is open for the call.
    let ret = unsafe {
        nix::libc::ioctl(fd.as_raw_fd(), nix::libc::FIONREAD as _, &mut n as *mut nix::libc::c_int)
    };
    Errno::result(ret).map(|_| usize::try_from(n).unwrap_or(0))
}

/// `splice(2)` between `from` and `to` (one must be a pipe) at the descriptors' own file
/// positions, with `SPLICE_F_MOVE | SPLICE_F_NONBLOCK`, plus `SPLICE_F_MORE` when `more`.
pub(crate) fn splice(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    len: usize,
    more: bool,
) -> Result<usize, Errno> {
    let mut flags = SpliceFFlags::SPLICE_F_MOVE | SpliceFFlags::SPLICE_F_NONBLOCK;
    if more {
        flags |= SpliceFFlags::SPLICE_F_MORE;
    }
    nix::fcntl::splice(from, None, to, None, len, flags)
}

/// `sendfile(2)` from `from`'s file position to `to`.
pub(crate) fn sendfile(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    len: usize,
) -> Result<usize, Errno> {
    nix::sys::sendfile::sendfile(to, from, None, len)
}

/// `copy_file_range(2)` at both descriptors' file positions.
pub(crate) fn copy_file_range(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    len: usize,
) -> Result<usize, Errno> {
    nix::fcntl::copy_file_range(from, None, to, None, len)
}

/// `read(2)`.
pub(crate) fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> Result<usize, Errno> {
    nix::unistd::read(fd, buf)
}

/// `write(2)`.
pub(crate) fn write(fd: BorrowedFd<'_>, buf: &[u8]) -> Result<usize, Errno> {
    nix::unistd::write(fd, buf)
}

/// What a descriptor refers to, as far as choosing a copy path goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FdKind {
    /// A regular file or block device: `sendfile`/`copy_file_range` can read it.
    File,
    /// A pipe or FIFO: `splice` can use it directly, no pipe in the middle.
    Pipe,
    /// A socket.
    Socket,
    /// A character device or anything else.
    Other,
}

/// `fstat(2)` reduced to an [`FdKind`].
pub(crate) fn kind(fd: BorrowedFd<'_>) -> Result<FdKind, Errno> {
    let st = nix::sys::stat::fstat(fd)?;
    let fmt = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
    Ok(if fmt == SFlag::S_IFREG || fmt == SFlag::S_IFBLK {
        FdKind::File
    } else if fmt == SFlag::S_IFIFO {
        FdKind::Pipe
    } else if fmt == SFlag::S_IFSOCK {
        FdKind::Socket
    } else {
        FdKind::Other
    })
}

/// Whether `O_NONBLOCK` is set on the open file description.
pub(crate) fn is_nonblocking(fd: BorrowedFd<'_>) -> Result<bool, Errno> {
    let flags = nix::fcntl::fcntl(fd, FcntlArg::F_GETFL)?;
    Ok(OFlag::from_bits_truncate(flags).contains(OFlag::O_NONBLOCK))
}

/// Sets or clears `O_NONBLOCK`.
pub(crate) fn set_nonblocking(fd: BorrowedFd<'_>, on: bool) -> Result<(), Errno> {
    let mut flags = OFlag::from_bits_truncate(nix::fcntl::fcntl(fd, FcntlArg::F_GETFL)?);
    flags.set(OFlag::O_NONBLOCK, on);
    nix::fcntl::fcntl(fd, FcntlArg::F_SETFL(flags)).map(|_| ())
}

/// `shutdown(fd, SHUT_WR)`; not a socket (`ENOTSOCK`) and not connected (`ENOTCONN`) are fine.
pub(crate) fn shutdown_write(fd: BorrowedFd<'_>) -> Result<(), Errno> {
    match nix::sys::socket::shutdown(fd.as_raw_fd(), nix::sys::socket::Shutdown::Write) {
        Ok(()) | Err(Errno::ENOTSOCK | Errno::ENOTCONN) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Readiness a copy loop waits for on one descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    /// `POLLIN`.
    Read,
    /// `POLLOUT`.
    Write,
}

/// Blocks in `poll(2)` until one of `fds` is ready as wanted (or has an error/hang-up, which
/// the retried call then reports). `EINTR` is returned to the caller, who retries.
pub(crate) fn wait(fds: &[(BorrowedFd<'_>, Want)]) -> Result<(), Errno> {
    let mut pfds: Vec<PollFd<'_>> = fds
        .iter()
        .map(|&(fd, want)| {
            let ev = match want {
                Want::Read => PollFlags::POLLIN,
                Want::Write => PollFlags::POLLOUT,
            };
            PollFd::new(fd, ev)
        })
        .collect();
    nix::poll::poll(&mut pfds, PollTimeout::NONE).map(|_| ())
}

/// `CLOCK_MONOTONIC_COARSE` in milliseconds: a vDSO read of the last tick, a few ns, which is
/// all idle release needs (its resolution is one scheduler tick, 1–10 ms).
pub(crate) fn coarse_now_ms() -> u64 {
    match nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC_COARSE) {
        Ok(ts) => (ts.tv_sec() as u64)
            .saturating_mul(1000)
            .saturating_add(ts.tv_nsec() as u64 / 1_000_000),
        Err(_) => 0,
    }
}
