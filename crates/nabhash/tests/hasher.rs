//! `NabHasher`: the crate against an independent implementation of the definition in the crate
//! docs ("The `NabHasher` algorithm"), the vectors file, and the `BuildHasher` contracts.

mod common;

use core::hash::{BuildHasher, Hasher};
use nabhash::{FixedState, HashMapExt, HashSetExt, NabHasher, RandomState};
use proptest::prelude::*;

/// The definition in the crate docs, written from the text with no regard for speed.
mod reference {
    pub fn fm(x: u64, y: u64) -> u64 {
        let p = u128::from(x) * u128::from(y);
        (p as u64) ^ ((p >> 64) as u64)
    }

    fn le(bytes: &[u8]) -> u64 {
        bytes.iter().rev().fold(0, |x, &b| x << 8 | u64::from(b))
    }

    pub struct Ref {
        acc: u64,
        k: [u64; 6],
        sponge: u128,
        bits: u32,
        after_write: bool,
    }

    impl Ref {
        pub fn new(seed: u64) -> Ref {
            let mut state = seed ^ u64::from_be_bytes(*b"nabhash!");
            let mut z = [0u64; 7];
            for out in &mut z {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut x = state;
                x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                *out = x ^ (x >> 31);
            }
            Ref {
                acc: z[0],
                k: [z[1], z[2], z[3], z[4], z[5], z[6]],
                sponge: 0,
                bits: 0,
                after_write: false,
            }
        }

        fn fold(&self) -> u64 {
            fm(self.sponge as u64 ^ self.acc, (self.sponge >> 64) as u64 ^ self.k[0])
        }

        pub fn int(&mut self, x: u64, w: u32) {
            if w == 8 && self.after_write {
                self.acc ^= x;
                self.after_write = false;
                return;
            }
            self.after_write = false;
            if self.bits + w > 128 {
                self.acc = self.fold();
                self.sponge = x.into();
                self.bits = w;
            } else {
                self.sponge |= u128::from(x) << self.bits;
                self.bits += w;
            }
        }

        pub fn u128(&mut self, x: u128) {
            self.after_write = false;
            if self.bits > 0 {
                self.acc = self.fold();
                self.sponge = 0;
                self.bits = 0;
            }
            self.acc = fm(x as u64 ^ self.acc, (x >> 64) as u64 ^ self.k[0]);
        }

        #[allow(clippy::needless_range_loop)] // lane i reads word i: the definition's indexing
        pub fn bytes(&mut self, b: &[u8]) {
            let n = b.len();
            let a = self.acc.rotate_right((n % 64) as u32);
            self.after_write = true;
            let k = self.k;
            if n <= 16 {
                let (p, q) = match n {
                    0 => (0, 0),
                    1..=3 => (le(&b[..1]), le(&[b[n / 2], b[n - 1]])),
                    4..=7 => (le(&b[..4]), le(&b[n - 4..])),
                    _ => (le(&b[..8]), le(&b[n - 8..])),
                };
                self.acc = fm(a ^ p, k[1] ^ q);
                return;
            }
            let w = |v: &[u8], at: usize| le(&v[at..at + 8]);
            let l3 = k[1].rotate_left(32);
            let (l4, l5) = (k[2].rotate_left(32), (k[1] ^ k[2]).rotate_left(16));
            let mut s = [a, a.wrapping_add(k[1]), a.wrapping_add(k[2]), a.wrapping_add(l3)];
            let mut s45 = [a.wrapping_add(l4), a.wrapping_add(l5)];
            let mut v = b;
            if v.len() > 256 {
                while v.len() > 256 {
                    for i in 0..4 {
                        s[i] = fm(w(v, 8 * i) ^ s[i], w(v, 48 + 8 * i) ^ k[0]);
                    }
                    for i in 0..2 {
                        s45[i] = fm(w(v, 32 + 8 * i) ^ s45[i], w(v, 80 + 8 * i) ^ k[0]);
                    }
                    v = &v[96..];
                }
                s[0] ^= s45[0];
                s[1] ^= s45[1];
            }
            if b.len() > 128 {
                while v.len() > 128 {
                    for i in 0..4 {
                        s[i] = fm(w(v, 8 * i) ^ s[i], w(v, 32 + 8 * i) ^ k[0]);
                    }
                    v = &v[64..];
                }
                s[0] ^= s[2];
                s[1] ^= s[3];
            }
            let m = v.len();
            for r in 0..4 {
                if m >= 32 * r {
                    s[0] = fm(w(v, 16 * r) ^ s[0], w(v, m - 16 - 16 * r) ^ k[0]);
                    s[1] = fm(w(v, 16 * r + 8) ^ s[1], w(v, m - 8 - 16 * r) ^ k[0]);
                }
            }
            self.acc = s[0] ^ s[1];
        }

