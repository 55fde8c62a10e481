//! [`Nat`]: an arbitrary-precision natural number, its arithmetic operators and ordering.

use core::cmp::Ordering;
use core::ops::{Add, AddAssign, Mul, MulAssign, Shl, Shr, Sub, SubAssign};

use crate::dispatch::{Backend, with_kernels};
use crate::kernels::Kernels;
use crate::limbs::trim;
use crate::mul::{self, Thresholds};

/// An arbitrary-precision natural number: little-endian 64-bit limbs, normalized (no zero
/// limb at the top; zero has no limbs).
///
/// Its operators take another `Nat` or an unsigned primitive on either side, owned or
/// borrowed, as num-bigint's `BigUint`'s do.
///
/// # Panics
/// As `BigUint`'s: `-` when the right side is the larger ([`Nat::checked_sub`] instead), `/`
/// and `%` by zero ([`Nat::checked_div`] instead).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Nat {
    pub(crate) limbs: Vec<u64>,
}

impl Nat {
    /// Zero.
    pub const fn zero() -> Nat {
        Nat { limbs: Vec::new() }
    }

    /// The number whose little-endian 64-bit limbs are `limbs` (top zeros are dropped).
    pub fn from_limbs(mut limbs: Vec<u64>) -> Nat {
        let n = trim(&limbs).len();
        limbs.truncate(n);
        Nat { limbs }
    }

    /// The little-endian 64-bit limbs (none for zero, never a zero at the top).
    pub fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// The number of significant bits (0 for zero).
    pub fn bit_len(&self) -> u64 {
        match self.limbs.last() {
            None => 0,
            Some(&top) => 64 * self.limbs.len() as u64 - u64::from(top.leading_zeros()),
        }
    }

    /// The value if it fits in a `u64`.
    pub fn to_u64(&self) -> Option<u64> {
        match self.limbs.len() {
            0 => Some(0),
            1 => Some(self.limbs[0]),
            _ => None,
        }
    }

    /// `self - other`, or `None` when `other > self`.
    pub fn checked_sub(&self, other: &Nat) -> Option<Nat> {
        if *self < *other {
            return None;
        }
        let mut r = self.limbs.clone();
        with_kernels!(Backend::detect(), k => mul::sub_into(k, &mut r, &other.limbs));
        Some(Nat::from_limbs(r))
    }

    /// `self²` (the squaring ladder, cheaper than `self * self` through the general one).
    #[must_use]
    pub fn square(&self) -> Nat {
        square_limbs(&self.limbs)
    }

    /// `self * other` with the schoolbook method only: the reference of the ladder tests.
    #[doc(hidden)]
    #[must_use]
    pub fn mul_schoolbook(&self, other: &Nat) -> Nat {
        self.mul_with(other, Backend::detect(), &Thresholds::SCHOOLBOOK)
    }

    /// `self * other` with the given backend and ladder thresholds (tests and tuning).
    #[doc(hidden)]
    #[must_use]
    pub fn mul_with(&self, other: &Nat, backend: Backend, t: &Thresholds) -> Nat {
        let (a, b) = (&self.limbs, &other.limbs);
        let mut r = vec![0u64; a.len() + b.len()];
        with_kernels!(backend, k => mul::mul_any(k, &mut r, a, b, t));
        Nat::from_limbs(r)
    }

    /// `self²` with the given backend and ladder thresholds (tests and tuning).
    #[doc(hidden)]
    #[must_use]
    pub fn square_with(&self, backend: Backend, t: &Thresholds) -> Nat {
        let a = &self.limbs;
        if a.is_empty() {
            return Nat::zero();
        }
        let mut r = vec![0u64; 2 * a.len()];
        with_kernels!(backend, k => mul::sqr(k, &mut r, a, t));
        Nat::from_limbs(r)
    }

    /// `self · 2^(64·limbs)`.
    pub(crate) fn shl_limbs(&self, limbs: usize) -> Nat {
        if self.is_zero() {
            return Nat::zero();
        }
        let mut v = vec![0u64; limbs + self.limbs.len()];
        v[limbs..].copy_from_slice(&self.limbs);
        Nat { limbs: v }
    }

    /// `floor(self / 2^(64·limbs))`.
    pub(crate) fn shr_limbs(&self, limbs: usize) -> Nat {
        Nat { limbs: self.limbs.get(limbs..).unwrap_or(&[]).to_vec() }
    }

    /// `self += v`.
    pub(crate) fn add_small(&mut self, v: u64) {
        if v == 0 {
            return;
        }
        self.limbs.push(0);
        let (s, c) = self.limbs[0].overflowing_add(v);
        self.limbs[0] = s;
        if c {
            crate::limbs::incr(&mut self.limbs[1..]);
        }
        let n = trim(&self.limbs).len();
        self.limbs.truncate(n);
    }

    /// `self -= v` (the caller guarantees `self >= v`).
    pub(crate) fn sub_small(&mut self, v: u64) {
        if v == 0 {
            return;
        }
        let (s, b) = self.limbs[0].overflowing_sub(v);
        self.limbs[0] = s;
        if b {
            crate::limbs::decr(&mut self.limbs[1..]);
        }
        let n = trim(&self.limbs).len();
        self.limbs.truncate(n);
    }
}

/// `a²` as a `Nat` (`a` need not be normalized).
pub(crate) fn square_limbs(a: &[u64]) -> Nat {
    let a = trim(a);
    if a.is_empty() {
        return Nat::zero();
    }
    let mut r = vec![0u64; 2 * a.len()];
    with_kernels!(Backend::detect(), k => mul::sqr(k, &mut r, a, &Thresholds::detect()));
    Nat::from_limbs(r)
}

