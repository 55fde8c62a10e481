//! Multiplication and squaring ladders: schoolbook basecase → Karatsuba → Toom-3, each
//! generic over the limb [`Kernels`], and the NTT (`ntt`) at the top.
//!
//! Where each rung takes over is [`Thresholds`]: the constants below were measured with the
//! `tune` example (each says how); the NTT's depend on the engine that runs here, keyed by
//! its kind ([`EngineKind`]), never by its name.
//!
//! Operands are little-endian limb slices, not necessarily normalized (top limbs may be
//! zero). Every entry point writes the full product: `r.len() == a.len() + b.len()`.

use core::cmp::Ordering;

use crate::dispatch::{EngineKind, NttEngine};
use crate::kernels::Kernels;
use crate::limbs::{cmp_limbs, decr, incr, trim};

/// Where each algorithm takes over, in limbs of the shorter operand (multiplication) or of
/// the operand (squaring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// Karatsuba from this many limbs of the shorter operand.
    pub mul_karatsuba: usize,
    /// Toom-3 from this many limbs.
    pub mul_toom3: usize,
    /// Squaring: Karatsuba from this many limbs.
    pub sqr_karatsuba: usize,
    /// Squaring: Toom-3 from this many limbs.
    pub sqr_toom3: usize,
    /// The NTT from this many limbs of the shorter operand.
    pub mul_ntt: usize,
    /// Squaring: the NTT from this many limbs.
    pub sqr_ntt: usize,
}

// The ladder's thresholds, measured on the development machine (x86_64 with BMI2 + ADX,
// `mulx-adx` kernels, a shared 2-core VM) with `cargo run --release -p bignum-fib --example
// tune mul|sqr`, which times each rung at the top of an n×n product (schoolbook alone;
// Karatsuba over the tuned lower rungs; Toom-3 over the tuned lower rungs), the fastest of 15
// batches. Crossovers seen (ns): mul 48 limbs 965 schoolbook / 953 Karatsuba, 100 limbs 3261
// Karatsuba / 3571 Toom-3, 120 limbs 4998 / 4637; sqr 100 limbs 2258 schoolbook / 2382
// Karatsuba, 120 limbs 3193 / 3082, 150 limbs 4233 Karatsuba / 4500 Toom-3, 200 limbs
// 7580 / 6871. The portable and aarch64 kernels use the same values.

/// Multiplication: schoolbook below this many limbs, Karatsuba from it (measured: see above).
pub const MUL_KARATSUBA_THRESHOLD: usize = 48;
/// Multiplication: Toom-3 from this many limbs (measured: see above).
pub const MUL_TOOM3_THRESHOLD: usize = 110;
/// Squaring: schoolbook below this many limbs, Karatsuba from it (measured: see above).
pub const SQR_KARATSUBA_THRESHOLD: usize = 90;
/// Squaring: Toom-3 from this many limbs (measured: see above).
pub const SQR_TOOM3_THRESHOLD: usize = 180;
// The NTT's thresholds, measured with `cargo run --release -p bignum-fib --example tune
// ntt` (n×n products and n-limb squares, Toom-3 over the tuned lower rungs against the NTT,
// fastest of 15 batches). Portable engine (ns): mul 3000 limbs 971980
// Toom-3 / 776770 NTT … 4000: 1333400 / 1163962 (noisy: at 3000 the NTT pads 5999 to 8192
// coefficients); sqr 3000: 416654 / 639074, 4000: 849731 / 572247. IFMA engine: mul 250:
// 13991 / 12422, 300: 18322 / 20177, 400: 28633 / 22560; sqr 300: 12535 / 15922, 400:
// 19579 / 17739. AVX2 + FMA engine (`NAB_MAX_ISA=x86-64-v3`): mul
// 250: 21432 / 19715, 300: 25832 / 35685, 400: 44464 / 38048; sqr 400: 29229 / 29817, 500:
// 42963 / 32049.

// Portable engine with the portable kernels (`NAB_MAX_ISA=portable`, what riscv64 and mips64
// run), since its wide products (four primes, 112-bit coefficients, where they halve the
// transform): mul 500: 75989 / 98560, 750: 156231 / 148499, 1000: 235072 / 213495, 2000:
// 657292 / 459770; sqr 500: 58995 / 70391, 750: 106550 / 107406, 1000: 151459 / 152822,
// 2000: 450851 / 329327. F(10⁷) to decimal, min of 3 (thread
// CPU time): 358 ms with 3500, 328 with 2000, 312 with 1000; F(10⁷) compute 36.7 / 35.6 /
// 35.5 ms.

