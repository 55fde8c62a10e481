//! [`Nat`] with the unsigned primitive integers: `From` each of them, the operators
//! `+ - * / %` (and their assignments) with a primitive on either side, comparisons with a
//! primitive on either side, and `Sum`/`Product` over anything `Nat` adds or multiplies.
//!
//! The operator set is num-bigint's `BigUint`'s (`u8`, `u16`, `u32`, `u64`, `u128`,
//! `usize`; owned or borrowed on either side; the result is always a `Nat`, `n % 10u32`
//! included), so code written for `BigUint` compiles unchanged. `BigUint` has no primitive
//! comparisons; ours add one inference caveat: `n == x.into()` no longer names one type
//! (write `n == Nat::from(x)`). `-` panics when the result would be negative and `/`, `%`
//! when the divisor is zero, as between two `Nat`s. An addition or subtraction of at most 64 bits works in
//! place on an owned `Nat`; a multiplication or division takes the limb paths of `&Nat op
//! &Nat` with a one- or two-limb operand.

use core::cmp::Ordering;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Sub, SubAssign};
use std::borrow::Cow;

use crate::div::divrem;
use crate::nat::Nat;

impl Nat {
    /// The value if it fits in a `u128`.
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// assert_eq!(Nat::from(u128::MAX).to_u128(), Some(u128::MAX));
    /// assert_eq!((Nat::from(u128::MAX) + 1u32).to_u128(), None);
    /// ```
    pub fn to_u128(&self) -> Option<u128> {
        match self.limbs[..] {
            [] => Some(0),
            [lo] => Some(u128::from(lo)),
            [lo, hi] => Some(u128::from(hi) << 64 | u128::from(lo)),
            _ => None,
        }
    }
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Nat {
            fn from(v: $t) -> Nat {
                Nat::from(v as u64)
            }
        }
    )*};
}
// `usize` is at most 64 bits on every target Rust supports.
from_unsigned!(u8, u16, u32, usize);

/// The operator of [`scalar_op`].
#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// `lhs op v`: one body for every primitive type and ownership (`v` widened to `u128`).
fn scalar_op(lhs: Cow<'_, Nat>, op: Op, v: u128) -> Nat {
    let small = u64::try_from(v).ok();
    match (op, small) {
        (Op::Add, Some(v)) => {
            let mut x = lhs.into_owned();
            x.add_small(v);
            x
        }
        (Op::Sub, Some(v)) => {
            assert!(*lhs >= v, "Nat subtraction underflow: rhs > self");
            let mut x = lhs.into_owned();
            x.sub_small(v);
            x
        }
        (Op::Add, None) => &*lhs + &Nat::from(v),
        (Op::Sub, None) => &*lhs - &Nat::from(v),
        (Op::Mul, _) => &*lhs * &Nat::from(v),
        (Op::Div, _) => divrem(&lhs, &Nat::from(v)).0,
        (Op::Rem, _) => divrem(&lhs, &Nat::from(v)).1,
    }
}

/// Every combination of `Nat`/`&Nat` with `t`/`&t` for one operator and primitive type.
macro_rules! scalar_binop {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident, $t:ty) => {
        impl $Op<$t> for Nat {
            type Output = Nat;
            fn $op(self, rhs: $t) -> Nat {
                scalar_op(Cow::Owned(self), Op::$Op, rhs as u128)
            }
        }
        impl $Op<$t> for &Nat {
            type Output = Nat;
            fn $op(self, rhs: $t) -> Nat {
                scalar_op(Cow::Borrowed(self), Op::$Op, rhs as u128)
            }
        }
        impl $Op<&$t> for Nat {
            type Output = Nat;
            fn $op(self, rhs: &$t) -> Nat {
                scalar_op(Cow::Owned(self), Op::$Op, *rhs as u128)
            }
        }
        impl $Op<&$t> for &Nat {
            type Output = Nat;
            fn $op(self, rhs: &$t) -> Nat {
                scalar_op(Cow::Borrowed(self), Op::$Op, *rhs as u128)
            }
        }
        impl $Op<Nat> for $t {
            type Output = Nat;
            fn $op(self, rhs: Nat) -> Nat {
                (&Nat::from(self)).$op(&rhs)
            }
        }
        impl $Op<&Nat> for $t {
            type Output = Nat;
            fn $op(self, rhs: &Nat) -> Nat {
                (&Nat::from(self)).$op(rhs)
            }
        }
        impl $Op<Nat> for &$t {
            type Output = Nat;
            fn $op(self, rhs: Nat) -> Nat {
                (&Nat::from(*self)).$op(&rhs)
            }
        }
        impl $Op<&Nat> for &$t {
            type Output = Nat;
            fn $op(self, rhs: &Nat) -> Nat {
                (&Nat::from(*self)).$op(rhs)
            }
        }
        impl $OpAssign<$t> for Nat {
            fn $op_assign(&mut self, rhs: $t) {
                *self = scalar_op(Cow::Owned(core::mem::take(self)), Op::$Op, rhs as u128);
            }
        }
    };
}

/// Every operator and comparison for each primitive type.
macro_rules! scalar_impls {
    ($($t:ty),*) => {$(
        scalar_binop!(Add, add, AddAssign, add_assign, $t);
        scalar_binop!(Sub, sub, SubAssign, sub_assign, $t);
        scalar_binop!(Mul, mul, MulAssign, mul_assign, $t);
        scalar_binop!(Div, div, DivAssign, div_assign, $t);
        scalar_binop!(Rem, rem, RemAssign, rem_assign, $t);

        impl PartialEq<$t> for Nat {
            fn eq(&self, other: &$t) -> bool {
                self.to_u128() == Some(*other as u128)
            }
        }
        impl PartialEq<Nat> for $t {
            fn eq(&self, other: &Nat) -> bool {
                other == self
            }
        }
        impl PartialOrd<$t> for Nat {
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                Some(self.to_u128().map_or(Ordering::Greater, |v| v.cmp(&(*other as u128))))
            }
        }
        impl PartialOrd<Nat> for $t {
            fn partial_cmp(&self, other: &Nat) -> Option<Ordering> {
                other.partial_cmp(self).map(Ordering::reverse)
            }
        }
    )*};
}

scalar_impls!(u8, u16, u32, u64, u128, usize);

/// The sum of any values `Nat` adds (`Nat`, `&Nat`, primitives), as num-bigint's.
///
/// ```
/// use bignum_fib::Nat;
/// let v = [Nat::from(u64::MAX), Nat::from(1u64)];
/// assert_eq!(v.iter().sum::<Nat>(), Nat::from(1u128 << 64));
/// assert_eq!((1u32..=10).sum::<Nat>(), 55u32);
/// ```
impl<T> Sum<T> for Nat
where
    Nat: Add<T, Output = Nat>,
{
    fn sum<I: Iterator<Item = T>>(iter: I) -> Nat {
        iter.fold(Nat::zero(), |acc, x| acc + x)
    }
}

/// The product of any values `Nat` multiplies (`Nat`, `&Nat`, primitives); 1 when empty.
///
/// ```
/// use bignum_fib::Nat;
/// let factorial: Nat = (1u32..=25).product();
/// assert_eq!(factorial.to_string(), "15511210043330985984000000");
/// ```
impl<T> Product<T> for Nat
where
    Nat: Mul<T, Output = Nat>,
{
    fn product<I: Iterator<Item = T>>(iter: I) -> Nat {
        iter.fold(Nat::from(1u64), |acc, x| acc * x)
    }
}
