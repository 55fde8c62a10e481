//! The extensions read through RustCrypto's `cpufeatures` (one cached `cpufeatures::new!`
//! detector each): those it names with the meaning this crate gives them. `super` lists the
//! others and the targets it does not serve, where nothing is read here.

#[cfg(all(
    target_arch = "x86_64",
    not(any(miri, target_os = "none", target_os = "uefi", target_env = "sgx"))
))]
pub(crate) use x86_64::{COVERED, cpu};

#[cfg(all(
    target_arch = "aarch64",
    any(target_os = "linux", target_os = "android", target_vendor = "apple"),
    not(miri)
))]
pub(crate) use aarch64::{COVERED, cpu};

#[cfg(not(any(
    all(
        target_arch = "x86_64",
        not(any(miri, target_os = "none", target_os = "uefi", target_env = "sgx"))
    ),
    all(
        target_arch = "aarch64",
        any(target_os = "linux", target_os = "android", target_vendor = "apple"),
        not(miri)
    ),
)))]
pub(crate) use unserved::{COVERED, cpu};

/// Declares one `cpufeatures` detector per extension, `COVERED` (the extensions read
/// through them) and `detected()` (those the CPU has).
#[allow(unused_macros)] // on the targets `cpufeatures` does not serve
macro_rules! via_cpufeatures {
    ($($detector:ident: $name:tt => $f:ident,)*) => {
        $(cpufeatures::new!($detector, $name);)*

        /// The extensions read through `cpufeatures` on this target.
        pub(crate) const COVERED: Features = Features::NONE $(.union(Features::$f))*;

        /// [`COVERED`]'s extensions that `cpufeatures` reports.
        fn detected() -> Features {
            let mut f = Features::NONE;
            $(if $detector::get() {
                f = f.union(Features::$f);
            })*
            f
        }
    };
}

#[cfg(all(
    target_arch = "x86_64",
    not(any(miri, target_os = "none", target_os = "uefi", target_env = "sgx"))
))]
mod x86_64 {
    use crate::Features;

    via_cpufeatures! {
        sse3: "sse3" => SSE3,
        ssse3: "ssse3" => SSSE3,
        sse4_1: "sse4.1" => SSE4_1,
        sse4_2: "sse4.2" => SSE4_2,
        popcnt: "popcnt" => POPCNT,
        aes: "aes" => AES,
        pclmulqdq: "pclmulqdq" => PCLMULQDQ,
        avx: "avx" => AVX,
        fma: "fma" => FMA,
        avx2: "avx2" => AVX2,
        bmi1: "bmi1" => BMI1,
        bmi2: "bmi2" => BMI2,
        adx: "adx" => ADX,
        sha: "sha" => SHA,
        avx512f: "avx512f" => AVX512F,
        avx512bw: "avx512bw" => AVX512BW,
        avx512cd: "avx512cd" => AVX512CD,
        avx512dq: "avx512dq" => AVX512DQ,
        avx512vl: "avx512vl" => AVX512VL,
        avx512vbmi: "avx512vbmi" => AVX512VBMI,
        avx512vbmi2: "avx512vbmi2" => AVX512VBMI2,
        avx512ifma: "avx512ifma" => AVX512IFMA,
    }

    /// The extensions of [`COVERED`] that `cpuid` leaf 7 reports: `cpufeatures` reads that
    /// leaf without checking that the CPU has it.
    const LEAF_7: Features = Features::NONE
        .union(Features::AVX2)
        .union(Features::BMI1)
        .union(Features::BMI2)
        .union(Features::ADX)
        .union(Features::SHA)
        .union(Features::AVX512F)
        .union(Features::AVX512BW)
        .union(Features::AVX512CD)
        .union(Features::AVX512DQ)
        .union(Features::AVX512VL)
        .union(Features::AVX512VBMI)
        .union(Features::AVX512VBMI2)
        .union(Features::AVX512IFMA);

    /// [`COVERED`]'s extensions that the CPU has.
    pub(crate) fn cpu() -> Features {
        let f = detected();
        if super::super::own::has_leaf_7() { f } else { f.difference(LEAF_7) }
    }
}

#[cfg(all(
    target_arch = "aarch64",
    any(target_os = "linux", target_os = "android", target_vendor = "apple"),
    not(miri)
))]
mod aarch64 {
    use crate::Features;

    // `aes` stays with the own `getauxval` check on Linux and Android (see `super::super`).
    #[cfg(not(target_vendor = "apple"))]
    via_cpufeatures! {
        sha2: "sha2" => SHA2,
    }

    // On Apple systems `cpufeatures` answers `aes` and `sha2` without asking the OS: every
    // Apple aarch64 CPU has them.
    #[cfg(target_vendor = "apple")]
    via_cpufeatures! {
        aes: "aes" => AES,
        sha2: "sha2" => SHA2,
    }

    /// [`COVERED`]'s extensions that the CPU has.
    pub(crate) fn cpu() -> Features {
        detected()
    }
}

/// A target `cpufeatures` does not serve.
#[allow(dead_code)]
mod unserved {
    use crate::Features;

    /// Nothing is read through `cpufeatures` on this target.
    pub(crate) const COVERED: Features = Features::NONE;

    /// Nothing is read through `cpufeatures` on this target.
    pub(crate) fn cpu() -> Features {
        Features::NONE
    }
}
