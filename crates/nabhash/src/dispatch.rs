//! Backend selection. Detection happens once per process (in `nab-isa`, under the
//! `NAB_MAX_ISA` cap), and not at all when the features are enabled at compile time; riscv64 backends are compile-time
//! only. `--cfg nabhash_backend="portable"` forces the portable backend for the whole build
//! (STYLE.md rule 7: a cfg, never a Cargo feature).
//!
//! [`crate::v2::hash`] does not go through a [`Backend`] at all: it calls one of two cached
//! function pointers ([`v2_upto_mid`] for up to 64 bytes, [`v2_long`] above), which start at a
//! function that detects once and stores the chosen backend's kernel (memchr's and memops'
//! scheme), so a call is a length check inlined in the caller, one relaxed load and one
//! indirect jump, with the digest back in two registers. When the build decides the backend
//! ([`FIXED_BY_BUILD`]) the kernel is called directly, with no pointer load.

#[cfg(target_arch = "aarch64")]
use crate::arch::aarch64::aes::Aes;
#[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
use crate::arch::riscv64::zkne::Zkne;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    aesni::AesNi,
    vaes::{Vaes256, Vaes512},
};
use core::sync::atomic::{AtomicPtr, Ordering};

use crate::kernels::{Kernels, V2Fn};
use crate::portable::Portable;
use crate::v1::state::State;
use crate::v2::state::{MID, V2State};

/// Runs `$body` with `$t` bound to the token of `$backend`'s kind.
macro_rules! each_backend {
    ($backend:expr, $t:ident => $body:expr) => {
        match $backend.0 {
            Kind::Portable => {
                let $t = Portable;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Kind::AesNi($t) => $body,
            #[cfg(target_arch = "x86_64")]
            Kind::Vaes256($t) => $body,
            #[cfg(target_arch = "x86_64")]
            Kind::Vaes512($t) => $body,
            #[cfg(target_arch = "aarch64")]
            Kind::Aes($t) => $body,
            #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
            Kind::Zkne($t) => $body,
        }
    };
}

/// One implementation of NABHash v1's block function. A value exists only for backends the
/// running CPU supports, so any `Backend` may be used without further checks.
///
/// Tests and benches use this to run every backend (see [`backends`]); applications
/// should call [`crate::hash`] and [`crate::Digest`], which pick the fastest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Portable,
    #[cfg(target_arch = "x86_64")]
    AesNi(AesNi),
    #[cfg(target_arch = "x86_64")]
    Vaes256(Vaes256),
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512),
    #[cfg(target_arch = "aarch64")]
    Aes(Aes),
    #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
    Zkne(Zkne),
}

impl Backend {
    /// The portable backend, available everywhere.
    pub const PORTABLE: Backend = Backend(Kind::Portable);

    /// The fastest backend this CPU supports (what [`crate::hash`] uses).
    #[inline]
    pub fn detect() -> Backend {
        #[cfg(not(nabhash_backend = "portable"))]
        {
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = Vaes512::new() {
                return Backend(Kind::Vaes512(t));
            } else if let Some(t) = Vaes256::new() {
                return Backend(Kind::Vaes256(t));
            } else if let Some(t) = AesNi::new() {
                return Backend(Kind::AesNi(t));
            }
            #[cfg(target_arch = "aarch64")]
            if let Some(t) = Aes::new() {
                return Backend(Kind::Aes(t));
            }
            #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
            if let Some(t) = Zkne::new() {
                return Backend(Kind::Zkne(t));
            }
        }
        Backend::PORTABLE
    }

    /// The backend called `name` (as returned by [`Backend::name`]), if this CPU supports it.
    pub fn by_name(name: &str) -> Option<Backend> {
        backends().find(|b| b.name() == name)
    }

    /// A short stable name: `portable`, `aesni`, `vaes256`, `vaes512`, `aarch64-aes`, `zkne`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kind::AesNi(_) => "aesni",
            #[cfg(target_arch = "x86_64")]
            Kind::Vaes256(_) => "vaes256",
            #[cfg(target_arch = "x86_64")]
            Kind::Vaes512(_) => "vaes512",
            #[cfg(target_arch = "aarch64")]
            Kind::Aes(_) => "aarch64-aes",
            #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
            Kind::Zkne(_) => "zkne",
        }
    }

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
    fn v2_upto_mid_fn(self) -> V2Fn {
        each_backend!(self, t => t.v2_upto_mid_fn())
    }

    #[inline]
    fn v2_long_fn(self) -> V2Fn {
        each_backend!(self, t => t.v2_long_fn())
    }
}

