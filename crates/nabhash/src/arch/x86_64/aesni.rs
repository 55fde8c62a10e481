//! NABHash v1 with AES-NI: each 16-byte lane in one xmm register, one `aesenc` per lane
//! per 64-byte block (`AESENC` is exactly v1's round, so no adjustment is needed).

use core::arch::x86_64::{
    __m128i, _bzhi_u32, _mm_add_epi64, _mm_aesenc_si128, _mm_and_si128, _mm_cvtsi128_si64,
    _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_set_epi64x, _mm_storeu_si128, _mm_unpackhi_epi64,
    _mm_xor_si128,
};

use crate::kernels::{Kernels, V2Fn, V2KeyedFn};
use crate::v1::state::State;
use crate::v2::generic::{self, AesLane};
use crate::v2::state::{self, V2State};

nab_isa::token! {
    /// Proof that AES-NI (and SSE2) may be used: the CPU has it and `NAB_MAX_ISA` allows it,
    /// or the build enables it (then there is no detection at all). Only `AesNi::new` makes one.
    pub(crate) struct AesNi = AES;
}

impl Kernels for AesNi {
    #[inline]
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { compress_aesni(state, blocks) }
    }
    #[inline]
    fn v1_finish(self, state: &State, len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { finish_aesni(state, len) }
    }
    #[inline]
    fn v2_key(self, seed: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_key_aesni(seed) }
    }
    #[inline]
    fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_short_aesni(key, x, len) }
    }
    #[inline]
    fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_mid_aesni(key, data) }
    }
    #[inline]
    fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        if data.len() <= state::CHUNK {
            return self.v2_short_slice(key, data);
        }
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_hash_aesni(key, data) }
    }
    #[inline]
    fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
        // Inputs up to 64 bytes get calls of their own: the long path's stack frame and
        // spills cost them about 1 ns.
        if data.len() <= state::MID {
            // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
            return unsafe { v2_upto_mid_aesni(data, seed) }.to_le_bytes();
        }
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_hash_seeded_aesni(seed, data) }
    }
    #[inline]
    fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_absorb_aesni(st, data) }
    }
    #[inline]
    fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `AesNi::new` saw AES-NI and SSE2 on this CPU.
        unsafe { v2_finish_aesni(st, len) }
    }
    #[inline]
    fn v2_upto_mid_fn(self) -> V2Fn {
        v2_upto_mid_aesni
    }
    #[inline]
    fn v2_long_fn(self) -> V2Fn {
        v2_long_aesni
    }
    #[inline]
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn {
        v2_keyed_upto_mid_aesni
    }
}

impl AesNi {
    /// v2's chunks of a last partial block (for the VAES backends, whose blocks are wider).
    #[inline]
    pub(crate) fn v2_absorb_tail(self, st: &mut V2State, tail: &[u8]) {
        // SAFETY: `self` proves AES-NI and SSE2.
        unsafe { v2_absorb_tail_aesni(st, tail) }
    }
}

/// A v2 lane in an xmm register. Used only inside this module's
/// `#[target_feature(enable = "aes,sse2")]` functions and the VAES module's functions (whose
/// features include AES-NI), which only an [`AesNi`] token (or one holding it) reaches.
#[derive(Clone, Copy)]
pub(super) struct NiLane(pub(super) __m128i);

impl AesLane for NiLane {
    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> Self {
        NiLane(load(bytes))
    }
    #[inline(always)]
    fn store(self, bytes: &mut [u8; 16]) {
        store(bytes, self.0)
    }
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        // SAFETY: `NiLane` only exists inside this module's AES-NI functions (see the type).
        NiLane(unsafe { _mm_aesenc_si128(self.0, key.0) })
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of the x86_64 baseline (and `NiLane` implies AES-NI + SSE2).
        NiLane(unsafe { _mm_xor_si128(self.0, other.0) })
    }
    #[inline(always)]
    fn add64(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of the x86_64 baseline (and `NiLane` implies AES-NI + SSE2).
        NiLane(unsafe { _mm_add_epi64(self.0, other.0) })
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let (lo, hi) = unsafe {
            (_mm_cvtsi128_si64(self.0), _mm_cvtsi128_si64(_mm_unpackhi_epi64(self.0, self.0)))
        };
        u128::from(lo as u64) | u128::from(hi as u64) << 64
    }
}

