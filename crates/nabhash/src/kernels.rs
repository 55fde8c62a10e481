//! What every backend implements and the dispatcher calls: the [`Kernels`] trait and the
//! [`V2Fn`] kernel pointer. A leaf below its users: `portable`, each `arch/` backend and
//! `dispatch` import it; it imports only the algorithms' shared state (`v1::state`,
//! `v2::state`).

use crate::v1::state::{BLOCK, IV_LANE, State};
use crate::v2::state::{CHUNK, MID, V2State, pad};

/// A backend's v2 of `data` with `seed` (of at most [`MID`] bytes for
/// [`Kernels::v2_upto_mid_fn`]'s), the digest as a little-endian `u128` (two registers; a
/// `[u8; 16]` comes back through memory).
///
/// # Safety
///
/// The CPU supports the backend whose [`Kernels::v2_upto_mid_fn`] returned the pointer.
pub(crate) type V2Fn = unsafe fn(data: &[u8], seed: u64) -> u128;

/// A backend's v2 of `data` (at most [`MID`] bytes) for the derived seed key `key`
/// ([`Kernels::v2_key`]), the digest as a little-endian `u128`: what `v2::Seeded` calls.
///
/// # Safety
///
/// The CPU supports the backend whose [`Kernels::v2_keyed_upto_mid_fn`] returned the pointer.
pub(crate) type V2KeyedFn = unsafe fn(data: &[u8], key: &[u8; 16]) -> u128;

/// The operations every backend implements, with the same meaning as the portable ones.
pub(crate) trait Kernels: Copy {
    /// v1 step 2 over every whole 64-byte block of `blocks`.
    fn v1_compress(self, state: &mut State, blocks: &[u8]);
    /// v1 steps 3–5.
    fn v1_finish(self, state: &State, len: u64) -> [u8; 16];
    /// v1 of a whole input (one-shot). Backends may keep the state in registers throughout.
    #[inline]
    fn v1_hash(self, data: &[u8]) -> [u8; 16] {
        let mut state = [IV_LANE; 4];
        let whole = data.len() - data.len() % BLOCK;
        let (body, tail) = data.split_at(whole);
        self.v1_compress(&mut state, body);
        if !tail.is_empty() {
            let mut block = [0u8; BLOCK];
            block[..tail.len()].copy_from_slice(tail);
            self.v1_compress(&mut state, &block);
        }
        self.v1_finish(&state, data.len() as u64)
    }
    /// v2's seed key `K`.
    fn v2_key(self, seed: u64) -> [u8; 16];
    /// v2 of an input of at most 16 bytes, zero-padded in `x`.
    fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16];
    /// v2 of an input of at most 16 bytes, read from `data` itself.
    #[inline]
    fn v2_short_slice(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        self.v2_short(key, &pad(data), data.len() as u64)
    }
    /// v2 of an input of 17 to 64 bytes.
    fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16];
    /// v2 of a whole input (one-shot) with seed key `key`.
    #[inline]
    fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        if data.len() <= CHUNK {
            return self.v2_short_slice(key, data);
        }
        if data.len() <= MID {
            return self.v2_mid(key, data);
        }
        let mut st = V2State::new(key);
        self.v2_absorb(&mut st, data);
        self.v2_finish(&st, data.len() as u64)
    }
    /// v2 of `data` with `seed`; backends override it to derive the key in registers.
    #[inline]
    fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
        if data.len() <= MID {
            // SAFETY: the function is this backend's, and `self` proves the CPU supports it.
            return unsafe { self.v2_upto_mid_fn()(data, seed) }.to_le_bytes();
        }
        self.v2_hash(&self.v2_key(seed), data)
    }
    /// This backend's v2 of at most [`MID`] bytes with the seed (key and
    /// rounds in one call), as a pointer that [`v2_upto_mid`](crate::dispatch::v2_upto_mid) caches.
    fn v2_upto_mid_fn(self) -> V2Fn;
    /// This backend's v2 of more than [`MID`] bytes with the seed (any
    /// length works), as a pointer that [`v2_long`](crate::dispatch::v2_long) caches.
    fn v2_long_fn(self) -> V2Fn;
    /// This backend's v2 of at most [`MID`] bytes for a derived key (no key round), as a
    /// pointer that [`v2_keyed_upto_mid`](crate::dispatch::v2_keyed_upto_mid) caches.
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn;
    /// v2 step 2 for `data` that starts at lane 0 (the last chunk zero-padded).
    fn v2_absorb(self, st: &mut V2State, data: &[u8]);
    /// v2 step 3.
    fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16];
}

/// Implements the listed [`Kernels`] methods of a backend by forwarding each to the backend in
/// its field `.0`: a wider backend that keeps a narrower one's code for everything else
/// (AES-NI with AVX2, VAES) lists here what it does not replace, so each signature is written
/// once.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_macros))]
macro_rules! forward_kernels {
    ($($method:ident),+ $(,)?) => { $(forward_kernels!(@ $method);)+ };
    (@ v1_compress) => {
        #[inline]
        fn v1_compress(self, state: &mut $crate::v1::state::State, blocks: &[u8]) {
            self.0.v1_compress(state, blocks)
        }
    };
    (@ v1_finish) => {
        #[inline]
        fn v1_finish(self, state: &$crate::v1::state::State, len: u64) -> [u8; 16] {
            self.0.v1_finish(state, len)
        }
    };
    (@ v2_key) => {
        #[inline]
        fn v2_key(self, seed: u64) -> [u8; 16] {
            self.0.v2_key(seed)
        }
    };
    (@ v2_short) => {
        #[inline]
        fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
            self.0.v2_short(key, x, len)
        }
    };
    (@ v2_mid) => {
        #[inline]
        fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
            self.0.v2_mid(key, data)
        }
    };
    (@ v2_hash) => {
        #[inline]
        fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
            self.0.v2_hash(key, data)
        }
    };
    (@ v2_hash_seeded) => {
        #[inline]
        fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
            self.0.v2_hash_seeded(seed, data)
        }
    };
    (@ v2_absorb) => {
        #[inline]
        fn v2_absorb(self, st: &mut $crate::v2::state::V2State, data: &[u8]) {
            self.0.v2_absorb(st, data)
        }
    };
    (@ v2_finish) => {
        #[inline]
        fn v2_finish(self, st: &$crate::v2::state::V2State, len: u64) -> [u8; 16] {
            self.0.v2_finish(st, len)
        }
    };
    (@ v2_upto_mid_fn) => {
        #[inline]
        fn v2_upto_mid_fn(self) -> $crate::kernels::V2Fn {
            self.0.v2_upto_mid_fn()
        }
    };
    (@ v2_long_fn) => {
        #[inline]
        fn v2_long_fn(self) -> $crate::kernels::V2Fn {
            self.0.v2_long_fn()
        }
    };
    (@ v2_keyed_upto_mid_fn) => {
        #[inline]
        fn v2_keyed_upto_mid_fn(self) -> $crate::kernels::V2KeyedFn {
            self.0.v2_keyed_upto_mid_fn()
        }
    };
}
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
pub(crate) use forward_kernels;
