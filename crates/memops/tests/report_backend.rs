//! Reports the backend `memops` dispatches to, for the summary of `cargo xtask test`, and fails
//! when xtask expected a different one (a backend that silently falls back is a defect).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `memops=<backend>` to FILE.
//! - `XTASK_EXPECT_MEMOPS=<backend>`: the backend this CPU model must select.

#[test]
fn dispatched_backend_is_the_expected_one() {
    let available: Vec<&str> = memops::backends().map(|b| b.name()).collect();
    testkit::report_backend("memops", memops::Backend::detect().name(), &available);
}
