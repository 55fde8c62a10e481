//! `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` under their C names (feature
//! `c-symbols`), for `no_std` and static binaries without a C library's versions.
//!
//! They cannot recurse: the kernels never call `core::ptr::copy*`/`write_bytes` with a run-time
//! length and with this feature the crate is `#![no_builtins]`, so LLVM does not turn their loops into calls to
//! these symbols; detection (`nab_isa::cpu_bare`: bare `cpuid`/`xgetbv`, one atomic; no environment
//! read, so no `NAB_MAX_ISA` cap here) copies and compares nothing.

use core::ffi::{c_int, c_void};

use crate::dispatch::{self, memmove_fn, memset_fn};

/// C `memcpy` (overlap is tolerated, as in `memmove`).
///
/// # Safety
///
/// `src` valid for reads and `dst` for writes of `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { memmove_fn()(dst.cast(), src.cast(), n) };
    dst
}

/// C `memmove`.
///
/// # Safety
///
/// `src` valid for reads and `dst` for writes of `n` bytes; they may overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dst: *mut c_void, src: *const c_void, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { memmove_fn()(dst.cast(), src.cast(), n) };
    dst
}

/// C `memset` (the low byte of `c` is stored).
///
/// # Safety
///
/// `dst` valid for writes of `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memset(dst: *mut c_void, c: c_int, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { memset_fn()(dst.cast(), c as u8, n) };
    dst
}

/// C `memcmp`.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const c_void, b: *const c_void, n: usize) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memcmp(a.cast(), b.cast(), n) }
}

/// C `bcmp`: zero when equal, non-zero otherwise.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const c_void, b: *const c_void, n: usize) -> c_int {
    // SAFETY: forwarded contract.
    c_int::from(!unsafe { dispatch::bcmp(a.cast(), b.cast(), n) })
}
