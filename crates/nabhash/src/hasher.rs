//! `NabHasher`: the `HashMap` hasher. A keyed folded-multiply hash (the foldhash / rapidhash /
//! wyhash family), portable and inlinable in every build; its definition is in the crate docs
//! ("The `NabHasher` algorithm").

use core::fmt;
use core::hash::{BuildHasher, Hash, Hasher};

/// XORed into the seed before key expansion ("nabhash!" in ASCII), so that seed 0 does not
/// start SplitMix64 from its own zero state.
const SEED_TWEAK: u64 = 0x6e61_6268_6173_6821;

/// The 64-bit folded multiply: the XOR of the two halves of the 128-bit product. The same
/// value on every target (`u128` arithmetic is exact everywhere).
#[inline(always)]
const fn fold_mul(x: u64, y: u64) -> u64 {
    let p = (x as u128).wrapping_mul(y as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The key material of a `BuildHasher`: the initial accumulator and six multiply keys, all
/// derived from the seed once (see the crate docs).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Keys {
    acc: u64,
    k: [u64; 6],
}

impl Keys {
    /// SplitMix64 from `seed ^ SEED_TWEAK`: output 0 is the accumulator, outputs 1..=6 the
    /// keys.
    const fn expand(seed: u64) -> Keys {
        let mut state = seed ^ SEED_TWEAK;
        let mut out = [0u64; 7];
        let mut i = 0;
        while i < 7 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            out[i] = z ^ (z >> 31);
            i += 1;
        }
        Keys { acc: out[0], k: [out[1], out[2], out[3], out[4], out[5], out[6]] }
    }
}

/// The [`Hasher`] of [`FixedState`] and [`RandomState`]: a keyed folded-multiply hash that
/// inlines into the caller in every build (no CPU detection, no `target_feature` call, no
/// byte buffer).
///
/// - Each `write` is mixed into the state as it comes, like foldhash, ahash and rapidhash do.
///   **Different splits of the same bytes may hash differently** (`Hasher` does not ask for
///   more: std's `Hash` impls are prefix-free). For a digest that is the same for any split,
///   use [`v2::Digest`](crate::v2::Digest).
/// - Integers are mixed as numbers, so hashes are the same on big- and little-endian
///   machines; `write_usize` is `write_u64` on every target, so 32- and 64-bit targets agree.
/// - Every input goes through two dependent folded multiplies before the output (one is
///   not enough for avalanche with a fixed key): a `u64` key through the sponge fold and a
///   multiply by a key, bytes through their own multiply and a closing multiply of the state
///   by a rotation of itself (what lets the `write` path pass SMHasher3). A `str` key's
///   `0xff` terminator is XORed in without a multiply, so a `str` costs two, like a `u64`.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// use nabhash::FixedState;
///
/// let state = FixedState::with_seed(7);
/// assert_eq!(state.hash_one(42u64), state.hash_one(42u64));
/// assert_ne!(state.hash_one(42u64), FixedState::with_seed(8).hash_one(42u64));
/// let mut h = state.build_hasher();
/// h.write(b"hello world");
/// let _ = (h.finish(), h.finish_u128());
/// ```
#[derive(Clone, Copy)]
pub struct NabHasher {
    /// The running state is `acc ^ tail`: every `write` folds into `acc`.
    acc: u64,
    /// The byte of a `write_u8` directly after a `write`, kept apart from `acc` until the
    /// state is next used, so that `finish` can fold it into its keys (off the dependency
    /// chain) instead of XORing it into the product it closes.
    tail: u64,
    /// Integers written since the last fold, packed from bit 0 up (at most 128 bits).
    sponge: u128,
    /// How many bits of `sponge` are used.
    sponge_bits: u32,
    /// The last call was a `write`: a `write_u8` now (the `0xff` that std's `str` hash
    /// appends) is XORed into `acc` instead of going through the sponge.
    after_write: bool,
    keys: Keys,
}

