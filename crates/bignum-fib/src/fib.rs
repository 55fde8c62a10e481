//! Fibonacci and Lucas numbers: a table to F(93) (the largest that fits in a `u64`), then
//! GMP's recurrence (`mpz_fib2_ui`): from `F(k)`, `F(k−1)`
//!
//! - `F(2k+1) = 4F(k)² − F(k−1)² + 2(−1)^k`
//! - `F(2k−1) = F(k)² + F(k−1)²`
//! - `F(2k)   = F(2k+1) − F(2k−1)`
//!
//! two squarings per bit of `n`, walked from the top bit (found with `leading_zeros`), and for
//! `F(n)` alone one multiplication on the last step (`mpz_fib_ui`).

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
    // Start from the top bits of `n` that index the table, then one doubling per bit below.
    let bits = 64 - n.leading_zeros();
    let table_bits = 64 - TABLE_MAX.leading_zeros(); // 7: n >> (bits − 7) <= 127
    let mut shift = bits - (table_bits - 1); // the top 6 bits: at most 63 <= 93
    let mut k = n >> shift;
    let mut fk = Nat::from(FIB_TABLE[k as usize]);
    let mut fk1 = Nat::from(FIB_TABLE[k as usize - 1]);
    while shift > 0 {
        shift -= 1;
        let bit = (n >> shift) & 1;
        let sq = fk.square(); // F(k)²
        let sq1 = fk1.square(); // F(k−1)²
        // F(2k+1) = 4F(k)² − F(k−1)² ± 2
        let mut f2k1 = &(&sq << 2) - &sq1;
        if k & 1 == 0 {
            f2k1.add_small(2);
        } else {
            f2k1.sub_small(2);
        }
        // F(2k−1) = F(k)² + F(k−1)²
        let f2km1 = &sq + &sq1;
        // F(2k) = F(2k+1) − F(2k−1)
        let f2k = &f2k1 - &f2km1;
        if bit == 1 {
            (fk, fk1) = (f2k1, f2k);
        } else {
            (fk, fk1) = (f2k, f2km1);
        }
        k = 2 * k + bit;
    }
    debug_assert_eq!(k, n);
    (fk, fk1)
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
