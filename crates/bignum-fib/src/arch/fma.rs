//! The NTT's butterflies on IEEE doubles with AVX2 + FMA: four residues per `ymm` register,
//! for the primes below `2⁵⁰` of `crate::ntt`'s 50-bit field set (the design of FLINT 3's
//! `fft_small`, written anew here).
//!
//! Residues are integers held exactly in `f64` (the `u64` slices of the NTT hold their bit
//! patterns), reduced lazily: a transform's values are in `(−p, p)`, the twiddles balanced
//! (`|w| ≤ p/2`). Per lane, with `p < 2⁵⁰` and `pinv = fl(1/p)`:
//! - `mulmod(a, b)` for `|a·b| < p²`: `h = fl(a·b)`, `l = a·b − h` exactly (one FMA),
//!   `q = round(h·pinv)`, `r = h − q·p` (one FMA, exact), result `r + l` (exact). The bound:
//!   `|a·b| < 2¹⁰⁰`, so `|l| ≤ ulp(h)/2 ≤ 2⁴⁷`; `h·pinv` is within three roundings (relative
//!   `3·2⁻⁵³`) of `a·b/p`, `|a·b/p| < p < 2⁵⁰`, so within 0.375 of it, and `q` within 0.875:
//!   `|a·b − q·p| < 0.875·p`. `h − q·p` is an integer of that size plus `|l|` (`h` is an
//!   integer: `|h| ≥ 2⁵³` or `h = a·b`), below `2⁵³`, so the FMA computes it exactly, and
//!   `r + l = a·b − q·p` is exact too: the result is `a·b mod p` in `(−0.875p, 0.875p)`.
//!   (The bound holds for any `p < 2⁵⁰`.) `|a| < 2p` and `|w| ≤ p/2` satisfy it, and so do
//!   `|a|, |b| < p`.
//! - `reduce(s)` for `|s| < 4p`: `s − round(s·pinv)·p` (one FMA, exact), in `[−p/2, p/2]`
//!   give or take one (the quotient estimate is off by far less than `1/2`).
//! - DIF butterfly, `a, b ∈ (−p, p)`: `(reduce(a + b), mulmod(a − b, w))`; DIT:
//!   `t = mulmod(b, w)`, `(reduce(a + t), reduce(a − t))`. In the radix-4 DIT pass the first
//!   stage leaves `a ± t` unreduced (`|·| < 1.875p`), which the second stage's products
//!   (`|b·w| < 0.94p²`) and reductions (`|a ± t| < 2.75p`) accept.
//! - Loading reduces a limb to `[0, p)`, and unloading multiplies by the scale and corrects
//!   `(−p, p)` to `[0, p)` (a blend on the sign bit), so the rest of `crate::ntt` sees
//!   residues in `[0, p)`.
//!
//! Stages with half-length `h ≥ 4` pair whole vectors; `h = 2` regroups two vectors with
//! 128-bit lane permutes, and the twiddle-free `h = 1` stage with unpacks.

use core::arch::x86_64::*;

nab_isa::token! {
    /// Proof that AVX2 and FMA may be used (x86-64-v3): the CPU (and the OS, for the ymm
    /// state) supports them and `NAB_MAX_ISA` allows them, or the build enables them. Only
    /// `Fma4::new` makes one.
    pub(crate) struct Fma4 = AVX2 | FMA;
}

/// The FMA engine's kernels: four lanes (AVX2 + FMA), and eight (`crate::arch::fma512`,
/// AVX-512F) for the stages of half-length `h ≥ 8`, the pointwise products, loading and
/// unloading when the CPU and the cap allow them. Both widths compute the same values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fma {
    v3: Fma4,
    v4: Option<super::fma512::Fma8>,
}

impl Fma {
    /// The widest kernels this CPU may run, if it has AVX2 + FMA.
    #[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
    pub(crate) fn new() -> Option<Fma> {
        Some(Fma { v3: Fma4::new()?, v4: super::fma512::Fma8::new() })
    }

