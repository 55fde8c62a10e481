//! The operations on raw pointers, under their C names: `memmove`, `memcpy`, `memset`,
//! `memcmp`, `bcmp`, `memchr`, `memrchr`. The same dispatched kernels as the safe slice
//! functions of the crate root; for code that already holds pointers (an allocator, an FFI
//! layer). These are Rust functions: the `c-symbols` feature is what exports C symbols.
//!
//! ```
//! let src = *b"hello";
//! let mut dst = [0u8; 5];
//! // SAFETY: both arrays hold 5 bytes.
//! unsafe {
//!     memops::raw::memcpy(dst.as_mut_ptr(), src.as_ptr(), 5);
//!     assert_eq!(memops::raw::memchr(dst.as_ptr(), b'l', 5), Some(2));
//! }
//! assert_eq!(&dst, b"hello");
//! ```

use crate::dispatch;

/// Copies `n` bytes from `src` to `dst`; the regions may overlap (C `memmove`).
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `n` bytes (any alignment; both may be
/// dangling when `n == 0`).
#[inline]
pub unsafe fn memmove(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memmove_fn()(dst, src, n) }
}

/// Copies `n` bytes from `src` to `dst` (C `memcpy`; overlap is tolerated, as in [`memmove`]).
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `n` bytes.
#[inline]
pub unsafe fn memcpy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memmove_fn()(dst, src, n) }
}

/// Sets `n` bytes at `dst` to `byte` (C `memset`).
///
/// # Safety
///
/// `dst` must be valid for writes of `n` bytes.
#[inline]
pub unsafe fn memset(dst: *mut u8, byte: u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memset_fn()(dst, byte, n) }
}

/// Compares `n` bytes (C `memcmp`): negative, zero or positive as the first differing byte of
/// `a` is smaller or larger than `b`'s (as unsigned bytes).
///
/// # Safety
///
/// `a` and `b` must be valid for reads of `n` bytes.
#[inline]
pub unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memcmp(a, b, n) }
}

/// Whether `n` bytes at `a` and `b` are equal (C `bcmp(a, b, n) == 0`).
///
/// # Safety
///
/// `a` and `b` must be valid for reads of `n` bytes.
#[inline]
pub unsafe fn bcmp(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: forwarded contract.
    unsafe { dispatch::bcmp(a, b, n) }
}

/// The offset of the first `byte` in the `n` bytes at `p` (C `memchr`).
///
/// # Safety
///
/// `p` must be valid for reads of `n` bytes.
#[inline]
pub unsafe fn memchr(p: *const u8, byte: u8, n: usize) -> Option<usize> {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memchr_fn()(p, n, byte) }
}

/// The offset of the last `byte` in the `n` bytes at `p` (GNU `memrchr`).
///
/// # Safety
///
/// `p` must be valid for reads of `n` bytes.
#[inline]
pub unsafe fn memrchr(p: *const u8, byte: u8, n: usize) -> Option<usize> {
    // SAFETY: forwarded contract.
    unsafe { dispatch::memrchr_fn()(p, n, byte) }
}
