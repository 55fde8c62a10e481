//! Backend selection, declared once with `nab-isa`'s dispatch shape: the backends and their
//! tokens in one [`backends!`](nab_isa::backends) list, which generates `Backend`'s surface
//! and `each_backend!`, the match that runs a kernel on the backend's token (monomorphized,
//! inlined: v1 and the streaming v2 call their kernels through it). Detection happens once
//! per process (in `nab-isa`, under the `NAB_MAX_ISA` cap), and not at all when the features
//! are enabled at compile time; riscv64 backends are compile-time only.
//! `--cfg nabhash_backend="portable"` forces the portable backend for the whole build
//! (STYLE.md rule 7: a cfg, never a Cargo feature).
//!
//! [`crate::v2::hash`] does not go through a [`Backend`] at all: it calls one of two cached
//! function pointers ([`v2_upto_mid`] for up to 64 bytes, [`v2_long`] above, each a
//! [`cached_fn!`](nab_isa::cached_fn)), so a call is a length check inlined in the caller,
//! one relaxed load and one indirect jump, with the digest back in two registers. When the
//! build decides the backend ([`FIXED_BY_BUILD`]) the kernel is called directly, with no
//! pointer load.

#[cfg(target_arch = "aarch64")]
use crate::arch::aarch64::aes::Aes;
#[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
use crate::arch::riscv64::zkne::Zkne;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    aesni::AesNi,
    aesni_avx2::{AesNiAvx2, AesNiAvx512},
    vaes::{Vaes256, Vaes512},
};

use crate::kernels::Kernels;
use crate::portable::Portable;
use crate::v1::state::State;
use crate::v2::state::{MID, V2State};

nab_isa::backends! {
    /// One implementation of NABHash v1's block function. A value exists only for backends
    /// the running CPU supports, so any `Backend` may be used without further checks.
    ///
    /// Tests and benches use this to run every backend (see [`backends`]); applications
    /// should call [`crate::hash`] and [`crate::Digest`], which pick the fastest one.
    pub struct Backend(enum Kind at crate::dispatch::Kind);
    compare by tokens;
    /// Runs `$body` with `$t` bound to the token of `$backend`'s kind.
    macro each_backend;
    /// Every backend usable on this CPU, portable first, then in increasing order of
    /// preference.
    pub fn backends() in portable_first order;
    forced portable if cfg(nabhash_backend = "portable");
    /// The portable backend, available everywhere.
    const PORTABLE = Portable(Portable) = "portable" => Portable;
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512) = "vaes512" => Vaes512::new();
    #[cfg(target_arch = "x86_64")]
    Vaes256(Vaes256) = "vaes256" => Vaes256::new();
    #[cfg(target_arch = "x86_64")]
    AesNiAvx512(AesNiAvx512) = "aesni-avx512" => AesNiAvx512::new();
    #[cfg(target_arch = "x86_64")]
    AesNiAvx2(AesNiAvx2) = "aesni-avx2" => AesNiAvx2::new();
    #[cfg(target_arch = "x86_64")]
    AesNi(AesNi) = "aesni" => AesNi::new();
    #[cfg(target_arch = "aarch64")]
    Aes(Aes) = "aarch64-aes" => Aes::new();
    #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
    Zkne(Zkne) = "zkne" => Zkne::new();
}

// The kernels a `Backend` value runs, each listed once (the contracts are `Kernels`').
impl Backend {
    #[inline]
    pub(crate) fn compress(self, state: &mut State, blocks: &[u8]) {
        each_backend!(self, t => t.v1_compress(state, blocks))
    }

    #[inline]
    pub(crate) fn finish(self, state: &State, len: u64) -> [u8; 16] {
        each_backend!(self, t => t.v1_finish(state, len))
    }

    #[inline]
    pub(crate) fn v1_hash(self, data: &[u8]) -> [u8; 16] {
        each_backend!(self, t => t.v1_hash(data))
    }

    #[inline]
    pub(crate) fn v2_key(self, seed: u64) -> [u8; 16] {
        each_backend!(self, t => t.v2_key(seed))
    }

    #[inline]
    pub(crate) fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
        each_backend!(self, t => t.v2_short(key, x, len))
    }

    #[inline]
    pub(crate) fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        each_backend!(self, t => t.v2_hash(key, data))
    }

    #[inline]
    pub(crate) fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
        each_backend!(self, t => t.v2_hash_seeded(seed, data))
    }

    #[inline]
    pub(crate) fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        each_backend!(self, t => t.v2_absorb(st, data))
    }

    #[inline]
    pub(crate) fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16] {
        each_backend!(self, t => t.v2_finish(st, len))
    }

    #[inline]
    fn v2_upto_mid_fn(self) -> crate::kernels::V2Fn {
        each_backend!(self, t => t.v2_upto_mid_fn())
    }

    #[inline]
    fn v2_long_fn(self) -> crate::kernels::V2Fn {
        each_backend!(self, t => t.v2_long_fn())
    }

    #[inline]
    fn v2_keyed_upto_mid_fn(self) -> crate::kernels::V2KeyedFn {
        each_backend!(self, t => t.v2_keyed_upto_mid_fn())
    }
}

