//! NEON kernels, in the design of the published NEON base64 codecs (aklomp/base64's
//! `neon64`, simdutf's `arm64`).
//!
//! Encode, 48 bytes -> 64 symbols: `ld3` splits the bytes of 16 groups into three registers
//! `a b c`; shifts make the four 6-bit indices; `tbl` over the 64-byte alphabet (four
//! registers) turns them into symbols; `st4` interleaves them back. 19 instructions a block
//! (14 vector), as many as the published kernels. A last 24 bytes -> 32 symbols take the same
//! steps in 64-bit registers.
//!
//! Decode, 64 symbols -> 48 bytes: `ld4` splits the 4 symbols of 16 groups into four
//! registers; `tbl` + `tbx` look each up in the first 128 entries of the reverse table (eight
//! registers), so the alphabet stays data; a byte that is not a symbol has the top bit set in
//! itself (non-ASCII) or in its value (`0xff`), found by one OR-reduction (`umaxv`); shift and
//! insert (`sli`) merges the values and `st3` interleaves the bytes. 35 instructions a block.
//! A last 32 symbols -> 24 bytes take the same steps in 64-bit registers.
//!
//! Wrapped text (forgiving decode of lines of one width, a multiple of 4 from 64 up: PEM's 64
//! and MIME's 76) decodes line by line in the same blocks through [`lines`], as the x86_64
//! kernels do: a 76-symbol line is two blocks, at 0 and 12.

use core::arch::aarch64::{
    uint8x8_t, uint8x8x3_t, uint8x8x4_t, uint8x16_t, uint8x16x3_t, uint8x16x4_t, vand_u8, vandq_u8,
    vdup_n_u8, vdupq_n_u8, vld1q_u8_x4, vld3_u8, vld3q_u8, vld4_u8, vld4q_u8, vmaxv_u8, vmaxvq_u8,
    vorr_u8, vorrq_u8, vqtbl4_u8, vqtbl4q_u8, vqtbx4_u8, vqtbx4q_u8, vshl_n_u8, vshlq_n_u8,
    vshr_n_u8, vshrq_n_u8, vsli_n_u8, vsliq_n_u8, vst3_u8, vst3q_u8, vst4_u8, vst4q_u8, vsub_u8,
    vsubq_u8,
};

use crate::alphabet::Alphabet;
use crate::arch::lines::{self, LineBlock, run_lines};
use crate::io::{Io, run_decode};
use crate::kernels::Kernels;

/// Proof that the build targets NEON (this module exists only with `target_feature = "neon"`,
/// which every aarch64 Linux target has).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Neon(());

impl Neon {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        Some(Neon(()))
    }
}

impl Kernels for Neon {
    #[inline]
    fn compact(self, src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
        let table = crate::arch::thin::table(newlines_only);
        // SAFETY: NEON is enabled for the build; the pointers and lengths come from slices,
        // and `&mut` excludes overlap.
        unsafe { compact_neon(src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len(), table) }
    }

    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        // SAFETY: NEON is enabled for the build; the pointers and lengths come from slices.
        unsafe {
            encode_neon(alphabet.symbols(), src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len())
        }
    }

    #[inline]
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        run_decode(io, i, j, |src, n, dst, cap| {
            // SAFETY: `run_decode` gives pointers into live buffers, separate or with the
            // output behind the input, which `decode_neon` allows.
            unsafe { decode_neon(alphabet.decode_table(), src, n, dst, cap) }
        })
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
        let table = alphabet.decode_table();
        run_lines!(io, i, j, |s, n, d, c| lines_neon(table, s, n, d, c, w, crlf))
    }
}

/// Encodes whole 48-byte blocks of `src[..n]` into `dst[..cap]`, then a 24-byte half block
/// if one is left; returns the bytes consumed.
///
/// # Safety
///
/// `src` is valid for reads of `n` bytes and `dst` for writes of `cap` bytes.
#[target_feature(enable = "neon")]
unsafe fn encode_neon(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    let mask = vdupq_n_u8(63);
    // SAFETY: the table read is 64 bytes of `symbols`; each block reads `src[i..i + 48]` and
    // writes `dst[j..j + 64]` with `i + 48 <= end`, so `j + 64 <= end / 3 * 4 <= cap`; the
    // half block reads `src[i..i + 24]` and writes `dst[j..j + 32]`, `i + 24 <= end` likewise.
    unsafe {
        let lut = vld1q_u8_x4(symbols.as_ptr());
        let (mut i, mut j) = (0, 0);
        while i + 48 <= end {
            let x = vld3q_u8(src.add(i));
            let i0 = vshrq_n_u8::<2>(x.0);
            let i1 = vandq_u8(vorrq_u8(vshlq_n_u8::<4>(x.0), vshrq_n_u8::<4>(x.1)), mask);
            let i2 = vandq_u8(vorrq_u8(vshlq_n_u8::<2>(x.1), vshrq_n_u8::<6>(x.2)), mask);
            let i3 = vandq_u8(x.2, mask);
            let out = uint8x16x4_t(
                vqtbl4q_u8(lut, i0),
                vqtbl4q_u8(lut, i1),
                vqtbl4q_u8(lut, i2),
                vqtbl4q_u8(lut, i3),
            );
            vst4q_u8(dst.add(j), out);
            i += 48;
            j += 64;
        }
        // A last half block, 24 bytes -> 32 symbols in 64-bit registers (`tbl` indexes the
        // same four 128-bit table registers).
        if i + 24 <= end {
            let mask = vdup_n_u8(63);
            let x = vld3_u8(src.add(i));
            let i0 = vshr_n_u8::<2>(x.0);
            let i1 = vand_u8(vorr_u8(vshl_n_u8::<4>(x.0), vshr_n_u8::<4>(x.1)), mask);
            let i2 = vand_u8(vorr_u8(vshl_n_u8::<2>(x.1), vshr_n_u8::<6>(x.2)), mask);
            let i3 = vand_u8(x.2, mask);
            let out = uint8x8x4_t(
                vqtbl4_u8(lut, i0),
                vqtbl4_u8(lut, i1),
                vqtbl4_u8(lut, i2),
                vqtbl4_u8(lut, i3),
            );
            vst4_u8(dst.add(j), out);
            i += 24;
        }
        i
    }
}

