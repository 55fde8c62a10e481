//! Backend selection, once per process. When the target features decide it at compile time
//! (aarch64 NEON, riscv64 `+v`, x86_64 built with AVX-512, the portable words on mips64) there
//! is no detection at all and the kernels inline; otherwise the first call stores the chosen
//! table in an `AtomicPtr` (memchr's scheme) and later calls are one relaxed load and an
//! indirect call. Under Miri, or with `--cfg memops_backend="portable"`, the portable words
//! are used (STYLE.md rule 7: a cfg, never a Cargo feature).

use core::sync::atomic::{AtomicPtr, Ordering};

use crate::arch;
use crate::arch::table::{Ops, Pair, PairResult};

#[cfg(any(miri, memops_backend = "portable"))]
const FIXED: Option<&Ops> = Some(&arch::PORTABLE);
#[cfg(not(any(miri, memops_backend = "portable")))]
const FIXED: Option<&Ops> = arch::FIXED;

/// The table chosen at run time (null until the first call).
static CHOSEN: AtomicPtr<Ops> = AtomicPtr::new(core::ptr::null_mut());

/// The dispatched backend's table.
#[inline(always)]
pub(crate) fn ops() -> &'static Ops {
    if let Some(ops) = FIXED {
        return ops;
    }
    let p = CHOSEN.load(Ordering::Relaxed);
    if p.is_null() {
        return detect();
    }
    // SAFETY: `CHOSEN` only ever holds null or a pointer to one of the `'static` tables.
    unsafe { &*p }
}

#[cold]
#[inline(never)]
fn detect() -> &'static Ops {
    let ops = arch::supported().next().unwrap_or(&arch::PORTABLE);
    // (`FIXED` covers Miri and the forced portable build, so this runs only on real CPUs.)
    MEMMOVE.store(ops.memmove as *mut (), Ordering::Relaxed);
    MEMSET.store(ops.memset as *mut (), Ordering::Relaxed);
    MEMCMP.store(ops.memcmp as *mut (), Ordering::Relaxed);
    BCMP.store(ops.bcmp as *mut (), Ordering::Relaxed);
    CHOSEN.store(core::ptr::from_ref(ops).cast_mut(), Ordering::Relaxed);
    ops
}

/// `memmove`'s kernel type.
pub(crate) type MoveFn = unsafe fn(*mut u8, *const u8, usize);
/// `memset`'s kernel type.
pub(crate) type SetFn = unsafe fn(*mut u8, u8, usize);
/// `memcmp`'s kernel type.
pub(crate) type CmpFn = unsafe fn(*const u8, *const u8, usize) -> i32;
/// `bcmp`'s kernel type.
pub(crate) type EqFn = unsafe fn(*const u8, *const u8, usize) -> bool;

// The four short-call operations have a cached pointer each, glibc's IFUNC/GOT shape: a call
// is one load and an indirect call. Through `CHOSEN` it was two dependent loads (the table,
// then its entry) and a null test; the first call of any of them lands in a `*_first`
// function, which detects, fills every pointer and forwards the call.
static MEMMOVE: AtomicPtr<()> = AtomicPtr::new(memmove_first as *mut ());
static MEMSET: AtomicPtr<()> = AtomicPtr::new(memset_first as *mut ());
static MEMCMP: AtomicPtr<()> = AtomicPtr::new(memcmp_first as *mut ());
static BCMP: AtomicPtr<()> = AtomicPtr::new(bcmp_first as *mut ());

unsafe fn memmove_first(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract, forwarded.
    unsafe { (detect().memmove)(dst, src, n) }
}
unsafe fn memset_first(dst: *mut u8, b: u8, n: usize) {
    // SAFETY: the caller's contract, forwarded.
    unsafe { (detect().memset)(dst, b, n) }
}
unsafe fn memcmp_first(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract, forwarded.
    unsafe { (detect().memcmp)(a, b, n) }
}
unsafe fn bcmp_first(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: the caller's contract, forwarded.
    unsafe { (detect().bcmp)(a, b, n) }
}

