//! Architecture-specific kernels, one folder per ISA. Each backend is a zero-sized token whose
//! constructor checks the CPU (holding one proves the check) and which implements
//! [`Kernels`](crate::kernels::Kernels), the trait in `kernels.rs` below this module: a kernel
//! does the bulk in whole groups and stops at the first group of 4 symbols holding a
//! non-symbol; the scalar code in `portable` and `decode` does the rest and all error
//! reporting. `lines.rs` holds the line loop the x86_64 and NEON kernels share. Nothing here
//! imports `dispatch` or `decode`: the arrows run from them to here.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(any(target_arch = "x86_64", all(target_arch = "aarch64", target_feature = "neon")))]
pub(crate) mod lines;
#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;
#[cfg(any(target_arch = "x86_64", all(target_arch = "aarch64", target_feature = "neon")))]
pub(crate) mod thin;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
