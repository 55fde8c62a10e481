//! Helpers shared by the test binaries: fd accounting, socket pairs, patterned data and
//! checksums, and the emulation switch.
#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, MutexGuard};

/// `XTASK_EMULATED=1` under qemu-user: smaller transfers and loops.
pub fn emulated() -> bool {
    std::env::var_os("XTASK_EMULATED").is_some_and(|v| v == "1")
}

/// Open descriptors of this process (the directory handle itself counts in both readings).
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map(|d| d.count()).unwrap_or(0)
}

static SERIAL: Mutex<()> = Mutex::new(());

/// Serialises the tests of one binary and checks, when dropped, that the open-fd count is
/// what it was (after closing the global pool's idle pipes and this thread's cache).
pub struct FdGuard {
    before: usize,
    _lock: MutexGuard<'static, ()>,
}

pub fn fd_guard() -> FdGuard {
    let lock = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    splice_pool::PipePool::global().shrink();
    FdGuard { before: open_fds(), _lock: lock }
}

impl Drop for FdGuard {
    fn drop(&mut self) {
        splice_pool::PipePool::global().shrink();
        let after = open_fds();
        if !std::thread::panicking() {
            assert_eq!(self.before, after, "open fds before and after the test differ");
        }
    }
}

/// A connected loopback TCP pair.
pub fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (b, _) = l.accept().unwrap();
    (a, b)
}

/// Deterministic bytes: a xorshift stream, so a shifted or repeated chunk changes the sum.
pub struct Pattern(u64);

impl Pattern {
    pub fn new(seed: u64) -> Self {
        Pattern(seed | 1)
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = self.0 as u8;
        }
    }
}

/// FNV-1a over a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum(pub u64, pub u64);

impl Sum {
    pub fn new() -> Self {
        Sum(0xcbf2_9ce4_8422_2325, 0)
    }
    pub fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.1 += data.len() as u64;
    }
}

/// Writes `len` pattern bytes to `w` (then drops it: end of input); returns their sum.
pub fn write_pattern(w: impl Write, len: u64, seed: u64) -> io::Result<Sum> {
    let mut sum = Sum::new();
    write_pattern_into(w, len, seed, &mut sum)?;
    Ok(sum)
}

/// Writes `len` pattern bytes to `w`, adding them to `sum`.
pub fn write_pattern_into(mut w: impl Write, len: u64, seed: u64, sum: &mut Sum) -> io::Result<()> {
    let mut p = Pattern::new(seed);
    let mut buf = vec![0u8; 64 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        p.fill(&mut buf[..n]);
        w.write_all(&buf[..n])?;
        sum.update(&buf[..n]);
        left -= n as u64;
    }
    Ok(())
}

/// Reads `r` to its end; returns the sum of what came.
pub fn read_sum(mut r: impl Read) -> io::Result<Sum> {
    let mut sum = Sum::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(sum),
            Ok(n) => sum.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Makes closing `s` send a reset: `SO_LINGER` with a zero timeout. qemu-user for mips64
/// does not translate `SO_LINGER` (`ENOPROTOOPT`): say so and rely on the other way Linux
/// resets a connection, closing it with unread data in its receive queue (the tests close
/// while data keeps arriving).
pub fn reset_on_close(s: &impl std::os::fd::AsFd) {
    let linger = nix::libc::linger { l_onoff: 1, l_linger: 0 };
    match nix::sys::socket::setsockopt(s, nix::sys::socket::sockopt::Linger, &linger) {
        Ok(()) => {}
        Err(nix::errno::Errno::ENOPROTOOPT) if emulated() => {
            eprintln!(
                "note: qemu-user lacks SO_LINGER here; resetting by closing with unread data"
            );
        }
        Err(e) => panic!("SO_LINGER: {e}"),
    }
}

/// qemu-user 7.2 for mips64 kills the process with SIGBUS when it delivers a signal to a
/// handler (seen with SIGUSR1 and `pthread_kill`): tests that need signals skip there.
pub fn signals_unsupported() -> bool {
    emulated() && cfg!(any(target_arch = "mips64", target_arch = "mips"))
}
