//! [`Vector`] for AVX2's `__m256i`: 32 symbols to 24 bytes, 24 bytes to 32 symbols a block.
//! What differs from SSSE3 beyond the intrinsics' names: `pshufb` works within 128-bit
//! lanes, so an encode block's 24 bytes are spread 12 to a lane (`vpermd`, or two 16-byte
//! loads) and a decode block's 24 bytes joined across them (`vpermd`); `vpmulhuw` is written
//! out; the run lookup takes `vpblendvb`; and lines of 76 symbols go two at a time
//! ([`line_pairs_76`]).

use core::arch::x86_64::{
    __m256i, _mm_loadu_si128, _mm_setr_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_srli_si128,
    _mm_storel_epi64, _mm_storeu_si128, _mm256_add_epi8, _mm256_adds_epu8, _mm256_and_si256,
    _mm256_andnot_si256, _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_castsi128_si256,
    _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_extracti128_si256,
    _mm256_inserti128_si256, _mm256_load_si256, _mm256_loadu_si256, _mm256_madd_epi16,
    _mm256_maddubs_epi16, _mm256_movemask_epi8, _mm256_mullo_epi16, _mm256_or_si256,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi8, _mm256_set1_epi32, _mm256_setr_epi32,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_storeu_si256,
    _mm256_sub_epi8, _mm256_subs_epu8, _mm256_testz_si256,
};

use super::ssse3::{SHIFT_DOWN, load_exact_128, store_exact_128};
use super::vector::{LAST_ROWS, Lanes, NibbleRegs, Vector, last_pair_128, vector_ops};

