//! Backends. Each exposes the same operations as an [`Ops`] table (`memmove`, `memset`,
//! `memcmp`, `bcmp`, `memchr`, `memrchr`, `count`, the two- and three-byte searches and the
//! substring prefilter); all but riscv64's RVV loops are the
//! algorithms of [`generic`] instantiated over one vector type by [`backend!`](backend).
//!
//! The arrows run one way: [`table`] (the shared types) and [`scalar`] (word routines) are
//! leaves; [`generic`] imports them; [`portable`] and each ISA module import `generic`; this
//! module only chooses among the backends, and no backend imports it.

pub(crate) mod backend;
pub(crate) mod generic;
pub(crate) mod portable;
pub(crate) mod scalar;
pub(crate) mod table;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) mod riscv64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub(crate) use portable::PORTABLE;
use table::Ops;

/// The backend fixed at compile time, if the target features decide it: NEON on aarch64 (part
/// of the base ISA), RVV on riscv64 built with `+v`, AVX-512 on x86_64 built with it, the
/// portable words wherever there is nothing else (mips64, riscv64 without V). `None` on x86_64
/// without AVX-512 at compile time: detected at run time.
#[cfg(target_arch = "x86_64")]
pub(crate) const FIXED: Option<&Ops> = x86_64::FIXED;
/// See above.
#[cfg(target_arch = "aarch64")]
pub(crate) const FIXED: Option<&Ops> = Some(&aarch64::NEON);
/// See above.
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) const FIXED: Option<&Ops> = Some(&riscv64::RVV);
/// See above.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "riscv64", memops_rvv)
)))]
pub(crate) const FIXED: Option<&Ops> = Some(&PORTABLE);

/// Short compares done at the call site, before the dispatched kernel (see
/// `x86_64::cmp_inline`): x86_64 only, where SSE2 is in the baseline.
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_64::{cmp_inline, eq_inline};

/// Elsewhere none: every compare goes to the kernel.
///
/// # Safety
///
/// None needed; the signature matches the x86_64 one.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) unsafe fn cmp_inline(_: *const u8, _: *const u8, _: usize) -> Option<i32> {
    None
}

/// See [`cmp_inline`].
///
/// # Safety
///
/// None needed.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) unsafe fn eq_inline(_: *const u8, _: *const u8, _: usize) -> Option<bool> {
    None
}
