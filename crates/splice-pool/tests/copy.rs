//! `copy`, `copy_report` and `copy_bidirectional` over loopback TCP, Unix sockets, pipes and
//! files, with the failure cases: EINTR, EAGAIN on non-blocking descriptors, peer reset
//! mid-transfer, a full destination. Every test checks the open-fd count before and after.

mod common;

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use common::{Sum, emulated, fd_guard, read_sum, tcp_pair, write_pattern};
use splice_pool::{Config, CopyError, CopyPath, PipePool, copy, copy_bidirectional, copy_report};

fn sizes() -> Vec<u64> {
    let mut v = vec![0, 1, 4095, 4096, 65_535, 65_536, 65_537, 1 << 20, (3 << 20) + 7];
    if !emulated() {
        v.push(64 << 20);
    }
    v
}

/// Client writes `len` bytes into `c1`; the proxy copies `s1` → `s2`; the server reads `c2`.
fn proxy_once<S>(
    pair: impl Fn() -> (S, S),
    len: u64,
    seed: u64,
) -> (splice_pool::CopyReport, Sum, Sum)
where
    S: AsFd + Read + Write + Send + 'static,
{
    let (c1, mut s1) = pair();
    let (mut s2, c2) = pair();
    let writer = thread::spawn(move || write_pattern(c1, len, seed).unwrap());
    let reader = thread::spawn(move || read_sum(c2).unwrap());
    let report = copy_report(&mut s1, &mut s2, None).unwrap();
    drop(s2);
    (report, writer.join().unwrap(), reader.join().unwrap())
}

fn unix_pair() -> (UnixStream, UnixStream) {
    UnixStream::pair().unwrap()
}

#[test]
fn tcp_to_tcp_every_size_splices_through_the_pool() {
    let _g = fd_guard();
    for (i, len) in sizes().into_iter().enumerate() {
        let (report, sent, got) = proxy_once(tcp_pair, len, i as u64 + 1);
        assert_eq!(sent, got, "len {len}");
        assert_eq!(report.bytes, len);
        assert_eq!(report.path, CopyPath::SplicePipe);
    }
}

#[test]
fn unix_to_unix_every_size_splices_through_the_pool() {
    let _g = fd_guard();
    for (i, len) in sizes().into_iter().take(9).enumerate() {
        let (report, sent, got) = proxy_once(unix_pair, len, 100 + i as u64);
        assert_eq!(sent, got, "len {len}");
        assert_eq!(report.bytes, len);
        assert_eq!(report.path, CopyPath::SplicePipe);
    }
}

#[test]
fn a_length_limit_stops_there_and_leaves_the_rest() {
    let _g = fd_guard();
    let (mut c1, mut s1) = unix_pair();
    let (mut s2, c2) = unix_pair();
    c1.write_all(&[7u8; 10_000]).unwrap();
    assert_eq!(copy(&mut s1, &mut s2, Some(6000)).unwrap(), 6000);
    drop(s2);
    drop(c1);
    assert_eq!(read_sum(c2).unwrap().1, 6000);
    assert_eq!(read_sum(s1).unwrap().1, 4000);
}

fn temp_file_with(len: u64, seed: u64) -> (File, Sum) {
    let mut f = tempfile();
    let sum = write_pattern(&mut f, len, seed).unwrap();
    f.rewind().unwrap();
    (f, sum)
}

/// An unnamed file in the temp dir (`O_TMPFILE` where supported, else create + unlink).
fn tempfile() -> File {
    let dir = std::env::temp_dir();
    let path =
        dir.join(format!("splice-pool-test-{}-{:?}", std::process::id(), thread::current().id()));
    let f = File::options().read(true).write(true).create_new(true).open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    f
}

#[test]
fn file_to_socket_uses_sendfile() {
    let _g = fd_guard();
    for (i, len) in [0u64, 1, 70_000, 5 << 20].into_iter().enumerate() {
        let (mut file, sent) = temp_file_with(len, 7 + i as u64);
        let (mut s2, c2) = tcp_pair();
        let reader = thread::spawn(move || read_sum(c2).unwrap());
        let report = copy_report(&mut file, &mut s2, None).unwrap();
        drop(s2);
        assert_eq!(reader.join().unwrap(), sent);
        assert_eq!(report.bytes, len);
        // An empty file takes the first path's zero-byte answer for "unsupported" and
        // confirms EOF on the next paths.
        if len > 0 {
            assert_eq!(report.path, CopyPath::Sendfile);
        }
    }
}

