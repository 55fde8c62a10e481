//! The pool: reuse, idle release, the `max_idle` bound, `F_SETPIPE_SZ` refusals, `shrink`,
//! and many threads getting and putting at once. Every test checks the open-fd count.

mod common;

use std::collections::HashSet;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::Duration;

use common::{emulated, fd_guard, open_fds};
use splice_pool::{Config, PipePool};

fn config(max_idle: usize, per_thread_cache: usize) -> Config {
    Config::default().with_max_idle(max_idle).with_per_thread_cache(per_thread_cache)
}

#[test]
fn get_put_reuses_one_pipe() {
    let _g = fd_guard();
    let pool = PipePool::new(Config::default());
    let fd = pool.get().unwrap().read_end().as_raw_fd();
    for _ in 0..100 {
        let p = pool.get().unwrap();
        assert_eq!(p.read_end().as_raw_fd(), fd);
        assert!(p.is_empty());
        assert_eq!(p.capacity(), 64 * 1024);
    }
    let st = pool.stats();
    assert_eq!((st.created, st.reused, st.closed, st.idle), (1, 100, 0, 1));
}

#[test]
fn idle_pipes_are_released_after_the_timeout() {
    let _g = fd_guard();
    // In a thread's cache: released when a later put sees them old.
    let pool = PipePool::new(Config::default().with_idle_timeout(Duration::from_millis(30)));
    let (a, b) = (pool.get().unwrap(), pool.get().unwrap());
    drop((a, b));
    // Two sweeps an interval apart: the bottom pipe no get reached is closed.
    for _ in 0..2 {
        thread::sleep(Duration::from_millis(80));
        for _ in 0..64 {
            drop(pool.get().unwrap());
        }
    }
    let st = pool.stats();
    assert_eq!((st.created, st.closed, st.idle), (2, 1, 1), "{st:?}");

    // In the shared list (no per-thread cache): released by stats() and get().
    let before = open_fds();
    let pool = PipePool::new(config(8, 0).with_idle_timeout(Duration::from_millis(30)));
    drop(pool.get().unwrap());
    assert_eq!(pool.stats().idle, 1);
    assert_eq!(open_fds(), before + 2);
    thread::sleep(Duration::from_millis(80));
    let st = pool.stats();
    assert_eq!((st.closed, st.idle), (1, 0), "{st:?}");
    assert_eq!(open_fds(), before);
}

#[test]
fn the_pool_never_holds_more_than_max_idle() {
    let _g = fd_guard();
    let pool = PipePool::new(config(4, 2));
    let pipes: Vec<_> = (0..10).map(|_| pool.get().unwrap()).collect();
    drop(pipes);
    let st = pool.stats();
    assert_eq!((st.created, st.idle, st.closed), (10, 4, 6), "{st:?}");
    // Other threads reserve from what is left: the bound holds across threads.
    thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let pipes: Vec<_> = (0..5).map(|_| pool.get().unwrap()).collect();
                    drop(pipes);
                    assert!(pool.stats().idle <= 4);
                })
            })
            .collect();
        // A scope ends before its threads' thread-locals are destroyed; `join` waits.
        for h in handles {
            h.join().unwrap();
        }
    });
    assert!(pool.stats().idle <= 4);
}

#[test]
fn refused_pipe_sizes_keep_the_default_and_are_counted() {
    let _g = fd_guard();
    // Larger than any kernel accepts (F_SETPIPE_SZ takes an int).
    let pool = PipePool::new(Config::default().with_pipe_size(Some(usize::MAX)));
    let p = pool.get().unwrap();
    assert!(p.capacity() >= 4096);
    drop(p);
    assert_eq!(pool.stats().size_refused, 1);

    // 1 MiB: accepted up to /proc/sys/fs/pipe-max-size (or with CAP_SYS_RESOURCE), else
    // refused and counted; either way the pipe works.
    let pool = PipePool::new(Config::default().with_pipe_size(Some(1 << 20)));
    let p = pool.get().unwrap();
    let refused = pool.stats().size_refused;
    if refused == 0 {
        assert_eq!(p.capacity(), 1 << 20);
    } else {
        eprintln!("note: F_SETPIPE_SZ(1 MiB) refused here; capacity {}", p.capacity());
    }
    let (mut a, mut b) = UnixStream::pair().unwrap();
    std::io::Write::write_all(&mut a, &[3u8; 1000]).unwrap();
    drop(a);
    assert_eq!(pool.copy(&mut b, &mut io_ext::sink_fd(), None).unwrap().bytes, 1000);
}

/// `std::io::Sink` has no fd; `/dev/null` does.
mod sink {
    pub fn sink_fd() -> std::fs::File {
        std::fs::File::options().write(true).open("/dev/null").unwrap()
    }
}
use sink as io_ext;

