//! The backend an engine without its own takes on x86_64, decided once per process and kept
//! as one byte ([`best`]); `dispatch` turns it into a `Backend`.

use core::sync::atomic::{AtomicU8, Ordering};

use super::avx512bw::Avx512Bw;
use super::avx512vbmi::Avx512Vbmi;
use super::pshufb::{Avx2, Ssse3};

/// The backend the engines use when none is set, as its token ([`best`]).
#[cfg_attr(b64_backend = "portable", allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Best {
    Vbmi(Avx512Vbmi),
    Bw(Avx512Bw),
    Avx2(Avx2),
    Ssse3(Ssse3),
    Portable,
}

/// The first x86_64 backend this process may use, in the order of the crate's `backends!`
/// list (VBMI, BW, AVX2, SSSE3; `dispatch`'s test checks that both agree). VBMI by its probe
/// (one load and test of `nab-isa`'s feature word, nothing when the build enables it); the
/// others decided by their probes at the first call and kept as one byte, which later calls
/// load, where `Backend::detect` runs the probes in turn (three loads and tests before AVX2).
/// The byte alone for every backend was slower for VBMI: LLVM makes its tests a jump table,
/// an indirect branch per call (amd-zen5, criterion medians of 5 alternated rounds, default
/// build: 16-100 B encodes and decodes 5-8 % slower).
#[inline]
#[cfg_attr(b64_backend = "portable", allow(dead_code))]
pub(crate) fn best() -> Best {
    static BEST: AtomicU8 = AtomicU8::new(0);
    if let Some(t) = Avx512Vbmi::new() {
        return Best::Vbmi(t);
    }
    // SAFETY: `BEST` has a token's bit only once `best_slow` saw that token's probe return
    // `Some` in this process, and what dispatch may use (`nab_isa::available`) is decided
    // once per process, so the token's features are still there. One bit a backend, tested
    // in turn: equality tests LLVM makes into a jump table (an indirect branch per call).
    unsafe {
        let k = BEST.load(Ordering::Relaxed);
        if k & AVX2 != 0 {
            Best::Avx2(Avx2::new_unchecked())
        } else if k & BW != 0 {
            Best::Bw(Avx512Bw::new_unchecked())
        } else if k & SSSE3 != 0 {
            Best::Ssse3(Ssse3::new_unchecked())
        } else if k & PORTABLE != 0 {
            Best::Portable
        } else {
            best_slow(&BEST)
        }
    }
}

/// [`best`]'s bits: the backend found at the first call (none yet: 0).
const BW: u8 = 1;
const AVX2: u8 = 2;
const SSSE3: u8 = 4;
const PORTABLE: u8 = 8;

/// [`best`]'s first call: the probes in turn, the answer kept in `cache`.
#[cold]
#[inline(never)]
#[cfg_attr(b64_backend = "portable", allow(dead_code))]
fn best_slow(cache: &AtomicU8) -> Best {
    let (code, best) = if let Some(t) = Avx512Vbmi::new() {
        // Not kept: `best` probes VBMI first on every call.
        return Best::Vbmi(t);
    } else if let Some(t) = Avx512Bw::new() {
        (BW, Best::Bw(t))
    } else if let Some(t) = Avx2::new() {
        (AVX2, Best::Avx2(t))
    } else if let Some(t) = Ssse3::new() {
        (SSSE3, Best::Ssse3(t))
    } else {
        (PORTABLE, Best::Portable)
    };
    cache.store(code, Ordering::Relaxed);
    best
}
