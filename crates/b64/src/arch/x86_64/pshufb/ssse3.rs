//! [`Vector`] for SSSE3's `__m128i`: 16 symbols to 12 bytes, 12 bytes to 16 symbols a block,
//! and the exact loads and stores of fewer than 16 bytes that both widths' last bytes use.

use core::arch::x86_64::{
    __m128i, _mm_add_epi8, _mm_adds_epu8, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8,
    _mm_cmpgt_epi8, _mm_cvtsi32_si128, _mm_cvtsi128_si32, _mm_cvtsi128_si64, _mm_loadl_epi64,
    _mm_loadu_si128, _mm_madd_epi16, _mm_maddubs_epi16, _mm_movemask_epi8, _mm_mulhi_epu16,
    _mm_mullo_epi16, _mm_or_si128, _mm_set1_epi8, _mm_set1_epi32, _mm_setr_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_srli_epi16, _mm_srli_si128, _mm_storel_epi64, _mm_storeu_si128,
    _mm_sub_epi8, _mm_subs_epu8, _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
};

use super::vector::{LAST_ROWS, Lanes, Vector, last_pair_128, vector_ops};

vector_ops!(
    __m128i,
    _mm_loadu_si128,
    _mm_storeu_si128,
    _mm_set1_epi8,
    _mm_set1_epi32,
    _mm_setzero_si128,
    _mm_and_si128,
    _mm_or_si128,
    _mm_andnot_si128,
    _mm_add_epi8,
    _mm_sub_epi8,
    _mm_adds_epu8,
    _mm_cmpeq_epi8,
    _mm_cmpgt_epi8,
    _mm_shuffle_epi8,
    _mm_srli_epi16,
    _mm_mullo_epi16,
    _mm_movemask_epi8,
    {
        const B: usize = 16;
        const OUT: usize = 12;
        const SPREAD_READ: usize = 16;
        const GROUPS_READ: usize = 16;
        const RUNS_UNROLL: usize = 2;

        #[inline(always)]
        unsafe fn load_table(t: &[u8; 16]) -> __m128i {
            // SAFETY: the caller's contract: SSSE3; reads the 16 bytes of `t`.
            unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
        }

        #[inline(always)]
        unsafe fn lanes(p: [i8; 16]) -> __m128i {
            // SAFETY: the caller's contract: SSSE3.
            unsafe {
                _mm_setr_epi8(
                    p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
                    p[12], p[13], p[14], p[15],
                )
            }
        }

        #[inline(always)]
        unsafe fn mulhi_u16(a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: the caller's contract: SSSE3.
            unsafe { _mm_mulhi_epu16(a, b) }
        }

        #[inline(always)]
        unsafe fn load_spread(p: *const u8) -> __m128i {
            // SAFETY: the caller's contract: SSSE3, `p[..16]` readable.
            unsafe { _mm_loadu_si128(p.cast()) }
        }

        #[inline(always)]
        unsafe fn load_groups(p: *const u8) -> __m128i {
            // SAFETY: the caller's contract: SSSE3, `p[..16]` readable.
            unsafe { _mm_loadu_si128(p.cast()) }
        }

        #[inline(always)]
        unsafe fn symbols_runs(
            idx: __m128i,
            low_end: __m128i,
            mid_end: __m128i,
            offset: __m128i,
        ) -> __m128i {
            // SAFETY: the caller's contract: SSSE3.
            unsafe {
                let class = _mm_or_si128(
                    _mm_subs_epu8(idx, mid_end),
                    _mm_and_si128(_mm_cmpgt_epi8(low_end, idx), _mm_set1_epi8(13)),
                );
                _mm_add_epi8(idx, _mm_shuffle_epi8(offset, class))
            }
        }
    }
    {
        const HIDE_LOOKUP_MUL: bool = true;
        const SHORT_ENCODE: usize = 112;
        const HIDE_LAST_MUL: bool = true;
        const LAST_FULL: bool = false;
        const DECODE_UNROLL: usize = 4;

        #[inline(always)]
        unsafe fn pack(v: __m128i) -> __m128i {
            // SAFETY: the caller's contract: SSSE3.
            unsafe {
                let pairs = _mm_maddubs_epi16(v, _mm_set1_epi32(0x0140_0140));
                let dwords = _mm_madd_epi16(pairs, _mm_set1_epi32(0x0001_1000));
                let order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
                _mm_shuffle_epi8(dwords, order)
            }
        }

        #[inline(always)]
        unsafe fn ok(bad: __m128i) -> bool {
            // SAFETY: the caller's contract: SSSE3. (`symbols_before`'s mask again: LLVM then
            // computes it once for both.)
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) == 0xffff }
        }

        #[inline(always)]
        unsafe fn load_exact(src: *const u8, m: usize) -> __m128i {
            // SAFETY: the caller's contract: SSSE3, `src[..m]` readable, `0 < m <= 16`.
            unsafe { if m == 16 { _mm_loadu_si128(src.cast()) } else { load_exact_128(src, m) } }
        }

        #[inline(always)]
        unsafe fn store_exact(dst: *mut u8, len: usize, y: __m128i) {
            // SAFETY: the caller's contract: SSSE3, `dst[..len]` writable, `len <= 16`.
            unsafe { store_exact_128(dst, len, y) }
        }

        #[inline(always)]
        unsafe fn store_out(dst: *mut u8, y: __m128i) {
            // SAFETY: the caller's contract: SSSE3; writes `dst[..8]` and `dst[8..12]`.
            unsafe {
                _mm_storel_epi64(dst.cast(), y);
                let high = _mm_cvtsi128_si32(_mm_srli_si128::<8>(y));
                dst.add(8).cast::<i32>().write_unaligned(high);
            }
        }

        #[inline(always)]
        unsafe fn store_room(dst: *mut u8, at: usize, cap: usize, y: __m128i) {
            // SAFETY: the caller's contract: SSSE3; writes `dst[at..at + 16]` within `cap`, else
            // `dst[at..at + 12]`.
            unsafe {
                if at + 16 <= cap {
                    _mm_storeu_si128(dst.add(at).cast(), y);
                } else {
                    Self::store_out(dst.add(at), y);
                }
            }
        }

        #[inline(always)]
        unsafe fn load_groups_block(src: *const u8, r: usize) -> __m128i {
            // SAFETY: the caller's contract: SSSE3, `src[..r]` readable, `r >= 12`: 16 bytes
            // where there are 16, else exactly 12.
            unsafe { if r >= 16 { _mm_loadu_si128(src.cast()) } else { load_exact_128(src, 12) } }
        }

        #[inline(always)]
        unsafe fn load_placed_last(src: *const u8, r: usize) -> __m128i {
            // SAFETY: the caller's contract: SSSE3, `src[..r]` readable, `0 < r < 12`; the
            // row's first 16 bytes.
            unsafe {
                let row = _mm_loadu_si128(LAST_ROWS[r].place.as_ptr().cast());
                _mm_shuffle_epi8(last_pair_128(src, r), row)
            }
        }

        #[inline(always)]
        unsafe fn pad_rows(r: usize) -> (__m128i, __m128i) {
            // SAFETY: the caller's contract: SSSE3, `r <= 24`; the rows' first 16 bytes.
            unsafe {
                let row = &LAST_ROWS[r];
                (_mm_loadu_si128(row.keep.as_ptr().cast()), _mm_loadu_si128(row.fill.as_ptr().cast()))
            }
        }

        #[inline(always)]
        unsafe fn store_symbols(dst: *mut u8, len: usize, y: __m128i) {
            // SAFETY: the caller's contract: SSSE3, `dst[..len]` writable, `len <= 16`.
            unsafe { store_exact_128(dst, len, y) }
        }
    }
);

