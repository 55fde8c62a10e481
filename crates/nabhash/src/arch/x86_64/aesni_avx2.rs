//! NABHash v2 on AES-NI with AVX2 (no VAES): the long path's block loop reads each
//! 32-byte pair of chunks once into a ymm register, adds it into the pair's additive lanes
//! (four ymm accumulators instead of eight xmm) and XORs it into the pair's round keys in
//! one instruction each; the two 128-bit halves then key one `aesenc` each. Eight AES lanes,
//! four additive pairs and two temporaries fit the 16 vector registers, so nothing is
//! spilled and the round chains never pass through memory; per 128-byte block the loop is
//! 8 `aesenc`, 4 loads, 4 additions, 4 XORs with a folded key load and 4 extracts, so the
//! AES unit stays the busiest port (one `aesenc` per 16 bytes, the bound of a CPU with one
//! AES port). Short inputs, the tail and the finish are the AES-NI backend's.

use core::arch::x86_64::{
    __m256i, _mm_aesenc_si128, _mm256_add_epi64, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_loadu_si256, _mm256_set_m128i, _mm256_setzero_si256, _mm256_xor_si256,
};

use super::aesni::{AesNi, NiLane};
use crate::kernels::{Kernels, V2Fn, forward_kernels};
use crate::v2::generic::{self, AesLane};
use crate::v2::state::{BLOCK, CHUNK, LANES, MID};

/// Proof that this CPU has AES-NI and AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AesNiAvx2(AesNi);

impl AesNiAvx2 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if nab_isa::has(nab_isa::Features::AVX2) { AesNi::new().map(AesNiAvx2) } else { None }
    }
}

/// v2's long inputs by the ymm block loop; everything else is the AES-NI backend's.
impl Kernels for AesNiAvx2 {
    forward_kernels!(
        v1_compress,
        v1_finish,
        v2_key,
        v2_short,
        v2_mid,
        v2_absorb,
        v2_finish,
        v2_upto_mid_fn,
        v2_keyed_upto_mid_fn
    );
    #[inline]
    fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        if data.len() <= MID {
            return self.0.v2_hash(key, data);
        }
        // SAFETY: `self` exists only if `new` saw AES-NI and AVX2 on this CPU.
        unsafe { v2_hash_aesni_avx2(key, data) }
    }
    #[inline]
    fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
        if data.len() <= MID {
            return self.0.v2_hash_seeded(seed, data);
        }
        // SAFETY: `self` exists only if `new` saw AES-NI and AVX2 on this CPU.
        unsafe { v2_long_aesni_avx2(data, seed) }.to_le_bytes()
    }
    #[inline]
    fn v2_long_fn(self) -> V2Fn {
        v2_long_aesni_avx2
    }
}

/// v2 of `data` with `seed`, any length (the long kernel of AES-NI with AVX2).
#[target_feature(enable = "aes,avx2")]
fn v2_long_aesni_avx2(data: &[u8], seed: u64) -> u128 {
    if data.len() <= MID {
        return generic::upto_mid::<NiLane>(seed, data);
    }
    long(generic::key_lane::<NiLane>(seed), data).to_u128()
}

/// v2 of more than [`MID`] bytes for the derived key `key`.
#[target_feature(enable = "aes,avx2")]
fn v2_hash_aesni_avx2(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    long(NiLane::load(key), data).store(&mut out);
    out
}

/// The long path for key `kk` (in a lane) and more than 16 bytes: the ymm block loop over
/// the whole 128-byte blocks, then the AES-NI tail and finish.
#[inline]
#[target_feature(enable = "aes,avx2")]
fn long(kk: NiLane, data: &[u8]) -> NiLane {
    debug_assert!(data.len() > CHUNK);
    let (k, mut a) = generic::long_lanes::<NiLane>(kk);
    let mut b = [NiLane(_mm256_castsi256_si128(_mm256_setzero_si256())); LANES];
    let whole = data.len() - data.len() % BLOCK;
    let mut blocks = data[..whole].chunks_exact(BLOCK);
    if let Some(first) = blocks.next() {
        // Lane keys in pairs: `K[2p]` in the low half, `K[2p + 1]` in the high one.
        let kp: [__m256i; LANES / 2] =
            core::array::from_fn(|p| _mm256_set_m128i(k[2 * p + 1].0, k[2 * p].0));
        let c = pairs(first);
        // As in `generic::one_shot`: `M = A ^ chunk`, the next chunk's XOR in the round key.
        let mut m: [NiLane; LANES] = core::array::from_fn(|i| a[i].xor(half(c[i / 2], i % 2)));
        let mut bp = c;
        for block in blocks {
            let c = pairs(block);
            for p in 0..LANES / 2 {
                bp[p] = _mm256_add_epi64(bp[p], c[p]);
                let t = _mm256_xor_si256(c[p], kp[p]);
                m[2 * p] = NiLane(_mm_aesenc_si128(m[2 * p].0, _mm256_castsi256_si128(t)));
                m[2 * p + 1] =
                    NiLane(_mm_aesenc_si128(m[2 * p + 1].0, _mm256_extracti128_si256::<1>(t)));
            }
        }
        a = core::array::from_fn(|i| m[i].aesenc(k[i]));
        b = core::array::from_fn(|i| half(bp[i / 2], i % 2));
    }
    generic::one_shot_end::<NiLane>(kk, &k, a, b, data)
}

/// A 128-byte block as four 32-byte pairs of chunks.
#[inline]
#[target_feature(enable = "avx2")]
fn pairs(block: &[u8]) -> [__m256i; LANES / 2] {
    debug_assert!(block.len() >= BLOCK);
    core::array::from_fn(|p| {
        let bytes: &[u8; 32] = block[32 * p..32 * p + 32].try_into().expect("32 bytes");
        // SAFETY: 32 readable bytes; unaligned load.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    })
}

/// Half `h` (0 low, 1 high) of a pair, as a lane.
#[inline]
#[target_feature(enable = "avx2")]
fn half(v: __m256i, h: usize) -> NiLane {
    NiLane(if h == 0 { _mm256_castsi256_si128(v) } else { _mm256_extracti128_si256::<1>(v) })
}
