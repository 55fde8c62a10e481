//! Backend selection, declared once with `nab-isa`'s dispatch shape: the backends and their
//! probes in [`backends!`](nab_isa::backends) (which generates `Backend`'s surface), one
//! cached pointer per short operation with [`cached_fn!`](nab_isa::cached_fn).
//!
//! When the target features decide the backend at compile time (aarch64 NEON, riscv64 `+v`,
//! x86_64 built with AVX-512, the portable words on mips64) there is no detection at all and
//! the kernels inline; otherwise the first call of each operation stores the chosen kernel in
//! its own `AtomicPtr` (glibc's IFUNC/GOT shape, memchr's scheme) and later calls are one
//! relaxed load and an indirect call. A [`Backend`] value (the iterators, `memmem`'s finders)
//! is its backend's table: a call is a load from the table and an indirect call. Under Miri,
//! or with `--cfg memops_backend="portable"`, the portable words are used (STYLE.md rule 7:
//! a cfg, never a Cargo feature).
//!
//! With `c-symbols` this is the program's `memcpy`: the probes read `nab_isa::cpu_bare` (`cpuid`
//! only, no environment, no cap; see `arch::x86_64::features`), and nothing on the way to a
//! kernel copies or compares memory.

use crate::arch;
use crate::arch::table::{Ops, Pair, PairResult, Strategy};

/// Whether the build forces the portable backend (Miri cannot run SIMD kernels or `asm!`).
const FORCED_PORTABLE: bool = cfg!(any(miri, memops_backend = "portable"));

/// The table fixed at compile time, if any (see `arch::FIXED`).
const FIXED: Option<&Ops> = if FORCED_PORTABLE { Some(&arch::PORTABLE) } else { arch::FIXED };