/// Whether the build decides [`Backend::detect`]'s answer for v2's kernels: the portable
/// backend forced, AES enabled by `-C target-feature`/`target-cpu`, or an architecture
/// without run-time detection (riscv64's Zkne is compile-time only).
const FIXED_BY_BUILD: bool = cfg!(nabhash_backend = "portable")
    || !cfg!(any(target_arch = "x86_64", target_arch = "aarch64"))
    || nab_isa::Features::COMPILE_TIME.contains(nab_isa::Features::AES);

/// Index of the kernel for inputs of up to [`MID`] bytes in [`V2_KERNELS`].
const UPTO_MID: usize = 0;
/// Index of the kernel for longer inputs in [`V2_KERNELS`].
const LONG: usize = 1;

/// Backend `b`'s kernel number `K` ([`UPTO_MID`] or [`LONG`]).
#[inline(always)]
fn kernel<const K: usize>(b: Backend) -> V2Fn {
    if K == UPTO_MID { b.v2_upto_mid_fn() } else { b.v2_long_fn() }
}

/// The cached kernels for run-time dispatch. Each starts at [`v2_first`], which detects once
/// and stores the chosen backend's kernel (memchr's and memops' scheme: later calls are one
/// relaxed load and an indirect call; a racing first call stores the same value).
static V2_KERNELS: [AtomicPtr<()>; 2] =
    [AtomicPtr::new(v2_first::<UPTO_MID> as *mut ()), AtomicPtr::new(v2_first::<LONG> as *mut ())];

/// The first call through `V2_KERNELS[K]`: detect (under `NAB_MAX_ISA`), cache, forward.
///
/// # Safety
///
/// None beyond [`V2Fn`]'s: it runs the detected backend's function.
#[cold]
unsafe fn v2_first<const K: usize>(data: &[u8], seed: u64) -> u128 {
    let f = kernel::<K>(Backend::detect());
    V2_KERNELS[K].store(f as *mut (), Ordering::Relaxed);
    // SAFETY: `f` belongs to the backend `detect` found on this CPU.
    unsafe { f(data, seed) }
}

/// v2 of `data` with `seed` by kernel `K` of the backend [`Backend::detect`] picks: called
/// directly when the build decides it ([`FIXED_BY_BUILD`]; constant-folded to a direct call),
/// else through the cached pointer (no per-call detection, no backend match).
#[inline(always)]
fn v2_cached<const K: usize>(data: &[u8], seed: u64) -> u128 {
    let f = if FIXED_BY_BUILD {
        kernel::<K>(Backend::detect())
    } else {
        // SAFETY: `V2_KERNELS[K]` only ever holds a `V2Fn` (`v2_first::<K>` or a detected
        // backend's kernel `K`), cast to a data pointer.
        unsafe { core::mem::transmute::<*mut (), V2Fn>(V2_KERNELS[K].load(Ordering::Relaxed)) }
    };
    // SAFETY: `f` is the fixed backend's (the build enables its features) or one that
    // `Backend::detect` found on this CPU, or the detecting first call.
    unsafe { f(data, seed) }
}

/// v2 of `data` (at most [`MID`] bytes) with `seed`, by the dispatched
/// backend's short kernel.
#[inline(always)]
pub(crate) fn v2_upto_mid(data: &[u8], seed: u64) -> u128 {
    debug_assert!(data.len() <= MID);
    v2_cached::<UPTO_MID>(data, seed)
}

/// v2 of `data` (more than [`MID`] bytes) with `seed`, by the dispatched
/// backend's long kernel.
#[inline(always)]
pub(crate) fn v2_long(data: &[u8], seed: u64) -> u128 {
    v2_cached::<LONG>(data, seed)
}

/// Every backend usable on this CPU, portable first, then in increasing order of preference.
pub fn backends() -> impl Iterator<Item = Backend> {
    let all = core::iter::once(Some(Backend::PORTABLE));
    #[cfg(target_arch = "x86_64")]
    let all = all.chain([
        AesNi::new().map(|t| Backend(Kind::AesNi(t))),
        Vaes256::new().map(|t| Backend(Kind::Vaes256(t))),
        Vaes512::new().map(|t| Backend(Kind::Vaes512(t))),
    ]);
    #[cfg(target_arch = "aarch64")]
    let all = all.chain([Aes::new().map(|t| Backend(Kind::Aes(t)))]);
    #[cfg(all(target_arch = "riscv64", target_feature = "zkne"))]
    let all = all.chain([Zkne::new().map(|t| Backend(Kind::Zkne(t)))]);
    all.flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

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
