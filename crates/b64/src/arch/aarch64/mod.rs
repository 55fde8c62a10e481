//! aarch64 kernels: NEON (baseline on aarch64, so chosen at compile time).

#[cfg(target_feature = "neon")]
pub(crate) mod neon;