#[test]
fn file_to_file_uses_copy_file_range() {
    let _g = fd_guard();
    for (i, len) in [1u64, 4096, 1 << 20].into_iter().enumerate() {
        let (mut src, sent) = temp_file_with(len, 30 + i as u64);
        let mut dst = tempfile();
        let report = copy_report(&mut src, &mut dst, None).unwrap();
        assert_eq!(report.bytes, len);
        dst.rewind().unwrap();
        assert_eq!(read_sum(&mut dst).unwrap(), sent);
        if report.path != CopyPath::CopyFileRange {
            // Old kernels and some emulators refuse copy_file_range; the fallback is correct
            // but say so.
            eprintln!("note: copy_file_range refused here, took {}", report.path);
            assert_eq!(report.path, CopyPath::ReadWrite);
        }
    }
}

#[test]
fn procfs_files_fall_back_to_read_write() {
    let _g = fd_guard();
    let mut src = File::open("/proc/self/status").unwrap();
    let mut dst = tempfile();
    let report = copy_report(&mut src, &mut dst, None).unwrap();
    assert!(report.bytes > 0);
    assert_eq!(report.path, CopyPath::ReadWrite);
}

#[test]
fn pipe_ends_splice_directly() {
    let _g = fd_guard();
    let (pr, pw) = nix::unistd::pipe().unwrap();
    let (mut s2, c2) = unix_pair();
    let writer = thread::spawn(move || write_pattern(File::from(pw), 300_000, 5).unwrap());
    let reader = thread::spawn(move || read_sum(c2).unwrap());
    let mut pr = File::from(pr);
    let report = copy_report(&mut pr, &mut s2, None).unwrap();
    drop(s2);
    assert_eq!(report.path, CopyPath::SpliceDirect);
    assert_eq!(report.bytes, 300_000);
    assert_eq!(writer.join().unwrap(), reader.join().unwrap());

    // Socket into a pipe.
    let (c1, mut s1) = unix_pair();
    let (pr, pw) = nix::unistd::pipe().unwrap();
    let writer = thread::spawn(move || write_pattern(c1, 200_000, 6).unwrap());
    let reader = thread::spawn(move || read_sum(File::from(pr)).unwrap());
    let mut pw = File::from(pw);
    let report = copy_report(&mut s1, &mut pw, None).unwrap();
    drop(pw);
    assert_eq!(report.path, CopyPath::SpliceDirect);
    assert_eq!(writer.join().unwrap(), reader.join().unwrap());
}

extern "C" fn on_sigusr1(_: nix::libc::c_int) {}

fn install_sigusr1_without_restart() {
    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
    let action = SigAction::new(SigHandler::Handler(on_sigusr1), SaFlags::empty(), SigSet::empty());
    // SAFETY: the handler does nothing, so it is async-signal-safe; replacing SIGUSR1's
    // disposition affects only this test process, whose tests never use SIGUSR1 otherwise.
    unsafe { sigaction(Signal::SIGUSR1, &action) }.unwrap();
}

