//! This crate's own detection: `cpuid`/`xgetbv` on x86_64, `getauxval(AT_HWCAP)` on Linux and
//! Android aarch64, the standard library's detection on other aarch64 systems with `std`.
//!
//! It copies and compares nothing in memory (register values and bit operations only), so it
//! cannot call `memcpy`/`memcmp`: memops' `c-symbols` exports those, and its detection
//! (`cpu_bare`) runs from inside them, possibly before `main`. The `cpu` of `detect` takes
//! from here only what `cpufeatures` cannot serve (see `super`).

use crate::Features;

/// The extensions the CPU (and the OS, for register state) supports, detected now.
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) fn cpu() -> Features {
    use core::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};

    let bit = |r: u32, b: u32| (r >> b) & 1 == 1;
    #[allow(unused_unsafe)] // `__cpuid` is a safe function in newer Rust
    // SAFETY: `cpuid` exists on every x86_64 CPU; leaves 7 and 0x8000_0001 are read only when
    // the maximum (extended) leaf covers them, and `xgetbv` only when CPUID reports OSXSAVE.
    let (l1, l7, ext1, xcr0) = unsafe {
        let max = __cpuid(0).eax;
        let l1 = __cpuid(1);
        let l7 = if max >= 7 {
            __cpuid_count(7, 0)
        } else {
            CpuidResult { eax: 0, ebx: 0, ecx: 0, edx: 0 }
        };
        let ext1 =
            if __cpuid(0x8000_0000).eax >= 0x8000_0001 { __cpuid(0x8000_0001).ecx } else { 0 };
        let xcr0: u64 = if bit(l1.ecx, 27) {
            let (lo, hi): (u32, u32);
            core::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") lo, out("edx") hi,
                options(nomem, nostack, preserves_flags));
            (u64::from(hi) << 32) | u64::from(lo)
        } else {
            0
        };
        (l1, l7, ext1, xcr0)
    };
    let mut f = 0u64;
    let mut set = |on: bool, x: Features| {
        if on {
            f |= x.0;
        }
    };
    // CPUID.1:ECX (Intel SDM vol. 2A, table 3-10).
    set(bit(l1.ecx, 0), Features::SSE3);
    set(bit(l1.ecx, 1), Features::PCLMULQDQ);
    set(bit(l1.ecx, 9), Features::SSSE3);
    set(bit(l1.ecx, 13), Features::CX16);
    set(bit(l1.ecx, 19), Features::SSE4_1);
    set(bit(l1.ecx, 20), Features::SSE4_2);
    set(bit(l1.ecx, 22), Features::MOVBE);
    set(bit(l1.ecx, 23), Features::POPCNT);
    set(bit(l1.ecx, 25), Features::AES);
    // CPUID.(EAX=7,ECX=0) (table 3-8).
    set(bit(l7.ebx, 3), Features::BMI1);
    set(bit(l7.ebx, 8), Features::BMI2);
    set(bit(l7.ebx, 9), Features::ERMS);
    set(bit(l7.ebx, 19), Features::ADX);
    set(bit(l7.ebx, 29), Features::SHA);
    set(bit(l7.ecx, 8), Features::GFNI);
    set(bit(l7.edx, 4), Features::FSRM);
    // CPUID.80000001H:ECX bit 5: LZCNT (AMD's ABM).
    set(bit(ext1, 5), Features::LZCNT);
    // The ymm state (XCR0 bits 1 and 2) for everything with 256-bit registers.
    if xcr0 & 0b110 == 0b110 {
        set(bit(l1.ecx, 28), Features::AVX);
        set(bit(l1.ecx, 12), Features::FMA);
        set(bit(l1.ecx, 29), Features::F16C);
        set(bit(l7.ebx, 5), Features::AVX2);
        set(bit(l7.ecx, 9), Features::VAES);
        set(bit(l7.ecx, 10), Features::VPCLMULQDQ);
        // And the opmask and zmm state (XCR0 bits 5, 6, 7) for AVX-512.
        if xcr0 & 0b1110_0000 == 0b1110_0000 {
            set(bit(l7.ebx, 16), Features::AVX512F);
            set(bit(l7.ebx, 17), Features::AVX512DQ);
            set(bit(l7.ebx, 21), Features::AVX512IFMA);
            set(bit(l7.ebx, 28), Features::AVX512CD);
            set(bit(l7.ebx, 30), Features::AVX512BW);
            set(bit(l7.ebx, 31), Features::AVX512VL);
            set(bit(l7.ecx, 1), Features::AVX512VBMI);
            set(bit(l7.ecx, 6), Features::AVX512VBMI2);
        }
    }
    Features(f)
}

