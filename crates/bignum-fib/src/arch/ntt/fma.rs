//! The FMA engine's kernels in four lanes (AVX2 + FMA, x86-64-v3): `fmacore::Lanes` for `__m256d`,
//! which instantiates the transform of `fmacore` (the arithmetic, its
//! representation and error bound are documented there), and the dispatcher [`Fma`] that
//! hands the longer stages to the eight-lane kernels of `fma512` where
//! AVX-512F may be used.
//!
//! Stages with half-length `h ≥ 4` pair whole vectors; `h = 2` regroups two vectors with
//! 128-bit lane permutes, and the twiddle-free `h = 1` stage with unpacks.

use core::arch::x86_64::*;

use super::fma512::Fma8;
use super::fmacore::{self, Garner3, Garner5};

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
    v4: Option<Fma8>,
}

impl Fma {
    /// The widest kernels this CPU may run, if it has AVX2 + FMA.
    #[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
    pub(crate) fn new() -> Option<Fma> {
        Some(Fma { v3: Fma4::new()?, v4: Fma8::new() })
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
}

/// `Fma`'s kernels, each the eight-lane one (`Fma8`) where AVX-512F may be used and the
/// condition after `if` holds (a stage long enough, a length it divides), else the four-lane
/// one (`Fma4`, whose contract is the method's). The prefix kernels (returning how many
/// values they did) take eight lanes whenever they may: the caller does the tail.
macro_rules! widest {
    ($(
        $(#[$m:meta])*
        $(if ($wide:expr))? fn $name:ident $(<$(const $c:ident: bool),*>)?
            ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
    )*) => {
        impl Fma {$(
            $(#[$m])*
            pub(crate) fn $name $(<$(const $c: bool),*>)? (self, $($arg: $ty),*) $(-> $ret)? {
                match self.v4 {
                    Some(t) $(if $wide)? => t.$name $(::<$($c),*>)? ($($arg),*),
                    _ => self.v3.$name $(::<$($c),*>)? ($($arg),*),
                }
            }
        )*}
    };
}

widest! {
    /// One stage on blocks of `2h`.
    if (h >= 8) fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64);
    /// Two stages in one pass.
    if (h >= 8) fn stage2<const DIT: bool, const LAZY: bool>(
        x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], cube: &[u64], p: f64,
    );
    /// The forward two stages of one block whose upper half is zero.
    if (h >= 8) fn stage2_lower_half(
        x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], cube: &[u64], p: f64,
    );
    /// Pointwise products.
    if (x.len().is_multiple_of(8)) fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: f64);
    /// Loading.
    if (src.len().is_multiple_of(8)) fn load(dst: &mut [u64], src: &[u64], p: f64);
    /// Unloading.
    if (x.len().is_multiple_of(8)) fn unload(x: &mut [u64], s: f64, p: f64);
    /// `fmacore::comb` on a prefix of `out` (returned).
    fn comb(
        out: &mut [u64], a: Option<&[u64]>, y: Option<&[u64]>, t: f64, s: f64, p: f64,
    ) -> usize;
    /// The truncated products' fold on a prefix of `out` (returned).
    #[allow(clippy::too_many_arguments)] // the kernel's operands
    fn fold(
        out: &mut [u64], d: Option<&mut [u64]>, lo: Option<&[u64]>, hi: &[u64], alpha: f64,
        w: &[u64], p: f64,
    ) -> usize;
    /// The wide products' loading on a prefix of `dst` (returned).
    fn load_wide(dst: &mut [u64], lo: &[u64], hi: &[u64], k: f64, p: f64) -> usize;
    /// Garner's digits of five residues on a prefix (returned).
    fn garner5(y: [&mut [u64]; 5], k: &Garner5) -> usize;
}

/// The kernels with no eight-lane version: the stages shorter than a vector of eight and
/// the three-prime Garner digits.
impl Fma {
    /// The stages `h = 2` and `h = 1` in one pass (`Fma4::tail4`).
    pub(crate) fn tail4<const DIT: bool>(self, x: &mut [u64], w: &[u64], p: f64) {
        self.v3.tail4::<DIT>(x, w, p);
    }

    /// The twiddle-free stage `h = 1` (`Fma4::radix2`).
    pub(crate) fn radix2(self, x: &mut [u64], p: f64) {
        self.v3.radix2(x, p);
    }

    /// Garner's mixed-radix digits of three residues (`Fma4::garner3`), on a prefix
    /// (returned).
    pub(crate) fn garner3(
        self,
        y: [&[u64]; 3],
        t2: &mut [u64],
        t3: &mut [u64],
        k: &Garner3,
    ) -> usize {
        self.v3.garner3(y, t2, t3, k)
    }
}

fmacore::fma_entry_points! {
    token: Fma4,
    lanes: __m256d,
    feature: "avx2,fma",
    // `stage`'s own `h = 2` path regroups two vectors with 128-bit lane permutes.
    stage_min_h: 2,
    generic: [
        stage2, stage2_lower_half, radix2, pointwise, load, unload, comb, fold, garner3,
        load_wide, garner5,
    ],
    own: [stage],
}

impl Fma4 {
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
}

fmacore::lanes! {
    __m256d, 4,
    splat: _mm256_set1_pd, load: _mm256_loadu_pd, store: _mm256_storeu_pd,
    add: _mm256_add_pd, sub: _mm256_sub_pd, mul: _mm256_mul_pd,
    unpack_lo: _mm256_unpacklo_pd, unpack_hi: _mm256_unpackhi_pd,
    fmsub: _mm256_fmsub_pd, fnmadd: _mm256_fnmadd_pd,
    {
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
        fmacore::x86_u52! {
            set1_epi64: _mm256_set1_epi64x, loadu_si: _mm256_loadu_si256,
            storeu_si: _mm256_storeu_si256, or_si: _mm256_or_si256, and_si: _mm256_and_si256,
            srli32_epi64: _mm256_srli_epi64::<32>, sub_epi64: _mm256_sub_epi64,
            add_pd: _mm256_add_pd, sub_pd: _mm256_sub_pd, castsi_pd: _mm256_castsi256_pd,
            castpd_si: _mm256_castpd_si256,
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
