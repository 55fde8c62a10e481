//! Fibonacci and Lucas numbers: a table to F(93) (the largest that fits in a `u64`), then
//! GMP's recurrence (`mpz_fib2_ui`): from `F(k)`, `F(k−1)`
//!
//! - `F(2k+1) = 4F(k)² − F(k−1)² + 2(−1)^k`
//! - `F(2k−1) = F(k)² + F(k−1)²`
//! - `F(2k)   = F(2k+1) − F(2k−1)`
//!
//! two squarings per bit of `n`, walked from the top bit (found with `leading_zeros`), and for
//! `F(n)` alone one multiplication on the last step (`mpz_fib_ui`).

use crate::dispatch::{Backend, with_kernels};
use crate::kernels::Kernels;
use crate::limbs::{decr, incr, trim};
use crate::mul::{Thresholds, sqr};
use crate::nat::Nat;
use crate::par;

/// The index of the largest Fibonacci number that fits in a `u64`.
pub(crate) const TABLE_MAX: u64 = 93;

/// `F(0..=93)`.
const FIB_TABLE: [u64; TABLE_MAX as usize + 1] = {
    let mut t = [0u64; TABLE_MAX as usize + 1];
    t[1] = 1;
    let mut i = 2;
    while i <= TABLE_MAX as usize {
        t[i] = t[i - 1] + t[i - 2];
        i += 1;
    }
    t
};

/// The two squarings of a step run on two threads (when asked) from this many limbs of
/// `F(k)`. Measured with `cargo run --release -p bignum-fib --example tune threads`
/// (`amd-zen5`, AVX-512 FMA engine, fastest of 15 batches): starting and joining a scoped
/// thread 23 µs; a square of 4096 limbs 77 µs, of 8192 limbs 158 µs. From 8192 limbs the
/// thread costs at most a seventh of the half it takes over.
const FIB_PAR_MIN_LIMBS: usize = 8192;

/// `(F(n), F(n−1))` for `n >= 1`.
pub(crate) fn fib2(n: u64) -> (Nat, Nat) {
    debug_assert!(n >= 1);
    if n <= TABLE_MAX {
        return (Nat::from(FIB_TABLE[n as usize]), Nat::from(FIB_TABLE[n as usize - 1]));
    }
    with_kernels!(Backend::detect(), k => fib2_limbs(k, n, &Thresholds::detect()))
}

