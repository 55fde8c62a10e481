//! `NabHasher`: NABHash v2 behind `core::hash::Hasher`, keyed by a `BuildHasher`.

use core::hash::{BuildHasher, Hasher};

use crate::dispatch::Backend;
use crate::v2::{self, BLOCK, CHUNK};

/// A [`Hasher`] computing NABHash v2 of the bytes written to it, with the key of the
/// [`FixedState`] or [`RandomState`] that built it.
///
/// - The result depends only on the bytes written, not on how they were split into calls.
///   Integers are written as their little-endian bytes (`write_u64(x)` is
///   `write(&x.to_le_bytes())`), so hashes are the same on big- and little-endian machines.
/// - Up to 16 bytes stay in registers (no buffer round trip) and finish with v2's short
///   path: four AES rounds with key material. 17 to 32 bytes (most string keys) are kept as
///   two 16-byte integers and hashed from them; up to 128 bytes are buffered and hashed by
///   v2's one-shot kernel; longer inputs stream through [`v2::Digest`](crate::v2::Digest).
/// - [`finish`](Hasher::finish) is the first 8 bytes of the v2 digest as a little-endian
///   `u64`; [`finish_u128`](NabHasher::finish_u128) gives all 16.
///
/// ```
/// use core::hash::{BuildHasher, Hash, Hasher};
/// use nabhash::FixedState;
///
/// let state = FixedState::with_seed(7);
/// let mut h = state.build_hasher();
/// h.write(b"hello ");
/// h.write(b"world");
/// assert_eq!(h.finish_u128(), u128::from_le_bytes(nabhash::v2::hash(b"hello world", 7)));
/// assert_eq!(state.hash_one(42u64), state.hash_one(42u64));
/// ```
#[derive(Clone, Debug)]
pub struct NabHasher {
    key: [u8; 16],
    /// The bytes written, little-endian, while there are at most 16 of them; bytes 16..32
    /// (zero-padded) while there are 17 to 32.
    short: u128,
    /// Bytes 0..16, while there are 17 to 32 (those stay in registers too, see `write_slow`).
    first: u128,
    /// How many bytes were written.
    len: usize,
    /// The bytes written, while there are 33 to 128 of them (hashed by v2's one-shot kernel).
    buf: [u8; BLOCK],
    /// Everything written, once more than 128 bytes were.
    long: Option<v2::Digest>,
}

impl NabHasher {
    #[inline]
    fn with_key(key: [u8; 16]) -> Self {
        NabHasher { key, short: 0, first: 0, len: 0, buf: [0; BLOCK], long: None }
    }

    /// The full 128-bit NABHash v2 digest of the bytes written, as a little-endian `u128`.
    #[inline]
    pub fn finish_u128(&self) -> u128 {
        let digest = if self.len <= CHUNK {
            Backend::detect().v2_short(&self.key, &self.short.to_le_bytes(), self.len as u64)
        } else if self.len <= 2 * CHUNK {
            Backend::detect().v2_hash_pair(&self.key, self.first, self.short, self.len)
        } else {
            self.finish_long()
        };
        u128::from_le_bytes(digest)
    }

    /// The digest of more than 32 bytes, out of line like `write_slow`.
    #[inline(never)]
    fn finish_long(&self) -> [u8; 16] {
        match &self.long {
            Some(d) => d.finalize(),
            None => Backend::detect().v2_hash(&self.key, &self.buf[..self.len]),
        }
    }

    /// Moves the bytes so far into a streaming digest (more than 128 bytes are coming).
    #[cold]
    fn spill(&mut self) -> &mut v2::Digest {
        let mut d = v2::Digest::keyed(Backend::detect(), self.key);
        self.move_to_buf();
        d.update(&self.buf[..self.len]);
        self.long.insert(d)
    }

    /// Appends up to 16 bytes given as a little-endian integer `x` of `n` bytes.
    #[inline(always)]
    fn write_int(&mut self, x: u128, n: usize) {
        if self.len + n <= CHUNK {
            // `len < 16` here whenever `n > 0`, so the shift is in range (and no digest
            // exists: it appears only past 128 bytes).
            if n > 0 {
                self.short |= x << (8 * self.len);
            }
            self.len += n;
        } else {
            self.write_int_slow(x, n);
        }
    }

    /// `write_int` past 16 bytes, out of line: it keeps `write_u64` and friends small enough
    /// for callers such as `<u64 as Hash>::hash` to inline them (see `write`).
    #[cold]
    #[inline(never)]
    fn write_int_slow(&mut self, x: u128, n: usize) {
        let bytes = x.to_le_bytes();
        self.write_slow(&bytes[..n]);
    }