vector_ops!(
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_set1_epi8,
    _mm256_set1_epi32,
    _mm256_setzero_si256,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_andnot_si256,
    _mm256_add_epi8,
    _mm256_sub_epi8,
    _mm256_adds_epu8,
    _mm256_cmpeq_epi8,
    _mm256_cmpgt_epi8,
    _mm256_shuffle_epi8,
    _mm256_srli_epi16,
    _mm256_mullo_epi16,
    _mm256_movemask_epi8,
    {
        const B: usize = 32;
        const OUT: usize = 24;
        const SPREAD_READ: usize = 32;
        const GROUPS_READ: usize = 28;
        const RUNS_UNROLL: usize = 4;

        #[inline(always)]
        unsafe fn load_table(t: &[u8; 16]) -> __m256i {
            // SAFETY: the caller's contract: AVX2; reads the 16 bytes of `t`.
            unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast())) }
        }

        #[inline(always)]
        unsafe fn lanes(p: [i8; 16]) -> __m256i {
            // SAFETY: the caller's contract: AVX2.
            unsafe {
                _mm256_broadcastsi128_si256(_mm_setr_epi8(
                    p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
                    p[12], p[13], p[14], p[15],
                ))
            }
        }

        #[inline(always)]
        unsafe fn mulhi_u16(a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: the caller's contract: AVX2.
            unsafe { mulhi_epu16_256(a, b) }
        }

        #[inline(always)]
        unsafe fn load_spread(p: *const u8) -> __m256i {
            // SAFETY: the caller's contract: AVX2, `p[..32]` readable. Bytes 0..12 to the low
            // lane, 12..24 to the high one.
            unsafe {
                let spread = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);
                _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p.cast()), spread)
            }
        }

        #[inline(always)]
        unsafe fn load_groups(p: *const u8) -> __m256i {
            // SAFETY: the caller's contract: AVX2, `p[..28]` readable.
            unsafe { load_groups_256(p) }
        }

        /// With `vpblendvb` (one instruction on Zen 4) in place of the `pand` and `por` that
        /// set the low run's class.
        #[inline(always)]
        unsafe fn symbols_runs(
            idx: __m256i,
            low_end: __m256i,
            mid_end: __m256i,
            offset: __m256i,
        ) -> __m256i {
            // SAFETY: the caller's contract: AVX2.
            unsafe {
                let class = _mm256_blendv_epi8(
                    _mm256_subs_epu8(idx, mid_end),
                    _mm256_set1_epi8(13),
                    _mm256_cmpgt_epi8(low_end, idx),
                );
                _mm256_add_epi8(idx, _mm256_shuffle_epi8(offset, class))
            }
        }
    }
    {
        const HIDE_LOOKUP_MUL: bool = false;
        const SHORT_ENCODE: usize = 88;
        const HIDE_LAST_MUL: bool = false;
        const LAST_FULL: bool = true;
        const DECODE_UNROLL: usize = 4;

        #[inline(always)]
        unsafe fn pack(v: __m256i) -> __m256i {
            // SAFETY: the caller's contract: AVX2. Bytes 12..16 of each lane are don't-cares
            // (the permute drops them; the top 8 bytes of the result are overwritten or past
            // the output): copies rather than zeros, which would make LLVM add a blend.
            unsafe {
                let gather = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
                _mm256_permutevar8x32_epi32(pack_lanes_256(v), gather)
            }
        }

        /// Each lane's 12 bytes stored by a 16-byte store of its own (the second, from the
        /// high lane, over the first's 4 junk bytes) instead of `pack`'s `vpermd` and one
        /// 32-byte store: `vextracti128` to memory is a store, not a shuffle, so the loop's
        /// shuffle port (Intel's port 5: every `vpshufb` and `vpermd`) has one µop less per
        /// block. llvm-mca-19 on the two-block loop of the standard alphabet, cycles per
        /// 64 bytes, `vpermd` and one store against two stores: cascadelake 13.14 -> 11.64,
        /// alderlake 12.20 -> 11.52, znver4 11.59 -> 11.37, haswell 13.68 -> 14.15 (its
        /// `vextracti128` to memory takes a shuffle µop too; no CPU of the bench records).
        #[inline(always)]
        unsafe fn store_pack(p: *mut u8, v: __m256i) {
            // SAFETY: the caller's contract: AVX2, `p[..32]` writable (the stores write
            // `p[..28]`).
            unsafe {
                let w = pack_lanes_256(v);
                _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(w));
                _mm_storeu_si128(p.add(12).cast(), _mm256_extracti128_si256::<1>(w));
            }
        }

        #[inline(always)]
        unsafe fn ok(bad: __m256i) -> bool {
            // SAFETY: the caller's contract: AVX2.
            unsafe { _mm256_testz_si256(bad, bad) != 0 }
        }

        #[inline(always)]
        unsafe fn load_exact(src: *const u8, m: usize) -> __m256i {
            // SAFETY: the caller's contract: AVX2, `src[..m]` readable, `0 < m <= 32`.
            unsafe { load_exact_256(src, m) }
        }

        #[inline(always)]
        unsafe fn store_exact(dst: *mut u8, len: usize, y: __m256i) {
            // SAFETY: the caller's contract: AVX2, `dst[..len]` writable, `len <= 32`: 16
            // bytes and the exact rest, or the exact low bytes.
            unsafe {
                if len > 16 {
                    _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
                    store_exact_128(dst.add(16), len - 16, _mm256_extracti128_si256::<1>(y));
                } else {
                    store_exact_128(dst, len, _mm256_castsi256_si128(y));
                }
            }
        }

        #[inline(always)]
        unsafe fn store_out(dst: *mut u8, y: __m256i) {
            // SAFETY: the caller's contract: AVX2; writes `dst[..16]` and `dst[16..24]`.
            unsafe {
                _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
                _mm_storel_epi64(dst.add(16).cast(), _mm256_extracti128_si256::<1>(y));
            }
        }

        #[inline(always)]
        unsafe fn store_room(dst: *mut u8, at: usize, cap: usize, y: __m256i) {
            // SAFETY: the caller's contract: AVX2; writes `dst[at..at + 32]` within `cap`, else
            // `dst[at..at + 24]`.
            unsafe {
                if cap - at >= 32 {
                    _mm256_storeu_si256(dst.add(at).cast(), y);
                } else {
                    Self::store_out(dst.add(at), y);
                }
            }
        }

        #[inline(always)]
        unsafe fn load_groups_block(src: *const u8, r: usize) -> __m256i {
            // SAFETY: the caller's contract: AVX2, `src[..r]` readable, `r >= 24`; the two
            // plain loads read `src[..28]` only when `r >= 28`.
            unsafe {
                if r >= Self::GROUPS_READ {
                    load_groups_256(src)
                } else {
                    load_groups_exact_256(src, 24)
                }
            }
        }

        #[inline(always)]
        unsafe fn load_placed_last(src: *const u8, r: usize) -> __m256i {
            // SAFETY: the caller's contract: AVX2, `src[..r]` readable, `0 < r <= 24`: 16
            // bytes at 0 and the 16 ending at `r` for `r >= 16`, else `last_pair_128`'s.
            unsafe { load_placed_last_256(src, r) }
        }

        #[inline(always)]
        unsafe fn pad_rows(r: usize) -> (__m256i, __m256i) {
            // SAFETY: the caller's contract: AVX2, `r <= 24`.
            unsafe { pad_rows_256(r) }
        }

        #[inline(always)]
        unsafe fn store_symbols(dst: *mut u8, len: usize, y: __m256i) {
            // SAFETY: the caller's contract: AVX2, `dst[..len]` writable, `len <= 32`.
            unsafe {
                if len == 32 {
                    _mm256_storeu_si256(dst.cast(), y);
                } else if len > 16 && len.is_multiple_of(4) {
                    // 16 symbols at 0 and the 16 ending at `len` (dwords `len / 4 - 4..`, by
                    // one `vpermd`), in place of the general-register stores of
                    // `store_exact`. Every padded encoding's length is a multiple of 4.
                    // amd-zen5, `x86-64-v3`, criterion medians of 5 alternated rounds:
                    // `b64/encode` 64 B (its last block 24 symbols) 5.64 -> 5.10 ns, 16 B
                    // `encode-tail` 3.67 -> 3.53.
                    let q = len / 4;
                    let idx = _mm256_setr_epi32(q as i32 - 4, q as i32 - 3, q as i32 - 2, q as i32 - 1, 0, 0, 0, 0);
                    let end = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, idx));
                    _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
                    _mm_storeu_si128(dst.add(len - 16).cast(), end);
                } else {
                    Self::store_exact(dst, len, y);
                }
            }
        }

        #[inline(always)]
        unsafe fn line_pairs_76<const FIXES: usize>(
            t: &NibbleRegs<__m256i>,
            src: *const u8,
            n: usize,
            dst: *mut u8,
            cap: usize,
            crlf: bool,
        ) -> (usize, usize) {
            // SAFETY: the caller's contract.
            unsafe {
                if crlf {
                    line_pairs_76::<FIXES, true>(t, src, n, dst, cap)
                } else {
                    line_pairs_76::<FIXES, false>(t, src, n, dst, cap)
                }
            }
        }
    }
);

