//! The `num-traits` feature: num-traits' `Zero`, `One`, `Num`, `Unsigned`, `Pow`,
//! `ToPrimitive`, `FromPrimitive`, `CheckedAdd`/`CheckedSub`/`CheckedMul`/`CheckedDiv` for
//! [`Nat`], as num-bigint implements them for `BigUint`, so generic code over those traits
//! takes a `Nat`.

use num_traits::{
    CheckedAdd, CheckedDiv, CheckedMul, CheckedSub, FromPrimitive, Num, One, Pow, ToPrimitive,
    Unsigned, Zero,
};

use crate::nat::Nat;
use crate::radix::ParseNatError;

impl Zero for Nat {
    fn zero() -> Nat {
        Nat::zero()
    }
    fn is_zero(&self) -> bool {
        Nat::is_zero(self)
    }
}

impl One for Nat {
    fn one() -> Nat {
        Nat::from(1u64)
    }
    fn is_one(&self) -> bool {
        self.limbs == [1]
    }
}

/// ```
/// use bignum_fib::Nat;
/// use num_traits::{Num, One, Zero};
///
/// fn sum_of_squares<T: Num + Clone>(n: u32) -> T {
///     let mut acc = T::zero();
///     let mut i = T::zero();
///     for _ in 0..n {
///         i = i + T::one();
///         acc = acc + i.clone() * i.clone();
///     }
///     acc
/// }
/// assert_eq!(sum_of_squares::<Nat>(10), Nat::from(385u32));
/// assert_eq!(<Nat as Num>::from_str_radix("zz", 36), Ok(Nat::from(1295u32)));
/// ```
impl Num for Nat {
    type FromStrRadixErr = ParseNatError;
    /// [`Nat::from_str_radix`].
    fn from_str_radix(s: &str, radix: u32) -> Result<Nat, ParseNatError> {
        Nat::from_str_radix(s, radix)
    }
}

impl Unsigned for Nat {}

impl CheckedAdd for Nat {
    fn checked_add(&self, v: &Nat) -> Option<Nat> {
        Some(self + v)
    }
}

impl CheckedSub for Nat {
    fn checked_sub(&self, v: &Nat) -> Option<Nat> {
        Nat::checked_sub(self, v)
    }
}

impl CheckedMul for Nat {
    fn checked_mul(&self, v: &Nat) -> Option<Nat> {
        Some(self * v)
    }
}

impl CheckedDiv for Nat {
    fn checked_div(&self, v: &Nat) -> Option<Nat> {
        Nat::checked_div(self, v)
    }
}

/// `Pow` for every unsigned exponent type, owned or borrowed, on `Nat` and `&Nat`.
macro_rules! pow_impls {
    ($($t:ty),*) => {$(
        impl Pow<$t> for Nat {
            type Output = Nat;
            fn pow(self, exp: $t) -> Nat {
                self.pow_u128(exp as u128)
            }
        }
        impl Pow<&$t> for Nat {
            type Output = Nat;
            fn pow(self, exp: &$t) -> Nat {
                self.pow_u128(*exp as u128)
            }
        }
        impl Pow<$t> for &Nat {
            type Output = Nat;
            fn pow(self, exp: $t) -> Nat {
                self.pow_u128(exp as u128)
            }
        }
        impl Pow<&$t> for &Nat {
            type Output = Nat;
            fn pow(self, exp: &$t) -> Nat {
                self.pow_u128(*exp as u128)
            }
        }
    )*};
}
pow_impls!(u8, u16, u32, u64, u128, usize);

/// `self` to a `Nat` power (as num-bigint's `Pow<BigUint>`): `0` and `1` to any power are
/// themselves (`x⁰ = 1`).
///
/// # Panics
/// When `self > 1` and the exponent is past `u128::MAX`: the result would have more than
/// 2¹²⁸ bits.
fn pow_nat(base: &Nat, exp: &Nat) -> Nat {
    match exp.to_u128() {
        Some(e) => base.pow_u128(e),
        None if *base <= 1u32 => base.clone(),
        None => panic!("Nat::pow: the result would have more than 2^128 bits"),
    }
}

