//! Blocking copy loops: `copy_file_range`, `sendfile`, `splice` (direct, or through a pooled
//! pipe) and a read/write fallback, with `EINTR`/`EAGAIN` handling and in-flight accounting.

use std::cell::RefCell;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};

use crate::pool::{PipePool, PooledPipe};
use crate::sys::{self, FdKind, Want};

/// Largest request passed to one `splice`/`sendfile`/`copy_file_range` call: the kernel caps
/// a single transfer at `MAX_RW_COUNT` (`INT_MAX` rounded down to a page), 0x7fff_f000.
const MAX_CHUNK: usize = 0x7fff_f000;

/// Size of the read/write fallback's buffer (the same 64 KiB as `std::io::copy` on Linux
/// and the benches' read/write baseline).
const FALLBACK_BUF: usize = 64 * 1024;

/// The kernel path a copy took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CopyPath {
    /// `copy_file_range`, file to file (reflink or in-kernel copy).
    CopyFileRange,
    /// `sendfile`, file to socket.
    Sendfile,
    /// `splice` straight between the descriptors (one of them is a pipe).
    SpliceDirect,
    /// `splice` in and out of a pipe from the pool.
    SplicePipe,
    /// `read`/`write` with a reused buffer (the kernel refused the zero-copy calls).
    ReadWrite,
}

impl CopyPath {
    /// A short name: `copy_file_range`, `sendfile`, `splice`, `splice-pipe`, `read-write`.
    pub fn name(self) -> &'static str {
        match self {
            CopyPath::CopyFileRange => "copy_file_range",
            CopyPath::Sendfile => "sendfile",
            CopyPath::SpliceDirect => "splice",
            CopyPath::SplicePipe => "splice-pipe",
            CopyPath::ReadWrite => "read-write",
        }
    }
}

impl fmt::Display for CopyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a successful copy did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyReport {
    /// Bytes written to the destination.
    pub bytes: u64,
    /// The path that moved the last bytes (the first path tried when nothing was moved):
    /// a fallback after a kernel refusal shows here as [`CopyPath::ReadWrite`].
    pub path: CopyPath,
    /// System calls interrupted by a signal (`EINTR`) and retried.
    pub interrupted: u64,
    /// Times the copy waited in `poll` for a non-blocking descriptor (`EAGAIN`).
    pub waits: u64,
}

/// The error of a copy that failed part-way: how far it got and what was lost.
///
/// Copy functions return it inside an [`io::Error`] of the same kind as the cause; get it
/// back with [`CopyError::of`].
#[derive(Debug)]
#[non_exhaustive]
pub struct CopyError {
    /// Bytes written to the destination before the failure.
    pub copied: u64,
    /// Bytes read from the source that never reached the destination: they were in the
    /// pipe when the destination failed, and went with it (the pipe was closed, not pooled).
    pub lost_in_flight: u64,
    /// The path in use when it failed.
    pub path: CopyPath,
    /// The failing call's error.
    pub source: io::Error,
}

impl CopyError {
    /// The [`CopyError`] inside an error returned by this crate's copy functions.
    pub fn of(e: &io::Error) -> Option<&CopyError> {
        e.get_ref().and_then(|e| e.downcast_ref::<CopyError>())
    }

    fn into_io(self) -> io::Error {
        io::Error::new(self.source.kind(), self)
    }
}

impl fmt::Display for CopyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} copy failed after {} bytes", self.path, self.copied)?;
        if self.lost_in_flight > 0 {
            write!(f, " ({} bytes read but lost in flight)", self.lost_in_flight)?;
        }
        write!(f, ": {}", self.source)
    }
}

impl std::error::Error for CopyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// How one path ended.
enum Fail {
    /// The kernel refused this path with nothing in flight: try the next one.
    Unsupported,
    /// A real error.
    Io { errno: Errno, lost: u64 },
}

