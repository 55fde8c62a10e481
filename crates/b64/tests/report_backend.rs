//! Reports the backend `b64` dispatches to, for the summary of `cargo xtask test`, and fails
//! when xtask expected a different one (a backend that silently falls back is a defect).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `b64=<backend>` to FILE.
//! - `XTASK_EXPECT_B64=<backend>`: the backend this CPU model must select.

use std::io::Write;

#[test]
fn dispatched_backend_is_the_expected_one() {
    let chosen = b64::Backend::detect().name();
    let available: Vec<&str> = b64::backends().map(|b| b.name()).collect();
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        writeln!(f, "b64={chosen}").unwrap();
    }
    if let Ok(want) = std::env::var("XTASK_EXPECT_B64") {
        assert_eq!(chosen, want, "b64 dispatched to {chosen} (available: {available:?})");
    }
    assert!(available.contains(&chosen));
}
