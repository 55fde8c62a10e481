//! The run-time detection behind [`crate::cpu`] and [`crate::cpu_bare`].
//!
//! [`cpu`] reads every extension that RustCrypto's `cpufeatures` can name with the meaning
//! this crate gives it through `cpufeatures` (`via_cpufeatures.rs`), and the rest through this
//! crate's own `cpuid`/`getauxval` decoding (`own.rs`). [`cpu_bare`] is the own decoding alone:
//! memops' `c-symbols` `memcpy` runs it, possibly before `main`, and there nothing may copy or
//! compare memory, allocate or depend on code this crate does not control (see the crate docs).
//!
//! What `cpufeatures` cannot serve, and why:
//!
//! - x86_64 `cmpxchg16b`, `f16c`, `lzcnt`, `movbe`, `ermsb`, `fsrm`: it has no name for them.
//! - x86_64 `gfni`, `vaes`, `vpclmulqdq`: it reports them only when the OS saves the AVX-512
//!   registers, where they need the ymm state at most (GFNI none): Zen 3 and Alder Lake have
//!   VAES without AVX-512.
//! - aarch64 `aes` on Linux and Android: it accepts `HWCAP_AES` or `HWCAP_PMULL`, where Rust's
//!   `aes` target feature (and this crate) needs both.
//! - aarch64 on Windows and the other systems: it detects nothing there; with `std` the
//!   standard library's detection does.
//! - x86_64 without an OS (`target_os = "none"`, UEFI) and SGX: it reports nothing there.
//! - riscv64, mips64 and the rest: it does not build (and Rust has no stable run-time detection
//!   there); their kernels are chosen at compile time.
//!
//! One rule `cpufeatures` lacks is added here: on x86_64 its leaf-7 answers count only when the
//! CPU has leaf 7 (see [`own::has_leaf_7`]).

use crate::Features;

mod own;
mod via_cpufeatures;

/// The extensions the CPU (and the OS, for register state) supports, detected now: through
/// `cpufeatures` where it serves, through [`own`] for the rest.
pub(crate) fn cpu() -> Features {
    own::cpu().difference(via_cpufeatures::COVERED).union(via_cpufeatures::cpu())
}

/// The same answer as [`cpu`] from this crate's own decoding alone (for memops' `c-symbols`).
pub(crate) fn cpu_bare() -> Features {
    own::cpu()
}

/// `cpuid(leaf, subleaf)` as `[eax, ebx, ecx, edx]` (zeros without `cpuid`).
pub(crate) fn cpuid(leaf: u32, sub: u32) -> [u32; 4] {
    own::cpuid(leaf, sub)
}

/// The extensions read through `cpufeatures` on this target.
#[cfg(all(test, target_arch = "x86_64", not(miri)))]
pub(crate) fn covered() -> Features {
    via_cpufeatures::COVERED
}
