//! The FMA engine's kernels in eight lanes (AVX-512F): [`Lanes`] for `__m512d`, which
//! instantiates the transform of `fmacore` (same representation, same bounds:
//! see there) on `zmm` registers, for the stages of
//! half-length `h ≥ 8`, the pointwise products, loading and unloading; the shorter stages
//! stay four-lane.

use core::arch::x86_64::*;

use super::fmacore::{self, Garner5, Lanes};

nab_isa::token! {
    /// Proof that AVX-512F, AVX2 and FMA may be used (x86-64-v4 has them): the CPU (and the
    /// OS, for the zmm state) supports them and `NAB_MAX_ISA` allows them, or the build
    /// enables them. Only `Fma8::new` makes one.
    pub(crate) struct Fma8 = AVX512F | AVX2 | FMA;
}

impl Fma8 {
    /// As `Fma4::stage`, for `h ≥ 8`.
    pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
        assert!(h >= 8 && h.is_power_of_two() && w.len() >= h);
        assert!(x.len().is_multiple_of(2 * h));
        // SAFETY: `self` proves AVX-512F; the assertions bound every access (see `stage`).
        unsafe { stage::<DIT>(x, h, w, p) }
    }

    /// As `Fma4::stage2`, for `h ≥ 8`.
    pub(crate) fn stage2<const DIT: bool, const LAZY: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        assert!(h >= 8 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(
            DIT || cube.is_empty() || cube.len() >= h,
            "stage2: {} cube twiddles, h = {h}",
            cube.len()
        );
        assert!(x.len().is_multiple_of(4 * h));
        // SAFETY: `self` proves AVX-512F; the assertions bound every access (see `stage2`).
        unsafe { stage2::<DIT, LAZY>(x, h, outer, inner, cube, p) }
    }

    /// As `Fma4::stage2_lower_half`, for `h ≥ 8`.
    pub(crate) fn stage2_lower_half(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        assert!(h >= 8 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(cube.len() >= h, "stage2_lower_half: {} cube twiddles for h = {h}", cube.len());
        assert!(x.len() == 4 * h);
        // SAFETY: `self` proves AVX-512F; the assertions are the kernel's contract.
        unsafe { stage2_lower_half(x, h, outer, inner, cube, p) }
    }

    /// `out[i] = s·(a[i] + t·y[i]) mod p` (see `fmacore::comb`; `a = None`: in place) for
    /// the first `8⌊len/8⌋` values of `out` (returned; the tail is the caller's); `a` and `y`
    /// at least as long as `out`.
    pub(crate) fn comb(
        self,
        out: &mut [u64],
        a: Option<&[u64]>,
        y: Option<&[u64]>,
        t: f64,
        s: f64,
        p: f64,
    ) -> usize {
        let n = out.len() & !7;
        assert!(a.is_none_or(|a| a.len() >= n) && y.is_none_or(|y| y.len() >= n));
        let o = out.as_mut_ptr();
        let a = a.map_or(o.cast_const(), <[u64]>::as_ptr);
        // SAFETY: `self` proves AVX-512F; `n` is a multiple of 8 within every slice (checked
        // above), and `out`, a `&mut`, overlaps nothing else (`a` is it or another slice).
        unsafe { comb(n, o, a, y.map(<[u64]>::as_ptr), t, s, p) };
        n
    }

    /// The truncated products' fold (`fmacore::fold`): `out[i] = (lo[i] + α·hi[i])·w[i]`
    /// and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `lo` is `d`, updated in place),
    /// for the first `8⌊len/8⌋` values of `out` (returned; the tail is the caller's);
    /// the other slices at least as long.
    #[allow(clippy::too_many_arguments)] // the kernel's operands
    pub(crate) fn fold(
        self,
        out: &mut [u64],
        d: Option<&mut [u64]>,
        lo: Option<&[u64]>,
        hi: &[u64],
        alpha: f64,
        w: &[u64],
        p: f64,
    ) -> usize {
        let n = out.len() & !7;
        assert!(hi.len() >= n && w.len() >= n);
        assert!(d.as_ref().is_none_or(|d| d.len() >= n) && lo.is_none_or(|l| l.len() >= n));
        let o = out.as_mut_ptr();
        let (dp, lp) = match (d, lo) {
            (Some(d), Some(lo)) => (d.as_mut_ptr(), lo.as_ptr()),
            (Some(d), None) => {
                let dp = d.as_mut_ptr();
                (dp, dp.cast_const()) // one pointer for both: `d` is read and written in place
            }
            (None, Some(lo)) => (core::ptr::null_mut(), lo.as_ptr()),
            (None, None) => unreachable!("a fold reads its lower half from `lo` or `d`"),
        };
        // SAFETY: `self` proves AVX-512F; `n` is a multiple of 8 within every slice (checked
        // above); `out` and `d` are `&mut`s, so nothing overlaps but `d` with itself as `lo`.
        unsafe {
            if dp.is_null() {
                fold::<false>(n, o, dp, lp, hi.as_ptr(), alpha, w.as_ptr(), p)
            } else {
                fold::<true>(n, o, dp, lp, hi.as_ptr(), alpha, w.as_ptr(), p)
            }
        };
        n
    }

    /// As `Fma4::pointwise`, for `x.len()` a multiple of 8.
    pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: f64) {
        assert!(x.len().is_multiple_of(8) && y.is_none_or(|y| y.len() == x.len()));
        // SAFETY: `self` proves the CPU support; lengths checked just above.
        unsafe { pointwise(x, y, p) }
    }

    /// As `Fma4::load`, for lengths multiples of 8.
    pub(crate) fn load(self, dst: &mut [u64], src: &[u64], p: f64) {
        assert!(dst.len() == src.len() && src.len().is_multiple_of(8));
        // SAFETY: `self` proves the CPU support; lengths checked just above.
        unsafe { load(dst, src, p) }
    }

    /// As `Fma4::unload`, for `x.len()` a multiple of 8.
    pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
        assert!(x.len().is_multiple_of(8));
        // SAFETY: `self` proves the CPU support; the length is checked just above.
        unsafe { unload(x, s, p) }
    }
}