/// Errors that mean "this kernel/fs/fd type cannot do that call", not "the copy failed".
fn is_unsupported(e: Errno) -> bool {
    matches!(e, Errno::EINVAL | Errno::ENOSYS | Errno::EXDEV | Errno::EOPNOTSUPP | Errno::EBADF)
}

/// Progress shared by the paths of one copy.
struct Copy<'a> {
    from: BorrowedFd<'a>,
    to: BorrowedFd<'a>,
    remaining: Option<u64>,
    copied: u64,
    interrupted: u64,
    waits: u64,
}

impl Copy<'_> {
    fn chunk(&self, cap: usize) -> usize {
        match self.remaining {
            Some(r) => usize::try_from(r).unwrap_or(usize::MAX).min(cap),
            None => cap,
        }
    }

    fn done(&self) -> bool {
        self.remaining == Some(0)
    }

    fn advance(&mut self, n: usize) {
        self.copied += n as u64;
        if let Some(r) = &mut self.remaining {
            *r -= n as u64;
        }
    }

    /// Runs `call` until it neither is interrupted nor would block, waiting in `poll` for
    /// `want` on `fd` when it would.
    fn retry(
        &mut self,
        fd: BorrowedFd<'_>,
        want: Want,
        mut call: impl FnMut() -> Result<usize, Errno>,
    ) -> Result<usize, Errno> {
        loop {
            match call() {
                Err(Errno::EINTR) => self.interrupted += 1,
                Err(Errno::EAGAIN) => self.wait(&[(fd, want)])?,
                r => return r,
            }
        }
    }

    fn wait(&mut self, fds: &[(BorrowedFd<'_>, Want)]) -> Result<(), Errno> {
        self.waits += 1;
        match sys::wait(fds) {
            Err(Errno::EINTR) => {
                self.interrupted += 1;
                Ok(())
            }
            r => r,
        }
    }

    /// `EAGAIN` from a direct splice: the source is empty or the destination is full. Look
    /// (without blocking) which one, and block on that one only, so a ready side never turns
    /// the wait into a busy loop.
    fn wait_either(&mut self) -> Result<(), Errno> {
        let mut fds =
            [PollFd::new(self.from, PollFlags::POLLIN), PollFd::new(self.to, PollFlags::POLLOUT)];
        match nix::poll::poll(&mut fds, PollTimeout::ZERO) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => return Err(e),
        }
        let ready = |p: &PollFd<'_>| p.revents().is_some_and(|r| !r.is_empty());
        let (from_ready, to_ready) = (ready(&fds[0]), ready(&fds[1]));
        let (from, to) = (self.from, self.to);
        if !from_ready {
            self.wait(&[(from, Want::Read)])
        } else if !to_ready {
            self.wait(&[(to, Want::Write)])
        } else {
            // Both look ready yet the call would block (a pipe with free bytes but no free
            // slot): wait for either with a short timeout rather than spin.
            self.waits += 1;
            let mut fds =
                [PollFd::new(from, PollFlags::POLLIN), PollFd::new(to, PollFlags::POLLOUT)];
            let _ = nix::poll::poll(&mut fds, PollTimeout::from(1u8));
            Ok(())
        }
    }

    fn error(&self, path: CopyPath, errno: Errno, lost: u64) -> io::Error {
        CopyError {
            copied: self.copied,
            lost_in_flight: lost,
            path,
            source: io::Error::from(errno),
        }
        .into_io()
    }

    fn report(&self, path: CopyPath) -> CopyReport {
        CopyReport { bytes: self.copied, path, interrupted: self.interrupted, waits: self.waits }
    }

    /// `copy_file_range` or `sendfile` (`call`) until EOF/`remaining`. A first call that
    /// returns 0 (procfs and sysfs files report size 0 and "copy" nothing) is treated as
    /// unsupported, so the next path confirms the EOF.
    fn file_source(
        &mut self,
        call: fn(BorrowedFd<'_>, BorrowedFd<'_>, usize) -> Result<usize, Errno>,
    ) -> Result<(), Fail> {
        let mut first = true;
        while !self.done() {
            let (from, to, len) = (self.from, self.to, self.chunk(MAX_CHUNK));
            match self.retry(to, Want::Write, || call(from, to, len)) {
                Ok(0) if first => return Err(Fail::Unsupported),
                Ok(0) => return Ok(()),
                Ok(n) => self.advance(n),
                Err(e) if is_unsupported(e) => return Err(Fail::Unsupported),
                Err(errno) => return Err(Fail::Io { errno, lost: 0 }),
            }
            first = false;
        }
        Ok(())
    }

    /// `splice` straight from `from` to `to` (one of them a pipe).
    fn splice_direct(&mut self) -> Result<(), Fail> {
        while !self.done() {
            let len = self.chunk(MAX_CHUNK);
            match sys::splice(self.from, self.to, len, false) {
                Ok(0) => return Ok(()),
                Ok(n) => self.advance(n),
                Err(Errno::EINTR) => self.interrupted += 1,
                Err(Errno::EAGAIN) => {
                    self.wait_either().map_err(|errno| Fail::Io { errno, lost: 0 })?
                }
                Err(e) if is_unsupported(e) => return Err(Fail::Unsupported),
                Err(errno) => return Err(Fail::Io { errno, lost: 0 }),
            }
        }
        Ok(())
    }

    /// `splice` from `from` into an empty pooled pipe, then from the pipe to `to` until it
    /// is empty again. The pipe is always empty when we splice into it, so `EAGAIN` there
    /// means "source empty", never "pipe full"; `EAGAIN` while draining means
    /// "destination full". On a destination error the bytes in the pipe are reported lost
    /// and the pipe, not empty, is closed by its drop instead of going back to the pool.
    fn splice_pipe(&mut self, pipe: &mut PooledPipe<'_>) -> Result<(), Fail> {
        let cap = pipe.capacity().max(4096);
        let (r, w) = (pipe.pipe().read.as_fd(), pipe.pipe().write.as_fd());
        while !self.done() {
            let (from, len) = (self.from, self.chunk(cap));
            let mut held = match self.retry(from, Want::Read, || sys::splice(from, w, len, false)) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if is_unsupported(e) => return Err(Fail::Unsupported),
                Err(errno) => return Err(Fail::Io { errno, lost: 0 }),
            };
            while held > 0 {
                let to = self.to;
                // SPLICE_F_MORE (MSG_MORE: hold a partial TCP segment) only when the caller
                // promised more bytes; with no length, the next bytes may be a long way off
                // and a request/response peer would wait for the held segment.
                let more = self.remaining.is_some_and(|rem| rem > held as u64);
                match self.retry(to, Want::Write, || sys::splice(r, to, held, more)) {
                    Ok(0) => {
                        pipe.set_tracked_len(held);
                        return Err(Fail::Io { errno: Errno::EPIPE, lost: held as u64 });
                    }
                    Ok(m) => {
                        held -= m;
                        self.advance(m);
                    }
                    Err(e) if is_unsupported(e) => {
                        // The destination takes no splice: hand the pipe's bytes over with
                        // read/write, then let the caller continue on the fallback path.
                        pipe.set_tracked_len(held);
                        return self.drain_by_write(pipe).and(Err(Fail::Unsupported));
                    }
                    Err(errno) => {
                        // Left in the pipe: its drop closes it instead of pooling it.
                        pipe.set_tracked_len(held);
                        return Err(Fail::Io { errno, lost: held as u64 });
                    }
                }
            }
        }
        Ok(())
    }

    fn drain_by_write(&mut self, pipe: &mut PooledPipe<'_>) -> Result<(), Fail> {
        let r = pipe.pipe().read.as_fd();
        let mut buf = vec![0u8; pipe.tracked_len()];
        let mut have = 0;
        while have < buf.len() {
            match sys::read(r, &mut buf[have..]) {
                Ok(0) => break,
                Ok(n) => have += n,
                Err(Errno::EINTR) => {}
                Err(errno) => return Err(Fail::Io { errno, lost: pipe.tracked_len() as u64 }),
            }
        }
        pipe.set_tracked_len(0);
        self.write_all(&buf[..have])
    }

    fn write_all(&mut self, mut buf: &[u8]) -> Result<(), Fail> {
        while !buf.is_empty() {
            let to = self.to;
            match self.retry(to, Want::Write, || sys::write(to, buf)) {
                Ok(0) => return Err(Fail::Io { errno: Errno::EPIPE, lost: buf.len() as u64 }),
                Ok(n) => {
                    buf = &buf[n..];
                    self.advance(n);
                }
                Err(errno) => return Err(Fail::Io { errno, lost: buf.len() as u64 }),
            }
        }
        Ok(())
    }

    /// `read`/`write` with this thread's reused 64 KiB buffer.
    fn read_write(&mut self) -> Result<(), Fail> {
        thread_local! {
            static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        let mut own = Vec::new();
        let run = |this: &mut Self, buf: &mut Vec<u8>| -> Result<(), Fail> {
            buf.resize(FALLBACK_BUF, 0);
            while !this.done() {
                let (from, len) = (this.from, this.chunk(FALLBACK_BUF));
                let n = match this.retry(from, Want::Read, || sys::read(from, &mut buf[..len])) {
                    Ok(0) => return Ok(()),
                    Ok(n) => n,
                    Err(errno) => return Err(Fail::Io { errno, lost: 0 }),
                };
                this.write_all(&buf[..n])?;
            }
            Ok(())
        };
        BUF.try_with(|b| match b.try_borrow_mut() {
            Ok(mut b) => run(self, &mut b),
            Err(_) => run(self, &mut own),
        })
        .unwrap_or_else(|_| run(self, &mut Vec::new()))
    }
}

