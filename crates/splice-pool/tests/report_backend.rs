//! Reports the "backend" for the summary of `cargo xtask test`. splice-pool has no SIMD
//! backends: it is system calls only, so it reports `splice-pool=syscalls`.
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `splice-pool=syscalls` to FILE.

use std::io::Write;

#[test]
fn report_backend() {
    if let Ok(path) = std::env::var("XTASK_BACKEND_REPORT") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot open backend report {path}: {e}"));
        writeln!(f, "splice-pool=syscalls").unwrap();
    }
}
