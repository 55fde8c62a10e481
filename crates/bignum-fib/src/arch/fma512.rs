//! The FMA engine's kernels in eight lanes (AVX-512F): the arithmetic of `crate::arch::fma`
//! (same representation, same bounds: see there) on `zmm` registers, for the stages of
//! half-length `h ≥ 8`, the pointwise products, loading and unloading; the shorter stages
//! stay four-lane.

use core::arch::x86_64::*;

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
    pub(crate) fn stage2<const DIT: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        p: f64,
    ) {
        assert!(h >= 8 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(x.len().is_multiple_of(4 * h));
        // SAFETY: `self` proves AVX-512F; the assertions bound every access (see `stage2`).
        unsafe { stage2::<DIT>(x, h, outer, inner, p) }
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

/// `2⁵²` as `f64` bits (see `crate::arch::fma`).
const MAGIC: u64 = 0x4330_0000_0000_0000;

/// Round to nearest, no exceptions.
const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

/// Register-only helpers: callers (inlined into the `target_feature` functions below) must
/// have AVX-512F.
#[inline(always)]
unsafe fn mulmod(a: __m512d, b: __m512d, p: __m512d, pinv: __m512d) -> __m512d {
    // SAFETY: register-only AVX-512F operations, enabled in the callers (all intrinsics).
    unsafe {
        let h = _mm512_mul_pd(a, b);
        let l = _mm512_fmsub_pd(a, b, h);
        let q = _mm512_roundscale_pd::<NEAREST>(_mm512_mul_pd(h, pinv));
        _mm512_add_pd(_mm512_fnmadd_pd(q, p, h), l)
    }
}

/// `(−p, p)` to `[0, p)`.
#[inline(always)]
unsafe fn correct(r: __m512d, p: __m512d) -> __m512d {
    // SAFETY: register-only AVX-512F operations.
    unsafe {
        let negative = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(r, _mm512_setzero_pd());
        _mm512_mask_add_pd(r, negative, r, p)
    }
}

#[inline(always)]
unsafe fn reduce(s: __m512d, p: __m512d, pinv: __m512d) -> __m512d {
    // SAFETY: register-only AVX-512F operations.
    unsafe {
        let q = _mm512_roundscale_pd::<NEAREST>(_mm512_mul_pd(s, pinv));
        _mm512_fnmadd_pd(q, p, s)
    }
}

/// As `crate::arch::fma`'s butterfly.
#[inline(always)]
unsafe fn butterfly<const DIT: bool, const LAZY: bool>(
    a: __m512d,
    b: __m512d,
    w: __m512d,
    p: __m512d,
    pinv: __m512d,
) -> (__m512d, __m512d) {
    // SAFETY: register-only operations (see `mulmod`).
    unsafe {
        if DIT {
            let t = mulmod(b, w, p, pinv);
            let (s, d) = (_mm512_add_pd(a, t), _mm512_sub_pd(a, t));
            if LAZY { (s, d) } else { (reduce(s, p, pinv), reduce(d, p, pinv)) }
        } else {
            let s = reduce(_mm512_add_pd(a, b), p, pinv);
            (s, mulmod(_mm512_sub_pd(a, b), w, p, pinv))
        }
    }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of `2h`, `w.len() >= h`, `h ≥ 8` a power of two.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    let pv = _mm512_set1_pd(p);
    let piv = _mm512_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let wp = w.as_ptr().cast::<f64>();
    let n = x.len();
    let mut j = 0;
    while j < n {
        let mut i = 0;
        while i < h {
            // SAFETY: `j + 2h <= n` and `i + 8 <= h`: both 8-lane accesses lie in `x`;
            // `i + 8 <= h <= w.len()`.
            unsafe {
                let pa = base.add(j + i);
                let pb = base.add(j + h + i);
                let a = _mm512_loadu_pd(pa);
                let b = _mm512_loadu_pd(pb);
                let wv = _mm512_loadu_pd(wp.add(i));
                let (s, d) = butterfly::<DIT, false>(a, b, wv, pv, piv);
                _mm512_storeu_pd(pa, s);
                _mm512_storeu_pd(pb, d);
            }
            i += 8;
        }
        j += 2 * h;
    }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of `4h`, `h ≥ 8` a power of two,
/// `outer.len() >= 2h`, `inner.len() >= h`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn stage2<const DIT: bool>(x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], p: f64) {
    let pv = _mm512_set1_pd(p);
    let piv = _mm512_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let (wo, wi) = (outer.as_ptr().cast::<f64>(), inner.as_ptr().cast::<f64>());
    let n = x.len();
    let mut j = 0;
    while j < n {
        let mut i = 0;
        while i < h {
            // SAFETY: `j + 4h <= n` and `i + 8 <= h`: the four 8-lane accesses lie in `x`;
            // `h + i + 8 <= 2h <= outer.len()`, `i + 8 <= h <= inner.len()`.
            unsafe {
                let p0 = base.add(j + i);
                let (p1, p2, p3) = (p0.add(h), p0.add(2 * h), p0.add(3 * h));
                let (a0, a1) = (_mm512_loadu_pd(p0), _mm512_loadu_pd(p1));
                let (a2, a3) = (_mm512_loadu_pd(p2), _mm512_loadu_pd(p3));
                let (o0, o1) = (_mm512_loadu_pd(wo.add(i)), _mm512_loadu_pd(wo.add(h + i)));
                let w = _mm512_loadu_pd(wi.add(i));
                let (a0, a1, a2, a3) = if DIT {
                    let (a0, a1) = butterfly::<true, true>(a0, a1, w, pv, piv);
                    let (a2, a3) = butterfly::<true, true>(a2, a3, w, pv, piv);
                    let (a0, a2) = butterfly::<true, false>(a0, a2, o0, pv, piv);
                    let (a1, a3) = butterfly::<true, false>(a1, a3, o1, pv, piv);
                    (a0, a1, a2, a3)
                } else {
                    let (a0, a2) = butterfly::<false, false>(a0, a2, o0, pv, piv);
                    let (a1, a3) = butterfly::<false, false>(a1, a3, o1, pv, piv);
                    let (a0, a1) = butterfly::<false, false>(a0, a1, w, pv, piv);
                    let (a2, a3) = butterfly::<false, false>(a2, a3, w, pv, piv);
                    (a0, a1, a2, a3)
                };
                _mm512_storeu_pd(p0, a0);
                _mm512_storeu_pd(p1, a1);
                _mm512_storeu_pd(p2, a2);
                _mm512_storeu_pd(p3, a3);
            }
            i += 8;
        }
        j += 4 * h;
    }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of 8; `y`, if any, as long as `x`.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: f64) {
    let pv = _mm512_set1_pd(p);
    let piv = _mm512_set1_pd(1.0 / p);
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + 8 <= x.len()` (a multiple of 8), and `y.len() == x.len()`.
        unsafe {
            let px = x.as_mut_ptr().add(i).cast::<f64>();
            let a = _mm512_loadu_pd(px);
            let b = match y {
                Some(y) => _mm512_loadu_pd(y.as_ptr().add(i).cast()),
                None => a,
            };
            _mm512_storeu_pd(px, mulmod(a, b, pv, piv));
        }
        i += 8;
    }
}

/// # Safety
/// AVX-512F available; `dst.len() == src.len()`, a multiple of 8.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn load(dst: &mut [u64], src: &[u64], p: f64) {
    let pv = _mm512_set1_pd(p);
    let piv = _mm512_set1_pd(1.0 / p);
    let two32 = _mm512_set1_pd(4_294_967_296.0); // 2³² < p
    let magic = _mm512_set1_epi64(MAGIC as i64);
    let magic_pd = _mm512_castsi512_pd(magic);
    let low = _mm512_set1_epi64(0xffff_ffff);
    let mut i = 0;
    while i < src.len() {
        // SAFETY: `i + 8 <= len` for both slices. As in `crate::arch::fma::load`.
        unsafe {
            let x = _mm512_loadu_si512(src.as_ptr().add(i).cast());
            let lo = _mm512_or_si512(_mm512_and_si512(x, low), magic);
            let hi = _mm512_or_si512(_mm512_srli_epi64::<32>(x), magic);
            let lo = _mm512_sub_pd(_mm512_castsi512_pd(lo), magic_pd);
            let hi = _mm512_sub_pd(_mm512_castsi512_pd(hi), magic_pd);
            let r = correct(mulmod(hi, two32, pv, piv), pv);
            let t = _mm512_sub_pd(_mm512_add_pd(r, lo), pv);
            _mm512_storeu_pd(dst.as_mut_ptr().add(i).cast(), correct(t, pv));
        }
        i += 8;
    }
}

/// # Safety
/// AVX-512F available; `x.len()` a multiple of 8.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn unload(x: &mut [u64], s: f64, p: f64) {
    let pv = _mm512_set1_pd(p);
    let piv = _mm512_set1_pd(1.0 / p);
    let sv = _mm512_set1_pd(s);
    let magic = _mm512_set1_epi64(MAGIC as i64);
    let magic_pd = _mm512_castsi512_pd(magic);
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + 8 <= x.len()`. As in `crate::arch::fma::unload`.
        unsafe {
            let px = x.as_mut_ptr().add(i);
            let v = correct(mulmod(_mm512_loadu_pd(px.cast()), sv, pv, piv), pv);
            let bits = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(v, magic_pd)), magic);
            _mm512_storeu_si512(px.cast(), bits);
        }
        i += 8;
    }
}
