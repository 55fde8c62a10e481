//! Memory moves and byte algorithms per size class: `memmove`/`memcpy`/`memset`/`memcmp` and
//! the byte searches beside them (find, find last, count; of one, two or three byte values;
//! iterators over every match; substring search in [`memmem`]), with SIMD on x86_64 (SSE2,
//! AVX2, AVX-512), aarch64 (NEON) and riscv64 (RVV), and 64-bit words everywhere else (correct
//! on big-endian mips64). `#![no_std]`, no allocation. The operations on raw pointers
//! (`memmove`, `memcpy`, `memset`, `memcmp`, `bcmp`, `memchr`, `memrchr`) are in [`raw`].
//!
//! ```
//! let mut buf = *b"hello, world";
//! memops::copy_within(&mut buf, 7..12, 0);
//! assert_eq!(&buf, b"world, world");
//! memops::fill(&mut buf[5..], b'!');
//! assert_eq!(&buf, b"world!!!!!!!");
//! assert_eq!(memops::find_byte(&buf, b'!'), Some(5));
//! assert_eq!(memops::rfind_byte(&buf, b'o'), Some(1));
//! assert_eq!(memops::count_byte(&buf, b'!'), 7);
//! assert!(memops::equal(b"abc", b"abc"));
//! assert_eq!(memops::compare(b"abc", b"abd"), core::cmp::Ordering::Less);
//! assert_eq!(memops::find_byte2(&buf, b'd', b'w'), Some(0));
//! assert_eq!(memops::find_byte_iter(b"a,b,c", b',').collect::<Vec<_>>(), [1, 3]);
//! assert_eq!(memops::memmem::Finder::new(b"rld").find(b"world"), Some(2));
//! ```
//!
//! # The memchr crate's names
//!
//! Code written against the memchr crate (2.x) compiles with `memchr::` replaced by
//! `memops::` for: [`memchr()`], [`memchr2`], [`memchr3`], [`memrchr`], [`memrchr2`],
//! [`memrchr3`], [`memchr_iter`], [`memchr2_iter`], [`memchr3_iter`] (double-ended),
//! [`memrchr_iter`], [`memrchr2_iter`], [`memrchr3_iter`], the iterator types [`Memchr`],
//! [`Memchr2`], [`Memchr3`], and [`memmem`]'s `find`, `rfind`, `find_iter`, `rfind_iter`,
//! `Finder`, `FinderRev`, `FindIter` and `FindRevIter` (needles taken as `impl AsRef<[u8]>`
//! where memchr takes them so: `Finder::new("foo")`). Not provided, because memops neither
//! allocates nor exposes its kernels one by one: memchr's `alloc` feature
//! (`Finder::into_owned`, `FinderRev::into_owned`, `FindIter::into_owned`,
//! `FindRevIter::into_owned`, `FinderBuilder::build_forward_owned`), `memmem::FinderBuilder`
//! and `memmem::Prefilter`, and the `memchr::arch` module. `tests/memchr_compat.rs` runs
//! memchr's own doc examples with only the crate name changed.
//!
//! # How it is fast
//!
//! Size classes, not one loop. Up to one vector: overlapping scalar words, or one masked load
//! and store with AVX-512 (no branch on the size at all). Up to 4 vectors: four blocks whose
//! offsets are computed without branches; up to 8: the first and last four. In both, every
//! block is loaded before anything is stored, so there is no loop, no byte tail, and any overlap
//! is fine. Beyond that, a 4-vector loop on an aligned destination, backward when the
//! destination lies inside the source, with the first and last blocks loaded up front and stored
//! last. x86_64 adds `rep movsb`/`rep stosb` (forward only, with ERMS/FSRM) and non-temporal
//! stores in windows derived from the CPU at the first large call ([`strategy`]: vendor,
//! model and cache sizes from `cpuid`, by glibc's rules and our measurements, each written
//! beside its function in `src/arch/x86_64/strategy.rs`). On x86_64 the AVX2 backend's moves
//! and fills of up to 64 bytes, the AVX-512 fills of up to 512 and both backends' backward
//! loop are `asm!` blocks shaped like glibc's (size tests in its order, EVEX-only registers
//! where no `vzeroupper` is wanted, two pointers stepping down): with random sizes the order
//! of the tests, not the stores, decided whether a class tied glibc (see
//! `src/arch/x86_64.rs`). Searches and compares load aligned after the first block.
//! The two- and three-byte searches OR the compares of each vector (two vectors a loop
//! iteration, as the memchr crate); the AVX-512 backend searches with AVX2's kernels, which
//! measured faster on our AVX-512 CPU (see `src/arch/x86_64.rs`). Substring search: see
//! [`memmem`].
//!
//! # Backends
//!
//! | arch | backend (most preferred first) |
//! | --- | --- |
//! | x86_64 | `avx512` (AVX-512F/BW/VL), `avx2`, `sse2` (baseline), chosen at run time |
//! | aarch64 | `neon`: 16-byte `ldp`/`stp` pairs, 64 bytes a loop iteration |
//! | riscv64 built with `-C target-feature=+v` | `rvv`: `vsetvli`/`vle8`/`vse8` loops (LMUL=8) in `asm!`, VLEN-agnostic |
//! | everything (mips64 BE/LE, riscv64 without V) | `portable`: 64-bit words, aligned where possible |
//!
//! x86_64 detects once per process (`nab-isa`'s `cpuid`, cached in an atomic; none at all when the build
//! enables AVX-512, e.g. `-C target-cpu=native` on an AVX-512 machine: then a `memmove`/`memset`
//! of up to 64 bytes and a `memcmp`/`bcmp`/`equal`/`compare` of under 64 are a few masked
//! instructions inlined at the call site, with no call at all). With run-time detection, a
//! `memcmp`/`bcmp`/`equal`/`compare` of 1 to 16 bytes is still done at the call site, with one
//! SSE2 load from each side (the x86_64 baseline) when neither can cross into the next page,
//! before the cached pointer is read. aarch64 always has NEON.
//! riscv64 decides at compile time (Rust has no stable run-time detection there; `build.rs`
//! reads `+v` from the flags because stable rustc hides the unstable `v` from
//! `cfg(target_feature)`). `--cfg memops_backend="portable"` forces the portable backend; Miri
//! uses it too. `backends()` lists every backend the CPU supports, for tests and benches
//! (hidden from the docs: it is not part of the semver-stable API).
//!
//! # Adding a backend
//!
//! For contributors; the files to touch, in order (the AVX2 backend is the example):
//!
//! 1. `src/arch/<isa>.rs`: `impl Vector for` the ISA's vector type (`src/arch/generic.rs`
//!    lists the items and their contracts; the algorithms are written once over it), then
//!    `backend!(TABLE, VectorType, "target,features")`, which instantiates every operation
//!    with `#[target_feature]` on its entry points and makes the `Ops` table. For a backend
//!    detected at run time, a probe returning the table when the CPU may run it (`avx2()`:
//!    `supports(AVX2_NEEDS).then_some(&AVX2)`; `supports` reads `nab_isa::cpu_bare` under
//!    `c-symbols`, so the probe never reads the environment). Every `unsafe` block says why
//!    it is sound.
//! 2. `src/arch/mod.rs`: declare the module under its `cfg`, and make it `FIXED` where the
//!    build alone decides it (as NEON on aarch64).
//! 3. `src/dispatch.rs`: one line in the `nab_isa::backends!` list, in order of preference:
//!    the variant, its name and the probe (`unless_forced(arch::x86_64::avx2())`). The
//!    `Backend` surface, `backends()` and the cached pointers follow from it.
//! 4. Tests need nothing new: `tests/backends.rs` runs every backend `backends()` lists
//!    against the oracle. Add the backend to the table above and, for a new `NAB_MAX_ISA`
//!    tier, to the one below.
//!
//! # `NAB_MAX_ISA`
//!
//! The environment variable that caps run-time detection in every crate of the workspace
//! (see `nab-isa`), read once at the first dispatch:
//!
//! | `NAB_MAX_ISA` | x86_64 backend |
//! | --- | --- |
//! | unset (or not a tier name: ignored) | the best the CPU has |
//! | `x86-64-v4` | `avx512` |
//! | `x86-64-v3` | `avx2` |
//! | `x86-64-v2` | `sse2` |
//! | `portable` | `sse2` (SSE2 is in the x86_64 baseline, enabled at compile time) |
//!
//! Always at most what the CPU has. Features enabled at compile time win: a build with
//! AVX-512 enabled uses `avx512` under any cap, and aarch64's NEON and riscv64's RVV are
//! compile-time choices. `rep movsb`/`rep stosb` (ERMS/FSRM) are speed hints no cap removes.
//!
//! This crate is `no_std` and reads no environment itself. The cap reaches it through
//! `nab-isa`'s `std` feature, which Cargo unifies: any crate of the program that enables
//! it (the default features of `b64`, `nabhash`, `bignum-fib`, or `nab-isa` itself as a
//! dependency) makes memops read `NAB_MAX_ISA`; without it the cap is unset unless the
//! program calls `nab_isa::set_cap` before the first call. With `c-symbols` memops ignores
//! the cap: its `memcpy` may run before `main`, before the C library has set up the
//! environment, so it uses the CPU detection alone (`cpuid`, which copies and compares
//! nothing and cannot call back into our `memcpy`).
//!
//! # Features
//!
//! - `c-symbols` (off): exports `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` under their
//!   C names, for `no_std` and static binaries. The kernels never call those symbols: with the
//!   feature the crate is `#![no_builtins]`, so the compiler cannot turn its loops into calls to
//!   them. Only with the feature: LLVM does not inline a `no_builtins` function into a caller
//!   without the attribute, so it would put a call between every caller and the kernels.
//!   The tests link them into a `-nostdlib` Rust binary (`tests/c_symbols.rs`) and into a C
//!   program that checks every size up to 300 bytes and a few large ones against its own
//!   byte loops (`tests/c_program.rs`).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![no_std]
#![cfg_attr(feature = "c-symbols", no_builtins)]

