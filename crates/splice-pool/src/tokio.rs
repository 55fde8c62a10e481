//! Async [`copy`] and [`copy_bidirectional`] over tokio's readiness (feature `tokio`).
//!
//! The sockets stay registered with tokio's reactor; each `splice` runs inside their
//! `async_io` with `SPLICE_F_NONBLOCK`, so `EAGAIN` clears the readiness and parks the task
//! until the reactor reports the socket ready again. The pooled pipe in the middle is never
//! registered: the copy splices into it only when it is empty (so `EAGAIN` there means
//! "source empty", a read-readiness wait) and drains it before reading more (`EAGAIN` there
//! means "destination full", a write-readiness wait).
//!
//! The futures are `Send` whenever the descriptors are (tokio's sockets and `AsyncFd` of a
//! `Send` type), so a proxy spawns them: `tokio::spawn(async move {
//! copy_bidirectional(&mut a, &mut b).await })`.
//!
//! A future dropped mid-transfer drops its pipe: if the pipe held data it is closed, not
//! pooled.
//!
//! ```
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
//! # rt.block_on(async {
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! use tokio::net::UnixStream;
//!
//! let (mut client, mut proxy_in) = UnixStream::pair()?;
//! let (mut proxy_out, mut server) = UnixStream::pair()?;
//! client.write_all(b"ping").await?;
//! client.shutdown().await?; // end of input
//! let n = splice_pool::tokio::copy(&mut proxy_in, &mut proxy_out, None).await?;
//! assert_eq!(n, 4);
//! drop(proxy_out);
//! let mut got = String::new();
//! server.read_to_string(&mut got).await?;
//! assert_eq!(got, "ping");
//! # Ok::<(), std::io::Error>(())
//! # })?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::future::{Future, poll_fn};
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::pin::pin;
use std::task::{Context, Poll, ready};

use nix::errno::Errno;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::{TcpStream, UnixStream};

use crate::copy::{CopyError, CopyPath};
use crate::pool::PipePool;
use crate::sys;

/// Read/write buffer of the fallback when the kernel refuses `splice`.
const FALLBACK_BUF: usize = 64 * 1024;

/// A descriptor registered with tokio's reactor that the async copies can wait on.
///
/// Poll-based, like tokio's own `poll_read_ready`: the copies wrap it in `poll_fn`, a future
/// of a concrete type, so they stay `Send` for every descriptor type without boxing a future
/// per wait.
pub trait AsyncSpliceFd: AsFd + Sync {
    /// Polls until `interest` is ready and runs `op`; while `op` returns `WouldBlock`, clears
    /// the readiness and polls again (returning `Pending` once the reactor has the waker).
    fn poll_splice_io(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        op: &mut (dyn FnMut() -> io::Result<usize> + Send),
    ) -> Poll<io::Result<usize>>;
}

/// tokio's sockets: their `poll_*_ready` and `try_io`, which clears the readiness on
/// `WouldBlock`.
macro_rules! impl_for_tokio_socket {
    ($($t:ty),*) => {$(
        impl AsyncSpliceFd for $t {
            fn poll_splice_io(
                &self,
                cx: &mut Context<'_>,
                interest: Interest,
                op: &mut (dyn FnMut() -> io::Result<usize> + Send),
            ) -> Poll<io::Result<usize>> {
                loop {
                    let ready = if interest.is_readable() {
                        self.poll_read_ready(cx)
                    } else {
                        self.poll_write_ready(cx)
                    };
                    ready!(ready)?;
                    match self.try_io(interest, &mut *op) {
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        r => return Poll::Ready(r),
                    }
                }
            }
        }
    )*};
}

impl_for_tokio_socket!(TcpStream, UnixStream);

