//! NABHash v1 with VAES: the four lanes in two ymm registers (`vaes256`) or in one zmm
//! register (`vaes512`). `VAESENC` applies AESENC to each 128-bit lane independently, so v1's
//! output is unchanged; the fold reuses the AES-NI code.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_aesenc_epi128, _mm256_loadu_si256, _mm256_storeu_si256,
    _mm512_aesenc_epi128, _mm512_loadu_si512, _mm512_storeu_si512,
};

use super::aesni::AesNi;
use crate::State;

cpufeatures::new!(cpuid_vaes256, "vaes", "avx2", "aes");
cpufeatures::new!(cpuid_vaes512, "vaes", "avx512f", "aes");

/// Proof that this CPU has VAES with AVX2 (and AES-NI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes256(AesNi);

/// Proof that this CPU has VAES with AVX-512F (and AES-NI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes512(AesNi);

impl Vaes256 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if cpuid_vaes256::get() { AesNi::new().map(Vaes256) } else { None }
    }

    #[inline]
    pub(crate) fn compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `new` saw VAES, AVX2 and AES-NI on this CPU.
        unsafe { compress_vaes256(state, blocks) }
    }

    #[inline]
    pub(crate) fn finish(self, state: &State, len: u64) -> [u8; 16] {
        self.0.finish(state, len)
    }
}

impl Vaes512 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if cpuid_vaes512::get() { AesNi::new().map(Vaes512) } else { None }
    }

    #[inline]
    pub(crate) fn compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F and AES-NI on this CPU.
        unsafe { compress_vaes512(state, blocks) }
    }

    #[inline]
    pub(crate) fn finish(self, state: &State, len: u64) -> [u8; 16] {
        self.0.finish(state, len)
    }
}

#[target_feature(enable = "vaes,avx2")]
fn compress_vaes256(state: &mut State, blocks: &[u8]) {
    let p = state.as_mut_ptr().cast::<__m256i>();
    // SAFETY: `State` is 64 contiguous bytes, two unaligned 32-byte loads.
    let (mut a, mut b) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
    for block in blocks.chunks_exact(64) {
        let q = block.as_ptr().cast::<__m256i>();
        // SAFETY: `block` is 64 readable bytes.
        let (ka, kb) = unsafe { (_mm256_loadu_si256(q), _mm256_loadu_si256(q.add(1))) };
        a = _mm256_aesenc_epi128(a, ka);
        b = _mm256_aesenc_epi128(b, kb);
    }
    // SAFETY: as for the loads; the state is writable.
    unsafe {
        _mm256_storeu_si256(p, a);
        _mm256_storeu_si256(p.add(1), b);
    }
}

#[target_feature(enable = "vaes,avx512f")]
fn compress_vaes512(state: &mut State, blocks: &[u8]) {
    let p = state.as_mut_ptr().cast::<__m512i>();
    // SAFETY: `State` is 64 contiguous bytes; unaligned load.
    let mut s = unsafe { _mm512_loadu_si512(p) };
    for block in blocks.chunks_exact(64) {
        // SAFETY: `block` is 64 readable bytes.
        let k = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        s = _mm512_aesenc_epi128(s, k);
    }
    // SAFETY: as for the load; the state is writable.
    unsafe { _mm512_storeu_si512(p, s) }
}