#[cfg(test)]
extern crate std;

mod arch;
#[cfg(feature = "c-symbols")]
mod c_symbols;
mod dispatch;
mod iter;
pub mod memmem;
pub mod raw;

use core::cmp::Ordering;
use core::iter::Rev;
use core::ops::Range;

pub use arch::table::Strategy;
#[doc(hidden)]
pub use dispatch::{Backend, backends};
pub use iter::{ByteIter, Memchr, Memchr2, Memchr3};

/// How this CPU's large moves and fills are done (the `rep movsb`/`rep stosb` windows, the
/// non-temporal thresholds, 256-bit or 512-bit stores), chosen from `cpuid` at the first large
/// move or fill and cached: on x86_64 by glibc's rules (`dl-cacheinfo.h`) from the vendor,
/// model and cache sizes, with this crate's measurements on AMD Zen; elsewhere
/// [`Strategy::LOOPS_ONLY`]. For reports and tests: it changes speed, never results.
pub fn strategy() -> Strategy {
    dispatch::strategy()
}

/// Copies `src` into `dst`.
///
/// # Panics
///
/// When the lengths differ.
#[inline]
pub fn copy(dst: &mut [u8], src: &[u8]) {
    dispatch::copy_with(dispatch::memmove_fn(), dst, src)
}

