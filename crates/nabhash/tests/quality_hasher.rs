//! SMHasher-style quality of `NabHasher` through `FixedState` (spec, "Quality"): every check
//! must pass, on the full 128-bit `finish_u128` and (through the truncated widths the checks
//! also examine) on the low 64 and 32 bits that hash tables use.

// Statistics over millions of hashes: nothing for Miri to find, hours for it to run.
#![cfg(not(miri))]

mod quality;

use core::hash::{BuildHasher, Hasher};
use quality::{Scale, assert_all_pass, run_all, table};

#[test]
fn nabhasher_passes_every_check() {
    let hasher = |data: &[u8], seed: u64| {
        let mut h = nabhash::FixedState::with_seed(seed).build_hasher();
        h.write(data);
        h.finish_u128()
    };
    let reports = run_all("NabHasher", &hasher, true, Scale::from_env());
    println!("{}", table(&reports));
    assert_all_pass(&reports);
}
