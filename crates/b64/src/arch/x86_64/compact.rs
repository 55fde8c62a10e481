//! Whitespace removal for forgiving decoding (`Kernels::compact`): each block of input is
//! classified (whitespace or not) and its other bytes are packed to the front, in registers,
//! then stored whole. The decoder (`decode.rs`) decodes the packed text with the flat
//! kernels and leaves to its byte machine whatever they stop at (padding, an invalid byte).
//!
//! Classification: one `pshufb` of a 16-byte table indexed by each byte's low nibble gives
//! the whitespace byte with that low nibble (`\t \n \x0c \r` and space at 0), or `0xff`; a
//! byte is whitespace iff it equals its lookup (bytes from `0x80` look up 0). The table is
//! the caller's (`WS_TABLE`, or `NL_TABLE` where only `\n` is skipped).
//!
//! Packing: VBMI2's `vpcompressb` into a register where the CPU has it (never the
//! memory-destination form: microcoded on Zen 4); else 8 bytes at a time, each through a
//! `pshufb` whose indices come from a 256-entry table of the kept bytes' positions, as
//! simdutf does.

use core::arch::x86_64::*;

pub(crate) use crate::arch::thin::table;
use crate::arch::thin::{KEPT, THIN};

/// For `k` bytes kept of the low 8, the `pshufb` that moves the high 8 (at 8..16) to follow
/// them at `k..k + 8`.
static COMBINE: [[u8; 16]; 9] = {
    let mut t = [[0x80u8; 16]; 9];
    let mut k = 0;
    while k <= 8 {
        let mut b = 0;
        while b < 16 {
            t[k][b] = if b < k {
                b as u8
            } else if b < k + 8 {
                (b - k + 8) as u8
            } else {
                0x80
            };
            b += 1;
        }
        k += 1;
    }
    t
};

/// Packs the bytes of the 16 at `src` whose bit in `drop` is clear to `dst` (which takes 16
/// bytes) with one store; returns how many.
///
/// # Safety
///
/// SSSE3 (SSE4.1 not needed: the table halves are joined with `punpcklqdq`); `src` readable
/// for 16 bytes, `dst` writable for 16.
#[inline(always)]
unsafe fn pack16(src: *const u8, dst: *mut u8, drop: u16) -> usize {
    let (lo, hi) = (drop as u8, (drop >> 8) as u8);
    // SAFETY: the caller's contract.
    unsafe {
        let x = _mm_loadu_si128(src.cast());
        let s = _mm_unpacklo_epi64(
            _mm_cvtsi64_si128(THIN[lo as usize] as i64),
            _mm_cvtsi64_si128((THIN[hi as usize] + 0x0808_0808_0808_0808) as i64),
        );
        let k = KEPT[lo as usize];
        let c = _mm_shuffle_epi8(x, s);
        let c = _mm_shuffle_epi8(c, _mm_loadu_si128(COMBINE[k as usize].as_ptr().cast()));
        _mm_storeu_si128(dst.cast(), c);
        usize::from(k) + usize::from(KEPT[hi as usize])
    }
}

/// Packs the 64 bytes at `src` (whitespace where `drop` has a bit) to `dst` (64 writable
/// bytes); returns how many it kept.
///
/// # Safety
///
/// SSSE3; `src` readable for 64 bytes, `dst` writable for 64.
#[inline(always)]
unsafe fn pack64(src: *const u8, dst: *mut u8, drop: u64) -> usize {
    let mut o = 0;
    // SAFETY: the caller's contract; `o <= 16 * k`, so each 16-byte store lies in `dst[..64]`.
    unsafe {
        for k in 0..4 {
            o += pack16(src.add(16 * k), dst.add(o), (drop >> (16 * k)) as u16);
        }
    }
    o
}

/// Whether the whitespace of a block (the bits of `m`, not 0) is one run of consecutive
/// bytes: a line ending, perhaps with the next line's indentation.
#[inline(always)]
fn one_run(m: u64) -> bool {
    let t = m >> m.trailing_zeros();
    t & t.wrapping_add(1) == 0
}

/// Packs the 64 bytes at `src` whose whitespace is the one run `m` (not 0) to `dst` by two
/// moves of 64 bytes: the block, then the 64 bytes after the run over it (lines of 40 to
/// 100 columns, most blocks: no table). Returns the bytes kept.
///
/// # Safety
///
/// `src` readable for 128 bytes, `dst` writable for 128.
#[inline(always)]
unsafe fn run(src: *const u8, dst: *mut u8, m: u64) -> usize {
    let at = m.trailing_zeros() as usize;
    let len = (!(m >> at)).trailing_zeros() as usize;
    // SAFETY: the caller's contract; `at + len <= 64`.
    unsafe {
        core::ptr::copy_nonoverlapping(src, dst, 64);
        core::ptr::copy_nonoverlapping(src.add(at + len), dst.add(at), 64);
    }
    64 - len
}