/// The paths to try, cheapest first, for a pair of descriptor kinds.
fn plan(from: FdKind, to: FdKind) -> &'static [CopyPath] {
    use CopyPath::*;
    match (from, to) {
        (FdKind::File, FdKind::File) => &[CopyFileRange, ReadWrite],
        (FdKind::File, FdKind::Socket) => &[Sendfile, SplicePipe, ReadWrite],
        (FdKind::Pipe, _) | (_, FdKind::Pipe) => &[SpliceDirect, ReadWrite],
        _ => &[SplicePipe, ReadWrite],
    }
}

pub(crate) fn copy_fds(
    pool: &PipePool,
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    len: Option<u64>,
) -> io::Result<CopyReport> {
    let mut c = Copy { from, to, remaining: len, copied: 0, interrupted: 0, waits: 0 };
    let kinds = sys::kind(from).and_then(|f| Ok((f, sys::kind(to)?)));
    let steps = match kinds {
        Ok((f, t)) => plan(f, t),
        Err(e) => return Err(c.error(CopyPath::ReadWrite, e, 0)),
    };
    let mut last = steps[0];
    for &path in steps {
        last = path;
        let result = match path {
            CopyPath::CopyFileRange => c.file_source(sys::copy_file_range),
            CopyPath::Sendfile => c.file_source(sys::sendfile),
            CopyPath::SpliceDirect => c.splice_direct(),
            // No pipe to be had (fd exhaustion even after the pool shrank): read/write
            // needs no descriptor.
            CopyPath::SplicePipe => match pool.get() {
                Ok(mut pipe) => c.splice_pipe(&mut pipe),
                Err(_) => Err(Fail::Unsupported),
            },
            CopyPath::ReadWrite => c.read_write(),
        };
        match result {
            Ok(()) => return Ok(c.report(path)),
            Err(Fail::Unsupported) if path != CopyPath::ReadWrite => continue,
            Err(Fail::Unsupported) => return Err(c.error(path, Errno::EINVAL, 0)),
            Err(Fail::Io { errno, lost }) => return Err(c.error(path, errno, lost)),
        }
    }
    Ok(c.report(last))
}

