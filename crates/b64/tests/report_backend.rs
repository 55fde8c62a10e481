//! Reports the backend `b64` dispatches to, for the summary of `cargo xtask test`, and fails
//! when xtask expected a different one (a backend that silently falls back is a defect).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `b64=<backend>` to FILE.
//! - `XTASK_EXPECT_B64=<backend>`: the backend this CPU model must select.

#[test]
fn dispatched_backend_is_the_expected_one() {
    let available: Vec<&str> = b64::backends().map(|b| b.name()).collect();
    testkit::report_backend("b64", b64::Backend::detect().name(), &available);
}
