//! riscv64 backends. Rust has no stable run-time detection of RISC-V extensions, so these are
//! chosen at compile time (`-C target-feature=+zkne`), as STYLE.md rule 2 says.

#[cfg(target_feature = "zkne")]
pub(crate) mod zkne;
