//! NABHash v2: vectors on every backend; a step-by-step transcription of the documented
//! algorithm as an oracle for every backend; streaming splits; seeds.

mod common;

use nabhash::v2::{Digest, hash_with};
use nabhash::{Backend, aes_round, backends};
use proptest::prelude::*;

/// Miri interprets the portable path thousands of times slower: small vectors only.
const MAX_LEN: usize = if cfg!(miri) { 40 } else { usize::MAX };

/// The v2 definition of `src/v2/mod.rs`'s docs, transcribed literally: chunk by chunk, no
/// SIMD, no reordering of the XOR, a SplitMix64 of its own for the constants.
fn reference(data: &[u8], seed: u64) -> [u8; 16] {
    let xor = |a: [u8; 16], b: [u8; 16]| -> [u8; 16] { std::array::from_fn(|i| a[i] ^ b[i]) };
    let le = |lo: u64, hi: u64| -> [u8; 16] {
        let mut x = [0u8; 16];
        x[..8].copy_from_slice(&lo.to_le_bytes());
        x[8..].copy_from_slice(&hi.to_le_bytes());
        x
    };
    let add = |a: [u8; 16], b: [u8; 16]| -> [u8; 16] {
        let h =
            |x: &[u8; 16], i: usize| u64::from_le_bytes(x[8 * i..8 * i + 8].try_into().unwrap());
        le(h(&a, 0).wrapping_add(h(&b, 0)), h(&a, 1).wrapping_add(h(&b, 1)))
    };
    let mut sm = 0u64;
    let mut next = || {
        sm = sm.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = sm;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    };
    let c: Vec<[u8; 16]> = (0..19)
        .map(|_| {
            let lo = next();
            le(lo, next())
        })
        .collect();
    let s = le(seed, seed);
    let key = aes_round(xor(s, c[0]), c[1]);
    let k: Vec<[u8; 16]> = (0..8).map(|i| xor(key, c[3 + i])).collect();
    let n = data.len();
    let l = le(n as u64, 0);
    let mut chunks = data.chunks(16).map(|ch| {
        let mut x = [0u8; 16];
        x[..ch.len()].copy_from_slice(ch);
        x
    });
    if n <= 16 {
        let x = chunks.next().unwrap_or([0; 16]);
        let h = xor(aes_round(xor(aes_round(xor(x, k[0]), k[1]), l), k[2]), l);
        return aes_round(aes_round(h, k[3]), k[4]);
    }
    if n <= 64 {
        let at = |i: usize| -> [u8; 16] { data[i..i + 16].try_into().unwrap() };
        let p = if n <= 32 {
            vec![at(0), at(n - 16)]
        } else {
            vec![at(0), at(16), at(n - 32), at(n - 16)]
        };
        let mut x = [0u8; 16];
        for (i, p) in p.into_iter().enumerate() {
            let a = xor(key, c[11 + i]);
            let f = aes_round(aes_round(xor(p, a), xor(k[i], l)), xor(k[i], l));
            x = xor(x, aes_round(f, k[i]));
        }
        let x = aes_round(x, xor(key, c[2]));
        let x = aes_round(x, xor(key, c[1]));
        return aes_round(x, xor(key, c[0]));
    }
    let mut a: Vec<[u8; 16]> = (0..8).map(|i| xor(key, c[11 + i])).collect();
    let mut b = [[0u8; 16]; 8];
    for (j, chunk) in chunks.enumerate() {
        let i = j % 8;
        a[i] = aes_round(xor(a[i], chunk), k[i]);
        b[i] = add(b[i], chunk);
    }
    let mut x = [0u8; 16];
    for i in 0..8 {
        let f = aes_round(xor(xor(a[i], b[i]), l), k[i]);
        x = xor(x, aes_round(f, k[i]));
    }
    let x = aes_round(x, xor(key, c[2]));
    let x = aes_round(x, xor(key, c[1]));
    aes_round(x, xor(key, c[0]))
}

#[test]
fn v2_vectors_every_backend() {
    let vectors = common::v2_vectors(MAX_LEN);
    for backend in backends() {
        for (input, seed, want) in &vectors {
            let ctx = format!("backend {} len {} seed {seed}", backend.name(), input.len());
            assert_eq!(common::hex(&hash_with(backend, input, *seed)), common::hex(want), "{ctx}");
            let chunks: &[usize] = if cfg!(miri) { &[7] } else { &[7, 16, 100, 128, 129] };
            for &chunk in chunks {
                let mut d = Digest::with_backend(backend, *seed);
                input.chunks(chunk).for_each(|c| d.update(c));
                assert_eq!(d.finalize(), *want, "{ctx} chunk {chunk}");
            }
        }
    }
}

#[test]
fn v2_vectors_match_the_documented_algorithm() {
    let limit = if cfg!(miri) { 40 } else { 5000 };
    for (input, seed, want) in common::v2_vectors(limit) {
        assert_eq!(reference(&input, seed), want, "len {} seed {seed}", input.len());
    }
}

#[test]
fn dispatched_equals_portable() {
    for (input, seed, want) in common::v2_vectors(if cfg!(miri) { MAX_LEN } else { 4097 }) {
        assert_eq!(nabhash::v2::hash(&input, seed), want);
    }
}

/// The keyed one-shot equals the seeded one at every vector's length and seed (so, by the
/// test above, the documented algorithm), for any length below and above the short limits.
#[test]
fn seeded_equals_hash() {
    for (input, seed, want) in common::v2_vectors(if cfg!(miri) { MAX_LEN } else { 4097 }) {
        let h = nabhash::v2::Seeded::new(seed);
        assert_eq!(h.hash(&input), want, "len {} seed {seed}", input.len());
        assert_eq!(h.hash_u128(&input), u128::from_le_bytes(want));
    }
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    let (small, big) = if cfg!(miri) { (20, 140) } else { (300, 3000) };
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..small),
        proptest::collection::vec(any::<u8>(), small..big),
    ]
}

proptest! {
    #[test]
    fn every_backend_equals_the_reference(data in data(), seed in any::<u64>()) {
        let want = reference(&data, seed);
        for backend in backends() {
            prop_assert_eq!(hash_with(backend, &data, seed), want, "backend {}", backend.name());
        }
    }

    #[test]
    fn any_split_equals_one_shot(
        data in data(),
        seed in any::<u64>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let want = hash_with(Backend::PORTABLE, &data, seed);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (data.len() + 1)).collect();
        cuts.sort_unstable();
        for backend in backends() {
            let mut d = Digest::with_backend(backend, seed);
            let mut start = 0;
            for &c in cuts.iter().chain([&data.len()]) {
                d.update(&data[start..c]);
                prop_assert_eq!(d.finalize(), hash_with(backend, &data[..c], seed));
                start = c;
            }
            prop_assert_eq!(d.finalize(), want, "backend {}", backend.name());
            d.reset();
            prop_assert_eq!(d.finalize(), hash_with(Backend::PORTABLE, &[], seed));
        }
    }

    #[test]
    fn the_seed_changes_the_digest(data in data(), s1 in any::<u64>(), s2 in any::<u64>()) {
        prop_assume!(s1 != s2);
        prop_assert_ne!(hash_with(Backend::PORTABLE, &data, s1), hash_with(Backend::PORTABLE, &data, s2));
    }
}
