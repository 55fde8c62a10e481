//! aarch64 kernels in inline assembly: `mul`/`umulh` for the two halves of each product,
//! `adds`/`adcs`/`sbcs` carry chains, and loop control with `sub`/`cbnz`, which leave the
//! flags alone so the add/sub chains run across iterations. Only the base ISA is used, so
//! the backend is always available.

use core::arch::asm;

/// The aarch64 backend's token (base ISA: always available on aarch64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aarch64(());

impl Aarch64 {
    /// The token; every aarch64 CPU has the instructions used.
    #[inline]
    pub(crate) fn new() -> Self {
        Aarch64(())
    }
}

/// `r = a + b` over `n` limbs (`r` may equal `a`); returns the carry.
///
/// # Safety
/// `n >= 1`; `a`, `b` readable and `r` writable for `n` limbs; `r` equal to `a` or disjoint
/// from it, and disjoint from `b`.
#[inline]
unsafe fn add_n_asm(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> u64 {
    let carry: u64;
    // SAFETY: the caller guarantees `n >= 1` limbs at each pointer; the loop touches exactly
    // limbs `0..n`.
    unsafe {
        asm!(
            "cmn xzr, xzr",
            "2:",
            "ldr {x}, [{a}], #8",
            "ldr {y}, [{b}], #8",
            "adcs {x}, {x}, {y}",
            "str {x}, [{r}], #8",
            "sub {n}, {n}, #1",
            "cbnz {n}, 2b",
            "cset {x}, cs",
            a = inout(reg) a => _,
            b = inout(reg) b => _,
            r = inout(reg) r => _,
            n = inout(reg) n => _,
            x = out(reg) carry,
            y = out(reg) _,
            options(nostack),
        );
    }
    carry
}

/// `r = a - b` over `n` limbs (`r` may equal `a`); returns the borrow.
///
/// # Safety
/// As [`add_n_asm`].
#[inline]
unsafe fn sub_n_asm(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> u64 {
    let borrow: u64;
    // SAFETY: as in `add_n_asm`.
    unsafe {
        asm!(
            "cmp xzr, xzr",
            "2:",
            "ldr {x}, [{a}], #8",
            "ldr {y}, [{b}], #8",
            "sbcs {x}, {x}, {y}",
            "str {x}, [{r}], #8",
            "sub {n}, {n}, #1",
            "cbnz {n}, 2b",
            "cset {x}, cc",
            a = inout(reg) a => _,
            b = inout(reg) b => _,
            r = inout(reg) r => _,
            n = inout(reg) n => _,
            x = out(reg) borrow,
            y = out(reg) _,
            options(nostack),
        );
    }
    borrow
}

/// `r = a * v` over `n` limbs; returns the high limb.
///
/// # Safety
/// `n >= 1`; `a` readable and `r` writable for `n` limbs, disjoint.
#[inline]
unsafe fn mul_1_asm(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    // SAFETY: the caller guarantees the lengths; the loop touches limbs `0..n` only.
    unsafe {
        asm!(
            "mov {cy}, xzr",
            "2:",
            "ldr {x}, [{a}], #8",
            "mul {lo}, {x}, {v}",
            "umulh {hi}, {x}, {v}",
            "adds {lo}, {lo}, {cy}",
            "adc {cy}, {hi}, xzr",
            "str {lo}, [{r}], #8",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            n = inout(reg) n => _,
            v = in(reg) v,
            cy = out(reg) high,
            x = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            options(nostack),
        );
    }
    high
}

/// `r += a * v` over `n` limbs; returns the high limb.
///
/// # Safety
/// As [`mul_1_asm`].
#[inline]
unsafe fn addmul_1_asm(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    // SAFETY: as in `mul_1_asm`.
    unsafe {
        asm!(
            "mov {cy}, xzr",
            "2:",
            "ldr {x}, [{a}], #8",
            "ldr {y}, [{r}]",
            "mul {lo}, {x}, {v}",
            "umulh {hi}, {x}, {v}",
            "adds {lo}, {lo}, {y}",
            "adc {hi}, {hi}, xzr",
            "adds {lo}, {lo}, {cy}",
            "adc {cy}, {hi}, xzr",
            "str {lo}, [{r}], #8",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            n = inout(reg) n => _,
            v = in(reg) v,
            cy = out(reg) high,
            x = out(reg) _,
            y = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            options(nostack),
        );
    }
    high
}

/// `r -= a * v` over `n` limbs; returns the borrow limb.
///
/// # Safety
/// As [`mul_1_asm`].
#[inline]
unsafe fn submul_1_asm(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    // SAFETY: as in `mul_1_asm`.
    unsafe {
        asm!(
            "mov {cy}, xzr",
            "2:",
            "ldr {x}, [{a}], #8",
            "ldr {y}, [{r}]",
            "mul {lo}, {x}, {v}",
            "umulh {hi}, {x}, {v}",
            "adds {lo}, {lo}, {cy}",
            "adc {hi}, {hi}, xzr",
            "subs {y}, {y}, {lo}",
            "cinc {cy}, {hi}, cc",
            "str {y}, [{r}], #8",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            a = inout(reg) a => _,
            r = inout(reg) r => _,
            n = inout(reg) n => _,
            v = in(reg) v,
            cy = out(reg) high,
            x = out(reg) _,
            y = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            options(nostack),
        );
    }
    high
}

super::asm_kernels!(
    Aarch64,
    add_n: add_n_asm, sub_n: sub_n_asm,
    mul_1: mul_1_asm, addmul_1: addmul_1_asm, submul_1: submul_1_asm,
    sqr_diag_addlsh1: |r, a| crate::portable::sqr_diag_addlsh1(r, a),
);
