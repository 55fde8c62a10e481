//! The pipe pool: a per-thread cache in front of a shared, mutex-protected idle list (HAProxy's
//! design), with idle release and a hard bound on idle pipes.
//!
//! Idle release: the shared list stamps each pipe when it arrives and closes the expired
//! ones whenever it is touched. A thread's cache is LIFO and tracks its low-water mark (as
//! jemalloc's tcache GC does): every 64 `get`/`put` calls and on every slow path it reads the
//! coarse clock, and once per `idle_timeout` closes the bottom pipes no `get` reached in that
//! interval. The fast path reads no clock.
//!
//! Bounding: each thread's cache *reserves* its capacity out of `max_idle` when the thread
//! first uses the pool (under the shared lock), and the shared list only holds what is left,
//! so `reserved + shared.len() <= max_idle` always holds and the fast path touches no shared
//! atomic. `shrink()` closes the shared list and the calling thread's cache at once, and
//! bumps a generation counter that makes every other thread empty its cache on its next
//! `get`/`put` (a thread that never touches the pool again closes its cache when it exits).

use std::cell::RefCell;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use nix::errno::Errno;

use crate::sys;

/// The pipe capacity Linux gives a new pipe (16 pages of 4 KiB, `PIPE_DEF_BUFFERS`), assumed
/// when `F_GETPIPE_SZ` is refused.
const DEFAULT_PIPE_SIZE: usize = 64 * 1024;

/// How a [`PipePool`] sizes, keeps and releases its pipes.
///
/// Start from [`Config::default`] and change fields (or chain the `with_*` methods); the
/// struct is `#[non_exhaustive]`, so a field added later is not a breaking change.
///
/// ```
/// use std::time::Duration;
/// let config = splice_pool::Config::default()
///     .with_pipe_size(Some(1 << 20))
///     .with_idle_timeout(Duration::from_secs(30));
/// assert_eq!(config.max_idle, 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Capacity to ask for with `F_SETPIPE_SZ` (rounded up by the kernel to a power-of-two
    /// number of pages). `None` keeps the kernel default (64 KiB). A refusal (over
    /// `/proc/sys/fs/pipe-max-size`, or the per-user quota) is counted in
    /// [`Stats::size_refused`] and the pipe keeps its default size.
    pub pipe_size: Option<usize>,
    /// The most idle pipes the pool holds, per-thread caches included.
    pub max_idle: usize,
    /// Pipes idle this long are closed: in the shared list, when it is touched; in a thread's
    /// cache, those left untouched for a whole interval of this length, checked every 64
    /// `get`/`put` calls of that thread and on its slow paths. No background thread.
    pub idle_timeout: Duration,
    /// Pipes each thread keeps for itself before spilling to the shared list. A thread
    /// reserves this many out of `max_idle` on its first use of the pool (until it exits), so
    /// past `max_idle / per_thread_cache` threads, the newcomers use the shared list only.
    pub per_thread_cache: usize,
}

impl Config {
    /// [`pipe_size`](Self::pipe_size) set to `size`.
    #[must_use]
    pub const fn with_pipe_size(mut self, size: Option<usize>) -> Self {
        self.pipe_size = size;
        self
    }

    /// [`max_idle`](Self::max_idle) set to `n`.
    #[must_use]
    pub const fn with_max_idle(mut self, n: usize) -> Self {
        self.max_idle = n;
        self
    }

    /// [`idle_timeout`](Self::idle_timeout) set to `timeout`.
    #[must_use]
    pub const fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// [`per_thread_cache`](Self::per_thread_cache) set to `n`.
    #[must_use]
    pub const fn with_per_thread_cache(mut self, n: usize) -> Self {
        self.per_thread_cache = n;
        self
    }
}

impl Default for Config {
    /// 64 KiB pipes, at most 256 idle, closed after 10 s idle, 16 per thread.
    fn default() -> Self {
        Config {
            pipe_size: None,
            max_idle: 256,
            idle_timeout: Duration::from_secs(10),
            per_thread_cache: 16,
        }
    }
}