impl Pow<Nat> for Nat {
    type Output = Nat;
    fn pow(self, exp: Nat) -> Nat {
        pow_nat(&self, &exp)
    }
}

impl Pow<&Nat> for Nat {
    type Output = Nat;
    fn pow(self, exp: &Nat) -> Nat {
        pow_nat(&self, exp)
    }
}

impl Pow<Nat> for &Nat {
    type Output = Nat;
    fn pow(self, exp: Nat) -> Nat {
        pow_nat(self, &exp)
    }
}

impl Pow<&Nat> for &Nat {
    type Output = Nat;
    fn pow(self, exp: &Nat) -> Nat {
        pow_nat(self, exp)
    }
}

/// `x`'s top 64 bits (all of `x` when shorter), their lowest bit ORed with whether any bit
/// below them is set, and how far below they were: `x ≈ top · 2^shift`. Converting `top`
/// to a float rounds as converting `x` would (ties to even; the sticky bit sits below the
/// rounding position of both `f64` and `f32`), and scaling by `2^shift` is exact or overflows
/// to infinity, as the nearest-rounding of `x` does (num-bigint's method).
fn high_bits(x: &Nat) -> (u64, u64) {
    let shift = x.bit_len().saturating_sub(64);
    let top = (x >> shift).to_u64().unwrap_or_default();
    let (i, s) = ((shift / 64) as usize, shift % 64);
    let sticky = x.limbs[..i].iter().any(|&l| l != 0) || (s != 0 && x.limbs[i] << (64 - s) != 0);
    (top | u64::from(sticky), shift)
}

impl ToPrimitive for Nat {
    fn to_i64(&self) -> Option<i64> {
        self.to_u64().and_then(|v| i64::try_from(v).ok())
    }
    fn to_u64(&self) -> Option<u64> {
        Nat::to_u64(self)
    }
    fn to_i128(&self) -> Option<i128> {
        self.to_u128().and_then(|v| i128::try_from(v).ok())
    }
    fn to_u128(&self) -> Option<u128> {
        Nat::to_u128(self)
    }
    /// The nearest `f64` (ties to even), infinity past `f64::MAX` (as num-bigint's).
    fn to_f64(&self) -> Option<f64> {
        let (top, shift) = high_bits(self);
        if shift > f64::MAX_EXP as u64 {
            return Some(f64::INFINITY);
        }
        Some(top as f64 * 2f64.powi(shift as i32))
    }
    /// The nearest `f32` (ties to even), infinity past `f32::MAX` (as num-bigint's).
    fn to_f32(&self) -> Option<f32> {
        let (top, shift) = high_bits(self);
        if shift > f32::MAX_EXP as u64 {
            return Some(f32::INFINITY);
        }
        Some(top as f32 * 2f32.powi(shift as i32))
    }
}

impl FromPrimitive for Nat {
    /// `None` for a negative value.
    fn from_i64(n: i64) -> Option<Nat> {
        u64::try_from(n).ok().map(Nat::from)
    }
    fn from_u64(n: u64) -> Option<Nat> {
        Some(Nat::from(n))
    }
    /// `None` for a negative value.
    fn from_i128(n: i128) -> Option<Nat> {
        u128::try_from(n).ok().map(Nat::from)
    }
    fn from_u128(n: u128) -> Option<Nat> {
        Some(Nat::from(n))
    }
    /// `n` truncated toward zero; `None` for NaN, an infinity or a value at most −1 (as
    /// num-bigint's: `-0.5` is zero).
    fn from_f64(n: f64) -> Option<Nat> {
        if !n.is_finite() {
            return None;
        }
        let n = n.trunc();
        if n == 0.0 {
            return Some(Nat::zero());
        }
        if n < 0.0 {
            return None;
        }
        // A finite f64 ≥ 1: its 53-bit significand shifted by its exponent.
        let bits = n.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
        let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
        Some(if exp >= 0 { Nat::from(mantissa) << exp as u64 } else { Nat::from(mantissa >> -exp) })
    }
}