/// Blocking sockets, a slow writer, and a storm of SIGUSR1 (no `SA_RESTART`) at the copying
/// thread: the interrupted calls are retried and the data arrives intact.
#[test]
fn eintr_is_retried() {
    let _g = fd_guard();
    if common::signals_unsupported() {
        eprintln!(
            "note: skipped: qemu-user on mips64 crashes (SIGBUS) delivering signals to a handler"
        );
        return;
    }
    install_sigusr1_without_restart();
    let (mut c1, s1) = tcp_pair();
    let (s2, c2) = tcp_pair();
    let reader = thread::spawn(move || read_sum(c2).unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let copier = thread::spawn(move || {
        tx.send(nix::sys::pthread::pthread_self()).unwrap();
        let (mut s1, mut s2) = (s1, s2);
        let r = copy_report(&mut s1, &mut s2, None).unwrap();
        drop(s2);
        r
    });
    let target = rx.recv().unwrap();
    let mut sent = Sum::new();
    for i in 0..20u8 {
        for _ in 0..3 {
            thread::sleep(Duration::from_millis(2));
            nix::sys::pthread::pthread_kill(target, nix::sys::signal::Signal::SIGUSR1).unwrap();
        }
        let chunk = [i; 1000];
        c1.write_all(&chunk).unwrap();
        sent.update(&chunk);
    }
    drop(c1);
    let report = copier.join().unwrap();
    eprintln!("{report:?}");
    assert_eq!(reader.join().unwrap(), sent);
    assert_eq!(report.bytes, 20_000);
    if report.interrupted == 0 {
        assert!(emulated(), "60 signals at a blocked copy and not one EINTR");
        eprintln!("note: qemu-user restarted every interrupted call; no EINTR was seen");
    }
}

/// Non-blocking source and destination: `EAGAIN` on both sides waits in `poll` (bounded
/// number of waits, so no busy loop), and a destination that fills up is drained when its
/// reader comes back.
#[test]
fn eagain_on_nonblocking_descriptors_waits_in_poll() {
    let _g = fd_guard();
    let (mut c1, mut s1) = tcp_pair();
    let (mut s2, mut c2) = tcp_pair();
    s1.set_nonblocking(true).unwrap();
    s2.set_nonblocking(true).unwrap();
    let total: u64 = if emulated() { 4 << 20 } else { 16 << 20 };
    let writer = thread::spawn(move || {
        // Trickle first (source empty: EAGAIN on the read side), then a flood.
        let mut sum = Sum::new();
        for i in 0..10u8 {
            thread::sleep(Duration::from_millis(5));
            c1.write_all(&[i; 100]).unwrap();
            sum.update(&[i; 100]);
        }
        common::write_pattern_into(&mut c1, total - 1000, 9, &mut sum).unwrap();
        sum
    });
    let reader = thread::spawn(move || {
        // A slow start: the destination's buffers fill up (EAGAIN on the write side).
        thread::sleep(Duration::from_millis(200));
        read_sum(&mut c2).unwrap()
    });
    let report = copy_report(&mut s1, &mut s2, None).unwrap();
    drop(s2);
    let sent = writer.join().unwrap();
    let got = reader.join().unwrap();
    assert_eq!(report.bytes, total);
    assert_eq!(got, sent);
    assert!(report.waits >= 2, "expected to wait for both sides, waited {}", report.waits);
    // Each wait blocks in poll until the other thread acts; a busy loop would count
    // millions. The bound is generous: every 4 KiB of a 16 MiB transfer.
    assert!(report.waits < total / 4096, "{} waits: busy loop?", report.waits);
}

/// The peer of the destination resets the connection mid-transfer: the copy fails with
/// the reset, the bytes in the pipe are reported lost, the dirty pipe is closed (not
/// pooled), and source bytes are all accounted for.
#[test]
fn peer_reset_mid_transfer_is_an_error_with_bytes_accounted() {
    let _g = fd_guard();
    let pool = PipePool::new(Config::default());
    let total: u64 = if emulated() { 8 << 20 } else { 32 << 20 };
    let (c1, mut s1) = unix_pair();
    let (mut s2, c2) = tcp_pair();
    let writer = thread::spawn(move || {
        let mut c1 = c1;
        let _ = write_pattern(&mut c1, total, 3); // fails with EPIPE once we stop: fine
    });
    let resetter = thread::spawn(move || {
        let mut c2 = c2;
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = 0;
        while got < 256 * 1024 {
            got += c2.read(&mut buf).unwrap();
        }
        common::reset_on_close(&c2);
        drop(c2); // RST
    });
    let err = pool.copy(&mut s1, &mut s2, None).unwrap_err();
    resetter.join().unwrap();
    assert!(
        matches!(err.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe),
        "{err}"
    );
    let info = CopyError::of(&err).expect("a CopyError inside");
    assert_eq!(info.path, CopyPath::SplicePipe);
    assert!(info.lost_in_flight > 0, "{info}");
    // Everything the writer sent is copied, lost in flight, or still in the source.
    s1.shutdown(Shutdown::Write).unwrap();
    let (drained, writer_done) = {
        s1.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
        let mut n = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match s1.read(&mut buf) {
                Ok(0) => break (n, true),
                Ok(k) => n += k as u64,
                Err(_) => break (n, false),
            }
        }
    };
    drop(s1);
    writer.join().unwrap();
    assert!(writer_done, "the writer did not finish after the copy failed");
    assert_eq!(info.copied + info.lost_in_flight + drained, total, "{info}");
    let st = pool.stats();
    assert_eq!(st.discarded, 1, "{st:?}");
    assert_eq!(st.idle, 0, "the dirty pipe went back to the pool: {st:?}");
    drop(s2);
}

/// `/dev/full` refuses splice (no `splice_write`) and every write (`ENOSPC`): the copy
/// hands the pipe's bytes to `write`, fails with `ENOSPC` and reports them lost; the pipe,
/// emptied by the hand-over, may go back to the pool.
#[test]
fn a_full_destination_is_an_error_with_bytes_accounted() {
    let _g = fd_guard();
    let (mut c1, mut s1) = unix_pair();
    c1.write_all(&[1u8; 50_000]).unwrap();
    drop(c1);
    let mut full = File::options().write(true).open("/dev/full").unwrap();
    let err = copy(&mut s1, &mut full, None).unwrap_err();
    assert_eq!(err.raw_os_error(), None, "wrapped in a CopyError");
    let info = CopyError::of(&err).unwrap();
    assert_eq!(info.source.raw_os_error(), Some(nix::libc::ENOSPC));
    assert_eq!(info.copied, 0);
    assert!(info.lost_in_flight > 0);
    assert_eq!(err.kind(), io::ErrorKind::StorageFull);
}