/// Counters of a [`PipePool`], summed over all threads (each thread's part is read with
/// relaxed loads, so a snapshot taken while other threads work is approximate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Pipes made with `pipe2`.
    pub created: u64,
    /// `get`s served from an idle pipe.
    pub reused: u64,
    /// Pipes closed (idle release, `shrink`, over `max_idle`, discarded with data).
    pub closed: u64,
    /// Of `closed`: pipes closed because they still held data when dropped.
    pub discarded: u64,
    /// Idle pipes held now (shared list plus every thread's cache).
    pub idle: usize,
    /// Times `F_SETPIPE_SZ` was refused and the pipe kept its default size.
    pub size_refused: u64,
    /// Times `pipe2` hit `EMFILE`/`ENFILE` and the pool shrank itself and retried.
    pub fd_exhaustion_retries: u64,
}

/// A pipe whose ends we own.
#[derive(Debug)]
pub(crate) struct Pipe {
    pub(crate) read: OwnedFd,
    pub(crate) write: OwnedFd,
    pub(crate) capacity: usize,
}

#[derive(Debug)]
struct IdlePipe {
    pipe: Pipe,
    since_ms: u64,
}

/// One thread's counters, written only by that thread (plain load + store, no RMW) and
/// summed by `stats()`.
#[derive(Debug, Default)]
struct Slot {
    reused: AtomicU64,
    closed: AtomicU64,
    cached: AtomicUsize,
}

impl Slot {
    fn bump(c: &AtomicU64, n: u64) {
        c.store(c.load(Relaxed) + n, Relaxed);
    }
}

#[derive(Debug, Default)]
struct Shared {
    idle: Vec<IdlePipe>,
    reserved: usize,
    slots: Vec<Arc<Slot>>,
}

#[derive(Debug)]
struct Inner {
    id: u64,
    config: Config,
    idle_timeout_ms: u64,
    generation: AtomicU64,
    shared: Mutex<Shared>,
    created: AtomicU64,
    reused: AtomicU64,
    closed: AtomicU64,
    discarded: AtomicU64,
    size_refused: AtomicU64,
    retries: AtomicU64,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic while holding the lock cannot leave `Shared` inconsistent (every update is
        // a single push/pop/add), so a poisoned lock is still usable.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn expired(&self, since_ms: u64, now_ms: u64) -> bool {
        now_ms.saturating_sub(since_ms) >= self.idle_timeout_ms
    }

    /// Closes the shared list's expired pipes (oldest first, at the front).
    fn expire_shared(&self, shared: &mut Shared, now_ms: u64) {
        let n = shared.idle.iter().take_while(|p| self.expired(p.since_ms, now_ms)).count();
        if n > 0 {
            shared.idle.drain(..n);
            self.closed.fetch_add(n as u64, Relaxed);
        }
    }
}

/// A thread's cache for one pool.
#[derive(Debug)]
struct ThreadCache {
    pool_id: u64,
    pool: Weak<Inner>,
    generation: u64,
    capacity: usize,
    /// LIFO: `get` pops the most recently used pipe, so the bottom ones are the idle ones.
    pipes: Vec<Pipe>,
    /// The fewest pipes the cache held since the last idle check: the bottom `low_water`
    /// pipes were not touched for that whole interval (jemalloc's tcache GC).
    low_water: usize,
    /// `get`/`put` calls, to read the clock only every [`GC_EVERY`] of them.
    ops: u32,
    last_gc_ms: u64,
    slot: Arc<Slot>,
}

/// A thread's cache reads the clock (and maybe releases idle pipes) once per this many
/// `get`/`put` calls, and on every slow path: the clock read is half the cost of a `get` +
/// `put` otherwise.
const GC_EVERY: u32 = 64;

impl ThreadCache {
    #[inline]
    fn tick(&mut self, inner: &Inner) {
        self.ops = self.ops.wrapping_add(1);
        if self.ops.is_multiple_of(GC_EVERY) {
            self.gc(inner, sys::coarse_now_ms());
        }
    }

