//! SMHasher-style quality of NABHash v2 (spec, "Quality"): every check must pass. Full key
//! sets on the host; `NABHASH_QUALITY=reduced` under emulation (set by `cargo xtask test`).

// Statistics over millions of hashes: nothing for Miri to find, hours for it to run.
#![cfg(not(miri))]

mod quality;

use quality::{Scale, assert_all_pass, run_all, table};

#[test]
fn v2_passes_every_check() {
    let v2 = |data: &[u8], seed: u64| u128::from_le_bytes(nabhash::v2::hash(data, seed));
    let reports = run_all("NABHash v2", &v2, true, Scale::from_env());
    println!("{}", table(&reports));
    assert_all_pass(&reports);
}
