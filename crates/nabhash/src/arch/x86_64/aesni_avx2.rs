//! NABHash v2 on AES-NI without VAES, two backends over one long path ([`long`]):
//!
//! - `aesni-avx2` (AVX2): the block loop reads each 32-byte pair of chunks once into a ymm
//!   register, adds it into the pair's additive lanes (four ymm accumulators instead of eight
//!   xmm) and XORs it into the pair's round keys in one instruction each; the two 128-bit
//!   halves then key one `aesenc` each. Eight AES lanes, four additive pairs and two
//!   temporaries fit the 16 vector registers, so the loop spills nothing; per 128-byte block
//!   it is 8 `aesenc`, 4 loads, 4 additions, 4 XORs with a folded key load and 4 extracts,
//!   so the AES unit stays the busiest port (one `aesenc` per 16 bytes, the bound of a CPU
//!   with one AES port).
//! - `aesni-avx512` (AVX-512 F, VL and BW and BMI2 as well: Intel's Skylake-SP to Cooper
//!   Lake servers, the dispatch of `x86-64-v4`): the same path compiled with 32 vector
//!   registers, the keys
//!   kept in xmm registers (no extracts) and the additive lanes summed four at a time in zmm
//!   ([`blocks_avx512`]). With 16 registers LLVM passed lane keys and lanes through the stack
//!   around the loop: on amd-zen5 at `x86-64-v4`, 256 B 11.9 -> 7.6 ns, 1 KiB 18.4 -> 14.5,
//!   4 KiB 48.7 -> 42.1 (xxh3-128 built for the tier: 11.3, 16.6, 41.9).
//!
//! Inputs of up to 64 bytes are the AES-NI module's short kernels (with a masked load for
//! `aesni-avx512`).

use core::arch::x86_64::{
    __m256i, __m512i, _mm_aesenc_si128, _mm256_add_epi64, _mm256_broadcastsi128_si256,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_setzero_si256,
    _mm256_xor_si256, _mm512_add_epi64, _mm512_castsi512_si128, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512,
};

use super::aesni::{AesNi, NiLane};
use crate::kernels::{Kernels, V2Fn, forward_kernels};
use crate::v2::generic::{self, AesLane};
use crate::v2::state::{BLOCK, CHUNK, CONSTANTS, LANES, MID};

/// Proof that this CPU has AES-NI and AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AesNiAvx2(AesNi);

impl AesNiAvx2 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        if nab_isa::has(nab_isa::Features::AVX2) { AesNi::new().map(AesNiAvx2) } else { None }
    }
}

/// A backend's `Kernels` methods for v2's long inputs, from its two long entry points (see
/// `long_entry_points!`); inputs of up to [`MID`] bytes go to the wrapped backend (`self.0`).
macro_rules! long_kernels {
    ($long:ident, $hash:ident) => {
        #[inline]
        fn v2_hash(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
            if data.len() <= MID {
                return self.0.v2_hash(key, data);
            }
            // SAFETY: `self` exists only if `new` saw the entry point's features on this CPU.
            unsafe { $hash(key, data) }
        }
        #[inline]
        fn v2_hash_seeded(self, seed: u64, data: &[u8]) -> [u8; 16] {
            if data.len() <= MID {
                return self.0.v2_hash_seeded(seed, data);
            }
            // SAFETY: as above.
            unsafe { $long(data, seed) }.to_le_bytes()
        }
        #[inline]
        fn v2_long_fn(self) -> V2Fn {
            $long
        }
    };
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
    long_kernels!(v2_long_aesni_avx2, v2_hash_aesni_avx2);
}

/// Proof that this CPU has AES-NI, AVX2, AVX-512 F, VL and BW and BMI2, but not VAES (Intel's
/// Skylake-SP to Cascade Lake and Cooper Lake servers; any AVX-512 CPU capped at
/// `x86-64-v4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AesNiAvx512(AesNiAvx2);

impl AesNiAvx512 {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        use nab_isa::Features as F;
        let avx512 = F::AVX512F.union(F::AVX512VL).union(F::AVX512BW).union(F::BMI2);
        if nab_isa::has(avx512) { AesNiAvx2::new().map(AesNiAvx512) } else { None }
    }
}

/// [`AesNiAvx2`]'s kernels, v2's long path compiled with AVX-512 VL (32 vector registers:
/// [`blocks_avx512`]), and inputs of up to 64 bytes by the short kernels that read up to 16
/// bytes with one AVX-512 BW masked load (the VAES backends' too: they need no VAES).
impl Kernels for AesNiAvx512 {
    forward_kernels!(v1_compress, v1_finish, v2_key, v2_short, v2_mid, v2_absorb, v2_finish);
    #[inline]
    fn v2_upto_mid_fn(self) -> V2Fn {
        super::aesni::v2_upto_mid_avx512bw
    }
    #[inline]
    fn v2_keyed_upto_mid_fn(self) -> crate::kernels::V2KeyedFn {
        super::aesni::v2_keyed_upto_mid_avx512bw
    }
    long_kernels!(v2_long_aesni_avx512, v2_hash_aesni_avx512);
}

