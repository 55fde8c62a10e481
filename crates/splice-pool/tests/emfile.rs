//! Fd exhaustion: `get()` on `EMFILE` shrinks the idle pipes of every pool and retries once,
//! and `copy` without a pipe falls back to read/write. A test binary of its own, because it
//! lowers `RLIMIT_NOFILE` for the whole process.

mod common;

use std::fs::File;
use std::io::Write;
use std::os::unix::net::UnixStream;

use common::open_fds;
use nix::sys::resource::{Resource, getrlimit, setrlimit};
use splice_pool::{Config, CopyPath, PipePool};

#[test]
fn emfile_shrinks_the_pools_and_retries_once() {
    let before = open_fds();
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    let (mut a, mut b) = UnixStream::pair().unwrap();
    let mut sink = File::options().write(true).open("/dev/null").unwrap();

    // Another pool holds idle pipes (in this thread's cache and its shared list).
    let holder = PipePool::new(Config::default().with_max_idle(8).with_per_thread_cache(2));
    let pipes: Vec<_> = (0..4).map(|_| holder.get().unwrap()).collect();
    drop(pipes);
    assert_eq!(holder.stats().idle, 4);

    // Use up every descriptor under a lowered limit.
    let limit = open_fds() as u64 + 16;
    setrlimit(Resource::RLIMIT_NOFILE, limit, hard).unwrap();
    let mut hog = Vec::new();
    loop {
        match File::open("/dev/null") {
            Ok(f) => hog.push(f),
            Err(e) => {
                assert_eq!(e.raw_os_error(), Some(nix::libc::EMFILE), "{e}");
                break;
            }
        }
    }

    let pool = PipePool::new(Config::default());
    let p = pool.get().expect("the retry after shrinking should find free descriptors");
    assert_eq!(pool.stats().fd_exhaustion_retries, 1);
    assert_eq!(holder.stats().idle, 0, "the other pool's idle pipes were closed");
    drop(p);
    // This pipe took 2 of the 8 freed; take the rest, and every idle pipe with them.
    pool.shrink();
    while hog.len() < 10_000 {
        match File::open("/dev/null") {
            Ok(f) => hog.push(f),
            Err(_) => break,
        }
    }

    // Nothing idle anywhere: the error comes back after one retry.
    let err = pool.get().unwrap_err();
    assert_eq!(err.raw_os_error(), None);
    assert_eq!(err.kind(), std::io::Error::from_raw_os_error(nix::libc::EMFILE).kind());
    assert!(err.to_string().contains("pipe"), "{err}");
    assert_eq!(pool.stats().fd_exhaustion_retries, 2);

    // copy still works without a pipe: read/write needs no descriptor.
    a.write_all(&[5u8; 10_000]).unwrap();
    drop(a);
    let report = pool.copy(&mut b, &mut sink, None).unwrap();
    assert_eq!((report.bytes, report.path), (10_000, CopyPath::ReadWrite));

    drop(hog);
    setrlimit(Resource::RLIMIT_NOFILE, soft, hard).unwrap();
    drop((b, sink, pool, holder));
    assert_eq!(open_fds(), before);
}
