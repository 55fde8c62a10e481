//! `NabHasher`: split invariance across `write`/`write_uN` calls, agreement with v2, keys.

use core::hash::{BuildHasher, Hasher};
use nabhash::{FixedState, NabHasher, RandomState};
use proptest::prelude::*;

/// One call on a hasher, and the bytes it stands for.
#[derive(Clone, Debug)]
enum Op {
    Bytes(Vec<u8>),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    U128(u128),
    Usize(usize),
}

impl Op {
    fn apply(&self, h: &mut NabHasher) {
        match self {
            Op::Bytes(b) => h.write(b),
            Op::U8(x) => h.write_u8(*x),
            Op::U16(x) => h.write_u16(*x),
            Op::U32(x) => h.write_u32(*x),
            Op::U64(x) => h.write_u64(*x),
            Op::U128(x) => h.write_u128(*x),
            Op::Usize(x) => h.write_usize(*x),
        }
    }
    fn bytes(&self) -> Vec<u8> {
        match self {
            Op::Bytes(b) => b.clone(),
            Op::U8(x) => x.to_le_bytes().to_vec(),
            Op::U16(x) => x.to_le_bytes().to_vec(),
            Op::U32(x) => x.to_le_bytes().to_vec(),
            Op::U64(x) => x.to_le_bytes().to_vec(),
            Op::U128(x) => x.to_le_bytes().to_vec(),
            Op::Usize(x) => x.to_le_bytes().to_vec(),
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Op::Bytes),
        any::<u8>().prop_map(Op::U8),
        any::<u16>().prop_map(Op::U16),
        any::<u32>().prop_map(Op::U32),
        any::<u64>().prop_map(Op::U64),
        any::<u128>().prop_map(Op::U128),
        any::<usize>().prop_map(Op::Usize),
    ]
}

proptest! {
    #[test]
    fn any_sequence_of_writes_hashes_its_bytes(seed in any::<u64>(), ops in proptest::collection::vec(op(), 0..12)) {
        let state = FixedState::with_seed(seed);
        let mut h = state.build_hasher();
        let mut bytes = Vec::new();
        for op in &ops {
            op.apply(&mut h);
            bytes.extend(op.bytes());
        }
        let want = u128::from_le_bytes(nabhash::v2::hash(&bytes, seed));
        prop_assert_eq!(h.finish_u128(), want);
        prop_assert_eq!(h.finish(), want as u64);
        // The same bytes in one write.
        let mut one = state.build_hasher();
        one.write(&bytes);
        prop_assert_eq!(one.finish_u128(), want);
    }
}

/// Inputs of 0 to 140 bytes, cut at pairs of points into three `write`s, give v2's digest.
/// Up to 40 bytes every pair of cuts is tried: that walks each length of the register path's
/// overlapping loads (1–3, 4–7, 8–16 bytes) at every offset into the 16 or 32 bytes held so
/// far. Longer inputs take cuts 5 bytes apart: they cross into the buffer past 32 bytes, its
/// end at 128 bytes and the streaming digest past it.
#[test]
fn writes_cut_anywhere_give_the_digest() {
    let seed = 0x5eed;
    let state = FixedState::with_seed(seed);
    // Miri interprets this thousands of times slower: a few lengths around the boundaries.
    let (max, every, step) = if cfg!(miri) { (34u8, 0, 11) } else { (140, 40, 5) };
    let data: Vec<u8> = (0..max).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
    let miri_lengths = [0, 1, 7, 8, 15, 16, 17, 23, 31, 32, 33, 34];
    for n in (0..=data.len()).filter(|n| !cfg!(miri) || miri_lengths.contains(n)) {
        let want = u128::from_le_bytes(nabhash::v2::hash(&data[..n], seed));
        let step = if n <= every { 1 } else { step };
        for i in (0..=n).step_by(step) {
            for j in (i..=n).step_by(step) {
                let mut h = state.build_hasher();
                h.write(&data[..i]);
                h.write(&data[i..j]);
                h.write(&data[j..n]);
                assert_eq!(h.finish_u128(), want, "n={n} cuts at {i} and {j}");
            }
        }
    }
}

#[test]
fn fixed_state_is_deterministic_and_seeded() {
    let a = FixedState::with_seed(1);
    assert_eq!(a.hash_one(42u64), FixedState::with_seed(1).hash_one(42u64));
    assert_ne!(a.hash_one(42u64), FixedState::with_seed(2).hash_one(42u64));
    assert_eq!(FixedState::default().hash_one("x"), FixedState::with_seed(0).hash_one("x"));
}

#[test]
fn random_states_differ() {
    let n = if cfg!(miri) { 8 } else { 64 };
    let keys: Vec<u64> = (0..n).map(|_| RandomState::new().hash_one(42u64)).collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), keys.len(), "two RandomStates hashed 42 the same");
    let s = RandomState::new();
    assert_eq!(s.hash_one(7u32), s.clone().hash_one(7u32));
}

#[test]
fn maps_and_sets_work() {
    // Miri interprets the portable AES rounds thousands of times slower.
    let n: u64 = if cfg!(miri) { 200 } else { 10_000 };
    let mut m: nabhash::HashMap<u64, u64> = nabhash::HashMap::default();
    for i in 0..n {
        m.insert(i, i * 2);
    }
    assert!((0..n).all(|i| m[&i] == i * 2));
    let s: nabhash::HashSet<String> = (0..n).map(|i| i.to_string()).collect();
    assert!(s.contains(&(n - 1).to_string()) && !s.contains(&n.to_string()));
}
