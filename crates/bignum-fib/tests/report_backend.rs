//! Reports the backend `bignum-fib` dispatches to, for the summary of `cargo xtask test`, and fails
//! when xtask expected a different one (a backend that silently falls back is a defect).
//!
//! - `XTASK_BACKEND_REPORT=FILE`: append `bignum-fib=<backend>` to FILE.
//! - `XTASK_EXPECT_BIGNUM_FIB=<backend>`: the backend this CPU model must select.
//!
//! The NTT's engine is reported the same way as `bignum-fib-ntt` (`avx512f-fma`, `avx2-fma`,
//! `avx512ifma`, `neon-fma` or `portable`; `XTASK_EXPECT_BIGNUM_FIB_NTT`).

#[test]
fn dispatched_backend_is_the_expected_one() {
    let available: Vec<&str> = bignum_fib::backends().map(|b| b.name()).collect();
    testkit::report_backend("bignum-fib", bignum_fib::Backend::detect().name(), &available);
}

#[test]
fn ntt_engine_is_the_expected_one() {
    testkit::report_backend(
        "bignum-fib-ntt",
        bignum_fib::ntt_engine(),
        &["avx512f-fma", "avx2-fma", "avx512ifma", "neon-fma", "portable"],
    );
}