impl NabHasher {
    #[inline(always)]
    const fn with_keys(keys: Keys) -> Self {
        NabHasher { acc: keys.acc, tail: 0, sponge: 0, sponge_bits: 0, after_write: false, keys }
    }

    /// Packs an integer of `bits` bits into the sponge, folding the sponge into the
    /// accumulator first when it would overflow.
    #[inline(always)]
    fn write_num(&mut self, x: u64, bits: u32) {
        self.after_write = false;
        if self.sponge_bits + bits > 128 {
            self.acc = self.fold_sponge();
            self.tail = 0;
            self.sponge = u128::from(x);
            self.sponge_bits = bits;
        } else {
            self.sponge |= u128::from(x) << self.sponge_bits;
            self.sponge_bits += bits;
        }
    }

    /// `acc` with the sponge folded in: `fold_mul(lo ^ acc, hi ^ k0)`.
    #[inline(always)]
    fn fold_sponge(&self) -> u64 {
        fold_mul((self.sponge as u64) ^ self.state(), ((self.sponge >> 64) as u64) ^ self.keys.k[0])
    }

    /// The closing multiply of a state that ended with a `write` (both factors depend on
    /// `h`): a product of `h` with a key left SMHasher3's BIC test a 0.8% correlation between
    /// two output bits on 3-byte keys. The rotation breaks the symmetry `x <-> x ^ ka ^ kb`
    /// that `fm(h ^ ka, h ^ kb)` has.
    ///
    /// It closes the state `h = acc ^ tail` as `fm(h ^ ka, rotl(h, 32) ^ kb)`, computed as
    /// `fm(acc ^ (tail ^ ka), rotl(acc, 32) ^ (rotl(tail, 32) ^ kb))`: for a `str` key the
    /// `tail` is the constant `0xff`, so its XORs join the keys outside the lookup loop.
    #[inline(always)]
    fn close(acc: u64, tail: u64, ka: u64, kb: u64) -> u64 {
        fold_mul(acc ^ (tail ^ ka), acc.rotate_left(32) ^ (tail.rotate_left(32) ^ kb))
    }

    /// The running state.
    #[inline(always)]
    fn state(&self) -> u64 {
        self.acc ^ self.tail
    }

    /// 128 bits derived from the same 64-bit state as [`finish`](Hasher::finish) (its low 64
    /// bits *are* `finish`; the high 64 come from a second closing multiply). The state is 64
    /// bits, so two inputs collide in all 128 bits as often as in `finish`; for a 128-bit
    /// digest use [`v2::hash`](crate::v2::hash).
    #[inline]
    pub fn finish_u128(&self) -> u128 {
        let k = &self.keys.k;
        let (h, lo) = if self.sponge_bits > 0 {
            let h = self.fold_sponge();
            (h, fold_mul(h, k[2]))
        } else {
            (self.state(), Self::close(self.acc, self.tail, k[2], k[3]))
        };
        u128::from(lo) | u128::from(Self::close(h, 0, k[4], k[5])) << 64
    }
}

impl fmt::Debug for NabHasher {
    /// Does not print the key material or the state (which would reveal the key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NabHasher").finish_non_exhaustive()
    }
}

/// Little-endian `u64` at `bytes[at..at + 8]`.
#[inline(always)]
fn le64(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Little-endian `u32` at `bytes[at..at + 4]`, zero-extended.
#[inline(always)]
fn le32(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(b))
}

/// Up to 16 bytes: two overlapping loads, one folded multiply.
#[inline(always)]
fn hash_short(bytes: &[u8], acc: u64, k: &[u64; 6]) -> u64 {
    let n = bytes.len();
    let (a, b) = if n >= 8 {
        (le64(bytes, 0), le64(bytes, n - 8))
    } else if n >= 4 {
        (le32(bytes, 0), le32(bytes, n - 4))
    } else if n > 0 {
        (u64::from(bytes[0]), u64::from(bytes[n - 1]) << 8 | u64::from(bytes[n / 2]))
    } else {
        (0, 0)
    };
    fold_mul(acc ^ a, k[1] ^ b)
}