/// A pipe with leftover data is never handed out again: fail the destination
/// mid-transfer, then check the pool made a fresh pipe for the next user.
#[test]
fn a_pipe_with_leftover_data_is_never_reused() {
    let _g = fd_guard();
    let pool = PipePool::new(Config::default());
    let p = pool.get().unwrap();
    nix::unistd::write(p.write_end(), b"leftover").unwrap();
    assert_eq!(p.len(), 8);
    drop(p);
    let st = pool.stats();
    assert_eq!((st.created, st.discarded, st.idle), (1, 1, 0));
    let p = pool.get().unwrap();
    assert!(p.is_empty());
    let mut buf = [0u8; 16];
    assert_eq!(nix::unistd::read(p.read_end(), &mut buf), Err(nix::errno::Errno::EAGAIN));
    drop(p);
    let st = pool.stats();
    assert_eq!((st.created, st.reused, st.idle), (2, 0, 1));
}

#[test]
fn bidirectional_proxy_both_ways() {
    let _g = fd_guard();
    let lens: &[(u64, u64)] = if emulated() {
        &[(0, 0), (1, 70_000), (2 << 20, 1 << 20)]
    } else {
        &[(0, 0), (1, 70_000), (2 << 20, 1 << 20), (16 << 20, 8 << 20)]
    };
    for &(up, down) in lens {
        let (client, mut pa) = tcp_pair();
        let (mut pb, server) = tcp_pair();
        let side = |s: TcpStream, len: u64, seed: u64| {
            thread::spawn(move || {
                let mut w = s.try_clone().unwrap();
                let reader = thread::spawn(move || read_sum(s).unwrap());
                let sent = write_pattern(&mut w, len, seed).unwrap();
                w.shutdown(Shutdown::Write).unwrap();
                (sent, reader.join().unwrap())
            })
        };
        let c = side(client, up, 11);
        let s = side(server, down, 12);
        let (ab, ba) = copy_bidirectional(&mut pa, &mut pb).unwrap();
        assert_eq!((ab, ba), (up, down));
        let (c_sent, c_got) = c.join().unwrap();
        let (s_sent, s_got) = s.join().unwrap();
        assert_eq!(c_sent, s_got);
        assert_eq!(s_sent, c_got);
        // The guard restored blocking mode.
        assert!(
            !nix::fcntl::OFlag::from_bits_truncate(
                nix::fcntl::fcntl(&pa, nix::fcntl::FcntlArg::F_GETFL).unwrap()
            )
            .contains(nix::fcntl::OFlag::O_NONBLOCK)
        );
    }
}

#[test]
fn bidirectional_reports_a_reset() {
    let _g = fd_guard();
    let (client, mut pa) = tcp_pair();
    let (mut pb, server) = tcp_pair();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = Arc::clone(&stop);
    let w = thread::spawn(move || {
        let mut client = client;
        let chunk = [0u8; 65536];
        while !stop2.load(Ordering::Relaxed) {
            if client.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let r = thread::spawn(move || {
        let mut server = server;
        let mut buf = [0u8; 65536];
        let mut got = 0;
        while got < 100_000 {
            got += server.read(&mut buf).unwrap();
        }
        common::reset_on_close(&server);
    });
    let err = copy_bidirectional(&mut pa, &mut pb).unwrap_err();
    assert!(CopyError::of(&err).is_some(), "{err}");
    stop.store(true, Ordering::Relaxed);
    drop(pa);
    r.join().unwrap();
    w.join().unwrap();
}

#[test]
fn a_destination_that_refuses_writes_is_an_error_not_a_panic() {
    let _g = fd_guard();
    // A read-only destination: every path refuses; the error says so.
    let (c1, mut s1) = unix_pair();
    drop(c1);
    let mut ro = File::open("/proc/self/status").unwrap();
    let r = copy(&mut s1, &mut ro, None);
    // Source at EOF: nothing to write, so this succeeds with 0 bytes.
    assert_eq!(r.unwrap(), 0);
    let (mut c1, mut s1) = unix_pair();
    c1.write_all(b"x").unwrap();
    let r = copy(&mut s1, &mut ro, Some(1));
    assert!(r.is_err());
}