/// The two long entry points of a backend over [`long`]: `$long` (v2 of `data` with `seed`,
/// any length) and `$hash` (more than [`MID`] bytes for a derived key), compiled with
/// `$features`, `long`'s loop chosen by `$avx512`.
macro_rules! long_entry_points {
    ($long:ident, $hash:ident, $features:literal, $avx512:literal) => {
        #[doc = concat!("v2 of `data` with `seed`, any length (`", $features, "`).")]
        #[target_feature(enable = $features)]
        fn $long(data: &[u8], seed: u64) -> u128 {
            if data.len() <= MID {
                return generic::upto_mid::<NiLane>(seed, data);
            }
            // SAFETY: this function's features include AES-NI and AVX2 (and AVX-512 F/VL
            // when `$avx512`).
            unsafe { long::<$avx512>(generic::key_lane::<NiLane>(seed), data) }.to_u128()
        }

        #[doc = concat!("v2 of more than [`MID`] bytes for the derived key `key` (`", $features, "`).")]
        #[target_feature(enable = $features)]
        fn $hash(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
            let mut out = [0u8; 16];
            // SAFETY: as in the function above.
            unsafe { long::<$avx512>(NiLane::load(key), data) }.store(&mut out);
            out
        }
    };
}

long_entry_points!(v2_long_aesni_avx512, v2_hash_aesni_avx512, "aes,avx2,avx512f,avx512vl", true);
long_entry_points!(v2_long_aesni_avx2, v2_hash_aesni_avx2, "aes,avx2", false);

/// The long path for key `kk` (in a lane) and more than 16 bytes: the block loop over the
/// whole 128-byte blocks ([`blocks_avx512`] when `AVX512`, else [`blocks_avx2`]), then the
/// AES-NI tail and finish. Inlined into each entry point and compiled with its features
/// (with AVX-512 VL: 32 vector registers for the lanes, keys and finish).
///
/// # Safety
///
/// The CPU has AES-NI and AVX2, and AVX-512 F and VL when `AVX512`.
#[inline(always)]
unsafe fn long<const AVX512: bool>(kk: NiLane, data: &[u8]) -> NiLane {
    // SAFETY: the caller's contract: AES-NI and AVX2 (and AVX-512 F/VL for `blocks_avx512`).
    unsafe {
        debug_assert!(data.len() > CHUNK);
        let (k, mut a) = generic::long_lanes::<NiLane>(kk);
        let mut b = [NiLane(_mm256_castsi256_si128(_mm256_setzero_si256())); LANES];
        let whole = data.len() - data.len() % BLOCK;
        let mut blocks = data[..whole].chunks_exact(BLOCK);
        if let Some(first) = blocks.next() {
            if AVX512 {
                (a, b) = blocks_avx512(&k, a, first, blocks);
            } else {
                (a, b) = blocks_avx2(kk, &k, a, first, blocks);
            }
        }
        generic::one_shot_end::<NiLane>(kk, &k, a, b, data)
    }
}