/// More than 16 bytes: two lanes (four from 129 bytes, six from 257) of folded multiplies,
/// each taking 16 bytes per step; the tail is read from both ends.
///
/// It takes three keys, as separate values, and derives the other lane offsets from them:
/// with six arguments in registers the call costs the short-key path nothing, where an
/// array or a reference into the hasher would make every caller keep a copy of the whole
/// hasher in memory (and stop `hash_one` from inlining into the map's lookup).
#[inline(never)]
fn hash_long(mut v: &[u8], acc: u64, k0: u64, k1: u64, k2: u64) -> u64 {
    let mut s0 = acc;
    let mut s1 = acc.wrapping_add(k1);
    if v.len() > 128 {
        let mut s2 = acc.wrapping_add(k2);
        let mut s3 = acc.wrapping_add(k1.rotate_left(32));
        if v.len() > 256 {
            let mut s4 = acc.wrapping_add(k2.rotate_left(32));
            let mut s5 = acc.wrapping_add((k1 ^ k2).rotate_left(16));
            while v.len() > 256 {
                s0 = fold_mul(le64(v, 0) ^ s0, le64(v, 48) ^ k0);
                s1 = fold_mul(le64(v, 8) ^ s1, le64(v, 56) ^ k0);
                s2 = fold_mul(le64(v, 16) ^ s2, le64(v, 64) ^ k0);
                s3 = fold_mul(le64(v, 24) ^ s3, le64(v, 72) ^ k0);
                s4 = fold_mul(le64(v, 32) ^ s4, le64(v, 80) ^ k0);
                s5 = fold_mul(le64(v, 40) ^ s5, le64(v, 88) ^ k0);
                v = &v[96..];
            }
            s0 ^= s4;
            s1 ^= s5;
        }
        while v.len() > 128 {
            s0 = fold_mul(le64(v, 0) ^ s0, le64(v, 32) ^ k0);
            s1 = fold_mul(le64(v, 8) ^ s1, le64(v, 40) ^ k0);
            s2 = fold_mul(le64(v, 16) ^ s2, le64(v, 48) ^ k0);
            s3 = fold_mul(le64(v, 24) ^ s3, le64(v, 56) ^ k0);
            v = &v[64..];
        }
        s0 ^= s2;
        s1 ^= s3;
    }
    // 17 to 128 bytes left.
    let n = v.len();
    s0 = fold_mul(le64(v, 0) ^ s0, le64(v, n - 16) ^ k0);
    s1 = fold_mul(le64(v, 8) ^ s1, le64(v, n - 8) ^ k0);
    if n >= 32 {
        s0 = fold_mul(le64(v, 16) ^ s0, le64(v, n - 32) ^ k0);
        s1 = fold_mul(le64(v, 24) ^ s1, le64(v, n - 24) ^ k0);
        if n >= 64 {
            s0 = fold_mul(le64(v, 32) ^ s0, le64(v, n - 48) ^ k0);
            s1 = fold_mul(le64(v, 40) ^ s1, le64(v, n - 40) ^ k0);
            if n >= 96 {
                s0 = fold_mul(le64(v, 48) ^ s0, le64(v, n - 64) ^ k0);
                s1 = fold_mul(le64(v, 56) ^ s1, le64(v, n - 56) ^ k0);
            }
        }
    }
    s0 ^ s1
}

