//! Reports the backend `bignum_fib::fib` dispatches to, for the summary of `cargo xtask test`,
//! and fails when xtask expected a different one (a backend that silently falls back is a
//! defect, not a pass).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `bignum-fib=<backend>` to FILE.
//! - `XTASK_EXPECT_BIGNUM_FIB=<backend>`: the backend this CPU model must select.

use std::io::Write;

#[test]
fn dispatched_backend_is_the_expected_one() {
    let chosen = bignum_fib::Backend::detect().name();
    let available: Vec<&str> = bignum_fib::backends().map(|b| b.name()).collect();
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        writeln!(f, "bignum-fib={chosen}").unwrap();
    }
    if let Ok(want) = std::env::var("XTASK_EXPECT_BIGNUM_FIB") {
        assert_eq!(chosen, want, "bignum-fib dispatched to {chosen} (available: {available:?})");
    }
    assert!(available.contains(&chosen));
}