    /// The four-lane kernels only (the tests run both widths).
    #[cfg(test)]
    pub(crate) fn narrow(self) -> Fma {
        Fma { v4: None, ..self }
    }

    /// `avx512f-fma` or `avx2-fma`.
    pub(crate) fn name(self) -> &'static str {
        if self.v4.is_some() { "avx512f-fma" } else { "avx2-fma" }
    }

    /// One stage on blocks of `2h` (see [`Fma4::stage`]).
    pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
        match self.v4 {
            Some(t) if h >= 8 => t.stage::<DIT>(x, h, w, p),
            _ => self.v3.stage::<DIT>(x, h, w, p),
        }
    }

    /// Two stages in one pass (see [`Fma4::stage2`]).
    pub(crate) fn stage2<const DIT: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        p: f64,
    ) {
        match self.v4 {
            Some(t) if h >= 8 => t.stage2::<DIT>(x, h, outer, inner, p),
            _ => self.v3.stage2::<DIT>(x, h, outer, inner, p),
        }
    }

    /// The twiddle-free stage `h = 1` (see [`Fma4::radix2`]).
    pub(crate) fn radix2(self, x: &mut [u64], p: f64) {
        self.v3.radix2(x, p);
    }

    /// Pointwise products (see [`Fma4::pointwise`]).
    pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: f64) {
        match self.v4 {
            Some(t) if x.len().is_multiple_of(8) => t.pointwise(x, y, p),
            _ => self.v3.pointwise(x, y, p),
        }
    }

    /// Loading (see [`Fma4::load`]).
    pub(crate) fn load(self, dst: &mut [u64], src: &[u64], p: f64) {
        match self.v4 {
            Some(t) if src.len().is_multiple_of(8) => t.load(dst, src, p),
            _ => self.v3.load(dst, src, p),
        }
    }

    /// Unloading (see [`Fma4::unload`]).
    pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
        match self.v4 {
            Some(t) if x.len().is_multiple_of(8) => t.unload(x, s, p),
            _ => self.v3.unload(x, s, p),
        }
    }
}

impl Fma4 {
    /// One stage on blocks of `2h`: decimation in frequency, `(a, b) → (a + b, (a − b)·w^i)`,
    /// or with `DIT` decimation in time, `(a, b) → (a + b·w^i, a − b·w^i)`; `w` the `h`
    /// twiddles (plain residues as `f64` bits). `h ≥ 2` is a power of two; `x.len()` a
    /// multiple of `2h` and of 8.
    pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
        assert!(h >= 2 && h.is_power_of_two() && w.len() >= h);
        assert!(x.len().is_multiple_of(2 * h) && x.len().is_multiple_of(8));
        // SAFETY: `self` proves AVX2 + FMA; the assertions bound every access (see `stage`).
        unsafe { stage::<DIT>(x, h, w, p) }
    }

    /// Two stages in one pass over blocks of `4h` (radix 4): DIF the stage of half-length
    /// `2h` with the `2h` twiddles `outer`, then the stage `h` with the `h` twiddles `inner`;
    /// with `DIT` the stage `h` then `2h`. `h ≥ 4` a power of two, `x.len()` a multiple of
    /// `4h`.
    pub(crate) fn stage2<const DIT: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        p: f64,
    ) {
        assert!(h >= 4 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(x.len().is_multiple_of(4 * h));
        // SAFETY: `self` proves AVX2 + FMA; the assertions bound every access (see `stage2`).
        unsafe { stage2::<DIT>(x, h, outer, inner, p) }
    }

    /// The twiddle-free stage `h = 1`: `(a, b) → (a + b, a − b)` on adjacent pairs, for
    /// `x.len()` a multiple of 8.
    pub(crate) fn radix2(self, x: &mut [u64], p: f64) {
        assert!(x.len().is_multiple_of(8));
        // SAFETY: `self` proves AVX2 + FMA; the length is checked just above.
        unsafe { radix2(x, p) }
    }

    /// `x[i] = x[i]·y[i] mod p` (`y = None`: `x[i]²`), for `x.len()` a multiple of 4.
    pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: f64) {
        assert!(x.len().is_multiple_of(4) && y.is_none_or(|y| y.len() == x.len()));
        // SAFETY: `self` proves the CPU support; lengths checked just above.
        unsafe { pointwise(x, y, p) }
    }
}