    /// Closes the pipes that sat at the bottom of the cache for a whole interval of at least
    /// `idle_timeout`.
    #[cold]
    fn gc(&mut self, inner: &Inner, now_ms: u64) {
        if !inner.expired(self.last_gc_ms, now_ms) {
            return;
        }
        let n = self.low_water.min(self.pipes.len());
        if n > 0 {
            self.pipes.drain(..n);
            Slot::bump(&self.slot.closed, n as u64);
            self.slot.cached.store(self.pipes.len(), Relaxed);
        }
        self.low_water = self.pipes.len();
        self.last_gc_ms = now_ms;
    }

    fn close_all(&mut self) -> usize {
        let n = self.pipes.len();
        self.pipes.clear();
        Slot::bump(&self.slot.closed, n as u64);
        self.slot.cached.store(0, Relaxed);
        n
    }
}

impl Drop for ThreadCache {
    fn drop(&mut self) {
        self.close_all();
        if let Some(inner) = self.pool.upgrade() {
            let mut shared = inner.lock();
            shared.reserved -= self.capacity;
            shared.slots.retain(|s| !Arc::ptr_eq(s, &self.slot));
            inner.reused.fetch_add(self.slot.reused.load(Relaxed), Relaxed);
            inner.closed.fetch_add(self.slot.closed.load(Relaxed), Relaxed);
        }
    }
}

thread_local! {
    static CACHES: RefCell<Vec<ThreadCache>> = const { RefCell::new(Vec::new()) };
}

static NEXT_POOL_ID: AtomicU64 = AtomicU64::new(1);

/// Every live pool, so fd exhaustion in one can release the idle pipes of all.
static POOLS: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

/// A pool of pipes for `splice`.
///
/// `get` hands out a [`PooledPipe`] (an idle one from this thread's cache, then from the
/// shared list, else a new `pipe2(O_CLOEXEC | O_NONBLOCK)`); dropping it puts it back only if
/// it is empty. See the [crate docs](crate) for the design.
#[derive(Debug)]
pub struct PipePool {
    inner: Arc<Inner>,
}

impl PipePool {
    /// A pool with its own idle list and limits.
    pub fn new(config: Config) -> PipePool {
        let idle_timeout_ms = u64::try_from(config.idle_timeout.as_millis()).unwrap_or(u64::MAX);
        let pool = PipePool {
            inner: Arc::new(Inner {
                id: NEXT_POOL_ID.fetch_add(1, Relaxed),
                config,
                idle_timeout_ms,
                generation: AtomicU64::new(0),
                shared: Mutex::new(Shared::default()),
                created: AtomicU64::new(0),
                reused: AtomicU64::new(0),
                closed: AtomicU64::new(0),
                discarded: AtomicU64::new(0),
                size_refused: AtomicU64::new(0),
                retries: AtomicU64::new(0),
            }),
        };
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        pools.retain(|p| p.strong_count() > 0);
        pools.push(Arc::downgrade(&pool.inner));
        drop(pools);
        pool
    }

