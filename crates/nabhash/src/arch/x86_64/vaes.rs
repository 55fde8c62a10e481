//! NABHash v1 with VAES: the four lanes in two ymm registers (`vaes256`) or in one zmm
//! register (`vaes512`). `VAESENC` applies AESENC to each 128-bit lane independently, so v1's
//! output is unchanged; the fold reuses the AES-NI code.

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_aesenc_si128, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
    _mm256_aesenc_epi128, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_storeu_si256, _mm256_xor_si256, _mm512_add_epi64, _mm512_aesenc_epi128,
    _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_castsi512_si256,
    _mm512_extracti32x4_epi32, _mm512_extracti64x4_epi64, _mm512_loadu_si512,
    _mm512_mask_blend_epi64, _mm512_maskz_loadu_epi8, _mm512_set_epi64, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_storeu_si512, _mm512_ternarylogic_epi64, _mm512_xor_si512,
};

use super::aesni::{AesNi, v2_keyed_upto_mid_avx512bw, v2_upto_mid_avx512bw};
use super::aesni_avx2::AesNiAvx2;
use crate::kernels::{Kernels, V2Fn, V2KeyedFn, forward_kernels};
use crate::v1::state::{IV_LANE, State};
use crate::v2::state::{self, V2State};

use nab_isa::Features;

/// What [`Vaes256`] proves (with AES-NI).
const VAES256: Features = Features::VAES.union(Features::AVX2).union(Features::AES);
/// What [`Vaes512`] proves (with AES-NI). AVX-512VL and BMI2 are for the short kernel's
/// 128-bit masked load and its mask (`bzhi`); every CPU with VAES and AVX-512BW has both.
const VAES512: Features = Features::VAES
    .union(Features::AVX512F)
    .union(Features::AVX512BW)
    .union(Features::AVX512VL)
    .union(Features::BMI2)
    .union(Features::AES);

/// Proof that this CPU has VAES with AVX2 (and AES-NI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes256(AesNiAvx2);

/// Proof that this CPU has VAES with AVX-512F, BW and VL, BMI2 (and AES-NI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes512(AesNi);

impl Vaes256 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if nab_isa::has(VAES256) { AesNiAvx2::new().map(Vaes256) } else { None }
    }
}

impl Vaes512 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if nab_isa::has(VAES512) { AesNi::new().map(Vaes512) } else { None }
    }
}

/// v1's block loop on two ymm; v2 on AES-NI with AVX2 (its 8 lanes already keep the xmm
/// units busy).
impl Kernels for Vaes256 {
    forward_kernels!(
        v1_finish,
        v2_key,
        v2_short,
        v2_mid,
        v2_hash,
        v2_hash_seeded,
        v2_absorb,
        v2_finish,
        v2_upto_mid_fn,
        v2_long_fn,
        v2_keyed_upto_mid_fn
    );
    #[inline]
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `new` saw VAES, AVX2 and AES-NI on this CPU.
        unsafe { compress_vaes256(state, blocks) }
    }
}

