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

use super::pshufb::vector::Lanes;
use super::pshufb::{Avx2, encode};
use crate::alphabet::{Alphabet, Runs};
use crate::io::Io;
use crate::kernels::{Kernels, ShortRules};

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
}

impl Kernels for Avx512Bw {
    #[inline]
    fn decode_lines_sep<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        sep: u64,
        sep_len: usize,
    ) -> (usize, usize) {
        self.avx2().decode_lines_sep(alphabet, io, i, j, w, sep, sep_len)
    }

    #[inline]
    fn compact(self, src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
        // AVX2's: the same table pack, and no 512-bit classification feeding 128-bit packs
        // (5-8 % slower on the AMD EPYC this was measured on, and a frequency licence on
        // Skylake-X / Cascade Lake).
        self.avx2().compact(src, dst, newlines_only)
    }

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

/// The run encode's loops ([`Lanes`]) on four 12-byte groups per 512-bit register: `vpermd`
/// spreads 48 bytes over the four 128-bit lanes, and the run classes take a mask compare and
/// a masked move.
impl Lanes for __m512i {
    const B: usize = 64;
    const OUT: usize = 48;
    const SPREAD_READ: usize = 64;
    const GROUPS_READ: usize = 64;
    const RUNS_UNROLL: usize = 4;

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m512i) {
        // SAFETY: the caller's contract: AVX-512 F, `p[..64]` writable.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn splat8(b: i8) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 BW.
        unsafe { _mm512_set1_epi8(b) }
    }

    #[inline(always)]
    unsafe fn splat32(d: i32) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F.
        unsafe { _mm512_set1_epi32(d) }
    }

    #[inline(always)]
    unsafe fn and(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F.
        unsafe { _mm512_and_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn or(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F.
        unsafe { _mm512_or_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn shuffle(t: __m512i, idx: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 BW.
        unsafe { _mm512_shuffle_epi8(t, idx) }
    }

    #[inline(always)]
    unsafe fn mullo16(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 BW.
        unsafe { _mm512_mullo_epi16(a, b) }
    }

    #[inline(always)]
    unsafe fn load_table(t: &[u8; 16]) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F; reads the 16 bytes of `t`.
        unsafe { _mm512_broadcast_i32x4(core::ptr::read_unaligned(t.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn lanes(p: [i8; 16]) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F.
        unsafe {
            _mm512_broadcast_i32x4(_mm_setr_epi8(
                p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12],
                p[13], p[14], p[15],
            ))
        }
    }

    #[inline(always)]
    unsafe fn mulhi_u16(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F and BW.
        unsafe { mulhi_epu16_512(a, b) }
    }

    #[inline(always)]
    unsafe fn load_spread(p: *const u8) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F, `p[..64]` readable. Lane `k` takes dwords
        // `3k .. 3k + 4`: bytes `12k ..` at its bottom.
        unsafe {
            let spread = _mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12);
            _mm512_permutexvar_epi32(spread, _mm512_loadu_si512(p.cast()))
        }
    }

    #[inline(always)]
    unsafe fn load_groups(p: *const u8) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F, `p[..64]` readable.
        unsafe { Self::load_spread(p) }
    }

    #[inline(always)]
    unsafe fn symbols_runs(
        idx: __m512i,
        low_end: __m512i,
        mid_end: __m512i,
        offset: __m512i,
    ) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 BW. The `Runs` classes: 13 below
        // `low_end`, else the saturated excess over `mid_end`.
        unsafe {
            let class = _mm512_mask_mov_epi8(
                _mm512_subs_epu8(idx, mid_end),
                _mm512_cmplt_epu8_mask(idx, low_end),
                _mm512_set1_epi8(13),
            );
            _mm512_add_epi8(idx, _mm512_shuffle_epi8(offset, class))
        }
    }
}

/// Encodes whole 48-byte blocks of `src[..n]` into `dst[..cap]` (64 symbols each) while a
/// block's 64-byte load stays within `src` and its symbols fit; returns the bytes consumed
/// (a multiple of 48). The run encode of the SSSE3 and AVX2 kernels on `__m512i`.
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
    // SAFETY: the caller's contract.
    unsafe { encode::encode_runs::<__m512i>(runs, src, n, dst, cap) }
}