/// `2⁵²` as `f64` bits (see `fma`).
const MAGIC: u64 = 0x4330_0000_0000_0000;

/// Round to nearest, no exceptions.
const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// SAFETY: every method is an AVX-512F intrinsic (or a few), run only inlined into the
// `#[target_feature(enable = "avx512f,avx2,fma")]` functions below, which `Fma8` guards; the
// loads and stores take eight values at the pointer, as the trait requires of its callers.
unsafe impl Lanes for __m512d {
    const N: usize = 8;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: register-only AVX-512F operation (see the impl).
        unsafe { _mm512_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller gives eight readable values at `p`.
        unsafe { _mm512_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f64, v: Self) {
        // SAFETY: the caller gives eight writable values at `p`.
        unsafe { _mm512_storeu_pd(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_add_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_sub_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_mul_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn fmsub(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_fmsub_pd(a, b, c) }
    }
    #[inline(always)]
    unsafe fn fnmadd(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_fnmadd_pd(a, b, c) }
    }
    #[inline(always)]
    unsafe fn round(a: Self) -> Self {
        // SAFETY: register-only AVX-512F operation.
        unsafe { _mm512_roundscale_pd::<NEAREST>(a) }
    }
    #[inline(always)]
    unsafe fn correct(r: Self, p: Self) -> Self {
        // SAFETY: register-only AVX-512F operations.
        unsafe {
            let negative = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(r, _mm512_setzero_pd());
            _mm512_mask_add_pd(r, negative, r, p)
        }
    }
    #[inline(always)]
    unsafe fn load_u52(p: *const u64) -> Self {
        // SAFETY: the caller gives eight readable values at `p` (as in `fma`).
        unsafe {
            let magic = _mm512_set1_epi64(MAGIC as i64);
            let x = _mm512_or_si512(_mm512_loadu_si512(p.cast()), magic);
            _mm512_sub_pd(_mm512_castsi512_pd(x), _mm512_castsi512_pd(magic))
        }
    }
    #[inline(always)]
    unsafe fn store_u52(p: *mut u64, v: Self) {
        // SAFETY: the caller gives eight writable values at `p` (as in `fma`).
        unsafe {
            let magic = _mm512_set1_epi64(MAGIC as i64);
            let sum = _mm512_add_pd(v, _mm512_castsi512_pd(magic));
            _mm512_storeu_si512(p.cast(), _mm512_sub_epi64(_mm512_castpd_si512(sum), magic));
        }
    }
    #[inline(always)]
    unsafe fn load_halves(p: *const u64) -> (Self, Self) {
        // SAFETY: the caller gives eight readable values at `p` (as in `fma`).
        unsafe {
            let magic = _mm512_set1_epi64(MAGIC as i64);
            let magic_pd = _mm512_castsi512_pd(magic);
            let x = _mm512_loadu_si512(p.cast());
            let lo = _mm512_or_si512(_mm512_and_si512(x, _mm512_set1_epi64(0xffff_ffff)), magic);
            let hi = _mm512_or_si512(_mm512_srli_epi64::<32>(x), magic);
            (
                _mm512_sub_pd(_mm512_castsi512_pd(hi), magic_pd),
                _mm512_sub_pd(_mm512_castsi512_pd(lo), magic_pd),
            )
        }
    }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of `2h`, `w.len() >= h`, `h ≥ 8` a power of two.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    // SAFETY: the caller's contract (`N = 8`).
    unsafe { fmacore::stage::<__m512d, DIT>(x, h, w, p) }
}

/// # Safety
/// AVX-512F available; `fmacore::stage2_lower_half`'s contract with `N = 8`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn stage2_lower_half(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::stage2_lower_half::<__m512d>(x, h, outer, inner, cube, p) }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of `4h`, `h ≥ 8` a power of two,
/// `outer.len() >= 2h`, `inner.len() >= h`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn stage2<const DIT: bool, const LAZY: bool>(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract (`N = 8`).
    unsafe { fmacore::stage2::<__m512d, DIT, LAZY>(x, h, outer, inner, cube, p) }
}

/// # Safety
/// AVX-512F available; `fmacore::fold`'s contract with `N = 8`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn fold<const D: bool>(
    n: usize,
    out: *mut u64,
    d: *mut u64,
    lo: *const u64,
    hi: *const u64,
    alpha: f64,
    w: *const u64,
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::fold::<__m512d, D>(n, out, d, lo, hi, alpha, w, p) }
}

