//! The FMA engine's kernels in two lanes (aarch64 NEON, `float64x2_t`): [`Lanes`] for
//! `float64x2_t`, which instantiates the transform of `fmacore` (the
//! arithmetic, its representation and error bound are documented there) with `fmla`/`fmls`
//! (`vfmaq_f64`/`vfmsq_f64`) for the fused products and `frintn` (`vrndnq_f64`) for the
//! rounding. NEON is part of the aarch64 base ISA (Rust's aarch64 targets enable it), so the
//! engine is chosen at compile time, as `b64`'s and `memops`' NEON kernels are, and
//! `NAB_MAX_ISA` does not remove it (`--cfg bignum_fib_backend="portable"` does).
//!
//! Stages with half-length `h ≥ 2` pair whole vectors; the twiddle-free `h = 1` stage
//! regroups two vectors with `zip1`/`zip2`.

use core::arch::aarch64::*;

use super::fmacore::{self, Lanes};
pub(crate) use super::fmacore::{Garner3, Garner5};

/// The NEON FMA engine's token: NEON is enabled at compile time on every aarch64 target
/// Rust has, so the token exists whenever the build has `neon`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fma(());

impl Fma {
    /// The engine, when the build enables NEON (always, on Rust's aarch64 targets).
    #[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
    pub(crate) fn new() -> Option<Fma> {
        cfg!(target_feature = "neon").then_some(Fma(()))
    }

    /// The same kernels (there is one width here; the x86 engine's `narrow` drops AVX-512).
    #[cfg(test)]
    pub(crate) fn narrow(self) -> Fma {
        self
    }

    /// One stage on blocks of `2h` (`fmacore::stage`): `h ≥ 2` a power of two, `w.len() >=
    /// h`, `x.len()` a multiple of `2h`.
    pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
        assert!(h >= 2 && h.is_power_of_two() && w.len() >= h);
        assert!(x.len().is_multiple_of(2 * h));
        // SAFETY: `self` proves NEON; the assertions are `fmacore::stage`'s contract (N = 2).
        unsafe { stage::<DIT>(x, h, w, p) }
    }

    /// Two stages in one pass over blocks of `4h` (`fmacore::stage2`): `h ≥ 2` a power of
    /// two, `outer.len() >= 2h`, `inner.len() >= h`, for DIF `cube.len() >= h`, `x.len()` a
    /// multiple of `4h`.
    pub(crate) fn stage2<const DIT: bool, const LAZY: bool>(
        self,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
        p: f64,
    ) {
        assert!(h >= 2 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(
            DIT || cube.is_empty() || cube.len() >= h,
            "stage2: {} cube twiddles, h = {h}",
            cube.len()
        );
        assert!(x.len().is_multiple_of(4 * h));
        // SAFETY: `self` proves NEON; the assertions are `fmacore::stage2`'s contract.
        unsafe { stage2::<DIT, LAZY>(x, h, outer, inner, cube, p) }
    }

    /// The stages `h = 2` (twiddles `w[..2]`) and `h = 1`: forward (DIF) `h = 2` then
    /// `h = 1`, inverse (`DIT`) `h = 1` then `h = 2` (two passes here; one with AVX2).
    /// `x.len()` a multiple of 16.
    pub(crate) fn tail4<const DIT: bool>(self, x: &mut [u64], w: &[u64], p: f64) {
        if DIT {
            self.radix2(x, p);
            self.stage::<true>(x, 2, w, p);
        } else {
            self.stage::<false>(x, 2, w, p);
            self.radix2(x, p);
        }
    }

    /// The forward two stages of one block whose upper half is zero (not read; see
    /// `fmacore::stage2_lower_half`, with the `cube` twiddles of `fmacore::stage2`): `h ≥ 2`
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
        assert!(h >= 2 && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
        assert!(cube.len() >= h, "stage2_lower_half: {} cube twiddles for h = {h}", cube.len());
        assert!(x.len() == 4 * h);
        // SAFETY: `self` proves NEON; the assertions are the kernel's contract.
        unsafe { stage2_lower_half(x, h, outer, inner, cube, p) }
    }

    /// The twiddle-free stage `h = 1`: `(a, b) → (a + b, a − b)` on adjacent pairs, for
    /// `x.len()` a multiple of 4.
    pub(crate) fn radix2(self, x: &mut [u64], p: f64) {
        assert!(x.len().is_multiple_of(4));
        // SAFETY: `self` proves NEON; the length is checked just above.
        unsafe { radix2(x, p) }
    }

    /// `x[i] = x[i]·y[i] mod p` (`y = None`: `x[i]²`), for `x.len()` even.
    pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: f64) {
        assert!(x.len().is_multiple_of(2) && y.is_none_or(|y| y.len() == x.len()));
        // SAFETY: `self` proves NEON; lengths checked just above.
        unsafe { pointwise(x, y, p) }
    }

    /// `out[i] = s·(a[i] + t·y[i]) mod p` (see `fmacore::comb`; `a = None`: in place,
    /// `out[i]` for `a[i]`) for the first `2⌊len/2⌋` values of `out` (returned; the
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
        let n = out.len() & !1;
        assert!(a.is_none_or(|a| a.len() >= n) && y.is_none_or(|y| y.len() >= n));
        let o = out.as_mut_ptr();
        let a = a.map_or(o.cast_const(), <[u64]>::as_ptr);
        // SAFETY: `self` proves NEON; `n` is a multiple of 2 within every slice (checked
        // above), and `out`, a `&mut`, overlaps nothing else (`a` is it or another slice).
        unsafe { comb(n, o, a, y.map(<[u64]>::as_ptr), t, s, p) };
        n
    }

    /// The truncated products' fold (`fmacore::fold`): `out[i] = (lo[i] + α·hi[i])·w[i]`
    /// and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `lo` is `d`, updated in place),
    /// for the first `2⌊len/2⌋` values of `out` (returned; the tail is the caller's);
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
        let n = out.len() & !1;
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
        // SAFETY: `self` proves NEON; `n` is a multiple of 2 within every slice (checked
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

    /// `dst[i] = src[i] mod p` as `f64` bits, for equal even lengths.
    pub(crate) fn load(self, dst: &mut [u64], src: &[u64], p: f64) {
        assert!(dst.len() == src.len() && src.len().is_multiple_of(2));
        // SAFETY: `self` proves NEON; lengths checked just above.
        unsafe { load(dst, src, p) }
    }

    /// `x[i] = x[i]·s mod p` as a `u64` (`|x[i]| < 2p`, `|s| ≤ p/2`), for `x.len()` even.
    pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
        assert!(x.len().is_multiple_of(2));
        // SAFETY: `self` proves NEON; the length is checked just above.
        unsafe { unload(x, s, p) }
    }

    /// Garner's mixed-radix digits (`fmacore::garner3`) for the first `2⌊len/2⌋` indices
    /// (returned); all slices at least as long as `y1`.
    pub(crate) fn garner3(
        self,
        y: [&[u64]; 3],
        t2: &mut [u64],
        t3: &mut [u64],
        k: &Garner3,
    ) -> usize {
        let n = y[0].len() & !1;
        assert!([y[1].len(), y[2].len(), t2.len(), t3.len()].iter().all(|&l| l >= n));
        // SAFETY: `self` proves NEON; every slice has at least `n` values.
        unsafe { garner3(n, y, t2, t3, k) };
        n
    }
}

