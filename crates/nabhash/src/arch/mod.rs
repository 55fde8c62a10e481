//! Architecture-specific backends. Each exposes the same operations as `portable`
//! (`compress`, `finish`) behind a zero-sized token whose constructor checks the CPU,
//! so holding the token proves the check and the methods are safe to call.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