#[target_feature(enable = "aes,sse2")]
fn v2_key_aesni(seed: u64) -> [u8; 16] {
    generic::key::<NiLane>(seed)
}

#[target_feature(enable = "aes,sse2")]
fn v2_short_aesni(key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
    generic::short::<NiLane>(key, x, len)
}

#[target_feature(enable = "aes,sse2")]
fn v2_mid_aesni(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    generic::mid::<NiLane>(key, data)
}

/// v2 one-shot of more than 16 bytes: the medium path, or the long one with the state in
/// registers throughout.
#[target_feature(enable = "aes,sse2")]
fn v2_hash_aesni(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    if data.len() <= state::MID {
        return generic::mid::<NiLane>(key, data);
    }
    generic::one_shot::<NiLane>(key, data)
}

/// v2 one-shot of at most 64 bytes with the seed: key, then the short or the medium path,
/// the digest returned in two general registers. Every x86_64 backend's short kernel.
#[target_feature(enable = "aes,sse2")]
fn v2_upto_mid_aesni(data: &[u8], seed: u64) -> u128 {
    generic::upto_mid_loaded::<NiLane>(seed, data, load_upto16)
}

/// v2 of at most 64 bytes for a derived key: the rounds alone, the digest in registers.
#[target_feature(enable = "aes,sse2")]
fn v2_keyed_upto_mid_aesni(data: &[u8], key: &[u8; 16]) -> u128 {
    generic::upto_mid_keyed_loaded::<NiLane>(NiLane::load(key), data, load_upto16)
}

/// v2 of at most 64 bytes with the seed, as AES-NI's short kernel but with inputs of up to
/// 16 bytes read by one 128-bit masked load (no page test, no fallback to `pad`'s length
/// branches) and no zmm register (no `vzeroupper`). The VAES backends' and `aesni-avx512`'s.
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,bmi2")]
pub(super) fn v2_upto_mid_avx512bw(data: &[u8], seed: u64) -> u128 {
    generic::upto_mid_loaded::<NiLane>(seed, data, |d| load_upto16_avx512bw(d))
}

/// [`v2_upto_mid_avx512bw`] for a derived key: the rounds alone.
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,bmi2")]
pub(super) fn v2_keyed_upto_mid_avx512bw(data: &[u8], key: &[u8; 16]) -> u128 {
    generic::upto_mid_keyed_loaded::<NiLane>(NiLane::load(key), data, |d| load_upto16_avx512bw(d))
}

/// Up to 16 bytes of `d`, zero-padded, by one 128-bit masked load; the empty input without
/// one: its pointer may be dangling (an empty slice's), and a masked load whose mask is zero
/// at an unmapped address is a fault-suppression assist, about 100 ns on Zen 5.
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl,bmi2")]
fn load_upto16_avx512bw(d: &[u8]) -> NiLane {
    if d.is_empty() {
        return NiLane::load(&[0; 16]);
    }
    // `bzhi` keeps the low `n` bits; `n` is at most 16 here.
    let mask = _bzhi_u32(u32::MAX, d.len() as u32) as u16;
    // SAFETY: the mask selects exactly the first `n` readable bytes of `d`; masked-out
    // bytes are not accessed and read as zero.
    NiLane(unsafe { _mm_maskz_loadu_epi8(mask, d.as_ptr().cast()) })
}

