//! x86_64 kernels: AVX-512 VBMI, AVX-512 BW (encode; AVX2's decode), and AVX2 and SSSE3
//! (`pshufb/`, one algorithm over two register widths). The alphabet and the reverse table
//! are data (registers), so every alphabet runs on every kernel.

pub(crate) mod avx512bw;
pub(crate) mod avx512vbmi;
pub(crate) mod chosen;
pub(crate) mod compact;
pub(crate) mod pshufb;

/// `fn $name(a: $t, b: $t) -> $t`: `vpmulhuw` on `$reg` registers, written out with
/// `#[target_feature(enable = $feature)]`. LLVM lowers the `core::arch` intrinsic (a widening
/// multiply there) into zero-extends, two multiplies, a pack and a permute.
macro_rules! mulhi_epu16_asm {
    ($name:ident, $t:ty, $reg:ident, $feature:literal) => {
        /// The high halves of the unsigned 16-bit products of `a` and `b` (`vpmulhuw`).
        #[inline]
        #[target_feature(enable = $feature)]
        fn $name(a: $t, b: $t) -> $t {
            let r: $t;
            // SAFETY: `vpmulhuw` on registers only (`nomem`, `nostack`, `pure`), and the
            // instruction's features are enabled.
            unsafe {
                core::arch::asm!(
                    "vpmulhuw {r}, {a}, {b}",
                    r = lateout($reg) r,
                    a = in($reg) a,
                    b = in($reg) b,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            r
        }
    };
}
pub(crate) use mulhi_epu16_asm;