/// Multiplication: the NTT from this many limbs of the shorter operand, portable engine.
pub const MUL_NTT_THRESHOLD: usize = 1000;
/// Squaring: the NTT from this many limbs, portable engine.
pub const SQR_NTT_THRESHOLD: usize = 1000;
/// Multiplication: the NTT from this many limbs with the AVX-512 IFMA engine.
pub const MUL_NTT_THRESHOLD_IFMA: usize = 350;
/// Squaring: the NTT from this many limbs with the AVX-512 IFMA engine.
pub const SQR_NTT_THRESHOLD_IFMA: usize = 400;
/// Multiplication: the NTT from this many limbs with the AVX2 + FMA engine.
pub const MUL_NTT_THRESHOLD_FMA: usize = 350;
/// Squaring: the NTT from this many limbs with the AVX2 + FMA engine.
pub const SQR_NTT_THRESHOLD_FMA: usize = 450;

impl Thresholds {
    /// The tuned ladder.
    pub const DEFAULT: Thresholds = Thresholds {
        mul_karatsuba: MUL_KARATSUBA_THRESHOLD,
        mul_toom3: MUL_TOOM3_THRESHOLD,
        sqr_karatsuba: SQR_KARATSUBA_THRESHOLD,
        sqr_toom3: SQR_TOOM3_THRESHOLD,
        mul_ntt: MUL_NTT_THRESHOLD,
        sqr_ntt: SQR_NTT_THRESHOLD,
    };
    /// Schoolbook only (the reference of the ladder tests).
    pub const SCHOOLBOOK: Thresholds = Thresholds {
        mul_karatsuba: usize::MAX,
        mul_toom3: usize::MAX,
        sqr_karatsuba: usize::MAX,
        sqr_toom3: usize::MAX,
        mul_ntt: usize::MAX,
        sqr_ntt: usize::MAX,
    };
}

impl Thresholds {
    /// The tuned ladder for this CPU: [`Thresholds::DEFAULT`], with the NTT's thresholds of
    /// the engine it runs here (what `Nat`'s operators use).
    pub fn detect() -> Thresholds {
        match NttEngine::detect().kind() {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            EngineKind::Avx512Ifma(_) => Thresholds {
                mul_ntt: MUL_NTT_THRESHOLD_IFMA,
                sqr_ntt: SQR_NTT_THRESHOLD_IFMA,
                ..Thresholds::DEFAULT
            },
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            EngineKind::Avx2Fma(_) | EngineKind::Avx512fFma(_) => Thresholds {
                mul_ntt: MUL_NTT_THRESHOLD_FMA,
                sqr_ntt: SQR_NTT_THRESHOLD_FMA,
                ..Thresholds::DEFAULT
            },
            // The NEON engine has not been tuned: it takes the portable engine's thresholds.
            #[cfg(all(target_arch = "aarch64", not(miri)))]
            EngineKind::NeonFma(_) => Thresholds::DEFAULT,
            EngineKind::Portable(_) => Thresholds::DEFAULT,
        }
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds::DEFAULT
    }
}

/// `r = a * b` for any lengths (`r.len() == a.len() + b.len()`; empty operands give zero).
#[inline]
pub(crate) fn mul_any<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64], t: &Thresholds) {
    debug_assert_eq!(r.len(), a.len() + b.len());
    if a.is_empty() || b.is_empty() {
        r.fill(0);
    } else if a.len() >= b.len() {
        mul(k, r, a, b, t);
    } else {
        mul(k, r, b, a, t);
    }
}

/// `r = a * b`, `a.len() >= b.len() >= 1`, `r.len() == a.len() + b.len()`.
pub(crate) fn mul<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64], t: &Thresholds) {
    let (an, bn) = (a.len(), b.len());
    debug_assert!(an >= bn && bn >= 1 && r.len() == an + bn);
    if core::ptr::eq(a, b) {
        return sqr(k, r, a, t);
    }
    // Karatsuba needs the shorter operand longer than half the longer one (`bn > ⌈an/2⌉`),
    // which `2·an <= 3·bn` gives from 3 limbs on; Toom-3 needs `bn > 2·⌈an/3⌉`.
    if bn >= t.mul_ntt {
        crate::ntt::mul(r, a, b);
    } else if bn < t.mul_karatsuba.max(3) {
        mul_basecase(k, r, a, b);
    } else if 2 * an > 3 * bn {
        mul_unbalanced(k, r, a, b, t);
    } else if bn >= t.mul_toom3.max(5) && bn > 2 * an.div_ceil(3) {
        toom3_mul(k, r, a, b, t);
    } else {
        karatsuba_mul(k, r, a, b, t);
    }
}