/// `0xff` in the first 16 bytes, zero in the next 16: the 16 bytes from `16 − n` keep the
/// first `n` bytes of a load.
static KEEP_FIRST: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// Up to 16 bytes of `d`, zero-padded ([`state::pad`]): one 16-byte load and a mask where the
/// 16 bytes from `d`'s start lie in one 4 KiB page, which holds `d[0]` (the load may run past
/// `d`, never into another page: the reads of glibc's `memcmp`/`strlen`), else `pad`'s loads;
/// the empty input without a load (its pointer may be dangling). `pad` branches on the length
/// (four to six tests): `Seeded` at 0 and 4 bytes took 2.19-2.20 ns against 1.96 at 8 (amd-zen5,
/// `x86-64-v3`).
#[inline(always)]
fn load_upto16(d: &[u8]) -> NiLane {
    let n = d.len();
    let p = d.as_ptr();
    if n == 0 {
        return NiLane::load(&[0; 16]);
    }
    if p.addr() % 4096 > 4096 - 16 {
        return NiLane::load(&state::pad(d));
    }
    let x: __m128i;
    // SAFETY: `p[0]` is readable (`n > 0`) and `p[..16]` lies in its page (the test above), so
    // the 16 bytes are mapped and readable; in `asm!` because Rust may not read past `d`.
    // The bytes past `n` are cleared below. SSE2 is part of the x86_64 baseline.
    unsafe {
        core::arch::asm!(
            "movdqu {x}, [{p}]",
            p = in(reg) p,
            x = out(xmm_reg) x,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    let keep: &[u8; 16] = KEEP_FIRST[16 - n..32 - n].try_into().expect("16 bytes");
    // SAFETY: SSE2 is part of the x86_64 baseline.
    NiLane(unsafe { _mm_and_si128(x, load(keep)) })
}

/// v2 one-shot with the seed: key, then the short or the long path, in one call.
#[target_feature(enable = "aes,sse2")]
fn v2_hash_seeded_aesni(seed: u64, data: &[u8]) -> [u8; 16] {
    generic::seeded::<NiLane>(seed, data)
}

/// [`v2_hash_seeded_aesni`] with the digest in registers: every AES-NI/`vaes256` long kernel.
#[target_feature(enable = "aes,sse2")]
fn v2_long_aesni(data: &[u8], seed: u64) -> u128 {
    u128::from_le_bytes(generic::seeded::<NiLane>(seed, data))
}

#[target_feature(enable = "aes,sse2")]
fn v2_absorb_aesni(st: &mut V2State, data: &[u8]) {
    generic::absorb::<NiLane>(st, data)
}

#[target_feature(enable = "aes,sse2")]
fn v2_absorb_tail_aesni(st: &mut V2State, tail: &[u8]) {
    generic::absorb_tail::<NiLane>(st, tail)
}

#[target_feature(enable = "aes,sse2")]
fn v2_finish_aesni(st: &V2State, len: u64) -> [u8; 16] {
    generic::finish::<NiLane>(st, len)
}

#[inline(always)]
fn load(bytes: &[u8; 16]) -> __m128i {
    // SAFETY: `bytes` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

#[inline(always)]
fn store(bytes: &mut [u8; 16], v: __m128i) {
    // SAFETY: `bytes` is 16 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), v) }
}

#[inline(always)]
fn lane(block: &[u8], i: usize) -> __m128i {
    let bytes: &[u8; 16] = block[16 * i..16 * i + 16].try_into().expect("16-byte lane");
    load(bytes)
}

#[target_feature(enable = "aes,sse2")]
fn compress_aesni(state: &mut State, blocks: &[u8]) {
    let [mut l0, mut l1, mut l2, mut l3] = state.each_ref().map(load);
    for block in blocks.chunks_exact(64) {
        l0 = _mm_aesenc_si128(l0, lane(block, 0));
        l1 = _mm_aesenc_si128(l1, lane(block, 1));
        l2 = _mm_aesenc_si128(l2, lane(block, 2));
        l3 = _mm_aesenc_si128(l3, lane(block, 3));
    }
    for (bytes, v) in state.iter_mut().zip([l0, l1, l2, l3]) {
        store(bytes, v);
    }
}

#[target_feature(enable = "aes,sse2")]
fn finish_aesni(state: &State, len: u64) -> [u8; 16] {
    // Bytes 0..8 of a lane are the low quadword, little-endian on x86_64.
    let len = _mm_set_epi64x(0, len as i64);
    let [l0, l1, l2, l3] = state.each_ref().map(|l| _mm_xor_si128(load(l), len));
    let mut a = _mm_aesenc_si128(l0, l1);
    let b = _mm_aesenc_si128(l2, l3);
    a = _mm_aesenc_si128(a, b);
    for _ in 0..3 {
        a = _mm_aesenc_si128(a, a);
    }
    let mut out = [0u8; 16];
    store(&mut out, a);
    out
}
