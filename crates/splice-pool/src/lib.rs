//! Zero-copy moves between file descriptors on Linux, with pooled pipes.
//!
//! `splice(2)` moves data between descriptors without copying it through user space, but
//! one end must be a pipe, so a socket-to-socket proxy needs a pipe in the middle; making and
//! closing one per transfer costs more than a small transfer. This crate keeps pipes in a
//! [`PipePool`] and builds the copy loops proxies and file servers need on top.
//!
//! ```
//! use std::io::{Read, Write};
//! use std::os::unix::net::UnixStream;
//!
//! let (mut client, mut proxy_in) = UnixStream::pair()?;
//! let (mut proxy_out, mut server) = UnixStream::pair()?;
//! client.write_all(b"hello")?;
//! drop(client); // end of input
//! let report = splice_pool::copy_report(&mut proxy_in, &mut proxy_out, None)?;
//! assert_eq!(report.bytes, 5);
//! assert_eq!(report.path, splice_pool::CopyPath::SplicePipe);
//! drop(proxy_out);
//! let mut got = String::new();
//! server.read_to_string(&mut got)?;
//! assert_eq!(got, "hello");
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # The pool
//!
//! HAProxy's design: each thread keeps a small cache of idle pipes
//! ([`Config::per_thread_cache`]) in front of a shared, mutex-protected list, so a `get` + `put`
//! on the fast path is a thread-local pop and push with no shared atomic. Each thread's cache
//! reserves its capacity out of [`Config::max_idle`] on first use, so the pool never holds
//! more than `max_idle` idle pipes. Pipes idle longer than [`Config::idle_timeout`] are
//! closed when the shared list is touched, and in a thread's cache by a low-water-mark sweep
//! every 64 uses (a coarse clock read, no background thread); [`PipePool::shrink`] closes all
//! idle pipes now. New pipes are
//! `pipe2(O_CLOEXEC | O_NONBLOCK)`, sized with `F_SETPIPE_SZ` when [`Config::pipe_size`] asks;
//! a refusal (`EPERM` over `/proc/sys/fs/pipe-max-size` or the per-user quota) keeps the
//! default size and is counted in [`Stats::size_refused`]. `EMFILE`/`ENFILE` from `pipe2`
//! shrinks the pool and retries once.
//!
//! A [`PooledPipe`] goes back to the pool on drop only if it is empty: a pipe that still
//! holds data (a destination failed mid-transfer) is closed, never handed to the next user.
//!
//! # Copy paths
//!
//! | from → to | path ([`CopyPath`]) | fallback |
//! | --- | --- | --- |
//! | file → file | `copy_file_range` | read/write |
//! | file → socket | `sendfile` | splice through a pooled pipe, then read/write |
//! | pipe → any, any → pipe | `splice` directly | read/write |
//! | socket/other → socket/file | `splice` through a pooled pipe | read/write |
//!
//! The fallback runs when the kernel refuses a call (`EINVAL`, `ENOSYS`, `EXDEV`,
//! `EOPNOTSUPP`) with no data in flight. [`copy_report`] says which path moved the data.
//!
//! # Failures
//!
//! - `EINTR` is retried; `EAGAIN` on a non-blocking descriptor waits in `poll` for the side
//!   that is blocked (never a busy loop). Through a pooled pipe the copy splices into the pipe
//!   only when it is empty, so `EAGAIN` there means "source empty", and `EAGAIN` while draining
//!   means "destination full".
//! - A destination error (`EPIPE`, `ECONNRESET`, `ENOSPC`, ...) is returned as an
//!   [`io::Error`](std::io::Error) of that kind carrying a [`CopyError`]: bytes copied, and
//!   bytes read but lost in flight with the pipe (which is closed, not pooled).
//!
//! # Features
//!
//! - `tokio`: async `copy`/`copy_bidirectional` in the `tokio` module, over tokio's readiness
//!   (`TcpStream`, `UnixStream`, `AsyncFd`: the `AsyncSpliceFd` trait) with
//!   `SPLICE_F_NONBLOCK`.
//!
//! Linux only (and Android): the crate is empty elsewhere.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg(any(target_os = "linux", target_os = "android"))]

mod copy;
mod pool;
mod sys;
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
#[cfg(feature = "tokio")]
pub mod tokio;

pub use copy::{CopyError, CopyPath, CopyReport, copy, copy_bidirectional, copy_report};
pub use pool::{Config, PipePool, PoolError, PooledPipe, Stats};

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