/// The extensions the CPU supports, from the kernel's `AT_HWCAP`.
#[cfg(all(target_arch = "aarch64", any(target_os = "linux", target_os = "android"), not(miri)))]
pub(crate) fn cpu() -> Features {
    use core::ffi::c_ulong;
    unsafe extern "C" {
        fn getauxval(kind: c_ulong) -> c_ulong;
    }
    // <linux/auxvec.h> and arch/arm64/include/uapi/asm/hwcap.h.
    const AT_HWCAP: c_ulong = 16;
    const HWCAP_AES: c_ulong = 1 << 3;
    const HWCAP_PMULL: c_ulong = 1 << 4;
    const HWCAP_SHA2: c_ulong = 1 << 6;
    // SAFETY: `getauxval` (glibc, musl, bionic) only reads the auxiliary vector the kernel
    // passed at exec; it has no preconditions and returns 0 for an absent entry.
    let hwcap = unsafe { getauxval(AT_HWCAP) };
    let mut f = Features::NONE;
    if hwcap & (HWCAP_AES | HWCAP_PMULL) == HWCAP_AES | HWCAP_PMULL {
        f = f.union(Features::AES);
    }
    if hwcap & HWCAP_SHA2 != 0 {
        f = f.union(Features::SHA2);
    }
    f
}

/// The extensions the CPU supports, from the standard library's detection.
#[cfg(all(
    target_arch = "aarch64",
    not(any(target_os = "linux", target_os = "android")),
    feature = "std",
    not(miri)
))]
pub(crate) fn cpu() -> Features {
    let mut f = Features::NONE;
    if std::arch::is_aarch64_feature_detected!("aes") {
        f = f.union(Features::AES);
    }
    if std::arch::is_aarch64_feature_detected!("sha2") {
        f = f.union(Features::SHA2);
    }
    f
}

/// Nothing detected at run time: under Miri (no `cpuid`), on riscv64, mips64 and the others
/// (Rust has no stable run-time detection there; their kernels are chosen at compile time), and
/// on aarch64 off Linux without `std`.
#[cfg(not(any(
    all(target_arch = "x86_64", not(miri)),
    all(target_arch = "aarch64", any(target_os = "linux", target_os = "android"), not(miri)),
    all(target_arch = "aarch64", feature = "std", not(miri)),
)))]
pub(crate) fn cpu() -> Features {
    Features::NONE
}

/// Whether `cpuid` leaf 7 exists (the maximum basic leaf, `CPUID.0:EAX`, is at least 7). An
/// Intel CPU answers a leaf above its maximum with the maximum leaf's data, which must not be
/// read as leaf 7's bits (older CPUs, or a BIOS's "limit CPUID maxval" option).
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) fn has_leaf_7() -> bool {
    #[allow(unused_unsafe)] // `__cpuid` is a safe function in newer Rust
    // SAFETY: `cpuid` leaf 0 exists on every x86_64 CPU.
    let max = unsafe { core::arch::x86_64::__cpuid(0).eax };
    max >= 7
}

/// `cpuid(leaf, subleaf)` as `[eax, ebx, ecx, edx]`, for `crate::facts`; zeros where there is
/// no `cpuid` (then the facts are unknown).
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) fn cpuid(leaf: u32, sub: u32) -> [u32; 4] {
    #[allow(unused_unsafe)] // `__cpuid_count` is a safe function in newer Rust
    // SAFETY: `cpuid` exists on every x86_64 CPU, and any leaf is harmless to ask (one above
    // the maximum returns another leaf's data; `facts_from_cpuid` checks the maximum first).
    let r = unsafe { core::arch::x86_64::__cpuid_count(leaf, sub) };
    [r.eax, r.ebx, r.ecx, r.edx]
}

/// No `cpuid` here: zeros (leaf 0's vendor and maximum leaf included, so nothing is known).
#[cfg(not(all(target_arch = "x86_64", not(miri))))]
pub(crate) fn cpuid(_leaf: u32, _sub: u32) -> [u32; 4] {
    [0; 4]
}