/// 6-bit values of 16 bytes (top bit set, or 0 with the byte's top bit set, for non-symbols).
#[inline]
#[target_feature(enable = "neon")]
fn lookup(c: uint8x16_t, lo: uint8x16x4_t, hi: uint8x16x4_t) -> uint8x16_t {
    let v = vqtbl4q_u8(lo, c);
    vqtbx4q_u8(v, hi, vsubq_u8(c, vdupq_n_u8(64)))
}

/// [`lookup`] of 8 bytes.
#[inline]
#[target_feature(enable = "neon")]
fn lookup_half(c: uint8x8_t, lo: uint8x16x4_t, hi: uint8x16x4_t) -> uint8x8_t {
    let v = vqtbl4_u8(lo, c);
    vqtbx4_u8(v, hi, vsub_u8(c, vdup_n_u8(64)))
}

/// The values of the 16 groups of `src[..64]`, one register per position in the group, and
/// whether all 64 bytes were symbols (the OR of the bytes and the values has no top bit set).
///
/// # Safety
///
/// `src` is valid for reads of 64 bytes.
#[inline(always)]
unsafe fn values(
    src: *const u8,
    lo: uint8x16x4_t,
    hi: uint8x16x4_t,
) -> ([uint8x16_t; 4], uint8x16_t) {
    // SAFETY: the caller's contract; NEON is enabled for the build.
    unsafe {
        let x = vld4q_u8(src);
        let v =
            [lookup(x.0, lo, hi), lookup(x.1, lo, hi), lookup(x.2, lo, hi), lookup(x.3, lo, hi)];
        let chars = vorrq_u8(vorrq_u8(x.0, x.1), vorrq_u8(x.2, x.3));
        let values = vorrq_u8(vorrq_u8(v[0], v[1]), vorrq_u8(v[2], v[3]));
        (v, vorrq_u8(chars, values))
    }
}

/// The 3 bytes of each group from its 4 values (all below 64): shift-and-insert (`sli`) keeps
/// the low bits of its destination, so each byte takes 2 instructions and the last 1.
#[inline]
#[target_feature(enable = "neon")]
fn pack([v0, v1, v2, v3]: [uint8x16_t; 4]) -> uint8x16x3_t {
    uint8x16x3_t(
        vsliq_n_u8::<2>(vshrq_n_u8::<4>(v1), v0),
        vsliq_n_u8::<4>(vshrq_n_u8::<2>(v2), v1),
        vsliq_n_u8::<6>(v3, v2),
    )
}

/// Decodes whole 64-symbol blocks of `src[..n]` into `dst[..cap]`, stopping at the first block
/// that holds a non-symbol or does not fit, then a 32-symbol half block if it is all symbols
/// and fits; returns the symbols consumed.
///
/// # Safety
///
/// `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes; either they do not
/// overlap or `dst <= src` in one buffer (each block's 48-byte store at `j <= i` follows its
/// load of `src[i..i + 64]`).
#[target_feature(enable = "neon")]
unsafe fn decode_neon(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 4).min(cap / 3) * 4;
    // SAFETY: the table reads are 128 bytes of `table`; each block reads `src[i..i + 64]` with
    // `i + 64 <= end <= n` and writes `dst[j..j + 48]` with `j + 48 <= end / 4 * 3 <= cap`;
    // the half block reads `src[i..i + 32]` and writes `dst[j..j + 24]`, `i + 32 <= end`
    // likewise (in place, its store at `j <= i` follows its load too).
    unsafe {
        let lo = vld1q_u8_x4(table.as_ptr());
        let hi = vld1q_u8_x4(table.as_ptr().add(64));
        let (mut i, mut j) = (0, 0);
        while i + 64 <= end {
            let (v, bad) = values(src.add(i), lo, hi);
            if vmaxvq_u8(bad) >= 0x80 {
                break;
            }
            vst3q_u8(dst.add(j), pack(v));
            i += 64;
            j += 48;
        }
        // A last half block, 32 symbols -> 24 bytes in 64-bit registers, when it is all
        // symbols (after a block that stopped, its first half).
        if i + 32 <= end {
            let x = vld4_u8(src.add(i));
            let v = [
                lookup_half(x.0, lo, hi),
                lookup_half(x.1, lo, hi),
                lookup_half(x.2, lo, hi),
                lookup_half(x.3, lo, hi),
            ];
            let chars = vorr_u8(vorr_u8(x.0, x.1), vorr_u8(x.2, x.3));
            let values = vorr_u8(vorr_u8(v[0], v[1]), vorr_u8(v[2], v[3]));
            if vmaxv_u8(vorr_u8(chars, values)) < 0x80 {
                let [v0, v1, v2, v3] = v;
                let out = uint8x8x3_t(
                    vsli_n_u8::<2>(vshr_n_u8::<4>(v1), v0),
                    vsli_n_u8::<4>(vshr_n_u8::<2>(v2), v1),
                    vsli_n_u8::<6>(v3, v2),
                );
                vst3_u8(dst.add(j), out);
                i += 32;
            }
        }
        i
    }
}