/// `r = a²`, `a` not empty, `r.len() == 2 * a.len()`.
pub(crate) fn sqr<K: Kernels>(k: K, r: &mut [u64], a: &[u64], t: &Thresholds) {
    let n = a.len();
    debug_assert!(n >= 1 && r.len() == 2 * n);
    if n >= t.sqr_ntt {
        crate::ntt::sqr(r, a);
    } else if n < t.sqr_karatsuba.max(2) {
        k.sqr_basecase(r, a);
    } else if n < t.sqr_toom3.max(5) {
        karatsuba_sqr(k, r, a, t);
    } else {
        toom3_sqr(k, r, a, t);
    }
}

/// Schoolbook: one `mul_1` row, then one `addmul_1` row per limb of `b`.
pub(crate) fn mul_basecase<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64]) {
    let an = a.len();
    r[an] = k.mul_1(&mut r[..an], a, b[0]);
    for (j, &bj) in b.iter().enumerate().skip(1) {
        r[an + j] = k.addmul_1(&mut r[j..j + an], a, bj);
    }
}

/// `a` much longer than `b`: products of `b.len()`-limb slices of `a` by `b`, accumulated.
fn mul_unbalanced<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64], t: &Thresholds) {
    let (an, bn) = (a.len(), b.len());
    mul(k, &mut r[..2 * bn], &a[..bn], b, t);
    let mut saved = vec![0u64; bn];
    let mut i = bn;
    while i < an {
        let len = bn.min(an - i);
        saved.copy_from_slice(&r[i..i + bn]);
        let chunk = &a[i..i + len];
        let dst = &mut r[i..i + len + bn];
        if len >= bn {
            mul(k, dst, chunk, b, t);
        } else {
            mul(k, dst, b, chunk, t);
        }
        add_into(k, &mut r[i..], &saved);
        i += len;
    }
}

/// `r += x` where `r` is at least as long as `x` without its top zeros; the carry runs to
/// the end of `r` (and must not leave it).
#[inline]
pub(crate) fn add_into<K: Kernels>(k: K, r: &mut [u64], x: &[u64]) {
    let x = trim(x);
    if x.is_empty() {
        return;
    }
    let n = x.len();
    let carry = k.add_assign_n(&mut r[..n], x);
    if carry != 0 {
        let overflow = incr(&mut r[n..]);
        debug_assert!(!overflow, "add_into: carry out of the destination");
    }
}

/// `r -= x` where `r >= x` as values; the borrow runs up `r`.
#[inline]
pub(crate) fn sub_into<K: Kernels>(k: K, r: &mut [u64], x: &[u64]) {
    let x = trim(x);
    if x.is_empty() {
        return;
    }
    let n = x.len();
    let borrow = k.sub_assign_n(&mut r[..n], x);
    if borrow != 0 {
        let underflow = decr(&mut r[n..]);
        debug_assert!(!underflow, "sub_into: borrow out of the destination");
    }
}

/// `r = |a - b|` (`r.len() >= max(len)`, zero-filled above); returns true when `a < b`.
fn abs_diff<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let neg = cmp_limbs(a, b) == Ordering::Less;
    let (big, small) = if neg { (b, a) } else { (a, b) };
    let big = trim(big);
    r.fill(0);
    r[..big.len()].copy_from_slice(big);
    sub_into(k, r, small);
    neg
}