/// `k` for `k < 16`, then `0x80`: the 16 bytes at `SHIFT_DOWN[d..]`, as a `pshufb` index, move
/// lane `k + d` to lane `k` and zero the lanes where `k + d >= 16`.
pub(super) static SHIFT_DOWN: [u8; 32] = {
    let mut t = [0x80u8; 32];
    let mut k = 0;
    while k < 16 {
        t[k] = k as u8;
        k += 1;
    }
    t
};

/// `src[..r]` (`r < 16`) in the low lanes of a register, the rest zero, by plain loads that
/// touch only those bytes: for `w <= r < 2w` (`w` = 8 or 4), `w` bytes at 0 and the `w` bytes
/// ending at `r`, joined by one `pshufb`; below 4 bytes, three byte loads. (Reading past the
/// input, or into a stack copy, would make the next load wait on stores: see
/// `encode_all_avx512vbmi`.)
///
/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `r < 16` bytes.
#[inline]
#[target_feature(enable = "ssse3")]
pub(super) unsafe fn load_exact_128(src: *const u8, r: usize) -> __m128i {
    // SAFETY: the loads read `w <= r` bytes at 0 and at `r - w`, or bytes below `r`.
    unsafe {
        let x = if r >= 8 {
            let a = _mm_loadl_epi64(src.cast());
            let b = _mm_loadl_epi64(src.add(r - 8).cast());
            _mm_unpacklo_epi64(a, b)
        } else if r >= 4 {
            let a = _mm_cvtsi32_si128(src.cast::<i32>().read_unaligned());
            let b = _mm_cvtsi32_si128(src.add(r - 4).cast::<i32>().read_unaligned());
            _mm_unpacklo_epi32(a, b)
        } else if r > 0 {
            // Bytes 0, r / 2 and r - 1 are bytes 0, 1, 2 for r = 3 (repeats for r < 3, cut off).
            let v = u32::from(*src)
                | u32::from(*src.add(r / 2)) << 8
                | u32::from(*src.add(r - 1)) << 16;
            return _mm_cvtsi32_si128((v & (u32::MAX >> (32 - 8 * r))) as i32);
        } else {
            return _mm_setzero_si128();
        };
        _mm_shuffle_epi8(x, _mm_loadu_si128(LOAD_EXACT_INDEX[r].as_ptr().cast()))
    }
}