/// Whether the build decides [`Backend::detect`]'s answer for v2's kernels: the portable
/// backend forced, AES enabled by `-C target-feature`/`target-cpu`, or an architecture
/// without run-time detection (riscv64's Zkne is compile-time only).
const FIXED_BY_BUILD: bool = cfg!(nabhash_backend = "portable")
    || !cfg!(any(target_arch = "x86_64", target_arch = "aarch64"))
    || nab_isa::Features::COMPILE_TIME.contains(nab_isa::Features::AES);

nab_isa::cached_fn! {
    /// The dispatched backend's v2 kernel for inputs of up to [`MID`] bytes.
    fn upto_mid_kernel() -> unsafe fn(data: &[u8], seed: u64) -> u128 =
        Backend::detect().v2_upto_mid_fn(), fixed if FIXED_BY_BUILD;
    /// The dispatched backend's v2 kernel for longer inputs.
    fn long_kernel() -> unsafe fn(data: &[u8], seed: u64) -> u128 =
        Backend::detect().v2_long_fn(), fixed if FIXED_BY_BUILD;
    /// The dispatched backend's v2 kernel for inputs of up to [`MID`] bytes and a derived key.
    fn keyed_upto_mid_kernel() -> unsafe fn(data: &[u8], key: &[u8; 16]) -> u128 =
        Backend::detect().v2_keyed_upto_mid_fn(), fixed if FIXED_BY_BUILD;
}

/// v2 of `data` (at most [`MID`] bytes) with `seed`, by the dispatched
/// backend's short kernel.
#[inline(always)]
pub(crate) fn v2_upto_mid(data: &[u8], seed: u64) -> u128 {
    debug_assert!(data.len() <= MID);
    // SAFETY: the kernel is the one `Backend::detect` found on this CPU (or the first call,
    // which resolves it); it takes any input of up to `MID` bytes.
    unsafe { upto_mid_kernel()(data, seed) }
}

/// v2 of `data` (at most [`MID`] bytes) for the derived key `key`, by the dispatched
/// backend's keyed short kernel.
#[inline(always)]
pub(crate) fn v2_keyed_upto_mid(data: &[u8], key: &[u8; 16]) -> u128 {
    debug_assert!(data.len() <= MID);
    // SAFETY: as in `v2_upto_mid`; the kernel takes any input of up to `MID` bytes.
    unsafe { keyed_upto_mid_kernel()(data, key) }
}

/// v2 of `data` (more than [`MID`] bytes) with `seed`, by the dispatched
/// backend's long kernel.
#[inline(always)]
pub(crate) fn v2_long(data: &[u8], seed: u64) -> u128 {
    // SAFETY: as in `v2_upto_mid`; the long kernel takes any length.
    unsafe { long_kernel()(data, seed) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every backend's keyed short kernel (what `v2::Seeded` caches) gives the portable
    /// backend's seeded digest at every length it takes.
    #[test]
    fn keyed_kernels_equal_portable() {
        let data: [u8; MID] = core::array::from_fn(|i| (i * 13 + 5) as u8);
        let seeds: &[u64] = if cfg!(miri) { &[1] } else { &[0, 1, u64::MAX] };
        for backend in backends() {
            for &seed in seeds {
                let key = backend.v2_key(seed);
                for n in 0..=MID {
                    let want = Backend::PORTABLE.v2_hash_seeded(seed, &data[..n]);
                    // SAFETY: `backends()` yields only backends this CPU supports.
                    let got = unsafe { backend.v2_keyed_upto_mid_fn()(&data[..n], &key) };
                    assert_eq!(got.to_le_bytes(), want, "{} length {n}", backend.name());
                }
            }
        }
    }

    /// The cached kernels (the first call detects and stores, later calls load the pointer)
    /// give the portable backend's digests, at the lengths where the paths change. Under Miri
    /// this is the row that runs the pointer casts (it detects nothing: the portable kernels).
    #[test]
    fn cached_kernels_equal_portable() {
        let data: [u8; 200] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        // Miri interprets the portable AES rounds slowly: one length per path, one seed.
        let (lengths, seeds): (&[usize], &[u64]) = if cfg!(miri) {
            (&[0, 17, 65], &[1])
        } else {
            (&[0, 1, 15, 16, 17, 32, 33, 64, 65, 127, 128, 129, 200], &[0, u64::MAX])
        };
        for &n in lengths {
            for &seed in seeds {
                let want = Backend::PORTABLE.v2_hash_seeded(seed, &data[..n]);
                for call in 0..2 {
                    let got = if n <= MID {
                        v2_upto_mid(&data[..n], seed)
                    } else {
                        v2_long(&data[..n], seed)
                    };
                    assert_eq!(got.to_le_bytes(), want, "length {n}, seed {seed:#x}, call {call}");
                }
            }
        }
    }
}