impl Fma4 {
    /// `dst[i] = src[i] mod p` as `f64` bits, for equal lengths, multiples of 4.
    pub(crate) fn load(self, dst: &mut [u64], src: &[u64], p: f64) {
        assert!(dst.len() == src.len() && src.len().is_multiple_of(4));
        // SAFETY: `self` proves the CPU support; lengths checked just above.
        unsafe { load(dst, src, p) }
    }

    /// `x[i] = x[i]·s mod p` as a `u64` (from `f64` bits; `s < p` a plain residue), for
    /// `x.len()` a multiple of 4.
    pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
        assert!(x.len().is_multiple_of(4));
        // SAFETY: `self` proves the CPU support; the length is checked just above.
        unsafe { unload(x, s, p) }
    }
}

/// `2⁵²` as `f64` bits: `bits(2⁵² + k) = bits(2⁵²) + k` for integers `0 ≤ k < 2⁵²`.
const MAGIC: u64 = 0x4330_0000_0000_0000;

/// Register-only helpers: callers (inlined into the `target_feature` functions below) must
/// have AVX2 + FMA.
#[inline(always)]
unsafe fn mulmod(a: __m256d, b: __m256d, p: __m256d, pinv: __m256d) -> __m256d {
    // SAFETY: register-only AVX/FMA operations, enabled in the callers (all intrinsics).
    unsafe {
        let h = _mm256_mul_pd(a, b);
        let l = _mm256_fmsub_pd(a, b, h);
        let q = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm256_mul_pd(h, pinv),
        );
        _mm256_add_pd(_mm256_fnmadd_pd(q, p, h), l)
    }
}

/// `(−p, p)` to `[0, p)`.
#[inline(always)]
unsafe fn correct(r: __m256d, p: __m256d) -> __m256d {
    // SAFETY: register-only AVX operations.
    unsafe { _mm256_blendv_pd(r, _mm256_add_pd(r, p), r) }
}

#[inline(always)]
unsafe fn reduce(s: __m256d, p: __m256d, pinv: __m256d) -> __m256d {
    // SAFETY: register-only AVX/FMA operations.
    unsafe {
        let q = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm256_mul_pd(s, pinv),
        );
        _mm256_fnmadd_pd(q, p, s)
    }
}