/// Copies `buf[src]` to `buf[dest..]`; the ranges may overlap (`memmove`), like
/// [`slice::copy_within`].
///
/// # Panics
///
/// When `src` is decreasing or out of bounds, or `dest + src.len()` is past the end.
#[inline]
pub fn copy_within(buf: &mut [u8], src: Range<usize>, dest: usize) {
    dispatch::copy_within_with(dispatch::memmove_fn(), buf, src, dest)
}

/// Sets every byte of `buf` to `byte`.
#[inline]
pub fn fill(buf: &mut [u8], byte: u8) {
    dispatch::fill_with(dispatch::memset_fn(), buf, byte)
}

/// Whether `a == b`.
#[inline]
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    dispatch::equal_with(dispatch::bcmp, a, b)
}

/// Lexicographic comparison: the first differing byte decides, then the length (like `memcmp`
/// on the common prefix, then the lengths; the same answer as `a.cmp(b)`).
#[inline]
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    dispatch::compare_with(dispatch::memcmp, a, b)
}

/// The index of the first `b` in `hay` (`memchr`).
#[inline]
pub fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memchr_fn(), hay, b)
}

/// The index of the last `b` in `hay` (`memrchr`).
#[inline]
pub fn rfind_byte(hay: &[u8], b: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memrchr_fn(), hay, b)
}