/// v1's state in one zmm; v2's 8 lanes in two zmm. Short inputs and folds run on AES-NI.
impl Kernels for Vaes512 {
    forward_kernels!(v1_finish, v2_key, v2_short, v2_mid, v2_finish);
    #[inline]
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F and AES-NI on this CPU.
        unsafe { compress_vaes512(state, blocks) }
    }
    #[inline]
    fn v1_hash(self, data: &[u8]) -> [u8; 16] {
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F/BW and AES-NI on this CPU.
        unsafe { hash_v1_vaes512(data) }
    }
    #[inline]
    fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        if data.len() <= state::CHUNK {
            return self.v2_short_slice(key, data);
        }
        if data.len() <= state::MID {
            return self.0.v2_mid(key, data);
        }
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F/BW and AES-NI on this CPU.
        unsafe { hash_v2_vaes512(key, data) }
    }
    #[inline]
    fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
        if data.len() <= state::MID {
            // Key and rounds in one call, the short input by a masked load.
            // SAFETY: `self` exists only if `new` saw AVX-512F/BW and AES-NI on this CPU.
            return unsafe { v2_upto_mid_avx512bw(data, seed) }.to_le_bytes();
        }
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F/BW and AES-NI on this CPU.
        unsafe { hash_v2_seeded_vaes512(seed, data) }
    }
    #[inline]
    fn v2_short_slice(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F/BW and AES-NI on this CPU.
        let x = unsafe { load_short_avx512bw(data) };
        self.0.v2_short(key, &x, data.len() as u64)
    }
    #[inline]
    fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        let whole = data.len() - data.len() % state::BLOCK;
        // SAFETY: `self` exists only if `new` saw VAES, AVX-512F and AES-NI on this CPU.
        unsafe { v2_blocks_vaes512(st, &data[..whole]) };
        self.0.v2_absorb_tail(st, &data[whole..]);
    }
    #[inline]
    fn v2_upto_mid_fn(self) -> V2Fn {
        v2_upto_mid_avx512bw
    }
    #[inline]
    fn v2_long_fn(self) -> V2Fn {
        v2_long_vaes512
    }
    #[inline]
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn {
        v2_keyed_upto_mid_avx512bw
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

/// v2 step 2 over whole 128-byte blocks: lanes 0..4 in one zmm, lanes 4..8 in another, with
/// the data XOR moved off the dependency chain as in `generic::absorb_blocks`.
#[target_feature(enable = "vaes,avx512f")]
fn v2_blocks_vaes512(st: &mut V2State, blocks: &[u8]) {
    let mut blocks = blocks.chunks_exact(state::BLOCK);
    let Some(first) = blocks.next() else { return };
    let load2 = |p: *const u8| {
        let p = p.cast::<__m512i>();
        // SAFETY: callers pass pointers to 128 readable bytes; unaligned loads.
        unsafe { (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1))) }
    };
    let (k0, k1) = load2(st.k.as_ptr().cast());
    let (a0, a1) = load2(st.a.as_ptr().cast());
    let (b0, b1) = load2(st.b.as_ptr().cast());
    let (c0, c1) = load2(first.as_ptr());
    let (mut m0, mut m1) = (_mm512_xor_si512(a0, c0), _mm512_xor_si512(a1, c1));
    let (mut b0, mut b1) = (_mm512_add_epi64(b0, c0), _mm512_add_epi64(b1, c1));
    for block in blocks {
        let (c0, c1) = load2(block.as_ptr());
        m0 = _mm512_aesenc_epi128(m0, _mm512_xor_si512(k0, c0));
        m1 = _mm512_aesenc_epi128(m1, _mm512_xor_si512(k1, c1));
        b0 = _mm512_add_epi64(b0, c0);
        b1 = _mm512_add_epi64(b1, c1);
    }
    let store2 = |p: *mut u8, (x, y): (__m512i, __m512i)| {
        let p = p.cast::<__m512i>();
        // SAFETY: callers pass pointers to 128 writable bytes; unaligned stores.
        unsafe {
            _mm512_storeu_si512(p, x);
            _mm512_storeu_si512(p.add(1), y);
        }
    };
    store2(st.a.as_mut_ptr().cast(), (_mm512_aesenc_epi128(m0, k0), _mm512_aesenc_epi128(m1, k1)));
    store2(st.b.as_mut_ptr().cast(), (b0, b1));
}

/// The whole of v1 with the state in one zmm register: whole blocks, the tail by a masked load
/// (the bytes past the input are neither read nor faulted on), the length and the fold, all
/// in registers (a zero-padded copy in memory would cost a store-forwarding stall).
#[target_feature(enable = "vaes,avx512f,avx512bw,aes")]
fn hash_v1_vaes512(data: &[u8]) -> [u8; 16] {
    // SAFETY: the IV is 16 readable bytes; unaligned load.
    let iv = unsafe { _mm_loadu_si128(IV_LANE.as_ptr().cast()) };
    let mut s = _mm512_broadcast_i32x4(iv);
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        // SAFETY: `block` is 64 readable bytes.
        let k = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        s = _mm512_aesenc_epi128(s, k);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mask = mask64(tail.len());
        // SAFETY: the mask selects exactly the `tail.len()` (< 64) readable bytes of `tail`;
        // masked-out bytes are not accessed and read as zero.
        let k = unsafe { _mm512_maskz_loadu_epi8(mask, tail.as_ptr().cast()) };
        s = _mm512_aesenc_epi128(s, k);
    }
    let len = data.len() as i64;
    s = _mm512_xor_si512(s, _mm512_set_epi64(0, len, 0, len, 0, len, 0, len));
    let l0 = _mm512_extracti32x4_epi32::<0>(s);
    let l1 = _mm512_extracti32x4_epi32::<1>(s);
    let l2 = _mm512_extracti32x4_epi32::<2>(s);
    let l3 = _mm512_extracti32x4_epi32::<3>(s);
    let mut a: __m128i = _mm_aesenc_si128(l0, l1);
    let b = _mm_aesenc_si128(l2, l3);
    a = _mm_aesenc_si128(a, b);
    for _ in 0..3 {
        a = _mm_aesenc_si128(a, a);
    }
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), a) };
    out
}