/// The NEON decode as a [`LineBlock`]: the reverse table's first 128 entries. A 76-symbol
/// line is two blocks, at 0 and 12.
struct LinesNeon {
    lo: uint8x16x4_t,
    hi: uint8x16x4_t,
}

impl LineBlock for LinesNeon {
    const B: usize = 64;
    const STORE: usize = 48;
    type Bad = uint8x16_t;

    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> uint8x16_t {
        // SAFETY: the caller's contract: `src[..64]` readable, `dst[..48]` writable; NEON is
        // enabled for the build.
        unsafe {
            let (v, bad) = values(src, self.lo, self.hi);
            vst3q_u8(dst, pack(v));
            bad
        }
    }

    #[inline(always)]
    unsafe fn or(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        // SAFETY: NEON is enabled for the build.
        unsafe { vorrq_u8(a, b) }
    }

    #[inline(always)]
    unsafe fn ok(bad: uint8x16_t) -> bool {
        // SAFETY: NEON is enabled for the build.
        unsafe { vmaxvq_u8(bad) < 0x80 }
    }
}

/// [`lines::decode_lines`] with NEON blocks.
///
/// # Safety
///
/// As [`lines::decode_lines`].
#[target_feature(enable = "neon")]
unsafe fn lines_neon(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    // SAFETY: the loads read the table's first 128 bytes; the rest is the caller's contract.
    unsafe {
        let k =
            LinesNeon { lo: vld1q_u8_x4(table.as_ptr()), hi: vld1q_u8_x4(table.as_ptr().add(64)) };
        lines::decode_lines(&k, src, n, dst, cap, w, crlf)
    }
}

/// Copies `src[..n]` less its whitespace into `dst[..cap]` in whole 16-byte blocks while
/// `dst` has room for a block; returns `(read, written)`. Per block: `tbl` of the low nibbles
/// in the whitespace lookup (`table`, `arch/thin.rs`) and a compare find the whitespace; a
/// block without any (`umaxv`) is stored whole, else each half goes through `tbl` with the
/// positions of its kept bytes (`THIN`, by the 8-bit mask that an AND with the bit weights
/// and an add across lanes make).
///
/// # Safety
///
/// NEON; `src` readable for `n` bytes, `dst` writable for `cap`, not overlapping.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn compact_neon(
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    table: &[u8; 16],
) -> (usize, usize) {
    use crate::arch::thin::{KEPT, THIN};
    use core::arch::aarch64::{
        vaddv_u8, vceqq_u8, vcreate_u8, vget_high_u8, vget_low_u8, vld1q_u8, vqtbl1q_u8, vst1_u8,
        vst1q_u8, vtbl1_u8,
    };
    // SAFETY: the caller's contract; every load lies in `src[i..i + 16]`, every store in
    // `dst[o..o + 16]`.
    unsafe {
        let t = vld1q_u8(table.as_ptr());
        let low = vdupq_n_u8(0x0f);
        let weights =
            vld1q_u8([1u8, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128].as_ptr());
        let (mut i, mut o) = (0usize, 0usize);
        while i + 16 <= n && o + 16 <= cap {
            let x = vld1q_u8(src.add(i));
            let ws = vceqq_u8(vqtbl1q_u8(t, vandq_u8(x, low)), x);
            if vmaxvq_u8(ws) == 0 {
                vst1q_u8(dst.add(o), x);
                o += 16;
            } else {
                let bits = vandq_u8(ws, weights);
                let lo = vaddv_u8(vget_low_u8(bits));
                let hi = vaddv_u8(vget_high_u8(bits));
                vst1_u8(dst.add(o), vtbl1_u8(vget_low_u8(x), vcreate_u8(THIN[usize::from(lo)])));
                o += usize::from(KEPT[usize::from(lo)]);
                vst1_u8(dst.add(o), vtbl1_u8(vget_high_u8(x), vcreate_u8(THIN[usize::from(hi)])));
                o += usize::from(KEPT[usize::from(hi)]);
            }
            i += 16;
        }
        (i, o)
    }
}