        pub fn finish(&self) -> (u64, u128) {
            let k = &self.k;
            let (h, lo) = if self.bits > 0 {
                let h = self.fold();
                (h, fm(h, k[2]))
            } else {
                let h = self.acc;
                (h, fm(h ^ k[2], h.rotate_left(32) ^ k[3]))
            };
            (lo, u128::from(lo) | u128::from(fm(h ^ k[4], h.rotate_left(32) ^ k[5])) << 64)
        }
    }
}

/// One call on a hasher.
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
    fn apply(&self, h: &mut NabHasher, r: &mut reference::Ref) {
        match self {
            Op::Bytes(b) => (h.write(b), r.bytes(b)).1,
            Op::U8(x) => (h.write_u8(*x), r.int((*x).into(), 8)).1,
            Op::U16(x) => (h.write_u16(*x), r.int((*x).into(), 16)).1,
            Op::U32(x) => (h.write_u32(*x), r.int((*x).into(), 32)).1,
            Op::U64(x) => (h.write_u64(*x), r.int(*x, 64)).1,
            Op::U128(x) => (h.write_u128(*x), r.u128(*x)).1,
            Op::Usize(x) => (h.write_usize(*x), r.int(*x as u64, 64)).1,
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Op::Bytes),
        proptest::collection::vec(any::<u8>(), 0..700).prop_map(Op::Bytes),
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
    fn any_sequence_of_writes_follows_the_definition(seed in any::<u64>(), ops in proptest::collection::vec(op(), 0..12)) {
        let mut h = FixedState::with_seed(seed).build_hasher();
        let mut r = reference::Ref::new(seed);
        for op in &ops {
            op.apply(&mut h, &mut r);
        }
        let (lo, full) = r.finish();
        prop_assert_eq!(h.finish(), lo);
        prop_assert_eq!(h.finish_u128(), full);
    }
}

/// Every length from 0 to 700 bytes (every branch of the byte path and both ends of each)
/// in one write, against the definition.
#[test]
fn every_length_follows_the_definition() {
    let max = if cfg!(miri) { 140 } else { 700 };
    let data: Vec<u8> = (0..max).map(|i| (i as u8).wrapping_mul(37) ^ 0xa5).collect();
    for seed in [0, 0x5eed, u64::MAX] {
        for n in 0..=max {
            let mut h = FixedState::with_seed(seed).build_hasher();
            h.write(&data[..n]);
            let mut r = reference::Ref::new(seed);
            r.bytes(&data[..n]);
            assert_eq!(h.finish_u128(), r.finish().1, "seed {seed} len {n}");
        }
    }
}

/// `tests/data/nabhasher.txt` (written by `cargo run --example nabhasher_vectors` on x86_64):
/// the same hashes on every target, big-endian ones included.
#[test]
fn vectors_are_the_same_on_this_target() {
    let vectors = common::nabhasher_vectors();
    for (kind, seed, input, want) in &vectors {
        let state = FixedState::with_seed(*seed);
        let got = match *kind {
            "bytes" => {
                let mut h = state.build_hasher();
                h.write(input);
                h.finish_u128()
            }
            "u64" => {
                let mut h = state.build_hasher();
                h.write_u64(u64::from_le_bytes(input[..8].try_into().unwrap()));
                h.finish_u128()
            }
            "str" => {
                // What `str`'s `Hash` does: the bytes, then a `0xff` terminator.
                let mut h = state.build_hasher();
                h.write(input);
                h.write_u8(0xff);
                h.finish_u128()
            }
            other => panic!("unknown vector kind {other}"),
        };
        assert_eq!(got, *want, "{kind} seed {seed} input {input:02x?}");
    }
}