/// # Safety
/// AVX-512F available; `fmacore::comb`'s contract with `N = 8`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn comb(
    n: usize,
    out: *mut u64,
    a: *const u64,
    y: Option<*const u64>,
    t: f64,
    s: f64,
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::comb::<__m512d>(n, out, a, y, t, s, p) }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of 8; `y`, if any, as long as `x`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: f64) {
    // SAFETY: the caller's contract (`N = 8`).
    unsafe { fmacore::pointwise::<__m512d>(x, y, p) }
}

/// # Safety
/// AVX-512F available; `dst.len() == src.len()`, a multiple of 8.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn load(dst: &mut [u64], src: &[u64], p: f64) {
    // SAFETY: the caller's contract (`N = 8`).
    unsafe { fmacore::load::<__m512d>(dst, src, p) }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of 8.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn unload(x: &mut [u64], s: f64, p: f64) {
    // SAFETY: the caller's contract (`N = 8`).
    unsafe { fmacore::unload::<__m512d>(x, s, p) }
}

impl Fma8 {
    /// As `Fma::load_wide`, for the first `8⌊len/8⌋` values of `dst` (returned).
    pub(crate) fn load_wide(
        self,
        dst: &mut [u64],
        lo: &[u64],
        hi: &[u64],
        k: f64,
        p: f64,
    ) -> usize {
        let n = dst.len() & !7;
        assert!(lo.len() >= n && hi.len() >= n);
        // SAFETY: `self` proves AVX-512F; every slice has at least `n` values.
        unsafe { load_wide(n, dst, lo, hi, k, p) };
        n
    }

    /// As `Fma::garner5`, for the first `8⌊len/8⌋` indices of `y[0]` (returned).
    pub(crate) fn garner5(self, y: [&mut [u64]; 5], k: &Garner5) -> usize {
        let n = y[0].len() & !7;
        assert!(y.iter().all(|s| s.len() >= n));
        // SAFETY: `self` proves AVX-512F; every slice has at least `n` values.
        unsafe { garner5(n, y, k) };
        n
    }
}

/// # Safety
/// AVX-512F available; `fmacore::load_wide`'s contract with `N = 8`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn load_wide(n: usize, dst: &mut [u64], lo: &[u64], hi: &[u64], k: f64, p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::load_wide::<__m512d>(n, dst, lo, hi, k, p) }
}

/// # Safety
/// AVX-512F available; `fmacore::garner5`'s contract with `N = 8`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn garner5(n: usize, y: [&mut [u64]; 5], k: &Garner5) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::garner5::<__m512d>(n, y, k) }
}