impl Hasher for NabHasher {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        // The rotation by the length separates inputs whose overlapping loads read the same
        // words (an `abcd` and `abcdabcd`-style length extension).
        let acc = self.state().rotate_right(n as u32);
        self.tail = 0;
        self.after_write = true;
        self.acc = if n <= 16 {
            hash_short(bytes, acc, &self.keys.k)
        } else {
            hash_long(bytes, acc, self.keys.k[0], self.keys.k[1], self.keys.k[2])
        };
    }

    /// Directly after a `write`, the byte is XORed into the state (no multiply: `finish`
    /// then closes the state as it closes a `write`, so a `str` key costs two dependent
    /// multiplies, not three); otherwise it goes into the sponge like any integer.
    #[inline(always)]
    fn write_u8(&mut self, i: u8) {
        if self.after_write {
            self.tail ^= u64::from(i);
            self.after_write = false;
        } else {
            self.write_num(i.into(), 8)
        }
    }
    #[inline(always)]
    fn write_u16(&mut self, i: u16) {
        self.write_num(i.into(), 16)
    }
    #[inline(always)]
    fn write_u32(&mut self, i: u32) {
        self.write_num(i.into(), 32)
    }
    #[inline(always)]
    fn write_u64(&mut self, i: u64) {
        self.write_num(i, 64)
    }
    #[inline(always)]
    fn write_u128(&mut self, i: u128) {
        self.after_write = false;
        if self.sponge_bits > 0 {
            self.acc = self.fold_sponge();
            self.tail = 0;
        }
        self.sponge = 0;
        self.sponge_bits = 0;
        self.acc = fold_mul((i as u64) ^ self.state(), ((i >> 64) as u64) ^ self.keys.k[0]);
        self.tail = 0;
    }
    /// `write_u64(i as u64)` on every target, so that 32- and 64-bit targets agree.
    #[inline(always)]
    fn write_usize(&mut self, i: usize) {
        self.write_num(i as u64, 64)
    }

    /// Two dependent multiplies after the last input, whichever path: integers pass through
    /// the sponge fold and one multiply by a key (the shape of foldhash's quality variant:
    /// one multiply fails the integer avalanche check); bytes through their own multiply and
    /// a closing multiply of the state by a rotation of itself.
    #[inline(always)]
    fn finish(&self) -> u64 {
        if self.sponge_bits > 0 {
            fold_mul(self.fold_sponge(), self.keys.k[2])
        } else {
            Self::close(self.acc, self.tail, self.keys.k[2], self.keys.k[3])
        }
    }
}

/// `BuildHasher::hash_one` of both states (`HashMap` hashes every key through it), overriding
/// the provided method, which is not `#[inline]`: in cargo's default release profile (16
/// codegen units, no LTO) the provided `hash_one` and std's `Hasher::write_str` are
/// instantiated in one codegen unit and reach the others only through ThinLTO imports, which
/// stop at a size limit that `write` plus `write_u8` exceed. A `HashMap<&str, _>` then called
/// an out-of-line `write_str` with the hasher in memory (the real-text count 350 µs against
/// 268 µs with the call inlined, amd-zen5). An `#[inline(always)]` override is copied into
/// every codegen unit that uses it, and `write_str` with it.
#[inline(always)]
fn hash_one_with<T: Hash>(keys: Keys, x: T) -> u64 {
    let mut h = NabHasher::with_keys(keys);
    x.hash(&mut h);
    h.finish()
}

/// A deterministic [`BuildHasher`] for [`NabHasher`]: the same seed gives the same hashes in
/// every process and on every architecture and endianness (for reproducible tests and on-disk
/// tables).
///
/// ```
/// use nabhash::FixedState;
/// const STATE: FixedState = FixedState::with_seed(1);
/// let mut map = std::collections::HashMap::with_hasher(STATE);
/// map.insert("key", 1);
/// assert_eq!(map["key"], 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FixedState {
    keys: Keys,
}

impl FixedState {
    /// A state keyed by `seed` (the key expansion runs here, at compile time for a `const`).
    pub const fn with_seed(seed: u64) -> Self {
        FixedState { keys: Keys::expand(seed) }
    }
}

impl fmt::Debug for FixedState {
    /// Does not print the key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixedState").finish_non_exhaustive()
    }
}