/// Copies `src[..n]` less its whitespace into `dst[..cap]` in whole 64-byte blocks while
/// `dst` has room for a block; returns `(read, written)`.
macro_rules! blocks {
    ($src:ident, $n:ident, $dst:ident, $cap:ident, |$p:ident| $mask:expr, |$q:ident, $d:ident, $m:ident| $pack:expr) => {{
        let (mut i, mut o) = (0usize, 0usize);
        while i + 64 <= $n && o + 64 <= $cap {
            let $p = $src.add(i);
            let $m: u64 = $mask;
            let $q = $p;
            let $d = $dst.add(o);
            if $m == 0 {
                core::ptr::copy_nonoverlapping($q, $d, 64);
                o += 64;
            } else if one_run($m) && i + 128 <= $n && o + 128 <= $cap {
                o += run($q, $d, $m);
            } else {
                o += $pack;
            }
            i += 64;
        }
        (i, o)
    }};
}

/// SSSE3: four 16-byte classifications a block.
///
/// # Safety
///
/// SSSE3; `src` readable for `n` bytes, `dst` writable for `cap`, not overlapping.
#[target_feature(enable = "ssse3")]
pub(crate) unsafe fn ssse3(
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    table: &[u8; 16],
) -> (usize, usize) {
    // SAFETY: the caller's contract; every load lies in `src[i..i + 64]`, every store in
    // `dst[o..o + 64]`.
    unsafe {
        let t = _mm_loadu_si128(table.as_ptr().cast());
        let ws = |p: *const u8| {
            let x = _mm_loadu_si128(p.cast());
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_shuffle_epi8(t, x), x)) as u16 as u64
        };
        blocks!(
            src,
            n,
            dst,
            cap,
            |p| ws(p) | ws(p.add(16)) << 16 | ws(p.add(32)) << 32 | ws(p.add(48)) << 48,
            |q, d, m| pack64(q, d, m)
        )
    }
}

/// AVX2: two 32-byte classifications a block.
///
/// # Safety
///
/// AVX2; as [`ssse3`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn avx2(
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    table: &[u8; 16],
) -> (usize, usize) {
    // SAFETY: as in `ssse3`.
    unsafe {
        let t = _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast()));
        let ws = |p: *const u8| {
            let x = _mm256_loadu_si256(p.cast());
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(t, x), x)) as u32 as u64
        };
        blocks!(src, n, dst, cap, |p| ws(p) | ws(p.add(32)) << 32, |q, d, m| pack64(q, d, m))
    }
}

/// AVX-512 BW: one classification a block, the table packing.
///
/// # Safety
///
/// AVX-512 F and BW; as [`ssse3`].
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn avx512bw(
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    table: &[u8; 16],
) -> (usize, usize) {
    // SAFETY: as in `ssse3`.
    unsafe {
        let t = _mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast()));
        blocks!(
            src,
            n,
            dst,
            cap,
            |p| {
                let x = _mm512_loadu_si512(p.cast());
                _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(t, x), x)
            },
            |q, d, m| pack64(q, d, m)
        )
    }
}

/// AVX-512 VBMI2: `vpcompressb` into a register, then one 64-byte store.
///
/// # Safety
///
/// AVX-512 F, BW and VBMI2; as [`ssse3`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
pub(crate) unsafe fn vbmi2(
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    table: &[u8; 16],
) -> (usize, usize) {
    // SAFETY: as in `ssse3`.
    unsafe {
        let t = _mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast()));
        let (mut i, mut o) = (0usize, 0usize);
        while i + 64 <= n && o + 64 <= cap {
            let x = _mm512_loadu_si512(src.add(i).cast());
            let keep = !_mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(t, x), x);
            _mm512_storeu_si512(dst.add(o).cast(), _mm512_maskz_compress_epi8(keep, x));
            o += keep.count_ones() as usize;
            i += 64;
        }
        (i, o)
    }
}

nab_isa::token! {
    /// Proof that AVX-512 VBMI2 (with F and BW, and POPCNT) may be used: the VBMI backend's
    /// `vpcompressb` (Cannon Lake has VBMI without VBMI2).
    pub(crate) struct Vbmi2 = AVX512F | AVX512BW | AVX512VBMI2 | POPCNT;
}