/// Karatsuba (subtractive): `a = a0 + a1·B^h`, `b = b0 + b1·B^h`,
/// middle = `a0b0 + a1b1 − (a0 − a1)(b0 − b1)`.
fn karatsuba_mul<K: Kernels>(k: K, r: &mut [u64], a: &[u64], b: &[u64], t: &Thresholds) {
    let (an, bn) = (a.len(), b.len());
    let h = an.div_ceil(2);
    debug_assert!(bn > h);
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    {
        let (lo, hi) = r.split_at_mut(2 * h);
        mul(k, lo, a0, b0, t);
        mul_any(k, hi, a1, b1, t);
    }
    // One allocation for |a0 − a1|, |b0 − b1|, their product and the middle term.
    let mut scratch = vec![0u64; 6 * h + 1];
    let (da, rest) = scratch.split_at_mut(h);
    let (db, rest) = rest.split_at_mut(h);
    let (z1, mid) = rest.split_at_mut(2 * h);
    let neg_a = abs_diff(k, da, a0, a1);
    let neg_b = abs_diff(k, db, b0, b1);
    mul(k, z1, da, db, t);
    // middle = z0 + z2 ∓ z1, added at B^h.
    mid[..2 * h].copy_from_slice(&r[..2 * h]);
    add_into(k, mid, &r[2 * h..]);
    if neg_a == neg_b {
        sub_into(k, mid, z1);
    } else {
        add_into(k, mid, z1);
    }
    add_into(k, &mut r[h..], mid);
}

/// Karatsuba squaring: middle = `a0² + a1² − (a0 − a1)²`.
fn karatsuba_sqr<K: Kernels>(k: K, r: &mut [u64], a: &[u64], t: &Thresholds) {
    let n = a.len();
    let h = n.div_ceil(2);
    let (a0, a1) = a.split_at(h);
    {
        let (lo, hi) = r.split_at_mut(2 * h);
        sqr(k, lo, a0, t);
        sqr(k, hi, a1, t);
    }
    let mut scratch = vec![0u64; 5 * h + 1];
    let (da, rest) = scratch.split_at_mut(h);
    let (z1, mid) = rest.split_at_mut(2 * h);
    abs_diff(k, da, a0, a1);
    sqr(k, z1, da, t);
    mid[..2 * h].copy_from_slice(&r[..2 * h]);
    add_into(k, mid, &r[2 * h..]);
    sub_into(k, mid, z1);
    add_into(k, &mut r[h..], mid);
}

/// The three evaluations of Toom-3 that need arithmetic: `p(1)`, `|p(−1)|` with its sign,
/// `p(2)`, each `k + 1` limbs, for `p = x0 + x1·X + x2·X²` (`x0`, `x1` of `k` limbs).
fn toom3_eval<K: Kernels>(kk: K, x: &[u64], k: usize) -> (Vec<u64>, Vec<u64>, bool, Vec<u64>) {
    let (x0, rest) = x.split_at(k);
    let (x1, x2) = rest.split_at(k);
    // t = x0 + x2
    let mut t = vec![0u64; k + 1];
    t[..k].copy_from_slice(x0);
    add_into(kk, &mut t, x2);
    let mut p1 = t.clone();
    add_into(kk, &mut p1, x1);
    let mut pm1 = vec![0u64; k + 1];
    let neg = abs_diff(kk, &mut pm1, &t, x1);
    // p2 = x0 + 2·x1 + 4·x2 = x0 + 2·(x1 + 2·x2)
    let mut p2 = vec![0u64; k + 1];
    p2[..x2.len()].copy_from_slice(x2);
    shl1(&mut p2);
    add_into(kk, &mut p2, x1);
    shl1(&mut p2);
    add_into(kk, &mut p2, x0);
    (p1, pm1, neg, p2)
}

/// `x <<= 1` (the top bit must be zero).
fn shl1(x: &mut [u64]) {
    let mut carry = 0;
    for v in x {
        let next = *v >> 63;
        *v = (*v << 1) | carry;
        carry = next;
    }
    debug_assert_eq!(carry, 0);
}

/// `x >>= 1`.
fn shr1(x: &mut [u64]) {
    let mut carry = 0;
    for v in x.iter_mut().rev() {
        let next = *v << 63;
        *v = (*v >> 1) | carry;
        carry = next;
    }
}

/// `x /= 3`, exact (the division must leave no remainder): multiplication by the inverse of
/// 3 mod 2^64 with a running borrow.
fn divexact_by3(x: &mut [u64]) {
    const INV3: u64 = 0xAAAA_AAAA_AAAA_AAAB;
    const THIRD: u64 = u64::MAX / 3;
    let mut c = 0u64;
    for v in x {
        let (s, b) = v.overflowing_sub(c);
        let q = s.wrapping_mul(INV3);
        *v = q;
        c = b as u64 + (q > THIRD) as u64 + (q > 2 * THIRD) as u64;
    }
    debug_assert_eq!(c, 0);
}