/// The dispatched `memmove` kernel.
#[inline(always)]
pub(crate) fn memmove_fn() -> MoveFn {
    if let Some(ops) = FIXED {
        return ops.memmove;
    }
    // SAFETY: `MEMMOVE` only ever holds a function of this type (`memmove_first` or a
    // table's `memmove`), cast to a data pointer.
    unsafe { core::mem::transmute::<*mut (), MoveFn>(MEMMOVE.load(Ordering::Relaxed)) }
}

/// The dispatched `memset` kernel.
#[inline(always)]
pub(crate) fn memset_fn() -> SetFn {
    if let Some(ops) = FIXED {
        return ops.memset;
    }
    // SAFETY: as in `memmove_fn`.
    unsafe { core::mem::transmute::<*mut (), SetFn>(MEMSET.load(Ordering::Relaxed)) }
}

/// The dispatched `memcmp` kernel.
#[inline(always)]
pub(crate) fn memcmp_fn() -> CmpFn {
    if let Some(ops) = FIXED {
        return ops.memcmp;
    }
    // SAFETY: as in `memmove_fn`.
    unsafe { core::mem::transmute::<*mut (), CmpFn>(MEMCMP.load(Ordering::Relaxed)) }
}

/// The dispatched `bcmp` kernel.
#[inline(always)]
pub(crate) fn bcmp_fn() -> EqFn {
    if let Some(ops) = FIXED {
        return ops.bcmp;
    }
    // SAFETY: as in `memmove_fn`.
    unsafe { core::mem::transmute::<*mut (), EqFn>(BCMP.load(Ordering::Relaxed)) }
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

/// One implementation of every operation. A value exists only for backends the running CPU
/// supports, so its methods are safe.
///
/// Tests and benches use this to run every backend (see [`backends`]); applications call the
/// crate's free functions, which use [`Backend::detect`].
#[derive(Clone, Copy, Debug)]
pub struct Backend(&'static Ops);

impl PartialEq for Backend {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}
impl Eq for Backend {}

/// Every backend this CPU supports, most preferred first; the portable one is always last.
/// Under Miri (which cannot run SIMD kernels or `asm!`) and with
/// `--cfg memops_backend="portable"`: only the portable one.
pub fn backends() -> impl Iterator<Item = Backend> {
    #[cfg(any(miri, memops_backend = "portable"))]
    return core::iter::once(Backend::PORTABLE);
    #[cfg(not(any(miri, memops_backend = "portable")))]
    arch::supported().map(Backend)
}

impl Backend {
    /// The portable backend (64-bit words), available everywhere.
    pub const PORTABLE: Backend = Backend(&arch::PORTABLE);

    /// The backend the crate's free functions use.
    #[inline(always)]
    pub fn detect() -> Backend {
        Backend(ops())
    }

    /// The backend called `name` (as returned by [`Backend::name`]), if this CPU supports it.
    pub fn by_name(name: &str) -> Option<Backend> {
        backends().find(|b| b.name() == name)
    }

    /// A short stable name: `portable`, `sse2`, `avx2`, `avx512`, `neon`, `rvv`.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// [`crate::copy`] with this backend.
    #[inline(always)]
    pub fn copy(self, dst: &mut [u8], src: &[u8]) {
        copy_with(self.0.memmove, dst, src)
    }

    /// [`crate::copy_within`] with this backend.
    #[inline(always)]
    pub fn copy_within(self, buf: &mut [u8], src: core::ops::Range<usize>, dest: usize) {
        copy_within_with(self.0.memmove, buf, src, dest)
    }

    /// [`crate::fill`] with this backend.
    #[inline(always)]
    pub fn fill(self, buf: &mut [u8], byte: u8) {
        fill_with(self.0.memset, buf, byte)
    }

    /// [`crate::equal`] with this backend.
    #[inline(always)]
    pub fn equal(self, a: &[u8], b: &[u8]) -> bool {
        equal_with(self.0.bcmp, a, b)
    }

    /// [`crate::compare`] with this backend.
    #[inline(always)]
    pub fn compare(self, a: &[u8], b: &[u8]) -> core::cmp::Ordering {
        compare_with(self.0.memcmp, a, b)
    }

    /// [`crate::find_byte`] with this backend.
    #[inline(always)]
    pub fn find_byte(self, hay: &[u8], b: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memchr)(hay.as_ptr(), hay.len(), b) }
    }

    /// [`crate::rfind_byte`] with this backend.
    #[inline(always)]
    pub fn rfind_byte(self, hay: &[u8], b: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memrchr)(hay.as_ptr(), hay.len(), b) }
    }

    /// [`crate::count_byte`] with this backend.
    #[inline(always)]
    pub fn count_byte(self, hay: &[u8], b: u8) -> usize {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.count)(hay.as_ptr(), hay.len(), b) }
    }

    /// [`crate::find_byte2`] with this backend.
    #[inline(always)]
    pub fn find_byte2(self, hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memchr2)(hay.as_ptr(), hay.len(), [b1, b2]) }
    }

    /// [`crate::find_byte3`] with this backend.
    #[inline(always)]
    pub fn find_byte3(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memchr3)(hay.as_ptr(), hay.len(), [b1, b2, b3]) }
    }

    /// [`crate::rfind_byte2`] with this backend.
    #[inline(always)]
    pub fn rfind_byte2(self, hay: &[u8], b1: u8, b2: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memrchr2)(hay.as_ptr(), hay.len(), [b1, b2]) }
    }

    /// [`crate::rfind_byte3`] with this backend.
    #[inline(always)]
    pub fn rfind_byte3(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> Option<usize> {
        // SAFETY: `hay` is valid for reads of its length.
        unsafe { (self.0.memrchr3)(hay.as_ptr(), hay.len(), [b1, b2, b3]) }
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
        unsafe { (self.0.pair_find)(hay.as_ptr(), hay.len(), needle.as_ptr(), needle.len(), pair) }
    }

    /// The last occurrence, as [`Backend::pair_find`].
    #[inline(always)]
    pub(crate) fn pair_rfind(self, hay: &[u8], needle: &[u8], pair: &Pair) -> PairResult {
        if !pair_fits(hay, needle, pair) {
            return PairResult::NotFound;
        }
        // SAFETY: as in `pair_find`.
        unsafe { (self.0.pair_rfind)(hay.as_ptr(), hay.len(), needle.as_ptr(), needle.len(), pair) }
    }

    /// Raw `memmove` with this backend.
    ///
    /// # Safety
    ///
    /// `src` valid for reads and `dst` for writes of `n` bytes; they may overlap.
    #[inline(always)]
    pub unsafe fn memmove(self, dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: forwarded contract; the table exists only for a supported backend.
        unsafe { (self.0.memmove)(dst, src, n) }
    }

    /// Raw `memset` with this backend.
    ///
    /// # Safety
    ///
    /// `dst` valid for writes of `n` bytes.
    #[inline(always)]
    pub unsafe fn memset(self, dst: *mut u8, byte: u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { (self.0.memset)(dst, byte, n) }
    }

    /// Raw `memcmp` with this backend: negative, zero or positive.
    ///
    /// # Safety
    ///
    /// `a` and `b` valid for reads of `n` bytes.
    #[inline(always)]
    pub unsafe fn memcmp(self, a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: forwarded contract.
        unsafe { (self.0.memcmp)(a, b, n) }
    }
}

/// The pair kernels' preconditions: `2 <= needle.len() <= hay.len()`, offsets in `needle`.
#[inline(always)]
fn pair_fits(hay: &[u8], needle: &[u8], pair: &Pair) -> bool {
    let m = needle.len();
    2 <= m && m <= hay.len() && pair.i1 < m && pair.i2 < m
}
