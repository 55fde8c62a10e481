//! Reports the backend `nabhash::hash` dispatches to, for the summary of `cargo xtask test`,
//! and fails when xtask expected a different one (a backend that silently falls back is a
//! defect, not a pass).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `nabhash=<backend>` to FILE.
//! - `XTASK_EXPECT_NABHASH=<backend>`: the backend this CPU model must select.

use std::io::Write;

#[test]
fn dispatched_backend_is_the_expected_one() {
    let chosen = nabhash::Backend::detect().name();
    let available: Vec<&str> = nabhash::backends().map(|b| b.name()).collect();
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        writeln!(f, "nabhash={chosen}").unwrap();
    }
    if let Ok(want) = std::env::var("XTASK_EXPECT_NABHASH") {
        assert_eq!(chosen, want, "nabhash dispatched to {chosen} (available: {available:?})");
    }
    assert!(available.contains(&chosen));
}