/// Lanes `a` (as [`generic::long_lanes`] made them) and `B` after the whole 128-byte blocks
/// `first` and `rest`, on AVX2's 16 registers: each 32-byte pair of chunks read once into a
/// ymm register, added into the pair's additive lanes and XORed into the pair's round keys
/// in one instruction each, the high half then extracted for its `aesenc`.
///
/// # Safety
///
/// The CPU has AES-NI and AVX2.
#[inline(always)]
unsafe fn blocks_avx2<'a>(
    kk: NiLane,
    k: &[NiLane; LANES],
    a: [NiLane; LANES],
    first: &[u8],
    rest: impl Iterator<Item = &'a [u8]>,
) -> ([NiLane; LANES], [NiLane; LANES]) {
    // SAFETY: the caller's contract: AES-NI and AVX2 (`pairs`, `half`, the intrinsics).
    unsafe {
        // Lane keys in pairs: `K[2p]` in the low half, `K[2p + 1]` in the high one, each
        // `KK ^ C[3 + i]` (`generic::long_lanes`): made from `KK` and one 32-byte load of two
        // constants, not by pairing the xmm keys, which LLVM did through the stack (about 12
        // cycles on the chain of every lane's first round; 256 B at `x86-64-v3` 11.7 -> 9.8 ns
        // on amd-zen5).
        let kk2 = _mm256_broadcastsi128_si256(kk.0);
        let kp: [__m256i; LANES / 2] = core::array::from_fn(|p| {
            let pair: &[u8; 32] = CONSTANTS.as_flattened()[16 * (3 + 2 * p)..16 * (5 + 2 * p)]
                .try_into()
                .expect("two constants");
            _mm256_xor_si256(kk2, _mm256_loadu_si256(pair.as_ptr().cast()))
        });
        let c = pairs(first);
        // As in `generic::one_shot`: `M = A ^ chunk`, the next chunk's XOR in the round key.
        let mut m: [NiLane; LANES] = core::array::from_fn(|i| a[i].xor(half(c[i / 2], i % 2)));
        let mut bp = c;
        for block in rest {
            let c = pairs(block);
            for p in 0..LANES / 2 {
                bp[p] = _mm256_add_epi64(bp[p], c[p]);
                let t = _mm256_xor_si256(c[p], kp[p]);
                m[2 * p] = NiLane(_mm_aesenc_si128(m[2 * p].0, _mm256_castsi256_si128(t)));
                m[2 * p + 1] =
                    NiLane(_mm_aesenc_si128(m[2 * p + 1].0, _mm256_extracti128_si256::<1>(t)));
            }
        }
        (
            core::array::from_fn(|i| m[i].aesenc(k[i])),
            core::array::from_fn(|i| half(bp[i / 2], i % 2)),
        )
    }
}

/// [`blocks_avx2`] with AVX-512's 32 registers: the eight keys stay in xmm registers and
/// each chunk is XORed into its key from memory (no extract: on Zen 4 the extracts and XORs
/// of the ymm loop shared the AES unit's two pipes, llvm-mca-19 `znver4` 6.06 -> 5.06 cycles
/// per 128 bytes, `cascadelake` 8.05 both: its one AES port); the additive lanes are two zmm
/// sums of four lanes each (two additions per block instead of four).
///
/// # Safety
///
/// The CPU has AES-NI, AVX2 and AVX-512 F and VL.
#[inline(always)]
unsafe fn blocks_avx512<'a>(
    k: &[NiLane; LANES],
    a: [NiLane; LANES],
    first: &[u8],
    rest: impl Iterator<Item = &'a [u8]>,
) -> ([NiLane; LANES], [NiLane; LANES]) {
    let chunk = |block: &[u8], i: usize| {
        NiLane::load(block[CHUNK * i..CHUNK * (i + 1)].try_into().expect("16 bytes"))
    };
    let quad = |block: &[u8], q: usize| {
        let bytes: &[u8; 64] = block[64 * q..64 * q + 64].try_into().expect("64 bytes");
        // SAFETY: 64 readable bytes, unaligned load; the caller's contract: AVX-512F.
        unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
    };
    let mut m: [NiLane; LANES] = core::array::from_fn(|i| a[i].xor(chunk(first, i)));
    let mut bq: [__m512i; 2] = core::array::from_fn(|q| quad(first, q));
    for block in rest {
        for (q, acc) in bq.iter_mut().enumerate() {
            // SAFETY: the caller's contract: AVX-512F.
            *acc = unsafe { _mm512_add_epi64(*acc, quad(block, q)) };
        }
        for i in 0..LANES {
            m[i] = m[i].aesenc(k[i].xor(chunk(block, i)));
        }
    }
    let b = core::array::from_fn(|i| {
        // SAFETY: the caller's contract: AVX-512F.
        NiLane(unsafe {
            match i % 4 {
                0 => _mm512_castsi512_si128(bq[i / 4]),
                1 => _mm512_extracti32x4_epi32::<1>(bq[i / 4]),
                2 => _mm512_extracti32x4_epi32::<2>(bq[i / 4]),
                _ => _mm512_extracti32x4_epi32::<3>(bq[i / 4]),
            }
        })
    });
    (core::array::from_fn(|i| m[i].aesenc(k[i])), b)
}

/// A 128-byte block as four 32-byte pairs of chunks.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn pairs(block: &[u8]) -> [__m256i; LANES / 2] {
    debug_assert!(block.len() >= BLOCK);
    core::array::from_fn(|p| {
        let bytes: &[u8; 32] = block[32 * p..32 * p + 32].try_into().expect("32 bytes");
        // SAFETY: 32 readable bytes; unaligned load.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    })
}

/// Half `h` (0 low, 1 high) of a pair, as a lane.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn half(v: __m256i, h: usize) -> NiLane {
    // SAFETY: the caller's contract: AVX2.
    NiLane(unsafe {
        if h == 0 { _mm256_castsi256_si128(v) } else { _mm256_extracti128_si256::<1>(v) }
    })
}