/// [`fib2`] above the table, in four buffers (one allocation): the squares go to two of them,
/// `F(2k−1)`, `F(2k+1)` and `F(2k)` are formed from the squares in the other two and the
/// first square's, and the buffers change roles by swapping (no allocation per bit).
fn fib2_limbs<K: Kernels>(k: K, n: u64, t: &Thresholds) -> (Nat, Nat) {
    // Start from the top bits of `n` that index the table, then one doubling per bit below.
    let bits = 64 - n.leading_zeros();
    let table_bits = 64 - TABLE_MAX.leading_zeros(); // 7: n >> (bits − 7) <= 127
    let mut shift = bits - (table_bits - 1); // the top 6 bits: at most 63 <= 93
    let mut kk = n >> shift;
    // F(n) < 2^(0.695·n): every buffer holds a value of at most `cap − 1` limbs, the
    // squares of values of half that.
    let cap = (n as usize / 92) + 4;
    let mut buf = vec![0u64; 4 * cap];
    let (mut fk, rest) = buf.split_at_mut(cap);
    let (mut fk1, rest) = rest.split_at_mut(cap);
    let (mut s, s1) = rest.split_at_mut(cap);
    fk[0] = FIB_TABLE[kk as usize];
    fk1[0] = FIB_TABLE[kk as usize - 1];
    let mut l = 1; // limbs of F(k); F(k−1) is no longer
    while shift > 0 {
        shift -= 1;
        let bit = (n >> shift) & 1;
        let m = 2 * l;
        // s = F(k)², s1 = F(k−1)² (m limbs each).
        // The two squarings are independent: on two threads when asked (`par`).
        let l1 = trim(&fk1[..l]).len();
        let (fk_l, fk1_l) = (&fk[..l], &fk1[..l1]);
        let (s_m, s1_m) = (&mut s[..m], &mut s1[..m]);
        par::join(
            l,
            FIB_PAR_MIN_LIMBS,
            || sqr(k, s_m, fk_l, t),
            || {
                if l1 == 0 {
                    s1_m.fill(0);
                } else {
                    sqr(k, &mut s1_m[..2 * l1], fk1_l, t);
                    s1_m[2 * l1..].fill(0);
                }
            },
        );
        // fk1 = F(2k−1) = F(k)² + F(k−1)²
        fk1[m] = k.add_n(&mut fk1[..m], &s[..m], &s1[..m]);
        // s = F(2k+1) = 4F(k)² − F(k−1)² ± 2 (m + 1 limbs)
        let mut carry = 0u64;
        for x in &mut s[..m] {
            let v = *x;
            *x = v << 2 | carry;
            carry = v >> 62;
        }
        s[m] = carry;
        let borrow = k.sub_assign_n(&mut s[..m], &s1[..m]);
        s[m] -= borrow;
        let (v, c) = if kk & 1 == 0 { s[0].overflowing_add(2) } else { s[0].overflowing_sub(2) };
        s[0] = v;
        if c {
            let _ = if kk & 1 == 0 { incr(&mut s[1..=m]) } else { decr(&mut s[1..=m]) };
        }
        // fk = F(2k) = F(2k+1) − F(2k−1)
        k.sub_n(&mut fk[..=m], &s[..=m], &fk1[..=m]);
        if bit == 1 {
            // (F(2k+1), F(2k))
            core::mem::swap(&mut fk1, &mut fk);
            core::mem::swap(&mut fk, &mut s);
        }
        // else (F(2k), F(2k−1)), where they are.
        l = trim(&fk[..=m]).len();
        kk = 2 * kk + bit;
    }
    debug_assert_eq!(kk, n);
    (Nat::from_limbs(fk[..l].to_vec()), Nat::from_limbs(fk1[..l].to_vec()))
}

/// `F(n)`.
pub(crate) fn fib(n: u64) -> Nat {
    if n <= TABLE_MAX {
        return Nat::from(FIB_TABLE[n as usize]);
    }
    let k = n / 2;
    let (fk, fk1) = fib2(k);
    if n & 1 == 0 {
        // F(2k) = F(k)·(F(k) + 2F(k−1))
        let t = &fk + &(&fk1 << 1);
        &fk * &t
    } else {
        // F(2k+1) = (2F(k) + F(k−1))·(2F(k) − F(k−1)) + 2(−1)^k
        let two_fk = &fk << 1;
        let p = &two_fk + &fk1;
        let m = &two_fk - &fk1;
        let mut r = &p * &m;
        if k & 1 == 0 {
            r.add_small(2);
        } else {
            r.sub_small(2);
        }
        r
    }
}

/// `(F(n), F(n+1))`.
pub(crate) fn fib_pair(n: u64) -> (Nat, Nat) {
    if n == 0 {
        return (Nat::zero(), Nat::from(1u64));
    }
    let (fnn, fn1) = fib2(n);
    let next = &fnn + &fn1;
    (fnn, next)
}

/// `L(n) = F(n) + 2F(n−1)` (`L(0) = 2`).
pub(crate) fn lucas(n: u64) -> Nat {
    if n == 0 {
        return Nat::from(2u64);
    }
    let (fnn, fn1) = fib2(n);
    &fnn + &(&fn1 << 1)
}

/// `log10 φ` in fixed point, `⌊log10(φ)·2¹²⁸⌋` (`0.2089876402499787337692720892375554168…`;
/// checked against its decimal expansion by the tests).
const LOG10_PHI: u128 = 0x3580_36c8_2451_b7f3_65d3_db23_8455_99f5;
/// `log10 √5` in fixed point, `⌊log10(√5)·2¹²⁸⌋` (`0.3494850021680094023931305526377534866…`).
const LOG10_SQRT5: u128 = 0x5977_d95e_c10c_0219_dc1d_a994_fd20_dba1;

/// Below this `n` the digit count of `F(n)` is computed from `F(n)` itself (cheap), and
/// `|log10(1 ∓ φ^−2n)| < 2⁻¹³⁰` is negligible above it.
const DIGITS_EXACT_BELOW: u64 = 100;