crate::arch::x86_64::mulhi_epu16_asm!(mulhi_epu16_256, __m256i, ymm_reg, "avx2");

/// 32 6-bit values -> 12 bytes in the low bytes of each lane (the rest junk): `pack` without
/// the permute that joins the lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn pack_lanes_256(v: __m256i) -> __m256i {
    let pack = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 0, 0, 0, 0,
    ));
    let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x0140_0140));
    let dwords = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_1000));
    _mm256_shuffle_epi8(dwords, pack)
}

/// Loads 24 bytes at `p` (28 readable) as two lanes, bytes 0..12 at the bottom of the low
/// lane and 12..24 at the bottom of the high one (a 128-bit load and a `vinserti128` with a
/// memory operand: no cross-lane permute).
///
/// # Safety
///
/// The CPU has AVX2; `p` is valid for reads of 28 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_groups_256(p: *const u8) -> __m256i {
    // SAFETY: reads `p[0..16]` and `p[12..28]`.
    unsafe {
        let lo = _mm_loadu_si128(p.cast());
        let hi = _mm_loadu_si128(p.add(12).cast());
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
    }
}

/// `src[..r]` (`r <= 24`) as [`load_groups_256`] places 24 bytes (bytes 0..12 at the bottom
/// of the low lane, 12..24 at the bottom of the high one), the bytes past `r` zero, by plain
/// loads of those bytes only: below 16 bytes, [`load_exact_128`] and a byte shift for the high
/// lane; from 16, 16 bytes at 0 and the 16 ending at `r`, moved down by one `pshufb`.
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `r <= 24` bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_groups_exact_256(src: *const u8, r: usize) -> __m256i {
    // SAFETY: reads `src[..16]` and `src[r - 16..r]` for `r >= 16`, else exactly `src[..r]`;
    // `SHIFT_DOWN[28 - r..44 - r]` is within its 32 bytes for `16 <= r <= 24`.
    unsafe {
        let (lo, hi) = if r >= 16 {
            let b = _mm_loadu_si128(src.add(r - 16).cast());
            // High lane `k` is byte `12 + k` = lane `k + 28 - r` of `b`, while below `r`.
            let index = _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(28 - r).cast());
            (_mm_loadu_si128(src.cast()), _mm_shuffle_epi8(b, index))
        } else {
            let lo = load_exact_128(src, r);
            (lo, _mm_srli_si128::<12>(lo))
        };
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
    }
}

/// [`Vector::load_placed_last`] of `__m256i` (also AVX-512 BW's short encode's).
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `r` bytes, `0 < r <= 24`.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn load_placed_last_256(src: *const u8, r: usize) -> __m256i {
    // SAFETY: reads `src[..16]` and `src[r - 16..r]` for `r >= 16`, else `last_pair_128`'s
    // exact bytes.
    unsafe {
        let x = if r >= 16 {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(src.cast())),
                _mm_loadu_si128(src.add(r - 16).cast()),
            )
        } else {
            _mm256_broadcastsi128_si256(last_pair_128(src, r))
        };
        _mm256_shuffle_epi8(x, _mm256_load_si256(LAST_ROWS[r].place.as_ptr().cast()))
    }
}

/// [`Vector::pad_rows`] of `__m256i` (also AVX-512 BW's short encode's).
///
/// # Safety
///
/// The CPU has AVX2; `r <= 24`.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn pad_rows_256(r: usize) -> (__m256i, __m256i) {
    // SAFETY: the rows are 32-byte aligned arrays of 32 bytes.
    unsafe {
        let row = &LAST_ROWS[r];
        (_mm256_load_si256(row.keep.as_ptr().cast()), _mm256_load_si256(row.fill.as_ptr().cast()))
    }
}