/// Up to 16 bytes of `data`, zero-padded, by one masked load (no copy through memory).
#[target_feature(enable = "avx512f,avx512bw")]
fn load_short_avx512bw(data: &[u8]) -> [u8; 16] {
    let n = data.len().min(16);
    if n == 0 {
        // No masked load at a possibly dangling pointer (see `aesni::load_upto16_avx512bw`).
        return [0; 16];
    }
    // SAFETY: the mask selects exactly the first `n` readable bytes of `data`; masked-out
    // bytes are not accessed and read as zero.
    let v = unsafe { _mm512_maskz_loadu_epi8((1u64 << n) - 1, data.as_ptr().cast()) };
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm512_extracti32x4_epi32::<0>(v)) };
    out
}

/// The whole of v2 with seed `seed` for more than 16 bytes: [`v2_long`] with the key derived
/// in the same function, in a zmm register (through memory it would cost a store-forwarding
/// round trip at the start of every call).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,avx512vl,bmi2,aes")]
fn hash_v2_seeded_vaes512(seed: u64, data: &[u8]) -> [u8; 16] {
    let c = &state::CONSTANTS;
    let bcast = |lane: &[u8; 16]| {
        // SAFETY: a 16-byte constant; unaligned load.
        _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(lane.as_ptr().cast()) })
    };
    // S = le(seed) || le(seed), K = AESENC(S ^ C[0], C[1]) in every 128-bit lane.
    let s = _mm512_set1_epi64(seed as i64);
    let kb = _mm512_aesenc_epi128(_mm512_xor_si512(s, bcast(&c[0])), bcast(&c[1]));
    v2_long(kb, data)
}

/// [`hash_v2_seeded_vaes512`] with the digest in registers: the `vaes512` long kernel.
#[target_feature(enable = "vaes,avx512f,avx512bw,avx512vl,bmi2,aes")]
fn v2_long_vaes512(data: &[u8], seed: u64) -> u128 {
    u128::from_le_bytes(hash_v2_seeded_vaes512(seed, data))
}

/// [`v2_long`] for an already derived key.
#[target_feature(enable = "vaes,avx512f,avx512bw,avx512vl,bmi2,aes")]
fn hash_v2_vaes512(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    // SAFETY: `key` is 16 readable bytes; unaligned load.
    let kx = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
    v2_long(_mm512_broadcast_i32x4(kx), data)
}

/// The whole of v2 for more than 16 bytes (`kb` is `K` in all four 128-bit lanes), lanes 0..4
/// and 4..8 in two zmm registers from start to digest: blocks with the data XOR off the chain,
/// the last partial block by masked loads with the lanes it does not reach blended back, and
/// the finish (two rounds per lane, the XOR of the lanes, the three closing rounds).
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,avx512vl,bmi2,aes")]
fn v2_long(kb: __m512i, data: &[u8]) -> [u8; 16] {
    let ([k0, k1], [mut a0, mut a1]) = v2_lanes(kb);
    let zero = _mm512_setzero_si512();
    let (mut b0, mut b1) = (zero, zero);

    let mut blocks = data.chunks_exact(state::BLOCK);
    let load2 = |block: &[u8]| {
        let p = block.as_ptr().cast::<__m512i>();
        // SAFETY: `block` is 128 readable bytes.
        unsafe { (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1))) }
    };
    if let Some(first) = blocks.next() {
        let (c0, c1) = load2(first);
        let (mut m0, mut m1) = (_mm512_xor_si512(a0, c0), _mm512_xor_si512(a1, c1));
        b0 = c0;
        b1 = c1;
        for block in &mut blocks {
            let (c0, c1) = load2(block);
            m0 = _mm512_aesenc_epi128(m0, _mm512_xor_si512(k0, c0));
            m1 = _mm512_aesenc_epi128(m1, _mm512_xor_si512(k1, c1));
            b0 = _mm512_add_epi64(b0, c0);
            b1 = _mm512_add_epi64(b1, c1);
        }
        a0 = _mm512_aesenc_epi128(m0, k0);
        a1 = _mm512_aesenc_epi128(m1, k1);
    }
    let tail = blocks.remainder();
    // The last partial block: chunk `j` of the tail into lane `j`, zero-padded; the lanes it
    // does not reach stay as they are (a zero chunk leaves their additive lanes unchanged).
    // A tail of 64 bytes or more fills lanes 0..4 with one plain load (no mask to compute, no
    // blend), and only lanes 4..8 take the masked load.
    if tail.len() >= 64 {
        let rest = tail.len() - 64;
        let p = tail.as_ptr().cast::<__m512i>();
        // SAFETY: `tail` has at least 64 readable bytes; unaligned load.
        let t0 = unsafe { _mm512_loadu_si512(p) };
        // SAFETY: the mask selects the `rest` (< 64) readable bytes from offset 64 of `tail`;
        // masked-out bytes are not accessed and read as zero.
        let t1 = unsafe { _mm512_maskz_loadu_epi8(mask_below64(rest), p.add(1).cast()) };
        a0 = _mm512_aesenc_epi128(_mm512_xor_si512(a0, t0), k0);
        a1 = absorb_partial(a1, t1, k1, rest);
        b0 = _mm512_add_epi64(b0, t0);
        b1 = _mm512_add_epi64(b1, t1);
    } else if !tail.is_empty() {
        // SAFETY: the mask selects exactly the `tail.len()` (< 64) readable bytes of `tail`;
        // masked-out bytes are not accessed and read as zero.
        let t0 = unsafe { _mm512_maskz_loadu_epi8(mask_below64(tail.len()), tail.as_ptr().cast()) };
        a0 = absorb_partial(a0, t0, k0, tail.len());
        b0 = _mm512_add_epi64(b0, t0);
    }
    v2_finish_zmm(kb, [k0, k1], [a0, a1], [b0, b1], data.len() as u64)
}