#[test]
fn fixed_state_is_const_copy_deterministic_and_seeded() {
    const A: FixedState = FixedState::with_seed(1);
    fn copy<T: Copy>(t: T) -> (T, T) {
        (t, t)
    }
    let (a, b) = copy(A);
    assert_eq!(a.hash_one(42u64), b.hash_one(42u64));
    assert_ne!(a.hash_one(42u64), FixedState::with_seed(2).hash_one(42u64));
    assert_eq!(FixedState::default().hash_one("x"), FixedState::with_seed(0).hash_one("x"));
    let _ = copy(a.build_hasher());
    let _ = copy(RandomState::new());
}

/// Both states override `BuildHasher::hash_one` (to inline it into every codegen unit): it
/// returns what the provided method does, `build_hasher`, `hash`, `finish`, for every kind of
/// key.
#[test]
fn hash_one_is_build_hasher_hash_finish() {
    use core::hash::Hash;
    // The provided method's body, spelled out: what the override must equal.
    #[allow(clippy::manual_hash_one)]
    fn provided<S: BuildHasher, T: Hash>(s: &S, x: T) -> u64 {
        let mut h = s.build_hasher();
        x.hash(&mut h);
        h.finish()
    }
    fn check<S: BuildHasher>(s: &S) {
        let text = String::from("a key of thirty-three bytes, long");
        assert_eq!(s.hash_one(42u64), provided(s, 42u64));
        assert_eq!(s.hash_one(7u8), provided(s, 7u8));
        assert_eq!(s.hash_one(u128::MAX - 3), provided(s, u128::MAX - 3));
        assert_eq!(s.hash_one("word"), provided(s, "word"));
        assert_eq!(s.hash_one(&text), provided(s, &text));
        assert_eq!(s.hash_one((1u32, "a", [2u16; 3])), provided(s, (1u32, "a", [2u16; 3])));
        assert_eq!(s.hash_one(&b"bytes"[..]), provided(s, &b"bytes"[..]));
    }
    check(&FixedState::with_seed(3));
    check(&RandomState::new());
}

/// `Debug` shows no key material: states with different keys print the same.
#[test]
fn debug_hides_the_keys() {
    let (a, b) = (FixedState::with_seed(1), FixedState::with_seed(2));
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(format!("{:?}", a.build_hasher()), format!("{:?}", b.build_hasher()));
    assert_eq!(format!("{:?}", RandomState::new()), format!("{:?}", RandomState::new()));
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
    let n: u64 = if cfg!(miri) { 200 } else { 10_000 };
    let mut m: nabhash::HashMap<u64, u64> = nabhash::HashMap::new();
    for i in 0..n {
        m.insert(i, i * 2);
    }
    assert!((0..n).all(|i| m[&i] == i * 2));
    let mut s: nabhash::HashSet<String> = nabhash::HashSet::with_capacity(n as usize);
    assert!(s.capacity() >= n as usize);
    s.extend((0..n).map(|i| i.to_string()));
    assert!(s.contains(&(n - 1).to_string()) && !s.contains(&n.to_string()));
    let m2: nabhash::HashMap<u8, u8> = nabhash::HashMap::with_capacity(5);
    assert!(m2.capacity() >= 5 && nabhash::HashSet::<u8>::new().is_empty());
}

/// What `HashMap<String, _>` runs (`write` then `write_u8(0xff)`) equals the definition.
#[test]
fn str_keys_follow_the_definition() {
    let state = FixedState::with_seed(9);
    for s in ["", "a", "hello", "a somewhat longer key of forty-two bytes!!"] {
        let mut r = reference::Ref::new(9);
        r.bytes(s.as_bytes());
        r.int(0xff, 8);
        assert_eq!(state.hash_one(s), r.finish().0, "{s:?}");
    }
}