/// The index of the first byte of `hay` equal to `b1` or `b2` (memchr's `memchr2`).
///
/// ```
/// assert_eq!(memops::find_byte2(b"key=value;", b';', b'='), Some(3));
/// ```
#[inline]
pub fn find_byte2(hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memchr2_fn(), hay, [b1, b2])
}

/// The index of the first byte of `hay` equal to `b1`, `b2` or `b3` (memchr's `memchr3`).
///
/// ```
/// assert_eq!(memops::find_byte3(b"a b\tc\n", b'\n', b'\t', b' '), Some(1));
/// ```
#[inline]
pub fn find_byte3(hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memchr3_fn(), hay, [b1, b2, b3])
}

/// The index of the last byte of `hay` equal to `b1` or `b2` (memchr's `memrchr2`).
///
/// ```
/// assert_eq!(memops::rfind_byte2(b"/usr/lib\\x", b'/', b'\\'), Some(8));
/// ```
#[inline]
pub fn rfind_byte2(hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memrchr2_fn(), hay, [b1, b2])
}

/// The index of the last byte of `hay` equal to `b1`, `b2` or `b3` (memchr's `memrchr3`).
///
/// ```
/// assert_eq!(memops::rfind_byte3(b"a.b,c;d", b'.', b',', b';'), Some(5));
/// ```
#[inline]
pub fn rfind_byte3(hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
    dispatch::search_with(dispatch::memrchr3_fn(), hay, [b1, b2, b3])
}

/// Every index of `b` in `hay`, in increasing order (`.rev()` for decreasing); memchr's
/// `memchr_iter`. `count()` is one [`count_byte`].
///
/// ```
/// assert_eq!(memops::find_byte_iter(b"a\nb\nc", b'\n').collect::<Vec<_>>(), [1, 3]);
/// ```
#[inline]
pub fn find_byte_iter(hay: &[u8], b: u8) -> ByteIter<'_> {
    Backend::detect().find_byte_iter(hay, b)
}

/// Every index of `b1` or `b2` in `hay` (memchr's `memchr2_iter`), double-ended.
///
/// ```
/// assert_eq!(memops::find_byte2_iter(b"a\r\nb", b'\r', b'\n').rev().collect::<Vec<_>>(), [2, 1]);
/// ```
#[inline]
pub fn find_byte2_iter(hay: &[u8], b1: u8, b2: u8) -> ByteIter<'_> {
    Backend::detect().find_byte2_iter(hay, b1, b2)
}

/// Every index of `b1`, `b2` or `b3` in `hay` (memchr's `memchr3_iter`), double-ended.
///
/// ```
/// let hay = b"<a href=\"x\">";
/// assert_eq!(memops::find_byte3_iter(hay, b'<', b'>', b'"').collect::<Vec<_>>(), [0, 8, 10, 11]);
/// ```
#[inline]
pub fn find_byte3_iter(hay: &[u8], b1: u8, b2: u8, b3: u8) -> ByteIter<'_> {
    Backend::detect().find_byte3_iter(hay, b1, b2, b3)
}