fn add_limbs<K: Kernels>(k: K, a: &[u64], b: &[u64]) -> Nat {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut r = Vec::with_capacity(a.len() + 1);
    r.extend_from_slice(a);
    r.push(0);
    mul::add_into(k, &mut r, b);
    Nat::from_limbs(r)
}

fn mul_limbs(a: &[u64], b: &[u64]) -> Nat {
    if core::ptr::eq(a, b) {
        return square_limbs(a);
    }
    let mut r = vec![0u64; a.len() + b.len()];
    with_kernels!(Backend::detect(), k => mul::mul_any(k, &mut r, a, b, &Thresholds::detect()));
    Nat::from_limbs(r)
}

impl From<u64> for Nat {
    fn from(v: u64) -> Nat {
        Nat::from_limbs(vec![v])
    }
}

impl From<u128> for Nat {
    fn from(v: u128) -> Nat {
        Nat::from_limbs(vec![v as u64, (v >> 64) as u64])
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Nat) -> Ordering {
        crate::limbs::cmp_limbs(&self.limbs, &other.limbs)
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Nat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Add<&Nat> for &Nat {
    type Output = Nat;
    fn add(self, rhs: &Nat) -> Nat {
        with_kernels!(Backend::detect(), k => add_limbs(k, &self.limbs, &rhs.limbs))
    }
}

impl Sub<&Nat> for &Nat {
    type Output = Nat;
    /// # Panics
    /// When `rhs > self` (naturals have no negative values; see [`Nat::checked_sub`]).
    fn sub(self, rhs: &Nat) -> Nat {
        self.checked_sub(rhs).expect("Nat subtraction underflow: rhs > self")
    }
}

impl Mul<&Nat> for &Nat {
    type Output = Nat;
    fn mul(self, rhs: &Nat) -> Nat {
        mul_limbs(&self.limbs, &rhs.limbs)
    }
}

impl Shl<u64> for &Nat {
    type Output = Nat;
    fn shl(self, bits: u64) -> Nat {
        if self.is_zero() {
            return Nat::zero();
        }
        let (limbs, bits) = ((bits / 64) as usize, (bits % 64) as u32);
        let mut v = vec![0u64; limbs + self.limbs.len() + 1];
        if bits == 0 {
            v[limbs..limbs + self.limbs.len()].copy_from_slice(&self.limbs);
        } else {
            let mut carry = 0u64;
            for (d, &s) in v[limbs..].iter_mut().zip(&self.limbs) {
                *d = (s << bits) | carry;
                carry = s >> (64 - bits);
            }
            v[limbs + self.limbs.len()] = carry;
        }
        Nat::from_limbs(v)
    }
}

impl Shr<u64> for &Nat {
    type Output = Nat;
    fn shr(self, bits: u64) -> Nat {
        let (limbs, bits) = ((bits / 64) as usize, (bits % 64) as u32);
        if limbs >= self.limbs.len() {
            return Nat::zero();
        }
        let src = &self.limbs[limbs..];
        let mut v = src.to_vec();
        if bits != 0 {
            for i in 0..v.len() {
                let hi = src.get(i + 1).map_or(0, |&h| h << (64 - bits));
                v[i] = (src[i] >> bits) | hi;
            }
        }
        Nat::from_limbs(v)
    }
}

/// The owned/borrowed combinations of a binary operator, forwarding to `&Nat op &Nat`.
macro_rules! forward_binop {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident) => {
        impl $Op<Nat> for Nat {
            type Output = Nat;
            fn $op(self, rhs: Nat) -> Nat {
                (&self).$op(&rhs)
            }
        }
        impl $Op<&Nat> for Nat {
            type Output = Nat;
            fn $op(self, rhs: &Nat) -> Nat {
                (&self).$op(rhs)
            }
        }
        impl $Op<Nat> for &Nat {
            type Output = Nat;
            fn $op(self, rhs: Nat) -> Nat {
                self.$op(&rhs)
            }
        }
        impl $OpAssign<&Nat> for Nat {
            fn $op_assign(&mut self, rhs: &Nat) {
                *self = (&*self).$op(rhs);
            }
        }
        impl $OpAssign<Nat> for Nat {
            fn $op_assign(&mut self, rhs: Nat) {
                *self = (&*self).$op(&rhs);
            }
        }
    };
}

pub(crate) use forward_binop;

forward_binop!(Add, add, AddAssign, add_assign);
forward_binop!(Sub, sub, SubAssign, sub_assign);
forward_binop!(Mul, mul, MulAssign, mul_assign);

impl Shl<u64> for Nat {
    type Output = Nat;
    fn shl(self, bits: u64) -> Nat {
        &self << bits
    }
}

impl Shr<u64> for Nat {
    type Output = Nat;
    fn shr(self, bits: u64) -> Nat {
        &self >> bits
    }
}

#[cfg(feature = "num-bigint")]
impl From<&num_bigint::BigUint> for Nat {
    fn from(v: &num_bigint::BigUint) -> Nat {
        Nat::from_limbs(v.to_u64_digits())
    }
}

#[cfg(feature = "num-bigint")]
impl From<num_bigint::BigUint> for Nat {
    fn from(v: num_bigint::BigUint) -> Nat {
        Nat::from(&v)
    }
}

#[cfg(feature = "num-bigint")]
impl From<&Nat> for num_bigint::BigUint {
    fn from(v: &Nat) -> num_bigint::BigUint {
        let digits: Vec<u32> = v.limbs.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect();
        num_bigint::BigUint::new(digits)
    }
}

#[cfg(feature = "num-bigint")]
impl From<Nat> for num_bigint::BigUint {
    fn from(v: Nat) -> num_bigint::BigUint {
        num_bigint::BigUint::from(&v)
    }
}