/// The number of decimal digits of `F(n)`: `⌊n·log10 φ − log10 √5⌋ + 1` in 128-bit fixed
/// point, unless the fraction lies within `2^−margin_log` of an integer, where `F(n)` is
/// computed and its digits counted.
pub(crate) fn fib_digits_with_margin(n: u64, margin_log: u32) -> u64 {
    if n < DIGITS_EXACT_BELOW {
        return crate::radix::decimal_digits(&fib(n));
    }
    // n·L as a 192-bit fixed-point number (integer part in the top limb, n < 2⁶⁴).
    let (lo, hi) = (LOG10_PHI as u64, (LOG10_PHI >> 64) as u64);
    let p0 = u128::from(n) * u128::from(lo);
    let p1 = u128::from(n) * u128::from(hi) + (p0 >> 64);
    let int = (p1 >> 64) as u64;
    let frac = (p1 << 64) | (p0 as u64 as u128);
    // − log10 √5 (< 1): borrow from the integer part when the fraction wraps.
    let (frac, borrow) = frac.overflowing_sub(LOG10_SQRT5);
    let int = int - u64::from(borrow); // n ≥ 100: n·L > 20 > 1
    // The fixed-point error is below n·2⁻¹²⁸ + 2⁻¹²⁸ < 2⁻⁶³; the ψ term below 2⁻¹³⁰.
    let margin = 1u128 << (128 - margin_log);
    if frac < margin || frac > u128::MAX - margin {
        return crate::radix::decimal_digits(&fib(n));
    }
    int + 1
}

/// See [`crate::fib_digits`].
pub(crate) fn fib_digits(n: u64) -> u64 {
    // A margin of 2⁻⁶⁰: eight times the worst error; an `n` this close to a power of ten
    // turns up with probability 2⁻⁵⁹.
    fib_digits_with_margin(n, 60)
}

#[cfg(test)]
mod digits_tests {
    use super::*;

    /// The constants against their decimal expansions (to 42 digits, from an
    /// arbitrary-precision evaluation): `⌊d·2¹²⁸ / 10⁴²⌋` with exact integers.
    #[test]
    fn constants_match_their_decimal_expansions() {
        use num_bigint::BigUint;
        let fixed = |digits: &str| {
            let d: BigUint = digits.parse().unwrap();
            let scaled = (d << 128u32) / BigUint::from(10u32).pow(42);
            u128::try_from(scaled).unwrap()
        };
        // The 42-digit truncations are below the true values by less than 10⁻⁴², i.e. 2⁻¹³⁹:
        // the floor agrees unless the constant is within that of a multiple of 2⁻¹²⁸.
        assert_eq!(fixed("208987640249978733769272089237555416822459"), LOG10_PHI);
        assert_eq!(fixed("349485002168009402393130552637753486615905"), LOG10_SQRT5);
        // And against the f64 evaluations.
        let phi = (1.0 + 5f64.sqrt()) / 2.0;
        assert!((LOG10_PHI as f64 / 2f64.powi(128) - phi.log10()).abs() < 1e-15);
        assert!((LOG10_SQRT5 as f64 / 2f64.powi(128) - 5f64.sqrt().log10()).abs() < 1e-15);
    }

    /// Against the digits of `F(n)` itself for every `n` up to 1500 and a spread of larger
    /// ones, through the fixed-point path and through the exact fallback (margin 1: always).
    #[test]
    fn digit_counts_match_the_numbers() {
        let (last, step) = if cfg!(miri) { (120, 1) } else { (1500, 1) };
        let mut ns: Vec<u64> = (0..=last).step_by(step).collect();
        if !cfg!(miri) {
            ns.extend((1..=40).map(|i| 1500 + i * i * 61));
        }
        let mut fixed_point_used = 0;
        for n in ns {
            let want = fib(n).to_string().len() as u64;
            assert_eq!(fib_digits(n), want, "F({n})");
            assert_eq!(fib_digits_with_margin(n, 1), want, "F({n}) by the fallback");
            fixed_point_used += u64::from(n >= DIGITS_EXACT_BELOW);
        }
        assert!(fixed_point_used > 0);
    }
}