// SAFETY: every method is a NEON intrinsic (or a few), run only inlined into the
// `#[target_feature(enable = "neon")]` functions below, which `Fma` guards; the loads and
// stores take two values at the pointer, as the trait requires of its callers.
unsafe impl Lanes for float64x2_t {
    const N: usize = 2;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: register-only NEON operation (see the impl).
        unsafe { vdupq_n_f64(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller gives two readable values at `p`.
        unsafe { vld1q_f64(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f64, v: Self) {
        // SAFETY: the caller gives two writable values at `p`.
        unsafe { vst1q_f64(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: register-only NEON operation.
        unsafe { vaddq_f64(a, b) }
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        // SAFETY: register-only NEON operation.
        unsafe { vsubq_f64(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: Self, b: Self) -> Self {
        // SAFETY: register-only NEON operation.
        unsafe { vmulq_f64(a, b) }
    }
    #[inline(always)]
    unsafe fn fmsub(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only NEON operations: `−c + a·b`, one rounding (`fmla`; the
        // negation is exact).
        unsafe { vfmaq_f64(vnegq_f64(c), a, b) }
    }
    #[inline(always)]
    unsafe fn fnmadd(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only NEON operation: `c − a·b`, one rounding (`fmls`).
        unsafe { vfmsq_f64(c, a, b) }
    }
    #[inline(always)]
    unsafe fn round(a: Self) -> Self {
        // SAFETY: register-only NEON operation (`frintn`: to nearest, ties to even).
        unsafe { vrndnq_f64(a) }
    }
    #[inline(always)]
    unsafe fn correct(r: Self, p: Self) -> Self {
        // SAFETY: register-only NEON operations: the lanes below zero take `r + p`.
        unsafe { vbslq_f64(vcltzq_f64(r), vaddq_f64(r, p), r) }
    }
    #[inline(always)]
    unsafe fn load_u52(p: *const u64) -> Self {
        // SAFETY: the caller gives two readable values at `p`; below 2⁵², exact as doubles.
        unsafe { vcvtq_f64_u64(vld1q_u64(p)) }
    }
    #[inline(always)]
    unsafe fn store_u52(p: *mut u64, v: Self) {
        // SAFETY: the caller gives two writable values at `p`; integers in [0, 2⁵²) convert
        // exactly.
        unsafe { vst1q_u64(p, vcvtq_u64_f64(v)) }
    }
    #[inline(always)]
    unsafe fn load_halves(p: *const u64) -> (Self, Self) {
        // SAFETY: the caller gives two readable values at `p`; halves below 2³² are exact.
        unsafe {
            let x = vld1q_u64(p);
            let lo = vandq_u64(x, vdupq_n_u64(0xffff_ffff));
            (vcvtq_f64_u64(vshrq_n_u64::<32>(x)), vcvtq_f64_u64(lo))
        }
    }
}

/// # Safety
/// NEON available; `fmacore::stage`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::stage::<float64x2_t, DIT>(x, h, w, p) }
}

/// # Safety
/// NEON available; `fmacore::stage2_lower_half`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn stage2_lower_half(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::stage2_lower_half::<float64x2_t>(x, h, outer, inner, cube, p) }
}

/// # Safety
/// NEON available; `fmacore::stage2`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn stage2<const DIT: bool, const LAZY: bool>(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::stage2::<float64x2_t, DIT, LAZY>(x, h, outer, inner, cube, p) }
}

/// # Safety
/// NEON available; `x.len()` a multiple of 4.
#[target_feature(enable = "neon")]
unsafe fn radix2(x: &mut [u64], p: f64) {
    let pv = vdupq_n_f64(p);
    let piv = vdupq_n_f64(1.0 / p);
    let base = x.as_mut_ptr().cast::<f64>();
    let mut j = 0;
    while j < x.len() {
        // SAFETY: `j + 4 <= x.len()`. v0 = [x0 x1], v1 = [x2 x3]: a = [x0 x2], b = [x1 x3];
        // zipping (s, d) restores the order.
        unsafe {
            let p0 = base.add(j);
            let p1 = base.add(j + 2);
            let (v0, v1) = (vld1q_f64(p0), vld1q_f64(p1));
            let (a, b) = (vzip1q_f64(v0, v1), vzip2q_f64(v0, v1));
            let s = fmacore::reduce(vaddq_f64(a, b), pv, piv);
            let d = fmacore::reduce(vsubq_f64(a, b), pv, piv);
            vst1q_f64(p0, vzip1q_f64(s, d));
            vst1q_f64(p1, vzip2q_f64(s, d));
        }
        j += 4;
    }
}

/// # Safety
/// NEON available; `fmacore::pointwise`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::pointwise::<float64x2_t>(x, y, p) }
}

/// # Safety
/// NEON available; `fmacore::fold`'s contract with `N = 2`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[target_feature(enable = "neon")]
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
    unsafe { fmacore::fold::<float64x2_t, D>(n, out, d, lo, hi, alpha, w, p) }
}

/// # Safety
/// NEON available; `fmacore::comb`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
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
    unsafe { fmacore::comb::<float64x2_t>(n, out, a, y, t, s, p) }
}

/// # Safety
/// NEON available; `fmacore::load`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn load(dst: &mut [u64], src: &[u64], p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::load::<float64x2_t>(dst, src, p) }
}

/// # Safety
/// NEON available; `fmacore::unload`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn unload(x: &mut [u64], s: f64, p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::unload::<float64x2_t>(x, s, p) }
}