/// The `pshufb` indices of [`load_exact_128`] per length `r` (4..16; the others unused): lane
/// `k < w` stays; lane `k` in `w..r` takes lane `k - (r - w)` of the second load, which sits
/// at `w + k - (r - w)`; lanes from `r` on become zero (index with the top bit set). A table
/// rather than computed: one load instead of eight operations.
static LOAD_EXACT_INDEX: [[u8; 16]; 16] = {
    let mut t = [[0x80u8; 16]; 16];
    let mut r = 4;
    while r < 16 {
        let w = if r >= 8 { 8 } else { 4 };
        let mut k = 0;
        while k < r {
            t[r][k] = if k < w { k } else { 2 * w + k - r } as u8;
            k += 1;
        }
        r += 1;
    }
    t
};

/// Writes the low `len` bytes of `y` (`len <= 16`) to `dst` with plain stores that touch only
/// `dst[..len]`: 16 bytes, or for `w <= len < 2w` (`w` 8, 4 or 2) `w` bytes at 0 and the `w`
/// bytes ending at `len`, from a general register: the second is the low 64 bits shifted by
/// `shrd` (no shuffle table to load, and no byte loop, which gave the callers a stack frame).
/// `b64/encode/b64/16` (24 symbols: 16 and these 8), medians of 3 alternated rounds,
/// amd-zen5: `x86-64-v3` 3.90 -> 3.40 ns, `-v2` 5.27 -> 5.04; `b64/decode/b64/16` at `-v2`
/// 4.46 -> 4.20.
///
/// # Safety
///
/// The CPU has SSSE3; `dst` is valid for writes of `len <= 16` bytes.
#[inline]
#[target_feature(enable = "ssse3")]
pub(super) unsafe fn store_exact_128(dst: *mut u8, len: usize, y: __m128i) {
    // SAFETY: each store writes `w <= len` bytes at 0 or at `len - w`, or bytes below `len`.
    unsafe {
        if len == 16 {
            _mm_storeu_si128(dst.cast(), y);
            return;
        }
        let lo = _mm_cvtsi128_si64(y) as u64;
        if len >= 8 {
            dst.cast::<u64>().write_unaligned(lo);
            if len > 8 {
                let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(y, y)) as u64;
                let end = ((u128::from(hi) << 64 | u128::from(lo)) >> (8 * (len - 8))) as u64;
                dst.add(len - 8).cast::<u64>().write_unaligned(end);
            }
        } else if len >= 4 {
            dst.cast::<u32>().write_unaligned(lo as u32);
            dst.add(len - 4).cast::<u32>().write_unaligned((lo >> (8 * (len - 4))) as u32);
        } else if len >= 2 {
            dst.cast::<u16>().write_unaligned(lo as u16);
            dst.add(len - 2).cast::<u16>().write_unaligned((lo >> (8 * (len - 2))) as u16);
        } else if len == 1 {
            *dst = lo as u8;
        }
    }
}