/// One direction of a bidirectional copy: a pipe (or a buffer after a splice refusal) and
/// how much it holds.
struct Direction<'p, 'fd> {
    from: BorrowedFd<'fd>,
    to: BorrowedFd<'fd>,
    pipe: Option<PooledPipe<'p>>,
    buf: Vec<u8>,
    buf_start: usize,
    buf_end: usize,
    copied: u64,
    eof: bool,
    done: bool,
}

/// What a direction waits for when it cannot move.
type Interest<'fd> = Option<(BorrowedFd<'fd>, Want)>;

impl<'fd> Direction<'_, 'fd> {
    fn held(&self) -> usize {
        match &self.pipe {
            Some(p) => p.tracked_len(),
            None => self.buf_end - self.buf_start,
        }
    }

    /// Moves what it can without blocking. Returns whether anything moved and, if it is
    /// stuck, what it waits for.
    fn step(&mut self) -> Result<(bool, Interest<'fd>), (Errno, u64)> {
        let mut progress = false;
        loop {
            if self.done {
                return Ok((progress, None));
            }
            if self.held() > 0 {
                match self.drain() {
                    Ok(n) => {
                        self.copied += n as u64;
                        progress = true;
                    }
                    Err(Errno::EINTR) => {}
                    Err(Errno::EAGAIN) => return Ok((progress, Some((self.to, Want::Write)))),
                    Err(e) => return Err((e, self.held() as u64)),
                }
            } else if self.eof {
                self.done = true;
                sys::shutdown_write(self.to).map_err(|e| (e, 0))?;
                progress = true;
            } else {
                match self.fill() {
                    Ok(0) => self.eof = true,
                    Ok(_) => {}
                    Err(Errno::EINTR) => {}
                    Err(Errno::EAGAIN) => return Ok((progress, Some((self.from, Want::Read)))),
                    Err(e) if is_unsupported(e) && self.pipe.is_some() => {
                        // Splice refused with an empty pipe: switch this direction to a buffer.
                        self.pipe = None;
                        self.buf = vec![0; FALLBACK_BUF];
                        continue;
                    }
                    Err(e) => return Err((e, 0)),
                }
                progress = true;
            }
        }
    }

    fn fill(&mut self) -> Result<usize, Errno> {
        match &mut self.pipe {
            Some(p) => {
                let n = sys::splice(self.from, p.pipe().write.as_fd(), p.capacity(), false)?;
                p.set_tracked_len(n);
                Ok(n)
            }
            None => {
                let n = sys::read(self.from, &mut self.buf)?;
                self.buf_start = 0;
                self.buf_end = n;
                Ok(n)
            }
        }
    }

    fn drain(&mut self) -> Result<usize, Errno> {
        match &mut self.pipe {
            Some(p) => {
                let n = sys::splice(p.pipe().read.as_fd(), self.to, p.tracked_len(), false)?;
                p.set_tracked_len(p.tracked_len() - n);
                Ok(n)
            }
            None => {
                let n = sys::write(self.to, &self.buf[self.buf_start..self.buf_end])?;
                self.buf_start += n;
                Ok(n)
            }
        }
    }
}