    /// `write` when the total passes 16 bytes: 17 to 32 bytes in two registers, buffered up
    /// to 128, streamed beyond.
    ///
    /// Up to 32 bytes (most string keys) stay out of `buf`: reading bytes back right after
    /// writing them, with wider loads than the writes, waits for the stores to commit. A
    /// 24-byte `str` key cost 25 ns through `buf` against 8 ns for `v2::hash` of the same
    /// bytes.
    #[inline(never)]
    fn write_slow(&mut self, bytes: &[u8]) {
        let total = self.len + bytes.len();
        if let Some(d) = &mut self.long {
            d.update(bytes);
        } else if total <= 2 * CHUNK {
            // `total > 16` (`write` and `write_int` keep up to 16 inline).
            let mut rest = bytes;
            if self.len <= CHUNK {
                // Bytes 0..len move to `first`; `short` starts bytes 16..32.
                self.first = self.short;
                self.short = 0;
                let take = CHUNK - self.len;
                if take > 0 {
                    self.first |= load_short(&rest[..take]) << (8 * self.len);
                }
                self.len = CHUNK;
                rest = &rest[take..];
            }
            if !rest.is_empty() {
                // `len - 16 < 16`: `total <= 32` and `rest` is not empty.
                self.short |= load_short(rest) << (8 * (self.len - CHUNK));
            }
        } else if total <= BLOCK {
            self.move_to_buf();
            self.buf[self.len..total].copy_from_slice(bytes);
        } else {
            self.spill().update(bytes);
        }
        self.len = total;
    }

    /// Makes `buf[..len]` hold the bytes so far, wherever they were.
    fn move_to_buf(&mut self) {
        let (short, first) = (self.short.to_le_bytes(), self.first.to_le_bytes());
        if self.len <= CHUNK {
            self.buf[..self.len].copy_from_slice(&short[..self.len]);
        } else if self.len <= 2 * CHUNK {
            self.buf[..CHUNK].copy_from_slice(&first);
            self.buf[CHUNK..self.len].copy_from_slice(&short[..self.len - CHUNK]);
        }
    }
}

impl Hasher for NabHasher {
    /// Up to 16 bytes in all stay inline; longer inputs go through an out-of-line call. With
    /// the whole path inline, `<u64 as Hash>::hash` grew past LLVM's inlining threshold and
    /// `hash_one(u64)` became a call with a 800-byte hasher on the stack (17 ns instead of ~1).
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let total = self.len + bytes.len();
        if total <= CHUNK {
            // `len <= 16`, so no digest exists (it appears only past 128 bytes).
            if !bytes.is_empty() {
                // `self.len < 16` here, so the shift is in range.
                self.short |= load_short(bytes) << (8 * self.len);
            }
            self.len = total;
        } else {
            self.write_slow(bytes);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_int(i.into(), 1)
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_int(i.into(), 2)
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_int(i.into(), 4)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.write_int(i.into(), 8)
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.write_int(i, 16)
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_int(i as u128, core::mem::size_of::<usize>())
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.finish_u128() as u64
    }
}

/// A deterministic [`BuildHasher`] for [`NabHasher`]: the same seed gives the same hashes in
/// every process and on every architecture (for reproducible tests and on-disk tables).
///
/// ```
/// use nabhash::FixedState;
/// let mut map = std::collections::HashMap::with_hasher(FixedState::with_seed(1));
/// map.insert("key", 1);
/// assert_eq!(map["key"], 1);
/// ```
#[derive(Clone, Debug)]
pub struct FixedState {
    key: [u8; 16],
}

impl FixedState {
    /// A state keyed by `seed` (v2's key schedule, one AES round, runs once here).
    pub fn with_seed(seed: u64) -> Self {
        FixedState { key: Backend::detect().v2_key(seed) }
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
    #[inline]
    fn build_hasher(&self) -> NabHasher {
        NabHasher::with_key(self.key)
    }
}

/// A [`BuildHasher`] with a random key, like std's `RandomState`: a seed is drawn from the OS
/// once per process, and every `RandomState::new()` derives a different key from it.
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub struct RandomState {
    key: [u8; 16],
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
        // Distinct seeds per instance; v2's key schedule (an AES round) mixes them.
        let seed = seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        RandomState { key: Backend::detect().v2_key(seed) }
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
    #[inline]
    fn build_hasher(&self) -> NabHasher {
        NabHasher::with_key(self.key)
    }
}

/// A `std::collections::HashMap` hashed by [`NabHasher`] with a [`RandomState`].
#[cfg(feature = "std")]
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomState>;

/// A `std::collections::HashSet` hashed by [`NabHasher`] with a [`RandomState`].
#[cfg(feature = "std")]
pub type HashSet<T> = std::collections::HashSet<T, RandomState>;

/// `bytes` (at most 16 of them) as a little-endian `u128`, zero-extended.
///
/// Two overlapping loads instead of a copy into a stack buffer: a variable-length copy is a
/// call to `memcpy`, and reading the buffer back as one 16-byte value stalls on store
/// forwarding. The overlapping bytes are the same in both loads, so OR keeps them intact.
#[inline(always)]
fn load_short(bytes: &[u8]) -> u128 {
    let n = bytes.len();
    debug_assert!(n <= CHUNK);
    let le64 = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    let le32 = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
    if n >= 8 {
        u128::from(le64(&bytes[..8])) | u128::from(le64(&bytes[n - 8..])) << (8 * (n - 8))
    } else if n >= 4 {
        u128::from(le32(&bytes[..4]) as u64 | u64::from(le32(&bytes[n - 4..])) << (8 * (n - 4)))
    } else if n > 0 {
        // 1 to 3 bytes: the first, the middle and the last (some of them the same byte).
        let (a, b, c) = (bytes[0], bytes[n / 2], bytes[n - 1]);
        u128::from(u32::from(a) | u32::from(b) << (8 * (n / 2)) | u32::from(c) << (8 * (n - 1)))
    } else {
        0
    }
}
