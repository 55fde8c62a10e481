//! The portable limb kernels: plain Rust over `u128` products. They are the reference every
//! assembly kernel is tested against, and what riscv64, mips64 and Miri run.
//!
//! All slices hold little-endian 64-bit limbs. Each function's length contract is checked by
//! the caller (the public `Backend` for the test surface, the multiplication ladder
//! otherwise).

use crate::kernels::Kernels;

/// The portable backend's token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Portable;

/// `r = a + b` over `a.len()` limbs; returns the carry (0 or 1).
#[inline]
pub(crate) fn add_n(r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    let mut carry = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        let (s, c1) = a.overflowing_add(b);
        let (s, c2) = s.overflowing_add(carry as u64);
        *r = s;
        carry = c1 | c2;
    }
    carry as u64
}

/// `r += b` over `b.len()` limbs; returns the carry (0 or 1).
#[inline]
pub(crate) fn add_assign_n(r: &mut [u64], b: &[u64]) -> u64 {
    let mut carry = false;
    for (r, &b) in r.iter_mut().zip(b) {
        let (s, c1) = r.overflowing_add(b);
        let (s, c2) = s.overflowing_add(carry as u64);
        *r = s;
        carry = c1 | c2;
    }
    carry as u64
}

/// `r = a - b` over `a.len()` limbs; returns the borrow (0 or 1).
#[inline]
pub(crate) fn sub_n(r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    let mut borrow = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        let (s, b1) = a.overflowing_sub(b);
        let (s, b2) = s.overflowing_sub(borrow as u64);
        *r = s;
        borrow = b1 | b2;
    }
    borrow as u64
}

/// `r -= b` over `b.len()` limbs; returns the borrow (0 or 1).
#[inline]
pub(crate) fn sub_assign_n(r: &mut [u64], b: &[u64]) -> u64 {
    let mut borrow = false;
    for (r, &b) in r.iter_mut().zip(b) {
        let (s, b1) = r.overflowing_sub(b);
        let (s, b2) = s.overflowing_sub(borrow as u64);
        *r = s;
        borrow = b1 | b2;
    }
    borrow as u64
}

/// `r = a * v` over `a.len()` limbs; returns the high limb.
#[inline]
pub(crate) fn mul_1(r: &mut [u64], a: &[u64], v: u64) -> u64 {
    let mut carry = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let p = u128::from(a) * u128::from(v) + u128::from(carry);
        *r = p as u64;
        carry = (p >> 64) as u64;
    }
    carry
}

/// `r += a * v` over `a.len()` limbs; returns the high limb.
#[inline]
pub(crate) fn addmul_1(r: &mut [u64], a: &[u64], v: u64) -> u64 {
    let mut carry = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let p = u128::from(a) * u128::from(v) + u128::from(*r) + u128::from(carry);
        *r = p as u64;
        carry = (p >> 64) as u64;
    }
    carry
}

/// `r -= a * v` over `a.len()` limbs; returns the borrow limb.
#[inline]
pub(crate) fn submul_1(r: &mut [u64], a: &[u64], v: u64) -> u64 {
    let mut carry = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let p = u128::from(a) * u128::from(v) + u128::from(carry);
        let (s, borrow) = r.overflowing_sub(p as u64);
        *r = s;
        carry = (p >> 64) as u64 + borrow as u64;
    }
    carry
}

/// `r += 2 * r + diagonal`: the last step of squaring. On entry `r` (`2 * a.len()` limbs)
/// holds the off-diagonal sum `T = Σ_{i<j} a_i a_j B^(i+j)`; on exit `r = 2T + Σ a_i² B^(2i)`.
#[inline]
pub(crate) fn sqr_diag_addlsh1(r: &mut [u64], a: &[u64]) {
    let mut shift_in = 0u64; // top bit of the previous limb of T
    let mut carry = 0u128;
    for (i, &ai) in a.iter().enumerate() {
        let sq = u128::from(ai) * u128::from(ai);
        let lo = r[2 * i];
        let hi = r[2 * i + 1];
        let t_lo = (lo << 1) | shift_in;
        let t_hi = (hi << 1) | (lo >> 63);
        shift_in = hi >> 63;
        let t = (u128::from(t_hi) << 64) | u128::from(t_lo);
        let (s, c1) = t.overflowing_add(sq);
        let (s, c2) = s.overflowing_add(carry);
        r[2 * i] = s as u64;
        r[2 * i + 1] = (s >> 64) as u64;
        carry = u128::from(c1) + u128::from(c2);
    }
    debug_assert!(shift_in == 0 && carry == 0);
}

impl Kernels for Portable {
    #[inline]
    fn add_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
        add_n(r, a, b)
    }
    #[inline]
    fn add_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
        add_assign_n(r, b)
    }
    #[inline]
    fn sub_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
        sub_n(r, a, b)
    }
    #[inline]
    fn sub_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
        sub_assign_n(r, b)
    }
    #[inline]
    fn mul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        mul_1(r, a, v)
    }
    #[inline]
    fn addmul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        addmul_1(r, a, v)
    }
    #[inline]
    fn submul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        submul_1(r, a, v)
    }
    #[inline]
    fn sqr_diag_addlsh1(self, r: &mut [u64], a: &[u64]) {
        sqr_diag_addlsh1(r, a)
    }
}