/// How many bytes of `hay` equal `b`.
#[inline]
pub fn count_byte(hay: &[u8], b: u8) -> usize {
    dispatch::search_with(dispatch::count_fn(), hay, b)
}

// The memchr crate's names and argument order (needles first, haystack last), for code that
// moves over from it: the same kernels as the `find_byte*` functions above.

/// The index of the first `needle` in `haystack`: the memchr crate's `memchr`
/// ([`find_byte`] with the arguments in memchr's order).
///
/// ```
/// assert_eq!(memops::memchr(b'k', b"the quick brown fox"), Some(8));
/// ```
#[inline]
pub fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    find_byte(haystack, needle)
}

/// The index of the last `needle` in `haystack`: memchr's `memrchr` ([`rfind_byte`]).
#[inline]
pub fn memrchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    rfind_byte(haystack, needle)
}

/// The index of the first byte equal to `needle1` or `needle2`: memchr's `memchr2`
/// ([`find_byte2`]).
#[inline]
pub fn memchr2(needle1: u8, needle2: u8, haystack: &[u8]) -> Option<usize> {
    find_byte2(haystack, needle1, needle2)
}

/// The index of the last byte equal to `needle1` or `needle2`: memchr's `memrchr2`
/// ([`rfind_byte2`]).
#[inline]
pub fn memrchr2(needle1: u8, needle2: u8, haystack: &[u8]) -> Option<usize> {
    rfind_byte2(haystack, needle1, needle2)
}

/// The index of the first byte equal to `needle1`, `needle2` or `needle3`: memchr's `memchr3`
/// ([`find_byte3`]).
#[inline]
pub fn memchr3(needle1: u8, needle2: u8, needle3: u8, haystack: &[u8]) -> Option<usize> {
    find_byte3(haystack, needle1, needle2, needle3)
}

/// The index of the last byte equal to `needle1`, `needle2` or `needle3`: memchr's
/// `memrchr3` ([`rfind_byte3`]).
#[inline]
pub fn memrchr3(needle1: u8, needle2: u8, needle3: u8, haystack: &[u8]) -> Option<usize> {
    rfind_byte3(haystack, needle1, needle2, needle3)
}

/// Every index of `needle` in `haystack`, double-ended: memchr's `memchr_iter`.
#[inline]
pub fn memchr_iter(needle: u8, haystack: &[u8]) -> Memchr<'_> {
    Memchr::new(needle, haystack)
}

/// Every index of `needle` in `haystack`, last first: memchr's `memrchr_iter`.
#[inline]
pub fn memrchr_iter(needle: u8, haystack: &[u8]) -> Rev<Memchr<'_>> {
    Memchr::new(needle, haystack).rev()
}

/// Every index of `needle1` or `needle2` in `haystack`, double-ended: memchr's
/// `memchr2_iter`.
#[inline]
pub fn memchr2_iter(needle1: u8, needle2: u8, haystack: &[u8]) -> Memchr2<'_> {
    Memchr2::new(needle1, needle2, haystack)
}

/// Every index of `needle1` or `needle2` in `haystack`, last first: memchr's
/// `memrchr2_iter`.
#[inline]
pub fn memrchr2_iter(needle1: u8, needle2: u8, haystack: &[u8]) -> Rev<Memchr2<'_>> {
    Memchr2::new(needle1, needle2, haystack).rev()
}

/// Every index of `needle1`, `needle2` or `needle3` in `haystack`, double-ended: memchr's
/// `memchr3_iter`.
#[inline]
pub fn memchr3_iter(needle1: u8, needle2: u8, needle3: u8, haystack: &[u8]) -> Memchr3<'_> {
    Memchr3::new(needle1, needle2, needle3, haystack)
}

/// Every index of `needle1`, `needle2` or `needle3` in `haystack`, last first: memchr's
/// `memrchr3_iter`.
#[inline]
pub fn memrchr3_iter(needle1: u8, needle2: u8, needle3: u8, haystack: &[u8]) -> Rev<Memchr3<'_>> {
    Memchr3::new(needle1, needle2, needle3, haystack).rev()
}

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
