//! Fibonacci and Lucas numbers: a table to F(93) (the largest that fits in a `u64`), then
//! GMP's recurrence (`mpz_fib2_ui`): from `F(k)`, `F(k−1)`
//!
//! - `F(2k+1) = 4F(k)² − F(k−1)² + 2(−1)^k`
//! - `F(2k−1) = F(k)² + F(k−1)²`
//! - `F(2k)   = F(2k+1) − F(2k−1)`
//!
//! two squarings per bit of `n`, walked from the top bit (found with `leading_zeros`), and for
//! `F(n)` alone one multiplication on the last step (`mpz_fib_ui`).

use crate::dispatch::{Backend, Kernels, with_kernels};
use crate::mul::{Thresholds, decr, incr, sqr, trim};
use crate::nat::Nat;

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
        sqr(k, &mut s[..m], &fk[..l], t);
        let l1 = trim(&fk1[..l]).len();
        if l1 == 0 {
            s1[..m].fill(0);
        } else {
            sqr(k, &mut s1[..2 * l1], &fk1[..l1], t);
            s1[2 * l1..m].fill(0);
        }
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
