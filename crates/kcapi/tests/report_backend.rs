//! Reports whether kcapi reached the kernel's crypto API, for the summary of `cargo xtask
//! test`: appends `kcapi=af_alg` or `kcapi=unavailable` to the file named by
//! `XTASK_BACKEND_REPORT`. Under `KCAPI_REQUIRE=1` (the VM) unavailability fails.

#[test]
fn report_backend() {
    let status = kcapi::available();
    let backend = if status.is_ok() { "af_alg" } else { "unavailable" };
    testkit::report_backend("kcapi", backend, &["af_alg", "unavailable"]);
    if std::env::var_os("KCAPI_REQUIRE").is_some_and(|v| v == "1") {
        status.expect("KCAPI_REQUIRE=1 but AF_ALG is unavailable");
    }
}
