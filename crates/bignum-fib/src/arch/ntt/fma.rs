//! The FMA engine's kernels in four lanes (AVX2 + FMA, x86-64-v3): [`Lanes`] for `__m256d`,
//! which instantiates the transform of `fmacore` (the arithmetic, its
//! representation and error bound are documented there), and the dispatcher [`Fma`] that
//! hands the longer stages to the eight-lane kernels of `fma512` where
//! AVX-512F may be used.
//!
//! Stages with half-length `h ≥ 4` pair whole vectors; `h = 2` regroups two vectors with
//! 128-bit lane permutes, and the twiddle-free `h = 1` stage with unpacks.

use core::arch::x86_64::*;

use super::fmacore::{self, Lanes};
pub(crate) use super::fmacore::{Garner3, Garner5};

nab_isa::token! {
    /// Proof that AVX2 and FMA may be used (x86-64-v3): the CPU (and the OS, for the ymm
    /// state) supports them and `NAB_MAX_ISA` allows them, or the build enables them. Only
    /// `Fma4::new` makes one.
    pub(crate) struct Fma4 = AVX2 | FMA;
}

/// The FMA engine's kernels: four lanes (AVX2 + FMA), and eight (`fma512`,
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

    /// Whether the eight-lane (AVX-512F) kernels run the long stages.
    pub(crate) fn has_avx512f(self) -> bool {
        self.v4.is_some()
    }

    /// One stage on blocks of `2h` (see [`Fma4::stage`]).
    pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
        match self.v4 {
            Some(t) if h >= 8 => t.stage::<DIT>(x, h, w, p),
            _ => self.v3.stage::<DIT>(x, h, w, p),
        }
    }

    /// Two stages in one pass (see [`Fma4::stage2`]).
    pub(crate) fn stage2<const DIT: bool, const LAZY: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        match self.v4 {
            Some(t) if h >= 8 => t.stage2::<DIT, LAZY>(x, h, outer, inner, cube, p),
            _ => self.v3.stage2::<DIT, LAZY>(x, h, outer, inner, cube, p),
        }
    }

    /// The stages `h = 2` and `h = 1` in one pass (see [`Fma4::tail4`]).
    pub(crate) fn tail4<const DIT: bool>(self, x: &mut [u64], w: &[u64], p: f64) {
        self.v3.tail4::<DIT>(x, w, p);
    }

    /// The forward two stages of one block whose upper half is zero (see
    /// [`Fma4::stage2_lower_half`]).
    pub(crate) fn stage2_lower_half(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        match self.v4 {
            Some(t) if h >= 8 => t.stage2_lower_half(x, h, outer, inner, cube, p),
            _ => self.v3.stage2_lower_half(x, h, outer, inner, cube, p),
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

    /// `out[i] = s·(a[i] + t·y[i]) mod p` (see `fmacore::comb`; `a = None`: in place,
    /// `out[i]` for `a[i]`) for the first `4⌊len/4⌋` values of `out` (returned; the
    /// tail is the caller's); `a` and `y` at least as long as `out`.
    pub(crate) fn comb(
        self,
        out: &mut [u64],
        a: Option<&[u64]>,
        y: Option<&[u64]>,
        t: f64,
        s: f64,
        p: f64,
    ) -> usize {
        if let Some(t8) = self.v4 {
            return t8.comb(out, a, y, t, s, p); // the tail of at most 7 is the caller's
        }
        let n = out.len() & !3;
        assert!(a.is_none_or(|a| a.len() >= n) && y.is_none_or(|y| y.len() >= n));
        let o = out.as_mut_ptr();
        let a = a.map_or(o.cast_const(), <[u64]>::as_ptr);
        // SAFETY: `self` proves AVX2 + FMA; `n` is a multiple of 4 within every slice (checked
        // above), and `out`, a `&mut`, overlaps nothing else (`a` is it or another slice).
        unsafe { comb(n, o, a, y.map(<[u64]>::as_ptr), t, s, p) };
        n
    }

    /// The truncated products' fold (`fmacore::fold`): `out[i] = (lo[i] + α·hi[i])·w[i]`
    /// and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `lo` is `d`, updated in place),
    /// for the first `4⌊len/4⌋` values of `out` (returned; the tail is the caller's);
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
        if let Some(t8) = self.v4 {
            return t8.fold(out, d, lo, hi, alpha, w, p); // the tail of at most 7 is the caller's
        }
        let n = out.len() & !3;
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
        // SAFETY: `self` proves AVX2 + FMA; `n` is a multiple of 4 within every slice (checked
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
    /// with `DIT` the stage `h` then `2h`; DIF takes the `h` twiddles `cube` too (`W^3i`,
    /// see `fmacore::stage2`). `h ≥ 4` a power of two, `x.len()` a multiple of `4h`.
    pub(crate) fn stage2<const DIT: bool, const LAZY: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        assert!(h >= 4 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(
            DIT || cube.is_empty() || cube.len() >= h,
            "stage2: {} cube twiddles, h = {h}",
            cube.len()
        );
        assert!(x.len().is_multiple_of(4 * h));
        // SAFETY: `self` proves AVX2 + FMA; the assertions bound every access (see `stage2`).
        unsafe { stage2::<DIT, LAZY>(x, h, outer, inner, cube, p) }
    }

    /// The stages `h = 2` (twiddles `w[..2]`, `w[0]` the twiddle 1, as the tables' `w_4⁰`
    /// is) and `h = 1` in one pass over blocks of four: forward (DIF) `h = 2` then `h = 1`,
    /// inverse (`DIT`) `h = 1` then `h = 2`, as [`Fma4::stage`] and [`Fma4::radix2`] one
    /// after the other but without the product by `w[0] = 1` and with fewer reductions (the
    /// same residues: forward in `[−p/2, p/2]` give or take one, inverse in `(−1.75p, 1.75p)`).
    /// `x.len()` a multiple of 16.
    pub(crate) fn tail4<const DIT: bool>(self, x: &mut [u64], w: &[u64], p: f64) {
        assert!(x.len().is_multiple_of(16) && w.len() >= 2);
        assert!(f64::from_bits(w[0]) == 1.0, "tail4: the first twiddle must be 1");
        // SAFETY: `self` proves AVX2 + FMA; the assertion is `tail4`'s contract.
        unsafe { tail4::<DIT>(x, w, p) }
    }

    /// The forward two stages of one block whose upper half is zero (not read; see
    /// `fmacore::stage2_lower_half`, with the `cube` twiddles of `fmacore::stage2`): `h ≥ 4`
    /// a power of two, `x.len() == 4h`.
    pub(crate) fn stage2_lower_half(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        assert!(h >= 4 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(cube.len() >= h, "stage2_lower_half: {} cube twiddles for h = {h}", cube.len());
        assert!(x.len() == 4 * h);
        // SAFETY: `self` proves AVX2 + FMA; the assertions are the kernel's contract.
        unsafe { stage2_lower_half(x, h, outer, inner, cube, p) }
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

    /// `x[i] = x[i]·s mod p` as a `u64` (from `f64` bits, `|x[i]| < 2p`; `|s| ≤ p/2`), for
    /// `x.len()` a multiple of 4.
    pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
        assert!(x.len().is_multiple_of(4));
        // SAFETY: `self` proves the CPU support; the length is checked just above.
        unsafe { unload(x, s, p) }
    }
}

/// `2⁵²` as `f64` bits: `bits(2⁵² + k) = bits(2⁵²) + k` for integers `0 ≤ k < 2⁵²`.
const MAGIC: u64 = 0x4330_0000_0000_0000;

// SAFETY: every method is an AVX/AVX2/FMA intrinsic (or a few), run only inlined into the
// `#[target_feature(enable = "avx2,fma")]` functions below, which `Fma4` guards; the loads
// and stores take four values at the pointer, as the trait requires of its callers.
unsafe impl Lanes for __m256d {
    const N: usize = 4;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: register-only AVX operation (see the impl).
        unsafe { _mm256_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller gives four readable values at `p`.
        unsafe { _mm256_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f64, v: Self) {
        // SAFETY: the caller gives four writable values at `p`.
        unsafe { _mm256_storeu_pd(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX operation.
        unsafe { _mm256_add_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX operation.
        unsafe { _mm256_sub_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: Self, b: Self) -> Self {
        // SAFETY: register-only AVX operation.
        unsafe { _mm256_mul_pd(a, b) }
    }
    #[inline(always)]
    unsafe fn fmsub(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only FMA operation.
        unsafe { _mm256_fmsub_pd(a, b, c) }
    }
    #[inline(always)]
    unsafe fn fnmadd(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only FMA operation.
        unsafe { _mm256_fnmadd_pd(a, b, c) }
    }
    #[inline(always)]
    unsafe fn round(a: Self) -> Self {
        // SAFETY: register-only AVX operation.
        unsafe { _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(a) }
    }
    #[inline(always)]
    unsafe fn correct(r: Self, p: Self) -> Self {
        // SAFETY: register-only AVX operations (a blend on the sign bit).
        unsafe { _mm256_blendv_pd(r, _mm256_add_pd(r, p), r) }
    }
    #[inline(always)]
    unsafe fn load_u52(p: *const u64) -> Self {
        // SAFETY: the caller gives four readable values at `p`. Below 2⁵², OR-ed into the
        // mantissa of 2⁵², minus 2⁵².
        unsafe {
            let magic = _mm256_set1_epi64x(MAGIC as i64);
            let x = _mm256_or_si256(_mm256_loadu_si256(p.cast()), magic);
            _mm256_sub_pd(_mm256_castsi256_pd(x), _mm256_castsi256_pd(magic))
        }
    }
    #[inline(always)]
    unsafe fn store_u52(p: *mut u64, v: Self) {
        // SAFETY: the caller gives four writable values at `p`. An integer in [0, 2⁵²) plus
        // 2⁵² is in the mantissa.
        unsafe {
            let magic = _mm256_set1_epi64x(MAGIC as i64);
            let bits = _mm256_sub_epi64(
                _mm256_castpd_si256(_mm256_add_pd(v, _mm256_castsi256_pd(magic))),
                magic,
            );
            _mm256_storeu_si256(p.cast(), bits);
        }
    }
    #[inline(always)]
    unsafe fn load_halves(p: *const u64) -> (Self, Self) {
        // SAFETY: the caller gives four readable values at `p`. Each half, below 2³², OR-ed
        // into the mantissa of 2⁵², minus 2⁵².
        unsafe {
            let magic = _mm256_set1_epi64x(MAGIC as i64);
            let magic_pd = _mm256_castsi256_pd(magic);
            let x = _mm256_loadu_si256(p.cast());
            let lo = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0xffff_ffff)), magic);
            let hi = _mm256_or_si256(_mm256_srli_epi64::<32>(x), magic);
            (
                _mm256_sub_pd(_mm256_castsi256_pd(hi), magic_pd),
                _mm256_sub_pd(_mm256_castsi256_pd(lo), magic_pd),
            )
        }
    }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of `2h` and of 8, `w.len() >= h`, `h ≥ 2` a
/// power of two.
#[target_feature(enable = "avx2,fma")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    if h >= 4 {
        // SAFETY: the caller's contract, with `h ≥ 4 = N`.
        unsafe { fmacore::stage::<__m256d, DIT>(x, h, w, p) };
        return;
    }
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    // h = 2: v0 = [x0 x1 x2 x3], v1 = [x4 x5 x6 x7]; a = [x0 x1 x4 x5], b = [x2 x3 x6 x7],
    // twiddles [w0 w1 w0 w1]; the same permutes put the results back.
    let wv = _mm256_setr_pd(
        f64::from_bits(w[0]),
        f64::from_bits(w[1]),
        f64::from_bits(w[0]),
        f64::from_bits(w[1]),
    );
    let mut j = 0;
    while j < x.len() {
        // SAFETY: `j + 8 <= x.len()` (a multiple of 8).
        unsafe {
            let p0 = base.add(j);
            let p1 = base.add(j + 4);
            let v0 = _mm256_loadu_pd(p0);
            let v1 = _mm256_loadu_pd(p1);
            let a = _mm256_permute2f128_pd::<0x20>(v0, v1);
            let b = _mm256_permute2f128_pd::<0x31>(v0, v1);
            let (s, d) = fmacore::butterfly::<__m256d, DIT, false>(a, b, wv, pv, piv);
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
unsafe fn stage2<const DIT: bool, const LAZY: bool>(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract, with `h ≥ 4 = N`.
    unsafe { fmacore::stage2::<__m256d, DIT, LAZY>(x, h, outer, inner, cube, p) }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of 16, `w.len() >= 2` (`w[0]`, the twiddle
/// 1, is not read).
#[target_feature(enable = "avx2,fma")]
unsafe fn tail4<const DIT: bool>(x: &mut [u64], w: &[u64], p: f64) {
    let pv = _mm256_set1_pd(p);
    let piv = _mm256_set1_pd(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let w1 = _mm256_set1_pd(f64::from_bits(w[1]));
    let w1q = _mm256_mul_pd(w1, piv); // its quotient, for `mulmod_q`
    // The 4×4 transpose of four vectors (an involution): rows ↔ columns.
    let transpose = |r: [__m256d; 4]| {
        let t0 = _mm256_unpacklo_pd(r[0], r[1]);
        let t1 = _mm256_unpackhi_pd(r[0], r[1]);
        let t2 = _mm256_unpacklo_pd(r[2], r[3]);
        let t3 = _mm256_unpackhi_pd(r[2], r[3]);
        [
            _mm256_permute2f128_pd::<0x20>(t0, t2),
            _mm256_permute2f128_pd::<0x20>(t1, t3),
            _mm256_permute2f128_pd::<0x31>(t0, t2),
            _mm256_permute2f128_pd::<0x31>(t1, t3),
        ]
    };
    let mut j = 0;
    while j < x.len() {
        // SAFETY: `j + 16 <= x.len()` (a multiple of 16): four blocks of four, transposed
        // so that vector `k` holds value `k` of each block, and the butterflies between
        // vectors are those of `stage` (h = 2) and `radix2` (h = 1) lane by lane.
        unsafe {
            let p = base.add(j);
            let c = transpose([
                _mm256_loadu_pd(p),
                _mm256_loadu_pd(p.add(4)),
                _mm256_loadu_pd(p.add(8)),
                _mm256_loadu_pd(p.add(12)),
            ]);
            let red = |s: __m256d| fmacore::reduce(s, pv, piv);
            // The twiddles of `h = 2` are `w[0] = 1` (no product) and `w[1]`; of `h = 1`,
            // none. Bounds (`fmacore`'s): every input in `(−2p, 2p)`, a lazy sum or
            // difference of two in `(−4p, 4p)`, a product by `|w₁| ≤ p/2` of one of those
            // below `2p²`: `mulmod` in `(−1.25p, 1.25p)`; `reduce` takes `|s| < 8p`, and
            // every sum it is given is below `4p + 4p` or `4p + 1.25p`.
            let y = if DIT {
                // h = 1 lazy: u0..u3 in `(−4p, 4p)`; h = 2: `u0 ± u2`, `u1 ± u3·w₁` from u0, u1,
                // u2 reduced (`[−p/2, p/2]` give or take one) and `|u3·w₁| < 2p²`
                // (`(−1.25p, 1.25p)`): the outputs in `(−1.75p, 1.75p)`, with three
                // reductions where reducing the four outputs took four.
                let (u0, u1) = (red(_mm256_add_pd(c[0], c[1])), red(_mm256_sub_pd(c[0], c[1])));
                let (u2, u3) = (red(_mm256_add_pd(c[2], c[3])), _mm256_sub_pd(c[2], c[3]));
                let t = fmacore::mulmod_q(u3, w1, w1q, pv);
                [
                    _mm256_add_pd(u0, u2),
                    _mm256_add_pd(u1, t),
                    _mm256_sub_pd(u0, u2),
                    _mm256_sub_pd(u1, t),
                ]
            } else {
                // h = 2 lazy: e0, e1, e2 in `(−4p, 4p)`, e3 = (c1 − c3)·w₁; h = 1: `e0 ± e1`,
                // `e2 ± e3`.
                let (e0, e2) = (_mm256_add_pd(c[0], c[2]), _mm256_sub_pd(c[0], c[2]));
                let e1 = _mm256_add_pd(c[1], c[3]);
                let e3 = fmacore::mulmod_q(_mm256_sub_pd(c[1], c[3]), w1, w1q, pv);
                [
                    red(_mm256_add_pd(e0, e1)),
                    red(_mm256_sub_pd(e0, e1)),
                    red(_mm256_add_pd(e2, e3)),
                    red(_mm256_sub_pd(e2, e3)),
                ]
            };
            let r = transpose(y);
            _mm256_storeu_pd(p, r[0]);
            _mm256_storeu_pd(p.add(4), r[1]);
            _mm256_storeu_pd(p.add(8), r[2]);
            _mm256_storeu_pd(p.add(12), r[3]);
        }
        j += 16;
    }
}

/// # Safety
/// AVX2 and FMA available; `fmacore::stage2_lower_half`'s contract with `N = 4`.
#[target_feature(enable = "avx2,fma")]
unsafe fn stage2_lower_half(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::stage2_lower_half::<__m256d>(x, h, outer, inner, cube, p) }
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
            let s = fmacore::reduce(_mm256_add_pd(a, b), pv, piv);
            let d = fmacore::reduce(_mm256_sub_pd(a, b), pv, piv);
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
    // SAFETY: the caller's contract (`N = 4`).
    unsafe { fmacore::pointwise::<__m256d>(x, y, p) }
}

/// # Safety
/// AVX2 and FMA available; `fmacore::fold`'s contract with `N = 4`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[target_feature(enable = "avx2,fma")]
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
    unsafe { fmacore::fold::<__m256d, D>(n, out, d, lo, hi, alpha, w, p) }
}

/// # Safety
/// AVX2 and FMA available; `fmacore::comb`'s contract with `N = 4`.
#[target_feature(enable = "avx2,fma")]
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
    unsafe { fmacore::comb::<__m256d>(n, out, a, y, t, s, p) }
}

/// # Safety
/// AVX2 and FMA available; `dst.len() == src.len()`, a multiple of 4.
#[target_feature(enable = "avx2,fma")]
unsafe fn load(dst: &mut [u64], src: &[u64], p: f64) {
    // SAFETY: the caller's contract (`N = 4`).
    unsafe { fmacore::load::<__m256d>(dst, src, p) }
}

/// # Safety
/// AVX2 and FMA available; `x.len()` a multiple of 4.
#[target_feature(enable = "avx2,fma")]
unsafe fn unload(x: &mut [u64], s: f64, p: f64) {
    // SAFETY: the caller's contract (`N = 4`).
    unsafe { fmacore::unload::<__m256d>(x, s, p) }
}

impl Fma {
    /// Garner's mixed-radix digits (see `fmacore::garner3`) for the first `4⌊len/4⌋`
    /// indices (returned); all slices as long as `y1`.
    pub(crate) fn garner3(
        self,
        y: [&[u64]; 3],
        t2: &mut [u64],
        t3: &mut [u64],
        k: &Garner3,
    ) -> usize {
        let n = y[0].len() & !3;
        assert!([y[1].len(), y[2].len(), t2.len(), t3.len()].iter().all(|&l| l >= n));
        // SAFETY: `self` proves AVX2 + FMA; every slice has at least `n` values.
        unsafe { garner3(n, y, t2, t3, k) };
        n
    }
}

/// # Safety
/// AVX2 and FMA available; `n` a multiple of 4, every slice at least `n` long.
#[target_feature(enable = "avx2,fma")]
unsafe fn garner3(n: usize, y: [&[u64]; 3], t2: &mut [u64], t3: &mut [u64], k: &Garner3) {
    // SAFETY: the caller's contract (`N = 4`).
    unsafe { fmacore::garner3::<__m256d>(n, y, t2, t3, k) }
}

impl Fma {
    /// The wide products' loading (`fmacore::load_wide`) of the first `4⌊len/4⌋` values of
    /// `dst` (`8⌊len/8⌋` with AVX-512F; returned); `lo` and `hi` at least as long.
    pub(crate) fn load_wide(
        self,
        dst: &mut [u64],
        lo: &[u64],
        hi: &[u64],
        k: f64,
        p: f64,
    ) -> usize {
        if let Some(t) = self.v4 {
            return t.load_wide(dst, lo, hi, k, p); // the tail of at most 7 is the caller's
        }
        let n = dst.len() & !3;
        assert!(lo.len() >= n && hi.len() >= n);
        // SAFETY: `self` proves AVX2 + FMA; every slice has at least `n` values.
        unsafe { load_wide(n, dst, lo, hi, k, p) };
        n
    }

    /// Garner's digits of five residues (`fmacore::garner5`), in place, for the first
    /// `4⌊len/4⌋` indices of `y[0]` (`8⌊len/8⌋` with AVX-512F; returned); every slice at
    /// least as long.
    pub(crate) fn garner5(self, y: [&mut [u64]; 5], k: &Garner5) -> usize {
        if let Some(t) = self.v4 {
            return t.garner5(y, k); // the tail of at most 7 is the caller's
        }
        let n = y[0].len() & !3;
        assert!(y.iter().all(|s| s.len() >= n));
        // SAFETY: `self` proves the CPU support; every slice has at least `n` values.
        unsafe { garner5(n, y, k) };
        n
    }
}

/// # Safety
/// AVX2 and FMA available; `fmacore::load_wide`'s contract with `N = 4`.
#[target_feature(enable = "avx2,fma")]
unsafe fn load_wide(n: usize, dst: &mut [u64], lo: &[u64], hi: &[u64], k: f64, p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::load_wide::<__m256d>(n, dst, lo, hi, k, p) }
}

/// # Safety
/// AVX2 and FMA available; `fmacore::garner5`'s contract with `N = 4`.
#[target_feature(enable = "avx2,fma")]
unsafe fn garner5(n: usize, y: [&mut [u64]; 5], k: &Garner5) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::garner5::<__m256d>(n, y, k) }
}