/// A probe's answer, `None` when the build forces the portable backend.
#[inline(always)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64", memops_rvv)),
    allow(dead_code) // no backend but the portable one
)]
fn unless_forced(ops: Option<&'static Ops>) -> Option<&'static Ops> {
    if FORCED_PORTABLE { None } else { ops }
}

nab_isa::backends! {
    /// One implementation of every operation. A value exists only for backends the running
    /// CPU supports, so its methods are safe.
    ///
    /// Tests and benches use this to run every backend (see [`backends`]); applications call
    /// the crate's free functions, which use [`Backend::detect`]'s kernels.
    pub struct Backend(pub(crate) enum Kind at crate::dispatch::Kind);
    compare by kind;
    /// Runs `$body` with `$t` bound to the backend's table.
    macro with_ops;
    /// Every backend this CPU supports, most preferred first; the portable one is always last.
    /// Under Miri (which cannot run SIMD kernels or `asm!`) and with
    /// `--cfg memops_backend="portable"`: only the portable one.
    pub fn backends() in preferred_first order;
    forced portable if cfg(any(miri, memops_backend = "portable"));
    /// The portable backend (64-bit words), available everywhere.
    const PORTABLE = Portable(&'static Ops) = "portable" => &arch::PORTABLE;
    #[cfg(target_arch = "x86_64")]
    Avx512(&'static Ops) = "avx512" => unless_forced(arch::x86_64::avx512());
    #[cfg(target_arch = "x86_64")]
    Avx2(&'static Ops) = "avx2" => unless_forced(arch::x86_64::avx2());
    #[cfg(target_arch = "x86_64")]
    Sse2(&'static Ops) = "sse2" => unless_forced(Some(arch::x86_64::SSE2_OPS));
    #[cfg(target_arch = "aarch64")]
    Neon(&'static Ops) = "neon" => unless_forced(Some(&arch::aarch64::NEON));
    #[cfg(all(target_arch = "riscv64", memops_rvv))]
    Rvv(&'static Ops) = "rvv" => unless_forced(Some(&arch::riscv64::RVV));
}

/// The strategy of large moves and fills (see [`crate::strategy`]).
pub(crate) fn strategy() -> Strategy {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if !FORCED_PORTABLE {
        return arch::x86_64::strategy::decided();
    }
    Strategy::LOOPS_ONLY
}

/// The table the crate's functions use: the build's, else the detected backend's.
#[inline(always)]
fn chosen() -> &'static Ops {
    match FIXED {
        Some(ops) => ops,
        None => Backend::detect().ops(),
    }
}

/// `memmove`'s kernel type.
pub(crate) type MoveFn = unsafe fn(*mut u8, *const u8, usize);
/// `memset`'s kernel type.
pub(crate) type SetFn = unsafe fn(*mut u8, u8, usize);
/// `memcmp`'s kernel type.
pub(crate) type CmpFn = unsafe fn(*const u8, *const u8, usize) -> i32;
/// `bcmp`'s kernel type.
pub(crate) type EqFn = unsafe fn(*const u8, *const u8, usize) -> bool;

// Every operation the free functions call, listed once: each has its own cached pointer.
nab_isa::cached_fn! {
    /// The dispatched `memmove` kernel.
    pub(crate) fn memmove_fn() -> unsafe fn(dst: *mut u8, src: *const u8, n: usize) =
        chosen().memmove, fixed if FIXED.is_some();
    /// The dispatched `memset` kernel.
    pub(crate) fn memset_fn() -> unsafe fn(dst: *mut u8, b: u8, n: usize) =
        chosen().memset, fixed if FIXED.is_some();
    /// The dispatched `memcmp` kernel.
    pub(crate) fn memcmp_fn() -> unsafe fn(a: *const u8, b: *const u8, n: usize) -> i32 =
        chosen().memcmp, fixed if FIXED.is_some();
    /// The dispatched `bcmp` kernel.
    pub(crate) fn bcmp_fn() -> unsafe fn(a: *const u8, b: *const u8, n: usize) -> bool =
        chosen().bcmp, fixed if FIXED.is_some();
    /// The dispatched `memchr` kernel.
    pub(crate) fn memchr_fn() -> unsafe fn(p: *const u8, n: usize, b: u8) -> Option<usize> =
        chosen().memchr, fixed if FIXED.is_some();
    /// The dispatched `memrchr` kernel.
    pub(crate) fn memrchr_fn() -> unsafe fn(p: *const u8, n: usize, b: u8) -> Option<usize> =
        chosen().memrchr, fixed if FIXED.is_some();
    /// The dispatched byte count kernel.
    pub(crate) fn count_fn() -> unsafe fn(p: *const u8, n: usize, b: u8) -> usize =
        chosen().count, fixed if FIXED.is_some();
    /// The dispatched `memchr2` kernel.
    pub(crate) fn memchr2_fn() -> unsafe fn(p: *const u8, n: usize, b: [u8; 2]) -> Option<usize> =
        chosen().memchr2, fixed if FIXED.is_some();
    /// The dispatched `memchr3` kernel.
    pub(crate) fn memchr3_fn() -> unsafe fn(p: *const u8, n: usize, b: [u8; 3]) -> Option<usize> =
        chosen().memchr3, fixed if FIXED.is_some();
    /// The dispatched `memrchr2` kernel.
    pub(crate) fn memrchr2_fn() -> unsafe fn(p: *const u8, n: usize, b: [u8; 2]) -> Option<usize> =
        chosen().memrchr2, fixed if FIXED.is_some();
    /// The dispatched `memrchr3` kernel.
    pub(crate) fn memrchr3_fn() -> unsafe fn(p: *const u8, n: usize, b: [u8; 3]) -> Option<usize> =
        chosen().memrchr3, fixed if FIXED.is_some();
}

/// `memcmp` as the crate's functions and the `c-symbols` `memcmp` call it: compares of up to 16
/// bytes inline at the call site where the backend is detected at run time (see
/// `arch::x86_64::cmp_inline`), the cached kernel otherwise. A build that fixes the backend
/// inlines the kernel's own short path instead.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[inline(always)]
pub(crate) unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if FIXED.is_none() {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { arch::cmp_inline(a, b, n) } {
            return r;
        }
    }
    // SAFETY: the caller's contract; the kernel is the detected backend's.
    unsafe { memcmp_fn()(a, b, n) }
}

/// `bcmp`, as [`memcmp`].
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[inline(always)]
pub(crate) unsafe fn bcmp(a: *const u8, b: *const u8, n: usize) -> bool {
    if FIXED.is_none() {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { arch::eq_inline(a, b, n) } {
            return r;
        }
    }
    // SAFETY: the caller's contract; the kernel is the detected backend's.
    unsafe { bcmp_fn()(a, b, n) }
}

/// A byte search (`memchr`, `memrchr`, `count`, the two- and three-byte searches) of `hay`
/// with kernel `f`, whose contract is its C namesake's: `p` valid for reads of `n` bytes.
#[inline(always)]
pub(crate) fn search_with<B, R>(f: unsafe fn(*const u8, usize, B) -> R, hay: &[u8], b: B) -> R {
    // SAFETY: `hay` is valid for reads of its length; `f` is a search kernel of a backend the
    // CPU supports (a table's, or a cached pointer's).
    unsafe { f(hay.as_ptr(), hay.len(), b) }
}

/// [`crate::copy`] with the `memmove` kernel `mv`.
#[inline(always)]
pub(crate) fn copy_with(mv: MoveFn, dst: &mut [u8], src: &[u8]) {
    assert!(
        dst.len() == src.len(),
        "memops::copy: destination length {} differs from source length {}",
        dst.len(),
        src.len()
    );
    // SAFETY: both slices are valid for `len` bytes; `&mut` and `&` cannot overlap; `mv` is
    // a `memmove` kernel of a supported backend.
    unsafe { mv(dst.as_mut_ptr(), src.as_ptr(), src.len()) }
}

/// [`crate::copy_within`] with the `memmove` kernel `mv`.
#[inline(always)]
pub(crate) fn copy_within_with(
    mv: MoveFn,
    buf: &mut [u8],
    src: core::ops::Range<usize>,
    dest: usize,
) {
    let core::ops::Range { start, end } = src;
    assert!(start <= end, "memops::copy_within: source range start {start} > end {end}");
    assert!(end <= buf.len(), "memops::copy_within: source end {end} > length {}", buf.len());
    let n = end - start;
    assert!(
        dest <= buf.len() - n,
        "memops::copy_within: destination {dest}..{} out of bounds of length {}",
        dest.saturating_add(n),
        buf.len()
    );
    let p = buf.as_mut_ptr();
    // SAFETY: `start..end` and `dest..dest + n` are inside `buf` (checked above); memmove
    // allows overlap.
    unsafe { mv(p.add(dest), p.add(start), n) }
}

/// [`crate::fill`] with the `memset` kernel `set`.
#[inline(always)]
pub(crate) fn fill_with(set: SetFn, buf: &mut [u8], byte: u8) {
    // SAFETY: `buf` is valid for writes of its length.
    unsafe { set(buf.as_mut_ptr(), byte, buf.len()) }
}

/// [`crate::equal`] with the `bcmp` kernel `eq`.
#[inline(always)]
pub(crate) fn equal_with(eq: EqFn, a: &[u8], b: &[u8]) -> bool {
    // SAFETY: both slices are valid for reads of `a.len()` bytes when the lengths agree.
    a.len() == b.len() && unsafe { eq(a.as_ptr(), b.as_ptr(), a.len()) }
}

/// [`crate::compare`] with the `memcmp` kernel `cmp`.
#[inline(always)]
pub(crate) fn compare_with(cmp: CmpFn, a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    let n = a.len().min(b.len());
    // SAFETY: both slices are valid for reads of `n` bytes.
    let c = unsafe { cmp(a.as_ptr(), b.as_ptr(), n) };
    c.cmp(&0).then(a.len().cmp(&b.len()))
}

impl Backend {
    /// The backend's table.
    #[inline(always)]
    fn ops(self) -> &'static Ops {
        with_ops!(self, t => t)
    }

    /// [`crate::copy`] with this backend.
    #[inline(always)]
    pub fn copy(self, dst: &mut [u8], src: &[u8]) {
        copy_with(self.ops().memmove, dst, src)
    }

    /// [`crate::copy_within`] with this backend.
    #[inline(always)]
    pub fn copy_within(self, buf: &mut [u8], src: core::ops::Range<usize>, dest: usize) {
        copy_within_with(self.ops().memmove, buf, src, dest)
    }

    /// [`crate::fill`] with this backend.
    #[inline(always)]
    pub fn fill(self, buf: &mut [u8], byte: u8) {
        fill_with(self.ops().memset, buf, byte)
    }
    /// [`Backend::copy_within`] with the strategy `s` instead of the CPU's (tests and benches
    /// force each one; every strategy is correct on every CPU the backend runs on).
    pub fn copy_within_with_strategy(
        self,
        buf: &mut [u8],
        src: core::ops::Range<usize>,
        dest: usize,
        s: &Strategy,
    ) {
        let mv = self.ops().memmove_with;
        let (start, end) = (src.start, src.end);
        assert!(start <= end && end <= buf.len() && dest <= buf.len() - (end - start));
        let p = buf.as_mut_ptr();
        // SAFETY: both ranges are inside `buf` (checked above); memmove allows overlap; `mv`
        // is a kernel of a supported backend.
        unsafe { mv(p.add(dest), p.add(start), end - start, s) }
    }
    /// [`Backend::copy`] with the strategy `s` instead of the CPU's.
    pub fn copy_with_strategy(self, dst: &mut [u8], src: &[u8], s: &Strategy) {
        assert_eq!(dst.len(), src.len());
        // SAFETY: both slices are valid for `len` bytes and cannot overlap.
        unsafe { (self.ops().memmove_with)(dst.as_mut_ptr(), src.as_ptr(), src.len(), s) }
    }
    /// [`Backend::fill`] with the strategy `s` instead of the CPU's.
    pub fn fill_with_strategy(self, buf: &mut [u8], byte: u8, s: &Strategy) {
        // SAFETY: `buf` is valid for writes of its length.
        unsafe { (self.ops().memset_with)(buf.as_mut_ptr(), byte, buf.len(), s) }
    }

    /// [`crate::equal`] with this backend.
    #[inline(always)]
    pub fn equal(self, a: &[u8], b: &[u8]) -> bool {
        equal_with(self.ops().bcmp, a, b)
    }

    /// [`crate::compare`] with this backend.
    #[inline(always)]
    pub fn compare(self, a: &[u8], b: &[u8]) -> core::cmp::Ordering {
        compare_with(self.ops().memcmp, a, b)
    }

    /// [`crate::find_byte`] with this backend.
    #[inline(always)]
    pub fn find_byte(self, hay: &[u8], b: u8) -> Option<usize> {
        search_with(self.ops().memchr, hay, b)
    }

    /// [`crate::rfind_byte`] with this backend.
    #[inline(always)]
    pub fn rfind_byte(self, hay: &[u8], b: u8) -> Option<usize> {
        search_with(self.ops().memrchr, hay, b)
    }

    /// [`crate::count_byte`] with this backend.
    #[inline(always)]
    pub fn count_byte(self, hay: &[u8], b: u8) -> usize {
        search_with(self.ops().count, hay, b)
    }

    /// [`crate::find_byte2`] with this backend.
    #[inline(always)]
    pub fn find_byte2(self, hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
        search_with(self.ops().memchr2, hay, [b1, b2])
    }

    /// [`crate::find_byte3`] with this backend.
    #[inline(always)]
    pub fn find_byte3(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
        search_with(self.ops().memchr3, hay, [b1, b2, b3])
    }

    /// [`crate::rfind_byte2`] with this backend.
    #[inline(always)]
    pub fn rfind_byte2(self, hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
        search_with(self.ops().memrchr2, hay, [b1, b2])
    }

    /// [`crate::rfind_byte3`] with this backend.
    #[inline(always)]
    pub fn rfind_byte3(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
        search_with(self.ops().memrchr3, hay, [b1, b2, b3])
    }

    /// The first occurrence of `needle` in `hay` among the start positions `pair` admits
    /// (see [`PairResult`]); `NotFound` unless `2 <= needle.len() <= hay.len()` and the
    /// pair's offsets are inside `needle`.
    #[inline(always)]
    pub(crate) fn pair_find(self, hay: &[u8], needle: &[u8], pair: &Pair) -> PairResult {
        if !pair_fits(hay, needle, pair) {
            return PairResult::NotFound;
        }
        // SAFETY: both slices are valid for their lengths; `pair_fits` checked the rest.
        unsafe {
            (self.ops().pair_find)(hay.as_ptr(), hay.len(), needle.as_ptr(), needle.len(), pair)
        }
    }

    /// The last occurrence, as [`Backend::pair_find`].
    #[inline(always)]
    pub(crate) fn pair_rfind(self, hay: &[u8], needle: &[u8], pair: &Pair) -> PairResult {
        if !pair_fits(hay, needle, pair) {
            return PairResult::NotFound;
        }
        // SAFETY: as in `pair_find`.
        unsafe {
            (self.ops().pair_rfind)(hay.as_ptr(), hay.len(), needle.as_ptr(), needle.len(), pair)
        }
    }

    /// Raw `memmove` with this backend.
    ///
    /// # Safety
    ///
    /// `src` valid for reads and `dst` for writes of `n` bytes; they may overlap.
    #[inline(always)]
    pub unsafe fn memmove(self, dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: forwarded contract; the table exists only for a supported backend.
        unsafe { (self.ops().memmove)(dst, src, n) }
    }

    /// Raw `memset` with this backend.
    ///
    /// # Safety
    ///
    /// `dst` valid for writes of `n` bytes.
    #[inline(always)]
    pub unsafe fn memset(self, dst: *mut u8, byte: u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { (self.ops().memset)(dst, byte, n) }
    }

    /// Raw `memcmp` with this backend: negative, zero or positive.
    ///
    /// # Safety
    ///
    /// `a` and `b` valid for reads of `n` bytes.
    #[inline(always)]
    pub unsafe fn memcmp(self, a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: forwarded contract.
        unsafe { (self.ops().memcmp)(a, b, n) }
    }
}

/// The pair kernels' preconditions: `2 <= needle.len() <= hay.len()`, offsets in `needle`.
#[inline(always)]
fn pair_fits(hay: &[u8], needle: &[u8], pair: &Pair) -> bool {
    let m = needle.len();
    2 <= m && m <= hay.len() && pair.i1 < m && pair.i2 < m
}
