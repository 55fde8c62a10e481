//! Reports the backend `memops`' free functions dispatch to, for the summary of
//! `cargo xtask test`, and fails when xtask expected a different one (a backend that silently
//! falls back is a defect, not a pass).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `memops=<backend>` to FILE.
//! - `XTASK_EXPECT_MEMOPS=<backend>`: the backend this CPU model must select.

use std::io::Write;

#[test]
fn dispatched_backend_is_the_expected_one() {
    let chosen = memops::Backend::detect().name();
    let available: Vec<&str> = memops::backends().map(|b| b.name()).collect();
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        writeln!(f, "memops={chosen}").unwrap();
    }
    if let Ok(want) = std::env::var("XTASK_EXPECT_MEMOPS") {
        assert_eq!(chosen, want, "memops dispatched to {chosen} (available: {available:?})");
    }
    assert!(available.contains(&chosen));
}
