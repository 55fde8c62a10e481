//! Division and powers of [`Nat`]: `/`, `%`, [`Nat::div_rem`], [`Nat::checked_div`],
//! [`Nat::pow`].
//!
//! The division is `radix.rs`'s (the one decimal output uses): Möller–Granlund two-by-one
//! steps for a one-limb divisor, otherwise the recursive Burnikel–Ziegler division, which is
//! schoolbook below `DC_DIVISION_LIMBS` limbs of quotient or divisor and `O(M(n) log n)`
//! above. Division by zero panics, as it does for the primitive integers and num-bigint's
//! `BigUint`; [`Nat::checked_div`] is the non-panicking form.

use core::ops::{Div, DivAssign, Rem, RemAssign};

use crate::nat::{Nat, forward_binop};
use crate::radix::divrem_nat;

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
        divrem_nat(self, other)
    }

    /// `self / other`, or `None` when `other` is zero (num-traits' `CheckedDiv`).
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(100u64).checked_div(&Nat::from(7u64)), Some(Nat::from(14u64)));
    /// assert_eq!(Nat::from(100u64).checked_div(&Nat::zero()), None);
    /// ```
    pub fn checked_div(&self, other: &Nat) -> Option<Nat> {
        (!other.is_zero()).then(|| divrem_nat(self, other).0)
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
        divrem_nat(self, rhs).0
    }
}

impl Rem<&Nat> for &Nat {
    type Output = Nat;
    /// # Panics
    /// When `rhs` is zero.
    fn rem(self, rhs: &Nat) -> Nat {
        divrem_nat(self, rhs).1
    }
}

forward_binop!(Div, div, DivAssign, div_assign);
forward_binop!(Rem, rem, RemAssign, rem_assign);
