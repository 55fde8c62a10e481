//! Architecture-specific code, the only place with `unsafe`: `limb`, the limb kernels in
//! inline assembly (x86_64 MULX/ADX, aarch64), and `ntt`, the NTT engines' vector kernels
//! (AVX2 + FMA, AVX-512F, NEON, AVX-512 IFMA). Under Miri, which cannot run inline assembly
//! or vector intrinsics, none of it is compiled.

#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(crate) mod limb;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(crate) mod ntt;
