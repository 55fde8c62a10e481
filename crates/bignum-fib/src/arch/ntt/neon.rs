//! The FMA engine's kernels in two lanes (aarch64 NEON, `float64x2_t`): `fmacore::Lanes` for
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

use super::fmacore;

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
}

fmacore::fma_entry_points! {
    token: Fma,
    lanes: float64x2_t,
    feature: "neon",
    stage_min_h: 2,
    generic: [
        stage, stage2, stage2_lower_half, radix2, pointwise, load, unload, comb, fold, garner3,
        load_wide, garner5,
    ],
    own: [],
}

fmacore::lanes! {
    float64x2_t, 2,
    splat: vdupq_n_f64, load: vld1q_f64, store: vst1q_f64,
    add: vaddq_f64, sub: vsubq_f64, mul: vmulq_f64,
    unpack_lo: vzip1q_f64, unpack_hi: vzip2q_f64,
    {
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
            // SAFETY: the caller gives two writable values at `p`; integers in [0, 2⁵²)
            // convert exactly.
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
}
