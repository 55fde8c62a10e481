//! riscv64 kernels. Rust has no stable run-time detection of RISC-V extensions, so the RVV
//! kernel is chosen at compile time (`-C target-feature=+v`, seen by `build.rs` as
//! `cfg(b64_rvv)`), as STYLE.md rule 2 says.

#[cfg(b64_rvv)]
pub(crate) mod rvv;