/// `src[..m]` (`0 < m <= 32`) in the low lanes of a ymm, the rest zero, by plain loads of
/// those bytes only: 16 bytes at 0 and the 16 ending at `m`, moved down into the high lane by
/// one `pshufb`; below 16 bytes, [`load_exact_128`].
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `m` bytes, `0 < m <= 32`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_exact_256(src: *const u8, m: usize) -> __m256i {
    // SAFETY: the loads read `src[..16]` and `src[m - 16..m]` for `m >= 16`, else `src[..m]`
    // exactly; `SHIFT_DOWN[32 - m..48 - m]` is within its 32 bytes for `16 <= m < 32`.
    unsafe {
        if m == 32 {
            _mm256_loadu_si256(src.cast())
        } else if m >= 16 {
            let lo = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(m - 16).cast());
            // High lane `k` is byte `16 + k` = lane `k + 32 - m` of `b`, while below `m`.
            let hi = _mm_shuffle_epi8(b, _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(32 - m).cast()));
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        } else {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(load_exact_128(src, m)),
                _mm_setzero_si128(),
            )
        }
    }
}

/// Lines of 76 symbols (`base64`'s and MIME's width), two per iteration in 5 blocks instead
/// of the 6 of the line loop (32 + 32 + an overlapping 32 each): each line's symbols `0..64`
/// in two blocks, and the last 16 symbols (`60..76`, 4 of them decoded already) of both lines
/// in the two lanes of one. Stops before a pair that is not two lines of that shape (each
/// `\n`-ended, or `\r\n` if `CRLF`, all symbols), or whose output does not fit; the line loop
/// goes on from there. Returns the bytes consumed and written (whole lines).
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes,
/// and they do not overlap.
#[inline(always)]
unsafe fn line_pairs_76<const FIXES: usize, const CRLF: bool>(
    t: &NibbleRegs<__m256i>,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> (usize, usize) {
    let first = if CRLF { b'\r' } else { b'\n' };
    let stride = 77 + usize::from(CRLF);
    // The second line's output starts at 57; its tail's 16-byte store ends at 57 + 45 + 16.
    const REACH: usize = 57 + 45 + 16;
    let (mut i, mut j) = (0, 0);
    while i + 2 * stride <= n && j + REACH <= cap {
        // SAFETY: `i + 2 * stride <= n`: both lines and their endings are readable (the loads
        // read `a[..64]`, `a[60..76]` and the same of `b`); the stores write `dst[j..j + 56]`,
        // `dst[j + 45..j + 61]`, `dst[j + 57..j + 113]` and `dst[j + 102..j + 118]`, within
        // `cap` (`j + REACH <= cap`), each overwriting only the junk of the ones before.
        unsafe {
            let (a, b) = (src.add(i), src.add(i + stride));
            if *a.add(76) != first
                || *b.add(76) != first
                || (CRLF && (*a.add(77) != b'\n' || *b.add(77) != b'\n'))
            {
                break;
            }
            let (va0, bad_a0) = t.values::<FIXES>(_mm256_loadu_si256(a.cast()));
            let (va1, bad_a1) = t.values::<FIXES>(_mm256_loadu_si256(a.add(32).cast()));
            let (vb0, bad_b0) = t.values::<FIXES>(_mm256_loadu_si256(b.cast()));
            let (vb1, bad_b1) = t.values::<FIXES>(_mm256_loadu_si256(b.add(32).cast()));
            let tails = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(a.add(60).cast())),
                _mm_loadu_si128(b.add(60).cast()),
            );
            let (vt, bad_t) = t.values::<FIXES>(tails);
            let bad = _mm256_or_si256(
                _mm256_or_si256(_mm256_or_si256(bad_a0, bad_a1), _mm256_or_si256(bad_b0, bad_b1)),
                bad_t,
            );
            if _mm256_testz_si256(bad, bad) == 0 {
                break;
            }
            let out = dst.add(j);
            let yt = pack_lanes_256(vt);
            _mm256_storeu_si256(out.cast(), __m256i::pack(va0));
            _mm256_storeu_si256(out.add(24).cast(), __m256i::pack(va1));
            _mm_storeu_si128(out.add(45).cast(), _mm256_castsi256_si128(yt));
            _mm256_storeu_si256(out.add(57).cast(), __m256i::pack(vb0));
            _mm256_storeu_si256(out.add(81).cast(), __m256i::pack(vb1));
            _mm_storeu_si128(out.add(102).cast(), _mm256_extracti128_si256::<1>(yt));
        }
        i += 2 * stride;
        j += 114;
    }
    (i, j)
}