/// # Safety
/// NEON available; `fmacore::garner3`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn garner3(n: usize, y: [&[u64]; 3], t2: &mut [u64], t3: &mut [u64], k: &Garner3) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::garner3::<float64x2_t>(n, y, t2, t3, k) }
}

impl Fma {
    /// The wide products' loading (`fmacore::load_wide`) of the first `2⌊len/2⌋` values of
    /// `dst` (returned); `lo` and `hi` at least as long.
    pub(crate) fn load_wide(
        self,
        dst: &mut [u64],
        lo: &[u64],
        hi: &[u64],
        k: f64,
        p: f64,
    ) -> usize {
        let n = dst.len() & !1;
        assert!(lo.len() >= n && hi.len() >= n);
        // SAFETY: `self` proves NEON; every slice has at least `n` values.
        unsafe { load_wide(n, dst, lo, hi, k, p) };
        n
    }

    /// Garner's digits of five residues (`fmacore::garner5`), in place, for the first
    /// `2⌊len/2⌋` indices of `y[0]` (returned); every slice at least as long.
    pub(crate) fn garner5(self, y: [&mut [u64]; 5], k: &Garner5) -> usize {
        let n = y[0].len() & !1;
        assert!(y.iter().all(|s| s.len() >= n));
        // SAFETY: `self` proves the CPU support; every slice has at least `n` values.
        unsafe { garner5(n, y, k) };
        n
    }
}

/// # Safety
/// NEON available; `fmacore::load_wide`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn load_wide(n: usize, dst: &mut [u64], lo: &[u64], hi: &[u64], k: f64, p: f64) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::load_wide::<float64x2_t>(n, dst, lo, hi, k, p) }
}

/// # Safety
/// NEON available; `fmacore::garner5`'s contract with `N = 2`.
#[target_feature(enable = "neon")]
unsafe fn garner5(n: usize, y: [&mut [u64]; 5], k: &Garner5) {
    // SAFETY: the caller's contract.
    unsafe { fmacore::garner5::<float64x2_t>(n, y, k) }
}
