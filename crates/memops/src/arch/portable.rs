//! The portable backend: `Word`, a 64-bit word used as an 8-byte vector (SWAR), which the
//! generic algorithms run on where there is no SIMD (mips64, riscv64 without V, and Miri);
//! and the searches of any length over it, which the vector backends without a masked load
//! of their own use below one vector.
//!
//! Nothing here calls `core::ptr::copy*` or `write_bytes` with a run-time length (see
//! [`scalar`](super::scalar)).

use super::generic::{self, Vector};
use super::scalar::{copy_le16, rd64, set_le16, splat64, wr64};

super::backend::backend!(PORTABLE, Word);

/// Exact SWAR equality: `0x80` in each byte of the result where `x` and `y` agree, else 0.
#[inline(always)]
const fn eq_bytes(x: u64, y: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let d = x ^ y;
    !(((d & LOW7) + LOW7) | d | LOW7)
}

/// The first byte of `p[..n]` equal to any of the `K` needles, any length (below one word:
/// bytes; above: words, see `find::<Word>`).
#[inline(always)]
pub(crate) unsafe fn find<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
    // SAFETY: same contract.
    unsafe {
        if n >= 8 {
            return generic::find::<Word, K, 4>(p, n, b);
        }
        (0..n).find(|&i| b.contains(&*p.add(i)))
    }
}

/// The last byte of `p[..n]` equal to any of the `K` needles, any length.
#[inline(always)]
pub(crate) unsafe fn rfind<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
    // SAFETY: same contract.
    unsafe {
        if n >= 8 {
            return generic::rfind::<Word, K, 4>(p, n, b);
        }
        (0..n).rev().find(|&i| b.contains(&*p.add(i)))
    }
}

/// Count of `b` in `p[..n]`, any length.
#[inline(always)]
pub(crate) unsafe fn count(p: *const u8, n: usize, b: u8) -> usize {
    // SAFETY: same contract.
    unsafe {
        if n >= 8 {
            return generic::count::<Word>(p, n, b);
        }
        (0..n).filter(|&i| *p.add(i) == b).count()
    }
}

/// A 64-bit word used as an 8-byte vector (SWAR); the portable backend.
#[derive(Clone, Copy)]
pub(crate) struct Word(u64);

impl Vector for Word {
    const W: usize = 8;
    const BITS_PER_BYTE: u32 = 8;
    const ONES_PER_BYTE: u32 = 1;
    const REVERSED: bool = cfg!(target_endian = "big");
    const FULL: u64 = 0x8080_8080_8080_8080;
    type Cmp = u64;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: same contract.
        Word(unsafe { rd64(p) })
    }
    #[inline(always)]
    unsafe fn load_aligned(p: *const u8) -> Self {
        // SAFETY: same contract; `p` is 8-aligned.
        Word(unsafe { p.cast::<u64>().read() })
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { wr64(p, v.0) }
    }
    #[inline(always)]
    unsafe fn store_aligned(p: *mut u8, v: Self) {
        // SAFETY: same contract; `p` is 8-aligned.
        unsafe { p.cast::<u64>().write(v.0) }
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        Word(splat64(b))
    }
    #[inline(always)]
    unsafe fn cmpeq(a: Self, b: Self) -> u64 {
        eq_bytes(a.0, b.0)
    }
    #[inline(always)]
    unsafe fn cmp_or(a: u64, b: u64) -> u64 {
        a | b
    }
    #[inline(always)]
    unsafe fn cmp_and(a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    unsafe fn cmp_bits(c: u64) -> u64 {
        c
    }
    #[inline(always)]
    unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: same contract; `n <= 8`.
        unsafe { copy_le16(dst, src, n) }
    }
    #[inline(always)]
    unsafe fn set_small(dst: *mut u8, b: u8, n: usize) {
        // SAFETY: same contract; `n <= 8`.
        unsafe { set_le16(dst, b, n) }
    }
    #[inline(always)]
    unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract (`n < 8`: the byte loop of `find`).
        unsafe { find(p, n, b) }
    }
    #[inline(always)]
    unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract (`n < 8`: the byte loop of `rfind`).
        unsafe { rfind(p, n, b) }
    }
    #[inline(always)]
    unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize {
        // SAFETY: same contract (`n < 8`: the byte loop of `count`).
        unsafe { count(p, n, b) }
    }
}
