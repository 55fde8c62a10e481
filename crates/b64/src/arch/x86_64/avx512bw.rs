//! AVX-512 BW without VBMI (Skylake-SP, Cascade Lake; what `NAB_MAX_ISA=x86-64-v4` leaves):
//! the AVX2 encode design (`vpshufb` into `s1 s0 s2 s1` dwords, Muła's multiplies, the
//! [`Runs`] lookup) on four 12-byte groups per 512-bit register, `vpermd` spreading 48 bytes
//! over the four 128-bit lanes; and the AVX2 nibble decode ([`Nibbles`]) on 64 symbols per
//! register for the bulk of a text ([`decode_blocks_avx512bw`]), `vpermd` gathering each
//! lane's 12 bytes into one store, the AVX2 kernels for the rest.
//!
//! Why it exists: a prototype of the encode loop, alternated in one process against the AVX2
//! backend on Zen 4 at the `x86-64-v4` cap, encoded faster at 4 KiB, 64 KiB and 1 MiB; the
//! decode loop needs half the vector operations per symbol of the AVX2 one (the bench
//! records have the figures). Inputs of 25 to 144 bytes are encoded by
//! [`encode_short_avx512bw`] (24-byte blocks in 256-bit registers, the last one read by a
//! masked load), shorter ones and the rest after the loops by the AVX2 kernels' last-bytes
//! code.

use core::arch::x86_64::{
    __m512i, _mm_setr_epi8, _mm256_loadu_si256, _mm256_maskz_loadu_epi8,
    _mm256_permutevar8x32_epi32, _mm256_setr_epi32, _mm256_storeu_si256, _mm512_add_epi8,
    _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask,
    _mm512_loadu_si512, _mm512_madd_epi16, _mm512_maddubs_epi16, _mm512_mask_add_epi8,
    _mm512_mask_mov_epi8, _mm512_mullo_epi16, _mm512_or_si512, _mm512_permutexvar_epi32,
    _mm512_set1_epi8, _mm512_set1_epi32, _mm512_setr_epi32, _mm512_setzero_si512,
    _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_storeu_si512, _mm512_subs_epu8,
    _mm512_ternarylogic_epi32, _mm512_test_epi8_mask,
};

use super::pshufb::vector::Lanes;
use super::pshufb::{Avx2, encode};
use crate::alphabet::{Alphabet, Nibbles, Runs};
use crate::io::{Io, run_decode};
use crate::kernels::{Kernels, ShortRules};

nab_isa::token! {
    /// Proof that AVX-512 F, BW and VL and AVX2 may be used (the CPU has them and `NAB_MAX_ISA`
    /// allows them, or the build enables them). Only `Avx512Bw::new` makes one.
    pub(crate) struct Avx512Bw = AVX512F | AVX512BW | AVX512VL | AVX2;
}

impl Avx512Bw {
    /// The AVX2 token this one implies (its kernels do what this backend has no loop for).
    #[inline]
    fn avx2(self) -> Avx2 {
        // SAFETY: `self` proves AVX2 (one of its features).
        unsafe { Avx2::new_unchecked() }
    }

