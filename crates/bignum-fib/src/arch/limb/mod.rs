//! The limb kernels in inline assembly, one module per ISA, each a zero-sized token
//! implementing `Kernels` (from `kernels`) through [`asm_kernels`]: its constructor checks the
//! CPU, so holding the token proves the check and the kernels are safe to call.
//!
//! - `x86_64`: MULX (BMI2) with two carry chains (ADCX/ADOX, ADX), detected at run time
//!   under `NAB_MAX_ISA`.
//! - `aarch64`: the base ISA (`mul`/`umulh`, `adds`/`adcs`), always available.

#[cfg(all(target_arch = "aarch64", not(miri)))]
pub(crate) mod aarch64;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod x86_64;

/// `impl Kernels` for an asm backend token from its raw-pointer kernels, which all share one
/// contract: `n >= 1` limbs at each pointer, the `_n` kernels may run in place (`r == a`),
/// the `_1` kernels need `r` disjoint from `a`, and the token proves the CPU can run them.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
macro_rules! asm_kernels {
    (
        $token:ty,
        add_n: $add_n:path, sub_n: $sub_n:path,
        mul_1: $mul_1:path, addmul_1: $addmul_1:path, submul_1: $submul_1:path,
        sqr_diag_addlsh1: |$r:ident, $a:ident| $diag:expr $(,)?
    ) => {
        impl $crate::kernels::Kernels for $token {
            #[inline]
            fn add_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
                debug_assert!(!r.is_empty() && r.len() == a.len() && a.len() == b.len());
                // SAFETY: equal non-empty lengths (the `Kernels` contract); `r` is a unique
                // borrow, so disjoint from `a` and `b`; `self` proves the CPU support.
                unsafe { $add_n(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), r.len()) }
            }
            #[inline]
            fn add_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
                debug_assert!(!b.is_empty() && r.len() >= b.len());
                let p = r.as_mut_ptr();
                // SAFETY: `r` has at least `b.len() >= 1` limbs; the kernel may run in place;
                // `b` is disjoint from the unique borrow `r`; `self` proves the CPU support.
                unsafe { $add_n(p, p, b.as_ptr(), b.len()) }
            }
            #[inline]
            fn sub_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
                debug_assert!(!r.is_empty() && r.len() == a.len() && a.len() == b.len());
                // SAFETY: as in `add_n`.
                unsafe { $sub_n(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), r.len()) }
            }
            #[inline]
            fn sub_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
                debug_assert!(!b.is_empty() && r.len() >= b.len());
                let p = r.as_mut_ptr();
                // SAFETY: as in `add_assign_n`.
                unsafe { $sub_n(p, p, b.as_ptr(), b.len()) }
            }
            #[inline]
            fn mul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
                debug_assert!(!a.is_empty() && r.len() >= a.len());
                // SAFETY: `r` has at least `a.len() >= 1` limbs and, as a unique borrow, is
                // disjoint from `a`; `self` proves the CPU support.
                unsafe { $mul_1(r.as_mut_ptr(), a.as_ptr(), a.len(), v) }
            }
            #[inline]
            fn addmul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
                debug_assert!(!a.is_empty() && r.len() >= a.len());
                // SAFETY: as in `mul_1`.
                unsafe { $addmul_1(r.as_mut_ptr(), a.as_ptr(), a.len(), v) }
            }
            #[inline]
            fn submul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
                debug_assert!(!a.is_empty() && r.len() >= a.len());
                // SAFETY: as in `mul_1`.
                unsafe { $submul_1(r.as_mut_ptr(), a.as_ptr(), a.len(), v) }
            }
            #[inline]
            fn sqr_diag_addlsh1(self, $r: &mut [u64], $a: &[u64]) {
                debug_assert!(!$a.is_empty() && $r.len() >= 2 * $a.len());
                $diag
            }
        }
    };
}
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(crate) use asm_kernels;
