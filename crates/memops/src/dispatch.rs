//! Backend selection, once per process. When the target features decide it at compile time
//! (aarch64 NEON, riscv64 `+v`, x86_64 built with AVX-512, the portable words on mips64) there
//! is no detection at all and the kernels inline; otherwise the first call stores the chosen
//! table in an `AtomicPtr` (memchr's scheme) and later calls are one relaxed load and an
//! indirect call. Under Miri, or with `--cfg memops_backend="portable"`, the portable words
//! are used (STYLE.md rule 7: a cfg, never a Cargo feature).

use core::sync::atomic::{AtomicPtr, Ordering};

use crate::arch::{self, Ops, Pair, PairResult};
use crate::iter::{ByteIter, Needles};
use crate::memmem::Finder;

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
    CHOSEN.store(core::ptr::from_ref(ops).cast_mut(), Ordering::Relaxed);
    ops
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
        assert!(
            dst.len() == src.len(),
            "memops::copy: destination length {} differs from source length {}",
            dst.len(),
            src.len()
        );
        // SAFETY: both slices are valid for `len` bytes; `&mut` and `&` cannot overlap.
        unsafe { self.memmove(dst.as_mut_ptr(), src.as_ptr(), src.len()) }
    }

    /// [`crate::copy_within`] with this backend.
    #[inline(always)]
    pub fn copy_within(self, buf: &mut [u8], src: core::ops::Range<usize>, dest: usize) {
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
        unsafe { self.memmove(p.add(dest), p.add(start), n) }
    }

    /// [`crate::fill`] with this backend.
    #[inline(always)]
    pub fn fill(self, buf: &mut [u8], byte: u8) {
        // SAFETY: `buf` is valid for writes of its length.
        unsafe { self.memset(buf.as_mut_ptr(), byte, buf.len()) }
    }

    /// [`crate::equal`] with this backend.
    #[inline(always)]
    pub fn equal(self, a: &[u8], b: &[u8]) -> bool {
        // SAFETY: both slices are valid for reads of `a.len()` bytes when the lengths agree.
        a.len() == b.len() && unsafe { (self.0.bcmp)(a.as_ptr(), b.as_ptr(), a.len()) }
    }

    /// [`crate::compare`] with this backend.
    #[inline(always)]
    pub fn compare(self, a: &[u8], b: &[u8]) -> core::cmp::Ordering {
        let n = a.len().min(b.len());
        // SAFETY: both slices are valid for reads of `n` bytes.
        let c = unsafe { self.memcmp(a.as_ptr(), b.as_ptr(), n) };
        c.cmp(&0).then(a.len().cmp(&b.len()))
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

    /// [`crate::find_byte_iter`] with this backend.
    pub fn find_byte_iter(self, hay: &[u8], b: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::One(b), hay)
    }

    /// [`crate::find_byte2_iter`] with this backend.
    pub fn find_byte2_iter(self, hay: &[u8], b1: u8, b2: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::Two(b1, b2), hay)
    }

    /// [`crate::find_byte3_iter`] with this backend.
    pub fn find_byte3_iter(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::Three(b1, b2, b3), hay)
    }

    /// A substring searcher for `needle` with this backend ([`Finder::new`] uses
    /// [`Backend::detect`]).
    pub fn finder(self, needle: &[u8]) -> Finder<'_> {
        Finder::with_backend(self, needle)
    }

    /// The first byte of `hay` equal to one of `needles`.
    #[inline(always)]
    pub(crate) fn find_any(self, hay: &[u8], needles: Needles) -> Option<usize> {
        match needles {
            Needles::One(b) => self.find_byte(hay, b),
            Needles::Two(b1, b2) => self.find_byte2(hay, b1, b2),
            Needles::Three(b1, b2, b3) => self.find_byte3(hay, b1, b2, b3),
        }
    }

    /// The last byte of `hay` equal to one of `needles`.
    #[inline(always)]
    pub(crate) fn rfind_any(self, hay: &[u8], needles: Needles) -> Option<usize> {
        match needles {
            Needles::One(b) => self.rfind_byte(hay, b),
            Needles::Two(b1, b2) => self.rfind_byte2(hay, b1, b2),
            Needles::Three(b1, b2, b3) => self.rfind_byte3(hay, b1, b2, b3),
        }
    }

    /// The first occurrence of `needle` in `hay` among the start positions `pair` admits
    /// (see [`PairResult`]); `NotFound` unless `2 <= needle.len() <= hay.len()` and the
    /// pair's offsets are inside `needle`.
    #[inline(always)]
    pub(crate) fn pair_find(self, hay: &[u8], needle: &[u8], pair: Pair) -> PairResult {
        if !pair_fits(hay, needle, pair) {
            return PairResult::NotFound;
        }
        // SAFETY: both slices are valid for their lengths; `pair_fits` checked the rest.
        unsafe { (self.0.pair_find)(hay.as_ptr(), hay.len(), needle.as_ptr(), needle.len(), pair) }
    }

    /// The last occurrence, as [`Backend::pair_find`].
    #[inline(always)]
    pub(crate) fn pair_rfind(self, hay: &[u8], needle: &[u8], pair: Pair) -> PairResult {
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
fn pair_fits(hay: &[u8], needle: &[u8], pair: Pair) -> bool {
    let m = needle.len();
    2 <= m && m <= hay.len() && pair.i1 < m && pair.i2 < m
}
