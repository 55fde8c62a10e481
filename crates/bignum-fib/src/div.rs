//! Division and powers of [`Nat`]: `/`, `%`, [`Nat::div_rem`], [`Nat::checked_div`],
//! [`Nat::pow`].
//!
//! The division is `radix.rs`'s (the one decimal output uses): Möller–Granlund two-by-one
//! steps for a one-limb divisor, otherwise the recursive Burnikel–Ziegler division, which is
//! schoolbook below `DC_DIVISION_LIMBS` limbs of quotient or divisor and `O(M(n) log n)`
//! above; a quotient much shorter than the divisor comes from the divisor's top limbs and
//! one product ([`divrem`]). Division by zero panics, as it does for the primitive integers and num-bigint's
//! `BigUint`; [`Nat::checked_div`] is the non-panicking form.

use core::ops::{Div, DivAssign, Rem, RemAssign};

use crate::nat::{Nat, forward_binop};
use crate::radix::{DC_DIVISION_LIMBS, divrem_nat};

/// `(u / d, u mod d)` for a non-zero `d`: every division of `Nat` comes here.
///
/// A quotient much shorter than the divisor (`m + 1` limbs against `n >= 2(m + 2)`, past the
/// recursive division's cut-over) is computed from the divisor's top `t = m + 2` limbs and
/// the dividend's matching ones: with `k = n − t` low limbs dropped from both, `q̂ =
/// floor(u' / d')` is `q` or `q + 1` (`q ≤ q̂` as `q·d' ≤ u'`; `q̂·d − u < q̂·B^k ≤ d·q̂ /
/// B^(t−1) < d` as `q̂ < B^(m+1)`), and one `(m+1)`-by-`n` product gives the remainder and
/// the correction. That replaces the recursion's `O(m·n)` base cases on the whole divisor
/// by a `2t`-by-`t` division and one product.
pub(crate) fn divrem(u: &Nat, d: &Nat) -> (Nat, Nat) {
    let (len, n) = (u.limbs.len(), d.limbs.len());
    let m = len.saturating_sub(n);
    let t = m + 2;
    if n == 0 || len < n || t < DC_DIVISION_LIMBS || n < 2 * t {
        return divrem_nat(u, d);
    }
    let k = n - t;
    let (mut q, _) = divrem_nat(&u.shr_limbs(k), &d.shr_limbs(k));
    let p = &q * d;
    let r = match u.checked_sub(&p) {
        Some(r) => r,
        None => {
            // q̂ = q + 1: u − (q̂ − 1)·d = u + d − q̂·d, which is below d.
            q.sub_small(1);
            &(u + d) - &p
        }
    };
    (q, r)
}

impl Nat {
    /// `(self / other, self % other)`, from one division (num-integer's `Integer::div_rem`
    /// under the same name and signature).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// let x = Nat::from(1u128 << 100) + Nat::from(7u64);
    /// let (q, r) = x.div_rem(&Nat::from(1u64 << 50));
    /// assert_eq!((q, r), (Nat::from(1u64 << 50), Nat::from(7u64)));
    /// ```
    ///
    /// # Panics
    /// When `other` is zero.
    pub fn div_rem(&self, other: &Nat) -> (Nat, Nat) {
        divrem(self, other)
    }

    /// `self / other`, or `None` when `other` is zero (num-traits' `CheckedDiv`).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(100u64).checked_div(&Nat::from(7u64)), Some(Nat::from(14u64)));
    /// assert_eq!(Nat::from(100u64).checked_div(&Nat::zero()), None);
    /// ```
    pub fn checked_div(&self, other: &Nat) -> Option<Nat> {
        (!other.is_zero()).then(|| divrem(self, other).0)
    }

    /// `self` raised to the power `exponent` (`0⁰ = 1`), by squaring from the top bit of the
    /// exponent down.
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(3u64).pow(5), Nat::from(243u64));
    /// assert_eq!(Nat::from(2u64).pow(100), Nat::from(1u128 << 100));
    /// assert_eq!(Nat::zero().pow(0), Nat::from(1u64));
    /// ```
    #[must_use]
    pub fn pow(&self, exponent: u32) -> Nat {
        self.pow_u128(u128::from(exponent))
    }

    /// [`Nat::pow`] for any exponent width (num-traits' `Pow` impls).
    pub(crate) fn pow_u128(&self, exponent: u128) -> Nat {
        if exponent == 0 {
            return Nat::from(1u64);
        }
        if *self <= 1u32 {
            return self.clone();
        }
        let mut r = self.clone();
        for bit in (0..127 - exponent.leading_zeros()).rev() {
            r = r.square();
            if exponent >> bit & 1 == 1 {
                r = &r * self;
            }
        }
        r
    }
}

impl Div<&Nat> for &Nat {
    type Output = Nat;
    /// # Panics
    /// When `rhs` is zero.
    fn div(self, rhs: &Nat) -> Nat {
        divrem(self, rhs).0
    }
}

impl Rem<&Nat> for &Nat {
    type Output = Nat;
    /// # Panics
    /// When `rhs` is zero.
    fn rem(self, rhs: &Nat) -> Nat {
        divrem(self, rhs).1
    }
}

forward_binop!(Div, div, DivAssign, div_assign);
forward_binop!(Rem, rem, RemAssign, rem_assign);
