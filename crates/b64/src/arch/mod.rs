//! Architecture-specific kernels. Each is a zero-sized token whose constructor checks the CPU
//! (holding one proves the check) with the same two operations (`Kernels`). A kernel does
//! the bulk and stops at the first group of 4 symbols holding a non-symbol; the scalar code
//! in `portable`/`decode` does the rest and all error reporting.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(any(target_arch = "x86_64", all(target_arch = "aarch64", target_feature = "neon")))]
pub(crate) mod lines;
#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
