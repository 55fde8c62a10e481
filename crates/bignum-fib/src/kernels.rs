//! The contract every limb backend implements ([`Kernels`]) and the algorithms written once
//! over it. A leaf module: the portable kernels, the assembly ones under `arch/limb`, the
//! dispatcher and the algorithms (`mul`, `fib`, `radix`, `nat`) all import it, and it
//! imports none of them.

/// The limb kernels every backend implements, with the meaning of the portable ones.
/// Lengths: `r.len() == a.len() == b.len()` for the `_n` kernels; `r.len() == a.len()`
/// for the `_1` kernels (`r` may be longer; only `a.len()` limbs are touched). No kernel is
/// called with empty slices.
pub(crate) trait Kernels: Copy + Send + Sync {
    /// `r = a + b`; returns the carry.
    fn add_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64;
    /// `r += b` over `b.len()` limbs; returns the carry.
    fn add_assign_n(self, r: &mut [u64], b: &[u64]) -> u64;
    /// `r = a - b`; returns the borrow.
    fn sub_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64;
    /// `r -= b` over `b.len()` limbs; returns the borrow.
    fn sub_assign_n(self, r: &mut [u64], b: &[u64]) -> u64;
    /// `r = a * v`; returns the high limb.
    fn mul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64;
    /// `r += a * v`; returns the high limb.
    fn addmul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64;
    /// `r -= a * v`; returns the borrow limb.
    fn submul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64;
    /// The last pass of the basecase squaring (see the portable backend's `sqr_diag_addlsh1`).
    fn sqr_diag_addlsh1(self, r: &mut [u64], a: &[u64]);
    /// `r = a²`, `r.len() == 2 * a.len()`.
    #[inline]
    fn sqr_basecase(self, r: &mut [u64], a: &[u64]) {
        sqr_basecase_with(self, r, a)
    }
}

/// `r = a²` (`r.len() == 2 * a.len()`, `a` not empty) with the schoolbook method: the
/// off-diagonal products once (`mul_1`, then one `addmul_1` per row), doubled, plus the
/// diagonal squares.
#[inline(always)]
pub(crate) fn sqr_basecase_with<K: Kernels>(k: K, r: &mut [u64], a: &[u64]) {
    let n = a.len();
    if n == 1 {
        let p = u128::from(a[0]) * u128::from(a[0]);
        r[0] = p as u64;
        r[1] = (p >> 64) as u64;
        return;
    }
    r[0] = 0;
    r[n] = k.mul_1(&mut r[1..n], &a[1..], a[0]);
    for i in 1..n - 1 {
        r[n + i] = k.addmul_1(&mut r[2 * i + 1..n + i], &a[i + 1..], a[i]);
    }
    r[2 * n - 1] = 0;
    k.sqr_diag_addlsh1(r, a);
}