/// Four lanes `a` absorb the zero-padded chunks `t` of a piece of `n` (< 64) bytes: the lanes
/// its chunks reach become `AESENC(a ^ t, k)`, the others stay `a`.
#[inline]
#[target_feature(enable = "vaes,avx512f")]
fn absorb_partial(a: __m512i, t: __m512i, k: __m512i, n: usize) -> __m512i {
    // Two qword mask bits per lane reached.
    let lanes = n.div_ceil(state::CHUNK);
    _mm512_mask_blend_epi64(
        ((1u32 << (2 * lanes)) - 1) as u8,
        a,
        _mm512_aesenc_epi128(_mm512_xor_si512(a, t), k),
    )
}

/// Lane keys `K[0..8]` and initial lanes `A[0..8]` from `kb` (`K` in all four 128-bit lanes).
#[inline]
#[target_feature(enable = "avx512f")]
fn v2_lanes(kb: __m512i) -> ([__m512i; 2], [__m512i; 2]) {
    let c = &state::CONSTANTS;
    let load4 = |lanes: &[[u8; 16]]| {
        debug_assert!(lanes.len() >= 4);
        // SAFETY: four consecutive 16-byte constants, 64 readable bytes.
        unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }
    };
    (
        [_mm512_xor_si512(kb, load4(&c[3..7])), _mm512_xor_si512(kb, load4(&c[7..11]))],
        [_mm512_xor_si512(kb, load4(&c[11..15])), _mm512_xor_si512(kb, load4(&c[15..19]))],
    )
}

/// The finish of v2 for an input of `len` bytes (the end of [`v2_long`]): the length, two
/// rounds per lane, the XOR of the lanes, the three closing rounds.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,avx512vl,bmi2,aes")]
fn v2_finish_zmm(
    kb: __m512i,
    [k0, k1]: [__m512i; 2],
    [a0, a1]: [__m512i; 2],
    [b0, b1]: [__m512i; 2],
    len: u64,
) -> [u8; 16] {
    let c = &state::CONSTANTS;
    let len = len as i64;
    let l = _mm512_set_epi64(0, len, 0, len, 0, len, 0, len);
    // F = AESENC(A ^ B ^ L, K[i]), G = AESENC(F, K[i]), X = G[0] ^ ... ^ G[7].
    let f0 = _mm512_aesenc_epi128(_mm512_ternarylogic_epi64::<0x96>(a0, b0, l), k0);
    let f1 = _mm512_aesenc_epi128(_mm512_ternarylogic_epi64::<0x96>(a1, b1, l), k1);
    let g = _mm512_xor_si512(_mm512_aesenc_epi128(f0, k0), _mm512_aesenc_epi128(f1, k1));
    let y = _mm256_xor_si256(_mm512_castsi512_si256(g), _mm512_extracti64x4_epi64::<1>(g));
    let x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
    let closing = |j: usize| {
        // SAFETY: a 16-byte constant; unaligned load.
        let cj = unsafe { _mm_loadu_si128(c[j].as_ptr().cast()) };
        _mm_xor_si128(_mm512_castsi512_si128(kb), cj)
    };
    let x =
        _mm_aesenc_si128(_mm_aesenc_si128(_mm_aesenc_si128(x, closing(2)), closing(1)), closing(0));
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
    out
}

/// A byte mask selecting the first `n` (at most 64) bytes.
#[inline(always)]
fn mask64(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// A byte mask selecting the first `n` (below 64) bytes: one shift, no range check.
#[inline(always)]
fn mask_below64(n: usize) -> u64 {
    debug_assert!(n < 64);
    (1u64 << (n % 64)) - 1
}