/// Toom-3 interpolation at 0, 1, −1, 2, ∞ (Bodrato's sequence) and recombination into `r`.
/// `w1`, `wm1`, `w2` have `2k + 2` limbs; `w0` is `r[..2k]` and `w4` is `r[4k..]` on entry.
fn toom3_interpolate<K: Kernels>(
    kk: K,
    r: &mut [u64],
    k: usize,
    mut w1: Vec<u64>,
    mut wm1: Vec<u64>,
    wm1_neg: bool,
    mut w2: Vec<u64>,
) {
    {
        let w0 = &r[..2 * k];
        let w4 = &r[4 * k..];
        // w2 = (w2 − w(−1)) / 3;  wm1 = (w1 − w(−1)) / 2
        if wm1_neg {
            add_into(kk, &mut w2, &wm1);
            let mut t = w1.clone();
            add_into(kk, &mut t, &wm1);
            wm1 = t;
        } else {
            sub_into(kk, &mut w2, &wm1);
            let mut t = w1.clone();
            sub_into(kk, &mut t, &wm1);
            wm1 = t;
        }
        divexact_by3(&mut w2);
        shr1(&mut wm1);
        // w1 = w1 − w0
        sub_into(kk, &mut w1, w0);
        // w2 = (w2 − w1) / 2 − 2·w4
        sub_into(kk, &mut w2, &w1);
        shr1(&mut w2);
        sub_into(kk, &mut w2, w4);
        sub_into(kk, &mut w2, w4);
        // w1 = w1 − wm1 − w4
        sub_into(kk, &mut w1, &wm1);
        sub_into(kk, &mut w1, w4);
        // wm1 = wm1 − w2
        sub_into(kk, &mut wm1, &w2);
    }
    // r = w0 + wm1·X + w1·X² + w2·X³ + w4·X⁴ (w0 and w4 are already in place).
    r[2 * k..4 * k].fill(0);
    add_into(kk, &mut r[k..], &wm1);
    add_into(kk, &mut r[2 * k..], &w1);
    add_into(kk, &mut r[3 * k..], &w2);
}

/// Toom-3 multiplication: `a`, `b` in three pieces of `k = ⌈a.len()/3⌉` limbs (the top piece
/// of each shorter), five products at 0, 1, −1, 2, ∞. Needs `b.len() > 2k`.
fn toom3_mul<K: Kernels>(kk: K, r: &mut [u64], a: &[u64], b: &[u64], t: &Thresholds) {
    let (an, bn) = (a.len(), b.len());
    let k = an.div_ceil(3);
    debug_assert!(bn > 2 * k);
    let (pa1, pam1, nega, pa2) = toom3_eval(kk, a, k);
    let (pb1, pbm1, negb, pb2) = toom3_eval(kk, b, k);
    let mut w1 = vec![0u64; 2 * k + 2];
    mul(kk, &mut w1, &pa1, &pb1, t);
    let mut wm1 = vec![0u64; 2 * k + 2];
    mul(kk, &mut wm1, &pam1, &pbm1, t);
    let mut w2 = vec![0u64; 2 * k + 2];
    mul(kk, &mut w2, &pa2, &pb2, t);
    {
        let (lo, hi) = r.split_at_mut(4 * k);
        mul(kk, &mut lo[..2 * k], &a[..k], &b[..k], t);
        mul_any(kk, hi, &a[2 * k..], &b[2 * k..], t);
    }
    toom3_interpolate(kk, r, k, w1, wm1, nega != negb, w2);
}

/// Toom-3 squaring: five squares at 0, 1, −1, 2, ∞.
fn toom3_sqr<K: Kernels>(kk: K, r: &mut [u64], a: &[u64], t: &Thresholds) {
    let n = a.len();
    let k = n.div_ceil(3);
    let (p1, pm1, _, p2) = toom3_eval(kk, a, k);
    let mut w1 = vec![0u64; 2 * k + 2];
    sqr(kk, &mut w1, &p1, t);
    let mut wm1 = vec![0u64; 2 * k + 2];
    sqr(kk, &mut wm1, &pm1, t);
    let mut w2 = vec![0u64; 2 * k + 2];
    sqr(kk, &mut w2, &p2, t);
    {
        let (lo, hi) = r.split_at_mut(4 * k);
        sqr(kk, &mut lo[..2 * k], &a[..k], t);
        sqr(kk, hi, &a[2 * k..], t);
    }
    toom3_interpolate(kk, r, k, w1, wm1, false, w2);
}
