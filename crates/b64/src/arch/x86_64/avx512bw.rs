//! AVX-512 BW without VBMI (Skylake-SP, Cascade Lake; what `NAB_MAX_ISA=x86-64-v4` leaves):
//! the AVX2 encode design (`vpshufb` into `s1 s0 s2 s1` dwords, Muła's multiplies, the
//! [`Runs`] lookup) on four 12-byte groups per 512-bit register, `vpermd` spreading 48 bytes
//! over the four 128-bit lanes. Decoding stays the AVX2 kernels'.
//!
//! Why it exists: a prototype of this loop, alternated in one process against the AVX2
//! backend on Zen 4 at the `x86-64-v4` cap, encoded faster at 4 KiB, 64 KiB and 1 MiB. Its
//! encode uses the AVX2 kernels' last-bytes code for the rest and for inputs under 64
//! bytes (no block).

use core::arch::x86_64::{
    __m512i, _mm_setr_epi8, _mm512_add_epi8, _mm512_and_si512, _mm512_broadcast_i32x4,
    _mm512_cmplt_epu8_mask, _mm512_loadu_si512, _mm512_mask_mov_epi8, _mm512_mullo_epi16,
    _mm512_or_si512, _mm512_permutexvar_epi32, _mm512_set1_epi8, _mm512_set1_epi32,
    _mm512_setr_epi32, _mm512_shuffle_epi8, _mm512_storeu_si512, _mm512_subs_epu8,
};

use super::pshufb::Avx2;
use crate::alphabet::{Alphabet, Runs};
use crate::io::Io;
use crate::kernels::{Job, Kernels, ShortRules};

nab_isa::token! {
    /// Proof that AVX-512 F and BW and AVX2 may be used (the CPU has them and `NAB_MAX_ISA`
    /// allows them, or the build enables them). Only `Avx512Bw::new` makes one.
    pub(crate) struct Avx512Bw = AVX512F | AVX512BW | AVX2;
}

impl Avx512Bw {
    /// The AVX2 token this one implies (its decode kernels are the ones this backend runs).
    #[inline]
    fn avx2(self) -> Avx2 {
        // SAFETY: `self` proves AVX2 (one of its features).
        unsafe { Avx2::new_unchecked() }
    }

    /// Runs `job` compiled with AVX2 enabled, as [`Avx2::with_features`].
    #[inline]
    pub(crate) fn with_features<J: Job>(self, job: J) -> J::Output {
        self.avx2().with_features(job)
    }
}

impl Kernels for Avx512Bw {
    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let runs = alphabet.runs();
        if !runs.fits {
            return self.avx2().encode(alphabet, src, dst);
        }
        // SAFETY: `self` proves AVX-512 F and BW; the pointers and lengths come from slices.
        unsafe { encode_runs_avx512bw(runs, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len()) }
    }

    #[inline]
    fn encode_all(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8], pad: bool) -> bool {
        // Below 64 bytes the kernel would do no block: the AVX2 code does it all.
        if src.len() < 64 {
            return self.avx2().encode_all(alphabet, src, dst, pad);
        }
        let done = self.encode(alphabet, src, dst);
        self.avx2().encode_rest(alphabet, src, dst, done, pad);
        true
    }

    #[inline]
    fn decode_short(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        short: ShortRules,
    ) -> Option<usize> {
        self.avx2().decode_short(alphabet, src, dst, short)
    }

    #[inline]
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        self.avx2().decode(alphabet, io, i, j)
    }

    #[inline]
    fn decode_lines<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        crlf: bool,
    ) -> (usize, usize) {
        self.avx2().decode_lines(alphabet, io, i, j, w, crlf)
    }
}

crate::arch::x86_64::mulhi_epu16_asm!(mulhi_epu16_512, __m512i, zmm_reg, "avx512f,avx512bw");

/// Encodes whole 48-byte blocks of `src[..n]` into `dst[..cap]` (64 symbols each) while a
/// block's 64-byte load stays within `src` and its symbols fit; returns the bytes consumed
/// (a multiple of 48).
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap` bytes; they do not overlap.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn encode_runs_avx512bw(
    runs: &Runs,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    // Lane `k` takes dwords `3k .. 3k + 4`: bytes `12k ..` at its bottom.
    let spread = _mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12);
    let shuffle =
        _mm512_broadcast_i32x4(_mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
    // Muła's masks and multipliers, hidden from the optimizer as in `pshufb`.
    let [m0, m1, m2, m3] = core::hint::black_box(
        [0x0fc0_fc00, 0x0400_0040, 0x003f_03f0, 0x0100_0010].map(|c| _mm512_set1_epi32(c)),
    );
    let low_end = _mm512_set1_epi8(runs.low_end as i8);
    let mid_end = _mm512_set1_epi8(runs.mid_end as i8);
    let thirteen = _mm512_set1_epi8(13);
    // SAFETY: 16 bytes of the table.
    let offset =
        _mm512_broadcast_i32x4(unsafe { core::ptr::read_unaligned(runs.offset.as_ptr().cast()) });
    let block = |x: __m512i| {
        let x = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(spread, x), shuffle);
        let hi = mulhi_epu16_512(_mm512_and_si512(x, m0), m1);
        let lo = _mm512_mullo_epi16(_mm512_and_si512(x, m2), m3);
        let idx = _mm512_or_si512(hi, lo);
        // The `Runs` classes: 13 below `low_end`, else the saturated excess over `mid_end`.
        let class = _mm512_mask_mov_epi8(
            _mm512_subs_epu8(idx, mid_end),
            _mm512_cmplt_epu8_mask(idx, low_end),
            thirteen,
        );
        _mm512_add_epi8(idx, _mm512_shuffle_epi8(offset, class))
    };
    let end = (n / 3).min(cap / 4) * 3;
    let (mut i, mut j) = (0, 0);
    // SAFETY: each block loads `src[i..i + 64]` with `i + 64 <= n` and stores
    // `dst[j..j + 64]` with `j + 64 = (i + 48) / 3 * 4 <= end / 3 * 4 <= cap`.
    unsafe {
        while i + 3 * 48 + 64 <= n && i + 4 * 48 <= end {
            for k in 0..4 {
                let x = _mm512_loadu_si512(src.add(i + 48 * k).cast());
                _mm512_storeu_si512(dst.add(j + 64 * k).cast(), block(x));
            }
            i += 4 * 48;
            j += 4 * 64;
        }
        while i + 64 <= n && i + 48 <= end {
            let x = _mm512_loadu_si512(src.add(i).cast());
            _mm512_storeu_si512(dst.add(j).cast(), block(x));
            i += 48;
            j += 64;
        }
    }
    i
}
