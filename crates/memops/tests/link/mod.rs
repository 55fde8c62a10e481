//! Helpers of the tests that link memops' `c-symbols` into a program (`c_symbols.rs`,
//! `c_program.rs`): run a tool and check it, and check the program's symbols.

use std::path::Path;
use std::process::{Command, Output};

/// The five functions `c-symbols` exports.
pub const C_SYMBOLS: [&str; 5] = ["memcpy", "memmove", "memset", "memcmp", "bcmp"];

/// Runs `cmd` (one child at a time under a runner), panicking with its output if it fails.
pub fn run(cmd: &mut Command) -> Output {
    let _one_at_a_time = testkit::child_lock();
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `nm`'s listing of `exe`, after checking that each of [`C_SYMBOLS`] is a text symbol
/// defined in it (`T`): not left undefined for a shared C library, nor weak.
pub fn assert_defines_c_symbols(exe: &Path) -> String {
    let nm = run(Command::new("nm").arg(exe));
    let nm = String::from_utf8_lossy(&nm.stdout).into_owned();
    for sym in C_SYMBOLS {
        let line = nm.lines().find(|l| l.split_whitespace().nth(2) == Some(sym));
        let kind = line.and_then(|l| l.split_whitespace().nth(1));
        assert_eq!(kind, Some("T"), "`{sym}` is not a text symbol defined in {exe:?}: {line:?}");
    }
    nm
}