impl<T: AsFd + std::os::fd::AsRawFd + Send + Sync> AsyncSpliceFd for AsyncFd<T> {
    fn poll_splice_io(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        op: &mut (dyn FnMut() -> io::Result<usize> + Send),
    ) -> Poll<io::Result<usize>> {
        loop {
            let ready = if interest.is_readable() {
                self.poll_read_ready(cx)
            } else {
                self.poll_write_ready(cx)
            };
            let mut guard = ready!(ready)?;
            // `Err` here is `WouldBlock`, the readiness already cleared: poll again.
            if let Ok(r) = guard.try_io(|_| op()) {
                return Poll::Ready(r);
            }
        }
    }
}

/// Runs a non-blocking call, retrying `EINTR`; `EAGAIN` comes back as `WouldBlock`.
fn nonblocking(mut call: impl FnMut() -> Result<usize, Errno>) -> io::Result<usize> {
    loop {
        match call() {
            Err(Errno::EINTR) => continue,
            r => return r.map_err(io::Error::from),
        }
    }
}

fn unsupported(e: &io::Error) -> bool {
    e.raw_os_error().is_some_and(|c| {
        matches!(Errno::from_raw(c), Errno::EINVAL | Errno::ENOSYS | Errno::EOPNOTSUPP)
    })
}

fn copy_error(e: io::Error, copied: u64, lost: u64, path: CopyPath) -> io::Error {
    io::Error::new(e.kind(), CopyError { copied, lost_in_flight: lost, path, source: e })
}

/// Waits for `interest` on `fd` and runs `op` (see [`AsyncSpliceFd::poll_splice_io`]).
fn ready_io<'a, T: AsyncSpliceFd + ?Sized>(
    fd: &'a T,
    interest: Interest,
    mut op: impl FnMut() -> io::Result<usize> + Send + 'a,
) -> impl Future<Output = io::Result<usize>> + Send + 'a {
    poll_fn(move |cx| fd.poll_splice_io(cx, interest, &mut op))
}

async fn one_way<R, W>(
    pool: &PipePool,
    from: &R,
    to: &W,
    len: Option<u64>,
    shutdown: bool,
) -> io::Result<u64>
where
    R: AsyncSpliceFd + ?Sized,
    W: AsyncSpliceFd + ?Sized,
{
    let (src, dst): (BorrowedFd<'_>, BorrowedFd<'_>) = (from.as_fd(), to.as_fd());
    // No pipe to be had (fd exhaustion even after the pool shrank): read/write needs none.
    let mut pipe = pool.get().ok();
    let mut buf: Vec<u8> = if pipe.is_some() { Vec::new() } else { vec![0; FALLBACK_BUF] };
    let mut copied = 0u64;
    let mut remaining = len;
    loop {
        let cap = pipe.as_ref().map_or(FALLBACK_BUF, |p| p.capacity().max(4096));
        let want = match remaining {
            Some(0) => break,
            Some(r) => usize::try_from(r).unwrap_or(usize::MAX).min(cap),
            None => cap,
        };
        let path = if pipe.is_some() { CopyPath::SplicePipe } else { CopyPath::ReadWrite };
        match &pipe {
            Some(p) => {
                let (r, w) = (p.pipe().read.as_fd(), p.pipe().write.as_fd());
                let filled = ready_io(from, Interest::READABLE, || {
                    nonblocking(|| sys::splice(src, w, want, false))
                })
                .await;
                let mut held = match filled {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if unsupported(&e) => {
                        pipe = None;
                        buf.resize(FALLBACK_BUF, 0);
                        continue;
                    }
                    Err(e) => return Err(copy_error(e, copied, 0, path)),
                };
                // Set before any await: a cancelled future's pipe then knows it is dirty.
                p.set_tracked_len(held);
                while held > 0 {
                    // MSG_MORE only when more bytes were promised (see the sync copy).
                    let more = remaining.is_some_and(|rem| rem > held as u64);
                    let n = held;
                    match ready_io(to, Interest::WRITABLE, || {
                        nonblocking(|| sys::splice(r, dst, n, more))
                    })
                    .await
                    {
                        Ok(0) => {
                            let e = io::Error::from(io::ErrorKind::WriteZero);
                            return Err(copy_error(e, copied, held as u64, path));
                        }
                        Ok(m) => {
                            held -= m;
                            p.set_tracked_len(held);
                            copied += m as u64;
                            if let Some(rem) = &mut remaining {
                                *rem -= m as u64;
                            }
                        }
                        Err(e) => return Err(copy_error(e, copied, held as u64, path)),
                    }
                }
            }
            None => {
                let b = &mut buf[..want];
                let got =
                    ready_io(from, Interest::READABLE, || nonblocking(|| sys::read(src, b))).await;
                let n = match got {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) => return Err(copy_error(e, copied, 0, path)),
                };
                let mut start = 0;
                while start < n {
                    let chunk = &buf[start..n];
                    match ready_io(to, Interest::WRITABLE, || {
                        nonblocking(|| sys::write(dst, chunk))
                    })
                    .await
                    {
                        Ok(0) => {
                            let e = io::Error::from(io::ErrorKind::WriteZero);
                            return Err(copy_error(e, copied, (n - start) as u64, path));
                        }
                        Ok(m) => {
                            start += m;
                            copied += m as u64;
                            if let Some(rem) = &mut remaining {
                                *rem -= m as u64;
                            }
                        }
                        Err(e) => return Err(copy_error(e, copied, (n - start) as u64, path)),
                    }
                }
            }
        }
    }
    if shutdown {
        sys::shutdown_write(dst)
            .map_err(|e| copy_error(e.into(), copied, 0, CopyPath::SplicePipe))?;
    }
    Ok(copied)
}