    /// The process-wide pool [`copy`](crate::copy) and
    /// [`copy_bidirectional`](crate::copy_bidirectional) use, with [`Config::default`].
    pub fn global() -> &'static PipePool {
        static GLOBAL: OnceLock<PipePool> = OnceLock::new();
        GLOBAL.get_or_init(|| PipePool::new(Config::default()))
    }

    /// This pool's configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Runs `f` on this thread's cache for the pool, registering it on first use. `None`
    /// when the thread-local is being destroyed or already borrowed (the caller then uses the
    /// shared list).
    #[inline]
    fn with_cache<R>(&self, f: impl FnOnce(&mut ThreadCache) -> R) -> Option<R> {
        CACHES
            .try_with(|caches| {
                let mut caches = caches.try_borrow_mut().ok()?;
                let idx = match caches.iter().position(|c| c.pool_id == self.inner.id) {
                    Some(i) => i,
                    None => self.register(&mut caches),
                };
                let cache = &mut caches[idx];
                let generation = self.inner.generation.load(Relaxed);
                if cache.generation != generation {
                    cache.close_all();
                    cache.generation = generation;
                }
                Some(f(cache))
            })
            .ok()
            .flatten()
    }

    #[cold]
    fn register(&self, caches: &mut Vec<ThreadCache>) -> usize {
        // Caches of pools that were dropped: close their pipes now.
        caches.retain(|c| c.pool.strong_count() > 0);
        let slot = Arc::new(Slot::default());
        let mut shared = self.inner.lock();
        let room = self.inner.config.max_idle.saturating_sub(shared.reserved);
        let capacity = self.inner.config.per_thread_cache.min(room);
        shared.reserved += capacity;
        let keep = self.inner.config.max_idle - shared.reserved;
        if shared.idle.len() > keep {
            let n = shared.idle.len() - keep;
            shared.idle.drain(..n);
            self.inner.closed.fetch_add(n as u64, Relaxed);
        }
        shared.slots.push(Arc::clone(&slot));
        drop(shared);
        caches.push(ThreadCache {
            pool_id: self.inner.id,
            pool: Arc::downgrade(&self.inner),
            generation: self.inner.generation.load(Relaxed),
            capacity,
            pipes: Vec::with_capacity(capacity),
            low_water: 0,
            ops: 0,
            last_gc_ms: sys::coarse_now_ms(),
            slot,
        });
        caches.len() - 1
    }

    /// An empty pipe: from this thread's cache, the shared list, or `pipe2`.
    ///
    /// On `EMFILE`/`ENFILE` the pool closes its idle pipes ([`shrink`](Self::shrink)) and
    /// retries once, then returns the error.
    #[inline]
    pub fn get(&self) -> io::Result<PooledPipe<'_>> {
        let cached = self.with_cache(|c| {
            c.tick(&self.inner);
            let Some(p) = c.pipes.pop() else {
                c.gc(&self.inner, sys::coarse_now_ms());
                return None;
            };
            c.low_water = c.low_water.min(c.pipes.len());
            Slot::bump(&c.slot.reused, 1);
            c.slot.cached.store(c.pipes.len(), Relaxed);
            Some(p)
        });
        match cached.flatten() {
            Some(pipe) => Ok(PooledPipe::new(pipe, self)),
            None => self.get_slow().map(|pipe| PooledPipe::new(pipe, self)),
        }
    }

    #[cold]
    fn get_slow(&self) -> io::Result<Pipe> {
        {
            let mut shared = self.inner.lock();
            if !shared.idle.is_empty() {
                self.inner.expire_shared(&mut shared, sys::coarse_now_ms());
                if let Some(p) = shared.idle.pop() {
                    self.inner.reused.fetch_add(1, Relaxed);
                    return Ok(p.pipe);
                }
            }
        }
        match self.create() {
            Err(Errno::EMFILE | Errno::ENFILE) => {
                self.inner.retries.fetch_add(1, Relaxed);
                shrink_all();
                self.create()
            }
            r => r,
        }
        .map_err(|e| io::Error::new(io::Error::from(e).kind(), PoolError::Pipe(e as i32)))
    }

    fn create(&self) -> Result<Pipe, Errno> {
        let (read, write) = sys::pipe()?;
        self.inner.created.fetch_add(1, Relaxed);
        let capacity = match self.inner.config.pipe_size {
            Some(size) => match sys::set_pipe_size(write.as_fd(), size) {
                Ok(n) => n,
                Err(_) => {
                    self.inner.size_refused.fetch_add(1, Relaxed);
                    sys::pipe_size(write.as_fd()).unwrap_or(DEFAULT_PIPE_SIZE)
                }
            },
            None => DEFAULT_PIPE_SIZE,
        };
        Ok(Pipe { read, write, capacity })
    }

    /// Puts an empty pipe back (or closes it when the pool is full).
    #[inline]
    fn put(&self, pipe: Pipe) {
        let mut pipe = Some(pipe);
        self.with_cache(|c| {
            c.tick(&self.inner);
            if c.pipes.len() < c.capacity
                && let Some(pipe) = pipe.take()
            {
                c.pipes.push(pipe);
                c.slot.cached.store(c.pipes.len(), Relaxed);
            }
        });
        if let Some(pipe) = pipe {
            self.put_slow(pipe, sys::coarse_now_ms());
        }
    }

    #[cold]
    fn put_slow(&self, pipe: Pipe, now_ms: u64) {
        let mut shared = self.inner.lock();
        self.inner.expire_shared(&mut shared, now_ms);
        if shared.idle.len() + shared.reserved < self.inner.config.max_idle {
            shared.idle.push(IdlePipe { pipe, since_ms: now_ms });
        } else {
            drop(shared);
            drop(pipe);
            self.inner.closed.fetch_add(1, Relaxed);
        }
    }

    /// Closes every idle pipe now: the shared list and this thread's cache at once, other
    /// threads' caches on their next `get`/`put` (or when they exit). Returns how many were
    /// closed now.
    pub fn shrink(&self) -> usize {
        let mine = self.with_cache(|c| c.close_all()).unwrap_or(0);
        self.inner.generation.fetch_add(1, Relaxed);
        let mut shared = self.inner.lock();
        let n = shared.idle.len();
        shared.idle.clear();
        drop(shared);
        self.inner.closed.fetch_add(n as u64, Relaxed);
        mine + n
    }

    /// A snapshot of the pool's counters. Also releases the shared list's expired pipes.
    pub fn stats(&self) -> Stats {
        let mut shared = self.inner.lock();
        self.inner.expire_shared(&mut shared, sys::coarse_now_ms());
        let i = &self.inner;
        let mut s = Stats {
            created: i.created.load(Relaxed),
            reused: i.reused.load(Relaxed),
            closed: i.closed.load(Relaxed),
            discarded: i.discarded.load(Relaxed),
            idle: shared.idle.len(),
            size_refused: i.size_refused.load(Relaxed),
            fd_exhaustion_retries: i.retries.load(Relaxed),
        };
        for slot in &shared.slots {
            s.reused += slot.reused.load(Relaxed);
            s.closed += slot.closed.load(Relaxed);
            s.idle += slot.cached.load(Relaxed);
        }
        s
    }

    fn discard(&self, pipe: Pipe) {
        drop(pipe);
        self.inner.closed.fetch_add(1, Relaxed);
        self.inner.discarded.fetch_add(1, Relaxed);
    }
}

