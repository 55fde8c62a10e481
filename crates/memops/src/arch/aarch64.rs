//! aarch64: NEON 16-byte vectors for the generic algorithms. Moves follow the Linux arm64
//! `memcpy.S` design: up to 32 bytes two overlapping `q` registers, 33..=128 bytes all loads
//! (pairs that LLVM emits as `ldp q, q`) before all stores, beyond 128 bytes a 64-byte loop with
//! 16-byte-aligned `stp` stores and an overlapping tail block. Searches turn a comparison into a
//! 64-bit mask with `shrn #4` (4 bits per byte), as the memchr crate does.
//!
//! NEON is part of the aarch64 base ISA (the `neon` target feature is on for every aarch64
//! Rust target), so there is no run-time detection.

use core::arch::aarch64::*;

use super::generic::Vector;
use super::portable;

impl Vector for uint8x16_t {
    const W: usize = 16;
    const BITS_PER_BYTE: u32 = 4;
    const ONES_PER_BYTE: u32 = 4;
    const REVERSED: bool = false;
    const FULL: u64 = u64::MAX;
    type Cmp = uint8x16_t;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: same contract.
        unsafe { vld1q_u8(p) }
    }
    #[inline(always)]
    unsafe fn load_aligned(p: *const u8) -> Self {
        // SAFETY: same contract.
        unsafe { vld1q_u8(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { vst1q_u8(p, v) }
    }
    #[inline(always)]
    unsafe fn store_aligned(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { vst1q_u8(p, v) }
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: NEON is in the base ISA.
        unsafe { vdupq_n_u8(b) }
    }
    #[inline(always)]
    unsafe fn cmpeq(a: Self, b: Self) -> Self {
        // SAFETY: NEON is in the base ISA.
        unsafe { vceqq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn cmp_or(a: Self, b: Self) -> Self {
        // SAFETY: NEON is in the base ISA.
        unsafe { vorrq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn cmp_and(a: Self, b: Self) -> Self {
        // SAFETY: NEON is in the base ISA.
        unsafe { vandq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn cmp_bits(c: Self) -> u64 {
        // SAFETY: NEON is in the base ISA. `shrn #4` keeps the middle nibble of each 16-bit
        // lane: byte `i` of the comparison becomes bits `4i..4i+4` of the result.
        unsafe {
            vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(c))))
        }
    }
    // Below one vector: the portable words (one word compare from 8 bytes), as before the
    // trait lost its defaults.
    #[inline(always)]
    unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract.
        unsafe { portable::find(p, n, b) }
    }
    #[inline(always)]
    unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract.
        unsafe { portable::rfind(p, n, b) }
    }
    #[inline(always)]
    unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize {
        // SAFETY: same contract.
        unsafe { portable::count(p, n, b) }
    }
}

super::backend::backend!(NEON, uint8x16_t);