/// Copies from `from` to `to` until end of input (or `len` bytes) with `splice` through a
/// pipe from the [global pool](PipePool::global); falls back to read/write when the kernel
/// refuses `splice`. Returns the bytes copied; failures carry a [`CopyError`].
pub async fn copy<R, W>(from: &mut R, to: &mut W, len: Option<u64>) -> io::Result<u64>
where
    R: AsyncSpliceFd + ?Sized,
    W: AsyncSpliceFd + ?Sized,
{
    one_way(PipePool::global(), &*from, &*to, len, false).await
}

/// A proxy: copies `a`→`b` and `b`→`a` concurrently until both reach end of input, shutting
/// down the write side of each destination when its source ends (like
/// `tokio::io::copy_bidirectional`). Returns `(a→b, b→a)` bytes. The first error ends both
/// directions.
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncSpliceFd + ?Sized,
    B: AsyncSpliceFd + ?Sized,
{
    copy_bidirectional_with(PipePool::global(), a, b).await
}

/// [`copy_bidirectional`] through `pool`.
pub async fn copy_bidirectional_with<A, B>(
    pool: &PipePool,
    a: &mut A,
    b: &mut B,
) -> io::Result<(u64, u64)>
where
    A: AsyncSpliceFd + ?Sized,
    B: AsyncSpliceFd + ?Sized,
{
    let (a, b) = (&*a, &*b);
    let mut up = pin!(one_way(pool, a, b, None, true));
    let mut down = pin!(one_way(pool, b, a, None, true));
    let (mut up_done, mut down_done) = (None, None);
    poll_fn(|cx| {
        if up_done.is_none()
            && let Poll::Ready(r) = up.as_mut().poll(cx)
        {
            up_done = Some(r?);
        }
        if down_done.is_none()
            && let Poll::Ready(r) = down.as_mut().poll(cx)
        {
            down_done = Some(r?);
        }
        match (up_done, down_done) {
            (Some(u), Some(d)) => Poll::Ready(Ok((u, d))),
            _ => Poll::Pending,
        }
    })
    .await
}

/// [`copy`] through `pool`.
pub async fn copy_with<R, W>(
    pool: &PipePool,
    from: &mut R,
    to: &mut W,
    len: Option<u64>,
) -> io::Result<u64>
where
    R: AsyncSpliceFd + ?Sized,
    W: AsyncSpliceFd + ?Sized,
{
    one_way(pool, &*from, &*to, len, false).await
}