    /// [`decode_blocks_avx512bw`] on `io`'s buffers from `(i, j)`; returns the new `(i, j)`.
    #[inline]
    fn decode_blocks<const FIXES: usize, I: Io + ?Sized>(
        self,
        nib: &Nibbles,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        run_decode(io, i, j, |src, n, dst, cap| {
            // SAFETY: `self` proves AVX-512 F and BW; `run_decode` gives pointers into live
            // buffers, separate or with the output behind the input, which the loop allows.
            unsafe { decode_blocks_avx512bw::<FIXES>(nib, src, n, dst, cap) }
        })
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

    #[inline(always)]
    fn encode_all(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8], pad: bool) -> bool {
        let runs = alphabet.runs();
        // One block: AVX2's last-block code (per-length rows, plain loads) is shorter than
        // the masked-load path below. amd-zen5, `x86-64-v4`, criterion medians of 5 alternated
        // rounds: 16 and 18 B 4.10 -> 3.91 ns, and 3.54 with this function inlined into its
        // caller (64 B 5.89 -> 5.29).
        if src.len() <= 24 {
            return self.avx2().encode_all(alphabet, src, dst, pad);
        }
        if src.len() <= SHORT_ENCODE && runs.fits {
            // SAFETY: `self` proves AVX-512 F/BW/VL and AVX2; `dst` is exactly the encoded
            // length of `src` (the caller's contract); `&mut` excludes overlap.
            unsafe {
                encode_short_avx512bw(
                    runs,
                    src.as_ptr(),
                    src.len(),
                    dst.as_mut_ptr(),
                    dst.len(),
                    pad,
                );
            }
            return true;
        }
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
        let nib = alphabet.nibbles();
        let (i, j) = match nib.fixes {
            0 => self.decode_blocks::<0, I>(nib, io, i, j),
            1 => self.decode_blocks::<1, I>(nib, io, i, j),
            2 => self.decode_blocks::<2, I>(nib, io, i, j),
            _ => (i, j),
        };
        // The rest (fewer than two blocks, the output's end, a block holding a non-symbol):
        // the AVX2 kernels, which stop at the exact group.
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

/// Inputs of at most this many bytes take [`encode_short_avx512bw`]. amd-zen5 at the
/// `x86-64-v4` cap: `b64/encode-tail` at 100 B 9.06 -> 6.79 ns (criterion medians); best of
/// 15 x 200k calls, 144 B 7.2 ns by this path against the 512-bit loops' 8.8-9.0 ns at
/// 160 B; the two meet near 192 B. Below that crossover
/// because Intel's cores run the loops' 512-bit shuffles at full width (one port: twice
/// the bytes per µop), which favours the loops from a shorter length (re-verify on Intel).
const SHORT_ENCODE: usize = 144;

/// Encodes all of a short `src[..n]` (`n <= SHORT_ENCODE`) into `dst[..len]` (its encoded
/// length, with padding if `pad`) in 24-byte blocks of 256-bit registers, the AVX2 run encode
/// of each: the last block (and every block that a 32-byte load would overrun) loaded with
/// AVX-512 BW's zero-masking byte load, so no ladder of length tests or shifting table builds
/// it; `vpermd` spreads a block's 24 bytes over the two 128-bit lanes. The stores are plain:
/// 32 symbols a block, then the last block's exact length ([`encode::store_symbols_256`]; a
/// masked store would make later loads of the bytes past it wait, see the VBMI kernel).
///
/// # Safety
///
/// The CPU has AVX-512 F, BW and VL and AVX2; `src` is valid for reads of `n <= SHORT_ENCODE`
/// bytes and `dst` for writes of `len` bytes, the encoded length of `n` bytes with padding if
/// `pad`; they do not overlap.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
unsafe fn encode_short_avx512bw(
    runs: &Runs,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    debug_assert!(n <= SHORT_ENCODE);
    // SAFETY: a block loads `src[i..i + 32]` only when `i + 32 <= n`, else exactly the
    // `min(24, n - i)` bytes at `i` (masked-off bytes are neither read nor faulted on); its
    // 32 symbols go to `dst[j..j + 32]` with `j = i / 3 * 4` and `i + 24 < n`, so within
    // `len`; the last block writes exactly `dst[j..len]`.
    unsafe {
        let spread = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);
        let (mut i, mut j) = (0, 0);
        while n - i > 24 {
            let x = if n - i >= 32 {
                _mm256_loadu_si256(src.add(i).cast())
            } else {
                _mm256_maskz_loadu_epi8(0x00ff_ffff, src.add(i).cast())
            };
            let y = encode::run_symbols_256(runs, _mm256_permutevar8x32_epi32(x, spread));
            _mm256_storeu_si256(dst.add(j).cast(), y);
            i += 24;
            j += 32;
        }
        let (r, rest) = (n - i, len - j);
        // (An empty input reads nothing: a zero-mask load at a dangling pointer would still
        // run the fault-suppression assist, tens of nanoseconds.)
        if rest == 0 {
            return;
        }
        let x = _mm256_maskz_loadu_epi8(((1u64 << r) - 1) as u32, src.add(i).cast());
        let mut y = encode::run_symbols_256(runs, _mm256_permutevar8x32_epi32(x, spread));
        if pad {
            y = encode::pad_last_256(y, r);
        }
        encode::store_symbols_256(dst.add(j), rest, y);
    }
}

/// Blocks of 64 symbols per iteration of [`decode_blocks_avx512bw`], checked together.
const DECODE_UNROLL: usize = 2;

/// Decodes `DECODE_UNROLL` blocks of 64 symbols of `src[..n]` into `dst[..cap]` per
/// iteration while they hold only symbols and the output has room for the last block's
/// 64-byte store (48 bytes and 16 of junk that the next block overwrites); returns the
/// symbols decoded (a multiple of 64). It stops before an iteration holding a non-symbol,
/// writing nothing of it: the caller's next kernel finds the exact group.
///
/// The AVX2 kernels' nibble decode (`NibbleRegs::values`: the low-nibble table indexed by
/// the byte itself, `pmaddubsw` and `pmaddwd` into 24-bit dwords, `pshufb` packing 12 bytes
/// at the bottom of each 128-bit lane) on 512-bit registers, with two AVX-512 steps: the
/// blocks' `bad` lanes are OR-ed with one `vpternlogd` per block (`acc | (hi & !lo)`), and a
/// fix-up is a compare into a mask and a masked add; `vpermd` gathers the four lanes' bytes.
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap` bytes; either they do not overlap or `dst <= src` in one buffer (every store of an
/// iteration follows its loads and ends within them: block `k`'s store ends at
/// `48 k + 64 <= 64 (k + 1)` bytes past the iteration's output, which is behind its input).
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn decode_blocks_avx512bw<const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    const U: usize = DECODE_UNROLL;
    let mut lo_ok = nib.lo_mask;
    for b in &mut lo_ok {
        *b = !*b;
    }
    // SAFETY: AVX-512 F (the caller's contract); the tables are 16-byte arrays.
    let (lo_ok, hi_bit, shift, pack) = unsafe {
        (
            __m512i::load_table(&lo_ok),
            __m512i::load_table(&Nibbles::HI_BIT),
            __m512i::load_table(&nib.shift),
            __m512i::lanes([2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 0, 0, 0, 0]),
        )
    };
    let mut fix_byte = [_mm512_setzero_si512(); Nibbles::MAX_FIXES];
    let mut fix_add = [_mm512_setzero_si512(); Nibbles::MAX_FIXES];
    for (k, (b, a)) in fix_byte.iter_mut().zip(&mut fix_add).enumerate() {
        *b = _mm512_set1_epi8(nib.fix_byte[k] as i8);
        *a = _mm512_set1_epi8(nib.fix_add[k] as i8);
    }
    let low = _mm512_set1_epi8(0x0f);
    // Dwords 0..3 of each lane hold its 12 bytes; the last four are junk past the 48.
    let gather = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15);
    let (mut i, mut j) = (0, 0);
    while i + 64 * U <= n && j + 48 * (U - 1) + 64 <= cap {
        let mut v = [_mm512_setzero_si512(); U];
        let mut bad = _mm512_setzero_si512();
        for (k, v) in v.iter_mut().enumerate() {
            // SAFETY: `i + 64 U <= n`: the block is readable.
            let x = unsafe { _mm512_loadu_si512(src.add(i + 64 * k).cast()) };
            let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(x), low);
            let lo_look = _mm512_shuffle_epi8(lo_ok, x);
            let hi_look = _mm512_shuffle_epi8(hi_bit, hi);
            // `bad | (hi_look & !lo_look)`: A = bad, B = lo_look, C = hi_look.
            bad = _mm512_ternarylogic_epi32::<0xf2>(bad, lo_look, hi_look);
            let mut y = _mm512_add_epi8(x, _mm512_shuffle_epi8(shift, hi));
            for f in 0..FIXES {
                let at = _mm512_cmpeq_epi8_mask(x, fix_byte[f]);
                y = _mm512_mask_add_epi8(y, at, y, fix_add[f]);
            }
            *v = y;
        }
        if _mm512_test_epi8_mask(bad, bad) != 0 {
            break;
        }
        for (k, &v) in v.iter().enumerate() {
            let pairs = _mm512_maddubs_epi16(v, _mm512_set1_epi32(0x0140_0140));
            let dwords = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x0001_1000));
            let bytes = _mm512_permutexvar_epi32(gather, _mm512_shuffle_epi8(dwords, pack));
            // SAFETY: writes `dst[j + 48 k..j + 48 k + 64]`, within `cap`
            // (`j + 48 (U - 1) + 64 <= cap`), after the iteration's loads.
            unsafe { _mm512_storeu_si512(dst.add(j + 48 * k).cast(), bytes) };
        }
        i += 64 * U;
        j += 48 * U;
    }
    i
}
