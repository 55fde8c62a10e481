//! The NTT's butterflies with AVX-512 IFMA: eight 52-bit Montgomery products per
//! instruction group (`vpmadd52luq`/`vpmadd52huq`), for the 50-bit primes of
//! `ntt`'s IFMA field set.
//!
//! Arithmetic modulo `p < 2⁵⁰`, values fully reduced in `[0, p)`, per lane:
//! - `add`: `s = a + b`, then `min(s, s − p)` (unsigned: when `s < p`, `s − p` wraps high);
//! - `sub`: `d = a − b`, then `min(d, d + p)` (when `a < b`, `d` wrapped high);
//! - `mont(a, w) = a·w·2⁻⁵² mod p` for `a < 2⁵²`, `w < p`: `lo, hi` = low and high 52 bits of
//!   `a·w`; `m = lo·(−p⁻¹) mod 2⁵²`; `lo + (m·p mod 2⁵²)` is 0 or `2⁵²`, so the result is
//!   `hi + (m·p >> 52) + (lo ≠ 0)`, below `2p`, then one conditional subtraction.
//!
//! Stages with half-length `h ≥ 8` pair whole vectors; `h = 4, 2, 1` (the last stages of the
//! forward transform, the first of the inverse) regroup two vectors with permutes.

use core::arch::x86_64::*;

nab_isa::token! {
    /// Proof that AVX-512F and AVX-512 IFMA may be used: the CPU (and the OS, for the zmm
    /// state) supports them and `NAB_MAX_ISA` allows them (IFMA is in no tier: only an
    /// unset cap), or the build enables them. Only `Ifma::new` makes one.
    pub(crate) struct Ifma = AVX512F | AVX512IFMA;
}

impl Ifma {
    /// One stage on blocks of `2h`: decimation in frequency, `(a, b) → (a + b, (a − b)·w^i)`,
    /// or with `DIT` decimation in time, `(a, b) → (a + b·w^i, a − b·w^i)`; `w` the `h`
    /// twiddles (as `w·2⁵² mod p`). `h` is a power of two; `x.len()` a multiple of `2h` and
    /// of 16.
    pub(crate) fn stage<const DIT: bool>(
        self,
        x: &mut [u64],
        h: usize,
        w: &[u64],
        p: u64,
        pinv: u64,
    ) {
        check(x, h, w);
        // SAFETY: `self` proves AVX-512F + IFMA; `check` bounds every access (see `stage`).
        unsafe { stage::<DIT>(x, h, w, p, pinv) }
    }

    /// `x[i] = mont(x[i], y[i])` (`y = None`: `mont(x[i], x[i])`), for `x.len()` a multiple
    /// of 8.
    pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: u64, pinv: u64) {
        assert!(x.len().is_multiple_of(8) && y.is_none_or(|y| y.len() == x.len()));
        // SAFETY: `self` proves the CPU support; lengths checked just above.
        unsafe { pointwise(x, y, p, pinv) }
    }
}

fn check(x: &[u64], h: usize, w: &[u64]) {
    assert!(h.is_power_of_two() && w.len() >= h);
    assert!(x.len().is_multiple_of(2 * h) && x.len().is_multiple_of(16));
}

/// Callers (inlined into the `target_feature` functions below) must have AVX-512F + IFMA;
/// the same holds for `add`, `sub` and `butterfly`.
#[inline(always)]
unsafe fn mont(a: __m512i, w: __m512i, p: __m512i, pinv: __m512i) -> __m512i {
    // SAFETY: register-only AVX-512F/IFMA operations, enabled in the callers (all
    // intrinsics below).
    unsafe {
        let zero = _mm512_setzero_si512();
        let lo = _mm512_madd52lo_epu64(zero, a, w);
        let hi = _mm512_madd52hi_epu64(zero, a, w);
        let m = _mm512_madd52lo_epu64(zero, lo, pinv);
        let t = _mm512_madd52hi_epu64(hi, m, p);
        let carry = _mm512_test_epi64_mask(lo, lo);
        let t = _mm512_mask_add_epi64(t, carry, t, _mm512_set1_epi64(1));
        _mm512_min_epu64(t, _mm512_sub_epi64(t, p))
    }
}

#[inline(always)]
unsafe fn add(a: __m512i, b: __m512i, p: __m512i) -> __m512i {
    // SAFETY: register-only AVX-512F operations.
    unsafe {
        let s = _mm512_add_epi64(a, b);
        _mm512_min_epu64(s, _mm512_sub_epi64(s, p))
    }
}

#[inline(always)]
unsafe fn sub(a: __m512i, b: __m512i, p: __m512i) -> __m512i {
    // SAFETY: register-only AVX-512F operations.
    unsafe {
        let d = _mm512_sub_epi64(a, b);
        _mm512_min_epu64(d, _mm512_add_epi64(d, p))
    }
}

/// The butterfly on vectors: DIF `(a + b, (a − b)·w)` or DIT `(a + b·w, a − b·w)`.
#[inline(always)]
unsafe fn butterfly<const DIT: bool>(
    a: __m512i,
    b: __m512i,
    w: __m512i,
    p: __m512i,
    pinv: __m512i,
) -> (__m512i, __m512i) {
    // SAFETY: register-only operations (see `mont`).
    unsafe {
        if DIT {
            let t = mont(b, w, p, pinv);
            (add(a, t, p), sub(a, t, p))
        } else {
            (add(a, b, p), mont(sub(a, b, p), w, p, pinv))
        }
    }
}