/// Restores `O_NONBLOCK` on drop to what it was.
struct NonblockGuard<'fd> {
    fd: BorrowedFd<'fd>,
    was: bool,
}

impl<'fd> NonblockGuard<'fd> {
    fn set(fd: BorrowedFd<'fd>) -> Result<Self, Errno> {
        let was = sys::is_nonblocking(fd)?;
        if !was {
            sys::set_nonblocking(fd, true)?;
        }
        Ok(NonblockGuard { fd, was })
    }
}

impl Drop for NonblockGuard<'_> {
    fn drop(&mut self) {
        if !self.was {
            let _ = sys::set_nonblocking(self.fd, false);
        }
    }
}

pub(crate) fn copy_bidirectional_fds(
    pool: &PipePool,
    a: BorrowedFd<'_>,
    b: BorrowedFd<'_>,
) -> io::Result<(u64, u64)> {
    let bidi_err = |errno: Errno, copied: u64, lost: u64| {
        CopyError {
            copied,
            lost_in_flight: lost,
            path: CopyPath::SplicePipe,
            source: io::Error::from(errno),
        }
        .into_io()
    };
    let _ga = NonblockGuard::set(a).map_err(|e| bidi_err(e, 0, 0))?;
    let _gb = NonblockGuard::set(b).map_err(|e| bidi_err(e, 0, 0))?;
    let new = |from, to| -> io::Result<Direction<'_, '_>> {
        // No pipe to be had (fd exhaustion even after the pool shrank): a buffer needs none.
        let pipe = pool.get().ok();
        let buf = if pipe.is_some() { Vec::new() } else { vec![0; FALLBACK_BUF] };
        Ok(Direction {
            from,
            to,
            pipe,
            buf,
            buf_start: 0,
            buf_end: 0,
            copied: 0,
            eof: false,
            done: false,
        })
    };
    let mut dirs = [new(a, b)?, new(b, a)?];
    loop {
        let mut progress = false;
        let mut interests = Vec::with_capacity(2);
        for d in &mut dirs {
            let (moved, interest) = d.step().map_err(|(e, lost)| bidi_err(e, d.copied, lost))?;
            progress |= moved;
            interests.extend(interest);
        }
        if dirs.iter().all(|d| d.done) {
            return Ok((dirs[0].copied, dirs[1].copied));
        }
        if !progress {
            match sys::wait(&interests) {
                Ok(()) | Err(Errno::EINTR) => {}
                Err(e) => return Err(bidi_err(e, dirs[0].copied + dirs[1].copied, 0)),
            }
        }
    }
}

