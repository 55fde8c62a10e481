//! Helpers on little-endian limb slices that need no kernel: increment, decrement,
//! normalization and comparison. A leaf module: the multiplication ladder (`mul`), the NTT
//! (`ntt`), the decimal conversion and `Nat` all use it, and it uses nothing of the crate.

use core::cmp::Ordering;

/// `r += 1`; returns true on overflow.
#[inline]
pub(crate) fn incr(r: &mut [u64]) -> bool {
    for x in r {
        let (s, c) = x.overflowing_add(1);
        *x = s;
        if !c {
            return false;
        }
    }
    true
}

/// `r -= 1`; returns true on underflow.
#[inline]
pub(crate) fn decr(r: &mut [u64]) -> bool {
    for x in r {
        let (s, b) = x.overflowing_sub(1);
        *x = s;
        if !b {
            return false;
        }
    }
    true
}

/// `x` without its top zero limbs.
#[inline]
pub(crate) fn trim(x: &[u64]) -> &[u64] {
    let mut n = x.len();
    while n > 0 && x[n - 1] == 0 {
        n -= 1;
    }
    &x[..n]
}

/// Compares two limb slices as numbers (top zeros ignored).
pub(crate) fn cmp_limbs(a: &[u64], b: &[u64]) -> Ordering {
    let (a, b) = (trim(a), trim(b));
    a.len().cmp(&b.len()).then_with(|| a.iter().rev().cmp(b.iter().rev()))
}
