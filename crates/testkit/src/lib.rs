//! Test helpers shared by the workspace's crates (a dev-dependency, never published).
//!
//! - [`report_backend`]: the body of every crate's `tests/report_backend.rs`, which tells
//!   `cargo xtask test` which backend the crate dispatched to and fails when the matrix
//!   expected another one (a backend that silently falls back is a defect, not a pass).
//! - [`command`]: a [`Command`] for a binary built by the crate under test that also works
//!   when the test itself runs under qemu-user (the cross matrix), where the kernel cannot
//!   start a foreign binary by itself (no binfmt_misc).
//! - [`vectors`] and [`data_file!`]: the one reader of the test-vector files in `tests/data/`.
//! - `page::GuardedPage` (Unix): a page followed by an inaccessible one, for the tests of
//!   kernels that read whole vectors up to a page's end.

#[cfg(all(unix, not(miri)))]
pub mod page;
pub mod vectors;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// Reports and checks `krate`'s dispatched backend `chosen`, one of `available`.
///
/// - `XTASK_BACKEND_REPORT=FILE`: appends `<krate>=<chosen>` to FILE (the summary's column).
/// - `XTASK_EXPECT_<KRATE>` (upper case, `-` as `_`): the backend this CPU model must select;
///   anything else fails.
///
/// # Panics
///
/// When the expectation is not met, `chosen` is not in `available`, or the report file cannot
/// be written: this is a test helper.
pub fn report_backend(krate: &str, chosen: &str, available: &[&str]) {
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        // One `write` of the whole line: with O_APPEND that cannot interleave with the line
        // of a test running in another thread (`writeln!` writes piece by piece).
        f.write_all(format!("{krate}={chosen}\n").as_bytes()).expect("write the backend report");
    }
    let var = format!("XTASK_EXPECT_{}", krate.to_uppercase().replace('-', "_"));
    if let Ok(want) = std::env::var(&var) {
        assert_eq!(chosen, want, "{krate} dispatched to {chosen} (available: {available:?})");
    }
    assert!(available.contains(&chosen), "{krate}: {chosen} is not among {available:?}");
}

/// The emulator command line (`qemu-<arch> -L <sysroot>`) this test runs under, or nothing.
/// qemu-user shows the guest's argv in `/proc/self/cmdline` but its own in
/// `/proc/thread-self/cmdline`; natively both are the same.
pub fn runner() -> &'static [OsString] {
    static RUNNER: OnceLock<Vec<OsString>> = OnceLock::new();
    RUNNER.get_or_init(|| {
        let args = |path: &str| -> Vec<Vec<u8>> {
            let raw = std::fs::read(path).unwrap_or_default();
            raw.split(|&b| b == 0).filter(|a| !a.is_empty()).map(<[u8]>::to_vec).collect()
        };
        let guest = args("/proc/self/cmdline");
        let host = args("/proc/thread-self/cmdline");
        if guest.is_empty() || host.len() <= guest.len() || !host.ends_with(&guest) {
            return Vec::new();
        }
        host[..host.len() - guest.len()].iter().map(|a| os(a).to_owned()).collect()
    })
}

/// A command that starts `exe` (e.g. `env!("CARGO_BIN_EXE_fib")`), through the emulator
/// when this test is emulated.
pub fn command(exe: &str) -> Command {
    match runner().split_first() {
        Some((emulator, emulator_args)) => {
            let mut cmd = Command::new(emulator);
            cmd.args(emulator_args).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// Under emulation, a guard that lets one test at a time start and run child processes
/// (natively, `None`: no limit). Hold it from before `spawn` until the child is waited for.
///
/// qemu-user emulates the guest's `posix_spawn` with a fork of the whole emulator; a fork
/// while another guest thread is translating or running code can leave a lock held in the
/// child (or the parent) for good. With this guard the other test threads of the binary wait
/// on a futex, outside the emulator's locks, while a child starts. `cargo xtask test` also
/// runs each emulated binary under a watchdog (`xtask emulate`) for the cases this misses.
pub fn child_lock() -> Option<MutexGuard<'static, ()>> {
    static LOCK: Mutex<()> = Mutex::new(());
    // A test that panicked while holding it does not make the others fail.
    (!runner().is_empty()).then(|| LOCK.lock().unwrap_or_else(PoisonError::into_inner))
}

#[cfg(unix)]
fn os(bytes: &[u8]) -> &OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os(bytes: &[u8]) -> &OsStr {
    OsStr::new(std::str::from_utf8(bytes).expect("command lines are UTF-8 off Unix"))
}