/// Copies from `from` to `to` until end of input, or `len` bytes when given, on the cheapest
/// path the kernel offers, through the [global pool](PipePool::global). Returns the bytes
/// copied. See [`copy_report`] for the path taken and [`CopyError`] for failures.
pub fn copy<R, W>(from: &mut R, to: &mut W, len: Option<u64>) -> io::Result<u64>
where
    R: AsFd + ?Sized,
    W: AsFd + ?Sized,
{
    copy_report(from, to, len).map(|r| r.bytes)
}

/// [`copy`], returning the path taken and the retries it needed.
pub fn copy_report<R, W>(from: &mut R, to: &mut W, len: Option<u64>) -> io::Result<CopyReport>
where
    R: AsFd + ?Sized,
    W: AsFd + ?Sized,
{
    copy_fds(PipePool::global(), from.as_fd(), to.as_fd(), len)
}

/// A proxy: copies `a`→`b` and `b`→`a` at once until both reach end of input, shutting down
/// the write side of each destination when its source ends. Returns `(a→b, b→a)` bytes.
///
/// Both descriptors are switched to `O_NONBLOCK` for the duration (one thread serves both
/// directions with `poll`) and restored afterwards.
pub fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsFd + ?Sized,
    B: AsFd + ?Sized,
{
    copy_bidirectional_fds(PipePool::global(), a.as_fd(), b.as_fd())
}

impl PipePool {
    /// [`copy_report`] through this pool.
    pub fn copy<R, W>(&self, from: &mut R, to: &mut W, len: Option<u64>) -> io::Result<CopyReport>
    where
        R: AsFd + ?Sized,
        W: AsFd + ?Sized,
    {
        copy_fds(self, from.as_fd(), to.as_fd(), len)
    }

    /// [`copy_bidirectional`] through this pool.
    pub fn copy_bidirectional<A, B>(&self, a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
    where
        A: AsFd + ?Sized,
        B: AsFd + ?Sized,
    {
        copy_bidirectional_fds(self, a.as_fd(), b.as_fd())
    }
}