impl Default for FixedState {
    /// Seed 0.
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl BuildHasher for FixedState {
    type Hasher = NabHasher;
    #[inline(always)]
    fn build_hasher(&self) -> NabHasher {
        NabHasher::with_keys(self.keys)
    }
    /// The provided method's value (`build_hasher`, `hash`, `finish`), inlined at every call
    /// site, so that a `HashMap` in a build of many codegen units hashes `str` keys without a
    /// call.
    #[inline(always)]
    fn hash_one<T: Hash>(&self, x: T) -> u64 {
        hash_one_with(self.keys, x)
    }
}

/// A [`BuildHasher`] with a random key, like std's `RandomState`: a seed is drawn from the OS
/// once per process, and every `RandomState::new()` derives a different key from it.
#[cfg(feature = "std")]
#[derive(Clone, Copy)]
pub struct RandomState {
    keys: Keys,
}

#[cfg(feature = "std")]
impl RandomState {
    /// A state with a fresh key.
    pub fn new() -> Self {
        use std::sync::OnceLock;
        use std::sync::atomic::{AtomicU64, Ordering};
        static PROCESS_SEED: OnceLock<u64> = OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        // std's RandomState keys SipHash from the OS's random source; one hash of it is a
        // random u64 without another dependency.
        let seed = *PROCESS_SEED.get_or_init(|| {
            std::collections::hash_map::RandomState::new().hash_one(0x6e61_6268u64)
        });
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        // Distinct seeds per instance; the key expansion (SplitMix64) mixes them.
        RandomState { keys: Keys::expand(seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)) }
    }
}

#[cfg(feature = "std")]
impl fmt::Debug for RandomState {
    /// Does not print the key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RandomState").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl Default for RandomState {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl BuildHasher for RandomState {
    type Hasher = NabHasher;
    #[inline(always)]
    fn build_hasher(&self) -> NabHasher {
        NabHasher::with_keys(self.keys)
    }
    /// The provided method's value (`build_hasher`, `hash`, `finish`), inlined at every call
    /// site, so that a `HashMap` in a build of many codegen units hashes `str` keys without a
    /// call.
    #[inline(always)]
    fn hash_one<T: Hash>(&self, x: T) -> u64 {
        hash_one_with(self.keys, x)
    }
}

/// A `std::collections::HashMap` hashed by [`NabHasher`] with a [`RandomState`].
#[cfg(feature = "std")]
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomState>;

/// A `std::collections::HashSet` hashed by [`NabHasher`] with a [`RandomState`].
#[cfg(feature = "std")]
pub type HashSet<T> = std::collections::HashSet<T, RandomState>;

/// `new` and `with_capacity` for [`HashMap`] (std's are only for its own `RandomState`), as
/// foldhash and ahash provide.
///
/// ```
/// use nabhash::{HashMap, HashMapExt};
/// let mut m: HashMap<u32, &str> = HashMap::with_capacity(10);
/// m.insert(1, "one");
/// assert!(m.capacity() >= 10 && HashMap::<u8, u8>::new().is_empty());
/// ```
#[cfg(feature = "std")]
pub trait HashMapExt {
    /// An empty map with a fresh [`RandomState`].
    fn new() -> Self;
    /// An empty map with room for `capacity` entries and a fresh [`RandomState`].
    fn with_capacity(capacity: usize) -> Self;
}

#[cfg(feature = "std")]
impl<K, V> HashMapExt for HashMap<K, V> {
    #[inline]
    fn new() -> Self {
        Self::with_hasher(RandomState::new())
    }
    #[inline]
    fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_and_hasher(capacity, RandomState::new())
    }
}

/// `new` and `with_capacity` for [`HashSet`], as [`HashMapExt`] for maps.
///
/// ```
/// use nabhash::{HashSet, HashSetExt};
/// let mut s: HashSet<u32> = HashSet::new();
/// assert!(s.insert(3) && s.contains(&3));
/// ```
#[cfg(feature = "std")]
pub trait HashSetExt {
    /// An empty set with a fresh [`RandomState`].
    fn new() -> Self;
    /// An empty set with room for `capacity` elements and a fresh [`RandomState`].
    fn with_capacity(capacity: usize) -> Self;
}

#[cfg(feature = "std")]
impl<T> HashSetExt for HashSet<T> {
    #[inline]
    fn new() -> Self {
        Self::with_hasher(RandomState::new())
    }
    #[inline]
    fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_and_hasher(capacity, RandomState::new())
    }
}