impl Drop for PipePool {
    fn drop(&mut self) {
        // This thread's cache goes now; other threads' caches on their next use of any pool
        // or at their exit. (`shrink_all` makes short-lived extra handles: not the last.)
        if Arc::strong_count(&self.inner) > 1 {
            return;
        }
        let id = self.inner.id;
        let _ = CACHES.try_with(|caches| {
            if let Ok(mut caches) = caches.try_borrow_mut() {
                caches.retain(|c| c.pool_id != id);
            }
        });
    }
}

/// Shrinks every live pool (fd exhaustion: any idle pipe anywhere is a wasted pair of fds).
#[cold]
fn shrink_all() {
    let pools: Vec<Arc<Inner>> = {
        let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        pools.iter().filter_map(Weak::upgrade).collect()
    };
    for inner in pools {
        PipePool { inner }.shrink();
    }
}

/// Errors of the pool (inside the [`io::Error`] that [`PipePool::get`] returns, whose kind is
/// the cause's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoolError {
    /// `pipe2` failed (after one shrink-and-retry on `EMFILE`/`ENFILE`), with this OS error
    /// code (`errno`; [`io::Error::from_raw_os_error`] describes it).
    Pipe(i32),
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolError::Pipe(code) => {
                write!(f, "cannot create a pipe: {}", io::Error::from_raw_os_error(*code))
            }
        }
    }
}

impl std::error::Error for PoolError {}

