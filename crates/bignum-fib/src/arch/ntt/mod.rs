//! The NTT engines' vector kernels. `fmacore` is the FMA engine's transform on IEEE doubles,
//! written once over the [`fmacore::Lanes`] trait, with the macro that generates each width's
//! safe entry points; `fma` (AVX2 + FMA, four lanes, and the dispatcher to eight),
//! `fma512` (AVX-512F, eight lanes) and `neon` (aarch64, two lanes) instantiate it. `ifma`
//! is the AVX-512 IFMA engine (52-bit Montgomery products), kept for the tests.

#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod fma;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod fma512;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(crate) mod fmacore;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod ifma;
#[cfg(all(target_arch = "aarch64", not(miri)))]
pub(crate) mod neon;