/// # Safety
/// AVX-512F and IFMA available; `x.len()` a multiple of `2h` and of 16, `w.len() >= h`,
/// `h` a power of two.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn stage<const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: u64, pinv: u64) {
    let pv = _mm512_set1_epi64(p as i64);
    let piv = _mm512_set1_epi64(pinv as i64);
    let base = x.as_mut_ptr();
    let n = x.len();
    if h >= 8 {
        let mut j = 0;
        while j < n {
            let mut i = 0;
            while i < h {
                // SAFETY: `j + 2h <= n` and `i + 8 <= h`, so both 8-lane accesses lie in
                // `x`; `i + 8 <= h <= w.len()`.
                unsafe {
                    let pa = base.add(j + i);
                    let pb = base.add(j + h + i);
                    let a = _mm512_loadu_si512(pa.cast());
                    let b = _mm512_loadu_si512(pb.cast());
                    let wv = _mm512_loadu_si512(w.as_ptr().add(i).cast());
                    let (s, d) = butterfly::<DIT>(a, b, wv, pv, piv);
                    _mm512_storeu_si512(pa.cast(), s);
                    _mm512_storeu_si512(pb.cast(), d);
                }
                i += 8;
            }
            j += 2 * h;
        }
        return;
    }
    // h = 4, 2, 1: two vectors (16 values, 16/(2h) blocks) regrouped into the `a` lanes and
    // the `b` lanes, and back. Indices into the pair (v0, v1) are 0..8 and 8..16.
    let (lo_idx, hi_idx, back0, back1): ([i64; 8], [i64; 8], [i64; 8], [i64; 8]) = match h {
        4 => (
            [0, 1, 2, 3, 8, 9, 10, 11],
            [4, 5, 6, 7, 12, 13, 14, 15],
            [0, 1, 2, 3, 8, 9, 10, 11],
            [4, 5, 6, 7, 12, 13, 14, 15],
        ),
        2 => (
            [0, 1, 4, 5, 8, 9, 12, 13],
            [2, 3, 6, 7, 10, 11, 14, 15],
            [0, 1, 8, 9, 2, 3, 10, 11],
            [4, 5, 12, 13, 6, 7, 14, 15],
        ),
        _ => (
            [0, 2, 4, 6, 8, 10, 12, 14],
            [1, 3, 5, 7, 9, 11, 13, 15],
            [0, 8, 1, 9, 2, 10, 3, 11],
            [4, 12, 5, 13, 6, 14, 7, 15],
        ),
    };
    // SAFETY: register-only operations; the arrays are 8 × i64 = 64 bytes.
    let (lo_idx, hi_idx, back0, back1) = unsafe {
        (
            _mm512_loadu_si512(lo_idx.as_ptr().cast()),
            _mm512_loadu_si512(hi_idx.as_ptr().cast()),
            _mm512_loadu_si512(back0.as_ptr().cast()),
            _mm512_loadu_si512(back1.as_ptr().cast()),
        )
    };
    // The twiddles of each `a` lane: w[i mod h].
    let mut tw = [0u64; 8];
    for (k, t) in tw.iter_mut().enumerate() {
        *t = w[k % h];
    }
    // SAFETY: 64 bytes.
    let wv = unsafe { _mm512_loadu_si512(tw.as_ptr().cast()) };
    let mut j = 0;
    while j < n {
        // SAFETY: `j + 16 <= n` (n is a multiple of 16).
        unsafe {
            let p0 = base.add(j);
            let p1 = base.add(j + 8);
            let v0 = _mm512_loadu_si512(p0.cast());
            let v1 = _mm512_loadu_si512(p1.cast());
            let a = _mm512_permutex2var_epi64(v0, lo_idx, v1);
            let b = _mm512_permutex2var_epi64(v0, hi_idx, v1);
            let (s, d) = butterfly::<DIT>(a, b, wv, pv, piv);
            _mm512_storeu_si512(p0.cast(), _mm512_permutex2var_epi64(s, back0, d));
            _mm512_storeu_si512(p1.cast(), _mm512_permutex2var_epi64(s, back1, d));
        }
        j += 16;
    }
}

/// # Safety
/// AVX-512F and IFMA available; `x.len()` a multiple of 8; `y`, if any, as long as `x`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn pointwise(x: &mut [u64], y: Option<&[u64]>, p: u64, pinv: u64) {
    let pv = _mm512_set1_epi64(p as i64);
    let piv = _mm512_set1_epi64(pinv as i64);
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + 8 <= x.len()` (a multiple of 8), and `y.len() == x.len()`.
        unsafe {
            let px = x.as_mut_ptr().add(i);
            let a = _mm512_loadu_si512(px.cast());
            let b = match y {
                Some(y) => _mm512_loadu_si512(y.as_ptr().add(i).cast()),
                None => a,
            };
            _mm512_storeu_si512(px.cast(), mont(a, b, pv, piv));
        }
        i += 8;
    }
}