/// A pipe lent by a [`PipePool`].
///
/// It tracks how many bytes it holds when filled and drained through its own methods (and
/// through this crate's copy functions). On drop it goes back to the pool only if it is
/// empty; a pipe that still holds data is closed, never handed to the next user. Once its
/// raw ends were borrowed ([`read_end`](Self::read_end), [`write_end`](Self::write_end)), the
/// tracked length can no longer be trusted, so `len()` and the drop ask the kernel
/// (`FIONREAD`).
///
/// It is `Send` and `Sync`, so an async copy holding one across `.await` can be spawned on a
/// multi-threaded runtime. One task uses a pipe at a time; the two counters are atomics only
/// so that `&PooledPipe` may cross threads, and are read and written `Relaxed` (plain loads
/// and stores on every target we build for).
#[derive(Debug)]
pub struct PooledPipe<'pool> {
    pipe: Option<Pipe>,
    len: AtomicUsize,
    exposed: AtomicBool,
    pool: &'pool PipePool,
}

impl<'pool> PooledPipe<'pool> {
    #[inline]
    fn new(pipe: Pipe, pool: &'pool PipePool) -> Self {
        PooledPipe {
            pipe: Some(pipe),
            len: AtomicUsize::new(0),
            exposed: AtomicBool::new(false),
            pool,
        }
    }

    /// The length the copy loops track (they splice through the raw ends themselves).
    #[inline]
    pub(crate) fn tracked_len(&self) -> usize {
        self.len.load(Relaxed)
    }

    /// Records that the pipe now holds `held` bytes.
    #[inline]
    pub(crate) fn set_tracked_len(&self, held: usize) {
        self.len.store(held, Relaxed);
    }

    #[inline]
    pub(crate) fn pipe(&self) -> &Pipe {
        // `pipe` is `Some` from construction until `drop` takes it.
        match &self.pipe {
            Some(p) => p,
            None => unreachable!("PooledPipe used after drop"),
        }
    }

    /// The read end. Borrowing it makes the pipe re-check its length with the kernel.
    pub fn read_end(&self) -> BorrowedFd<'_> {
        self.exposed.store(true, Relaxed);
        self.pipe().read.as_fd()
    }

    /// The write end. Borrowing it makes the pipe re-check its length with the kernel.
    pub fn write_end(&self) -> BorrowedFd<'_> {
        self.exposed.store(true, Relaxed);
        self.pipe().write.as_fd()
    }

    /// Bytes the pipe holds.
    pub fn len(&self) -> usize {
        if self.exposed.load(Relaxed) {
            sys::bytes_readable(self.pipe().read.as_fd()).unwrap_or(self.tracked_len())
        } else {
            self.tracked_len()
        }
    }

    /// Whether the pipe holds no data.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pipe's capacity in bytes, as set by `F_SETPIPE_SZ` or the kernel default.
    pub fn capacity(&self) -> usize {
        self.pipe().capacity
    }

    /// Moves up to `len` bytes from `from` into the pipe with `splice`, without waiting
    /// (`EAGAIN` is returned as `WouldBlock`). `Ok(0)` is end of input.
    pub fn splice_from(&mut self, from: impl AsFd, len: usize) -> io::Result<usize> {
        let n = sys::splice(from.as_fd(), self.pipe().write.as_fd(), len, false)?;
        self.set_tracked_len(self.tracked_len() + n);
        Ok(n)
    }

    /// Moves up to `len` bytes (at most what the pipe holds) out of the pipe into `to` with
    /// `splice`, without waiting (`EAGAIN` is returned as `WouldBlock`).
    pub fn splice_to(&mut self, to: impl AsFd, len: usize) -> io::Result<usize> {
        let n = sys::splice(self.pipe().read.as_fd(), to.as_fd(), len, false)?;
        self.set_tracked_len(self.tracked_len().saturating_sub(n));
        Ok(n)
    }
}

impl Drop for PooledPipe<'_> {
    #[inline]
    fn drop(&mut self) {
        let Some(pipe) = self.pipe.take() else { return };
        let empty = if self.exposed.load(Relaxed) {
            sys::bytes_readable(pipe.read.as_fd()) == Ok(0)
        } else {
            self.tracked_len() == 0
        };
        if empty {
            self.pool.put(pipe);
        } else {
            self.pool.discard(pipe);
        }
    }
}
