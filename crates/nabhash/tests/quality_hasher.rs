//! SMHasher-style quality of `NabHasher` through `FixedState` (spec, "Quality"): every check
//! must pass, on the 128-bit `finish_u128` and (through the truncated widths the checks also
//! examine) on the low 64 and 32 bits that hash tables use; plus SMHasher3's key sets that
//! the first v2 failed, and the integer path (`write_u64` and `write_u32`), which SMHasher3
//! does not reach.

// Statistics over millions of hashes: nothing for Miri to find, hours for it to run.
#![cfg(not(miri))]

mod quality;

use core::hash::{BuildHasher, Hasher};
use quality::{Scale, assert_all_pass, run_all, table};

fn hasher(data: &[u8], seed: u64) -> u128 {
    let mut h = nabhash::FixedState::with_seed(seed).build_hasher();
    h.write(data);
    h.finish_u128()
}

#[test]
fn nabhasher_passes_every_check() {
    let reports = run_all("NabHasher", &hasher, true, Scale::from_env());
    println!("{}", table(&reports));
    assert_all_pass(&reports);
}

#[test]
fn nabhasher_passes_smhasher3_sets_v2_failed() {
    let reports = quality::smhasher3_failed_sets(&hasher, Scale::from_env());
    println!("{}", table(&reports));
    assert_all_pass(&reports);
}

#[test]
fn nabhasher_integer_path() {
    let scale = Scale::from_env();
    let u64_path = |k: u64, seed: u64| nabhash::FixedState::with_seed(seed).hash_one(k);
    let u32_path = |k: u64, seed: u64| nabhash::FixedState::with_seed(seed).hash_one(k as u32);
    let mut reports = quality::integers::integer_path("u64", &u64_path, 64, scale);
    reports.extend(quality::integers::integer_path("u32", &u32_path, 32, scale));
    println!("{}", table(&reports));
    assert_all_pass(&reports);
}