/// The butterfly on vectors: DIF `(a + b, (a − b)·w)` or DIT `(a + b·w, a − b·w)`, all
/// outputs in `(−p, p)` (`LAZY`: the DIT outputs unreduced, in `(−1.875p, 1.875p)`).
#[inline(always)]
unsafe fn butterfly<const DIT: bool, const LAZY: bool>(
    a: __m256d,
    b: __m256d,
    w: __m256d,
    p: __m256d,
    pinv: __m256d,
) -> (__m256d, __m256d) {
    // SAFETY: register-only operations (see `mulmod`).
    unsafe {
        if DIT {
            let t = mulmod(b, w, p, pinv);
            let (s, d) = (_mm256_add_pd(a, t), _mm256_sub_pd(a, t));
            if LAZY { (s, d) } else { (reduce(s, p, pinv), reduce(d, p, pinv)) }
        } else {
            let s = reduce(_mm256_add_pd(a, b), p, pinv);
            (s, mulmod(_mm256_sub_pd(a, b), w, p, pinv))
        }
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of `2h` and of 8, `w.len() >= h`, `h ≥ 2` a
/// power of two.
#[target_feature(enable = "avx2,fma")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let wp = w.as_ptr().cast::<f64>();
    let n = x.len();
    if h >= 4 {
        let mut j = 0;
        while j < n {
            let mut i = 0;
            while i < h {
                // SAFETY: `j + 2h <= n` and `i + 4 <= h`, so both 4-lane accesses lie in
                // `x`; `i + 4 <= h <= w.len()`. `u64` and `f64` have the same size.
                unsafe {
                    let pa = base.add(j + i);
                    let pb = base.add(j + h + i);
                    let a = _mm256_loadu_pd(pa);
                    let b = _mm256_loadu_pd(pb);
                    let wv = _mm256_loadu_pd(wp.add(i));
                    let (s, d) = butterfly::<DIT, false>(a, b, wv, pv, piv);
                    _mm256_storeu_pd(pa, s);
                    _mm256_storeu_pd(pb, d);
                }
                i += 4;
            }
            j += 2 * h;
        }
        return;
    }
    // h = 2: v0 = [x0 x1 x2 x3], v1 = [x4 x5 x6 x7]; a = [x0 x1 x4 x5], b = [x2 x3 x6 x7],
    // twiddles [w0 w1 w0 w1]; the same permutes put the results back.
    let wv = _mm256_setr_pd(
        f64::from_bits(w[0]),
        f64::from_bits(w[1]),
        f64::from_bits(w[0]),
        f64::from_bits(w[1]),
    );
    let mut j = 0;
    while j < n {
        // SAFETY: `j + 8 <= n` (n is a multiple of 8).
        unsafe {
            let p0 = base.add(j);
            let p1 = base.add(j + 4);
            let v0 = _mm256_loadu_pd(p0);
            let v1 = _mm256_loadu_pd(p1);
            let a = _mm256_permute2f128_pd::<0x20>(v0, v1);
            let b = _mm256_permute2f128_pd::<0x31>(v0, v1);
            let (s, d) = butterfly::<DIT, false>(a, b, wv, pv, piv);
            _mm256_storeu_pd(p0, _mm256_permute2f128_pd::<0x20>(s, d));
            _mm256_storeu_pd(p1, _mm256_permute2f128_pd::<0x31>(s, d));
        }
        j += 8;
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of `4h`, `h ≥ 4` a power of two,
/// `outer.len() >= 2h`, `inner.len() >= h`.
#[target_feature(enable = "avx2,fma")]
unsafe fn stage2<const DIT: bool>(x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let (wo, wi) = (outer.as_ptr().cast::<f64>(), inner.as_ptr().cast::<f64>());
    let n = x.len();
    let mut j = 0;
    while j < n {
        let mut i = 0;
        while i < h {
            // SAFETY: `j + 4h <= n` and `i + 4 <= h`: the four 4-lane accesses lie in `x`;
            // `h + i + 4 <= 2h <= outer.len()`, `i + 4 <= h <= inner.len()`.
            unsafe {
                let p0 = base.add(j + i);
                let (p1, p2, p3) = (p0.add(h), p0.add(2 * h), p0.add(3 * h));
                let (a0, a1) = (_mm256_loadu_pd(p0), _mm256_loadu_pd(p1));
                let (a2, a3) = (_mm256_loadu_pd(p2), _mm256_loadu_pd(p3));
                let (o0, o1) = (_mm256_loadu_pd(wo.add(i)), _mm256_loadu_pd(wo.add(h + i)));
                let w = _mm256_loadu_pd(wi.add(i));
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
                _mm256_storeu_pd(p0, a0);
                _mm256_storeu_pd(p1, a1);
                _mm256_storeu_pd(p2, a2);
                _mm256_storeu_pd(p3, a3);
            }
            i += 4;
        }
        j += 4 * h;
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of 8.
#[target_feature(enable = "avx2,fma")]
unsafe fn radix2(x: &mut [u64], p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let mut j = 0;
    while j < x.len() {
        // SAFETY: `j + 8 <= x.len()`. v0 = [x0 x1 x2 x3], v1 = [x4 x5 x6 x7]:
        // a = [x0 x4 x2 x6], b = [x1 x5 x3 x7]; unpacking (s, d) restores the order.
        unsafe {
            let p0 = base.add(j);
            let p1 = base.add(j + 4);
            let v0 = _mm256_loadu_pd(p0);
            let v1 = _mm256_loadu_pd(p1);
            let a = _mm256_unpacklo_pd(v0, v1);
            let b = _mm256_unpackhi_pd(v0, v1);
            let s = reduce(_mm256_add_pd(a, b), pv, piv);
            let d = reduce(_mm256_sub_pd(a, b), pv, piv);
            _mm256_storeu_pd(p0, _mm256_unpacklo_pd(s, d));
            _mm256_storeu_pd(p1, _mm256_unpackhi_pd(s, d));
        }
        j += 8;
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of 4; `y`, if any, as long as `x`.
#[target_feature(enable = "avx2,fma")]
unsafe fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + 4 <= x.len()` (a multiple of 4), and `y.len() == x.len()`.
        unsafe {
            let px = x.as_mut_ptr().add(i).cast::<f64>();
            let a = _mm256_loadu_pd(px);
            let b = match y {
                Some(y) => _mm256_loadu_pd(y.as_ptr().add(i).cast()),
                None => a,
            };
            _mm256_storeu_pd(px, mulmod(a, b, pv, piv));
        }
        i += 4;
    }
}

/// # Safety
/// AVX2 and FMA available; `dst.len() == src.len()`, a multiple of 4.
#[target_feature(enable = "avx2,fma")]
unsafe fn load(dst: &mut [u64], src: &[u64], p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let two32 = _mm256_set1_pd(4_294_967_296.0); // 2³² < p
    let magic = _mm256_set1_epi64x(MAGIC as i64);
    let magic_pd = _mm256_castsi256_pd(magic);
    let low = _mm256_set1_epi64x(0xffff_ffff);
    let mut i = 0;
    while i < src.len() {
        // SAFETY: `i + 4 <= len` for both slices. x = hi·2³² + lo, with hi, lo < 2³² exact
        // as doubles (OR-ed into the mantissa of 2⁵², minus 2⁵²); hi·2³² mod p < p, plus lo
        // below 2p: one correction.
        unsafe {
            let x = _mm256_loadu_si256(src.as_ptr().add(i).cast());
            let lo = _mm256_or_si256(_mm256_and_si256(x, low), magic);
            let hi = _mm256_or_si256(_mm256_srli_epi64::<32>(x), magic);
            let lo = _mm256_sub_pd(_mm256_castsi256_pd(lo), magic_pd);
            let hi = _mm256_sub_pd(_mm256_castsi256_pd(hi), magic_pd);
            let r = correct(mulmod(hi, two32, pv, piv), pv);
            let t = _mm256_sub_pd(_mm256_add_pd(r, lo), pv);
            let r = correct(t, pv);
            _mm256_storeu_pd(dst.as_mut_ptr().add(i).cast(), r);
        }
        i += 4;
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of 4.
#[target_feature(enable = "avx2,fma")]
unsafe fn unload(x: &mut [u64], s: f64, p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let sv = _mm256_set1_pd(s);
    let magic = _mm256_set1_epi64x(MAGIC as i64);
    let magic_pd = _mm256_castsi256_pd(magic);
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + 4 <= x.len()`. The product is in [0, p), below 2⁵²: adding 2⁵²
        // puts it in the mantissa.
        unsafe {
            let px = x.as_mut_ptr().add(i);
            let v = correct(mulmod(_mm256_loadu_pd(px.cast()), sv, pv, piv), pv);
            let bits = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic_pd)), magic);
            _mm256_storeu_si256(px.cast(), bits);
        }
        i += 4;
    }
}

/// The constants of [`Fma::garner3`]: the primes `p₂`, `p₃` and, as balanced residues
/// (`|·| ≤ p/2`), `p₁⁻¹ mod p₂`, `p₁ mod p₃`, `(p₁p₂)⁻¹ mod p₃`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Garner3 {
    pub(crate) p2: f64,
    pub(crate) p3: f64,
    pub(crate) inv_p1_mod_p2: f64,
    pub(crate) p1_mod_p3: f64,
    pub(crate) inv_p1p2_mod_p3: f64,
}

impl Fma {
    /// Garner's mixed-radix digits of three residues `y_k < p_k` (plain `u64`; `p₁ < 2p₂`,
    /// `p₁ < 2p₃`, `p₂ < 2p₃`): `t2 = (y₂ − y₁)/p₁ mod p₂`, `t3 = (y₃ − y₁ − p₁t₂)/(p₁p₂) mod
    /// p₃`, both in `[0, p)`, for the first `4⌊len/4⌋` indices (returned); all slices as long
    /// as `y1`.
    pub(crate) fn garner3(
        self,
        [y1, y2, y3]: [&[u64]; 3],
        t2: &mut [u64],
        t3: &mut [u64],
        k: &Garner3,
    ) -> usize {
        let n = y1.len() & !3;
        assert!([y2.len(), y3.len(), t2.len(), t3.len()].iter().all(|&l| l >= n));
        // SAFETY: `self` proves AVX2 + FMA; every slice has at least `n` values.
        unsafe { garner3(n, [y1, y2, y3], t2, t3, k) };
        n
    }
}

/// # Safety
/// AVX2 and FMA available; `n` a multiple of 4, every slice at least `n` long.
#[target_feature(enable = "avx2,fma")]
unsafe fn garner3(
    n: usize,
    [y1, y2, y3]: [&[u64]; 3],
    t2: &mut [u64],
    t3: &mut [u64],
    k: &Garner3,
) {
    let (p2, p3) = (_mm256_set1_pd(k.p2), _mm256_set1_pd(k.p3));
    let (pinv2, pinv3) = (_mm256_set1_pd(1.0 / k.p2), _mm256_set1_pd(1.0 / k.p3));
    let inv12 = _mm256_set1_pd(k.inv_p1_mod_p2);
    let p1m3 = _mm256_set1_pd(k.p1_mod_p3);
    let inv123 = _mm256_set1_pd(k.inv_p1p2_mod_p3);
    let magic = _mm256_set1_epi64x(MAGIC as i64);
    let magic_pd = _mm256_castsi256_pd(magic);
    let to_f64 =
        |x: __m256i| _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, magic)), magic_pd);
    let to_u64 =
        |v: __m256d| _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic_pd)), magic);
    let mut i = 0;
    while i < n {
        // SAFETY: `i + 4 <= n` for every slice. The bounds (see the module docs for
        // `mulmod`'s `|a·b| < p²` and `reduce`'s `|s| < 4p`): `y₂ − y₁ ∈ (−2p₂, p₂)` times
        // `|p₁⁻¹| ≤ p₂/2`; `t₂ < p₂ < 2p₃` times `|p₁ mod p₃| ≤ p₃/2`; `u = y₁ + (−p₃, p₃)`
        // and `y₃ − u ∈ (−3p₃, 2p₃)`, reduced before its product.
        unsafe {
            let a1 = to_f64(_mm256_loadu_si256(y1.as_ptr().add(i).cast()));
            let a2 = to_f64(_mm256_loadu_si256(y2.as_ptr().add(i).cast()));
            let a3 = to_f64(_mm256_loadu_si256(y3.as_ptr().add(i).cast()));
            let d2 = mulmod(_mm256_sub_pd(a2, a1), inv12, p2, pinv2);
            let d2 = correct(d2, p2);
            let u = _mm256_add_pd(a1, mulmod(d2, p1m3, p3, pinv3));
            let d3 = reduce(_mm256_sub_pd(a3, u), p3, pinv3);
            let d3 = correct(mulmod(d3, inv123, p3, pinv3), p3);
            _mm256_storeu_si256(t2.as_mut_ptr().add(i).cast(), to_u64(d2));
            _mm256_storeu_si256(t3.as_mut_ptr().add(i).cast(), to_u64(d3));
        }
        i += 4;
    }
}
