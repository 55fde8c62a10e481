//! Reports the "backend" for the summary of `cargo xtask test`. splice-pool has no SIMD
//! backends: it is system calls only, so it reports `splice-pool=syscalls`.
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `splice-pool=syscalls` to FILE.

#[test]
fn report_backend() {
    testkit::report_backend("splice-pool", "syscalls", &["syscalls"]);
}