#[test]
fn shrink_closes_every_idle_pipe_now_and_other_threads_caches_on_their_next_use() {
    let _g = fd_guard();
    let before = open_fds();
    let pool = PipePool::new(config(64, 4));
    let pipes: Vec<_> = (0..10).map(|_| pool.get().unwrap()).collect();
    drop(pipes);
    assert_eq!(pool.stats().idle, 10);
    let (to_other, other_rx) = std::sync::mpsc::channel::<()>();
    let (done_tx, done) = std::sync::mpsc::channel::<()>();
    thread::scope(|s| {
        // Owned here, so a failed assert drops them and the other thread gets out.
        let (to_other, done) = (to_other, done);
        let pool = &pool;
        let other = s.spawn(move || {
            let pipes: Vec<_> = (0..3).map(|_| pool.get().unwrap()).collect();
            drop(pipes); // cached in this thread
            done_tx.send(()).unwrap();
            if other_rx.recv().is_err() {
                return;
            }
            drop(pool.get().unwrap()); // sees the new generation: empties its cache first
            done_tx.send(()).unwrap();
            let _ = other_rx.recv();
        });
        done.recv().unwrap();
        let st = pool.stats();
        assert_eq!(st.idle, 10, "{st:?}");
        assert_eq!(pool.shrink(), 7);
        assert_eq!(pool.stats().idle, 3);
        to_other.send(()).unwrap();
        done.recv().unwrap();
        assert_eq!(pool.stats().idle, 1);
        to_other.send(()).unwrap();
        // A scope ends before its threads' thread-locals are destroyed; `join` waits.
        other.join().unwrap();
    });
    // The other thread exited: its cache was closed.
    let st = pool.stats();
    assert_eq!((st.idle, st.created, st.closed), (0, 11, 11), "{st:?}");
    assert_eq!(open_fds(), before);
}

#[test]
fn dropping_a_pool_closes_its_pipes() {
    let _g = fd_guard();
    let before = open_fds();
    let pool = PipePool::new(config(8, 2));
    let pipes: Vec<_> = (0..6).map(|_| pool.get().unwrap()).collect();
    drop(pipes);
    assert!(open_fds() > before);
    drop(pool);
    assert_eq!(open_fds(), before);
}

/// N threads × M rounds of get/put with data through each pipe: no pipe is ever held by two
/// users at once (a shared set of held read fds), every byte comes back in order, and after
/// a shrink every pipe created was closed exactly once (stats and `/proc/self/fd` agree).
#[test]
fn concurrent_get_put_never_shares_a_pipe() {
    let _g = fd_guard();
    let before = open_fds();
    let (threads, rounds) = if emulated() { (4, 150) } else { (8, 3000) };
    let pool = PipePool::new(config(16, 2));
    let held: Mutex<HashSet<i32>> = Mutex::new(HashSet::new());
    let barrier = Barrier::new(threads);
    thread::scope(|s| {
        let mut handles = Vec::new();
        for t in 0..threads {
            let (pool, held, barrier) = (&pool, &held, &barrier);
            handles.push(s.spawn(move || {
                barrier.wait();
                let (mut a, mut b) = UnixStream::pair().unwrap();
                let mut x = 0x9e37_79b9_u32.wrapping_mul(t as u32 + 1);
                for round in 0..rounds as u32 {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    // Hold 1 to 3 pipes at once so the shared list sees traffic.
                    let n = 1 + (x % 3) as usize;
                    let pipes: Vec<_> = (0..n).map(|_| pool.get().unwrap()).collect();
                    for p in &pipes {
                        assert!(
                            held.lock().unwrap().insert(p.read_end().as_raw_fd()),
                            "pipe handed out twice"
                        );
                    }
                    for (i, p) in pipes.iter().enumerate() {
                        let msg = [(t as u8) ^ (round as u8) ^ i as u8; 100];
                        std::io::Write::write_all(&mut a, &msg).unwrap();
                        let got = nix::fcntl::splice(
                            &b,
                            None,
                            p.write_end(),
                            None,
                            100,
                            nix::fcntl::SpliceFFlags::empty(),
                        )
                        .unwrap();
                        assert_eq!(got, 100);
                        let mut back = [0u8; 100];
                        assert_eq!(nix::unistd::read(p.read_end(), &mut back).unwrap(), 100);
                        assert_eq!(back, msg);
                    }
                    // Now and then, leave data in one: it must be closed, not reused.
                    let dirty = x.is_multiple_of(17);
                    if dirty {
                        nix::unistd::write(pipes[0].write_end(), b"dirty").unwrap();
                    }
                    for p in &pipes {
                        assert!(held.lock().unwrap().remove(&p.read_end().as_raw_fd()));
                    }
                    drop(pipes);
                    if round.is_multiple_of(64) {
                        // A transfer through the pool's own copy path as well.
                        std::io::Write::write_all(&mut a, &[1u8; 3000]).unwrap();
                        let mut null = io_ext::sink_fd();
                        assert_eq!(pool.copy(&mut b, &mut null, Some(3000)).unwrap().bytes, 3000);
                    }
                }
            }));
        }
        // A scope ends before its threads' thread-locals are destroyed; `join` waits.
        for h in handles {
            h.join().unwrap();
        }
    });
    pool.shrink();
    let st = pool.stats();
    assert_eq!(st.idle, 0, "{st:?}");
    assert_eq!(st.created, st.closed, "created and closed differ: {st:?}");
    assert!(st.discarded > 0 && st.reused > 0, "{st:?}");
    drop(pool);
    assert_eq!(open_fds(), before);
}
