//! Streaming digests: any split of any input into `update` calls gives the one-shot digest,
//! for v1 and v2 on every backend, and every backend agrees with the portable one.
//! `cargo +nightly fuzz run digest_split` (from `crates/nabhash`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use nabhash::{Backend, backends};

fuzz_target!(|input: &[u8]| {
    // First bytes: a seed and split points; the rest is the data.
    if input.len() < 12 {
        return;
    }
    let (head, data) = input.split_at(12);
    let seed = u64::from_le_bytes(head[..8].try_into().unwrap());
    let mut cuts: Vec<usize> = head[8..].iter().map(|&c| c as usize * data.len() / 255).collect();
    cuts.sort_unstable();

    let v1 = nabhash::hash_with(Backend::PORTABLE, data);
    let v2 = nabhash::v2::hash_with(Backend::PORTABLE, data, seed);
    for backend in backends() {
        assert_eq!(nabhash::hash_with(backend, data), v1, "{}", backend.name());
        assert_eq!(nabhash::v2::hash_with(backend, data, seed), v2, "{}", backend.name());
        let mut d1 = nabhash::Digest::with_backend(backend);
        let mut d2 = nabhash::v2::Digest::with_backend(backend, seed);
        let mut start = 0;
        for &c in cuts.iter().chain([&data.len()]) {
            d1.update(&data[start..c]);
            d2.update(&data[start..c]);
            start = c;
        }
        assert_eq!(d1.finalize(), v1, "{}", backend.name());
        assert_eq!(d2.finalize(), v2, "{}", backend.name());
    }
});
