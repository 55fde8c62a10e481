//! [`Features`]: a set of ISA extensions, with the names Rust's `target_feature` uses.

use core::fmt;

/// A set of ISA extensions: what a CPU has, what a tier allows, what a kernel needs.
///
/// The constants are single extensions named as in Rust's `target_feature` (`SSE4_1` is
/// `sse4.1`, `CX16` is `cmpxchg16b`); combine them with [`Features::union`]. x86_64's bits
/// come from `cpuid` (and `xgetbv` for the OS's AVX and AVX-512 register state); aarch64 has
/// [`Features::AES`] (`FEAT_AES` with `FEAT_PMULL`, Rust's aarch64 `aes`) and
/// [`Features::SHA2`]. Other architectures detect nothing at run time.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Features(pub(crate) u64);

macro_rules! features {
    ($($(#[$m:meta])* $name:ident = $bit:literal, $text:literal;)*) => {
        impl Features {
            $($(#[$m])* pub const $name: Features = Features(1 << $bit);)*
            /// Every extension this crate knows.
            pub const ALL: Features = Features(0 $(| 1 << $bit)*);
        }
        /// `(extension, name)` for `Debug` and [`Features::names`].
        const NAMES: &[(Features, &str)] = &[$((Features::$name, $text)),*];
    };
}

features! {
    /// x86 SSE3 (`/proc/cpuinfo`: `pni`).
    SSE3 = 0, "sse3";
    /// x86 SSSE3.
    SSSE3 = 1, "ssse3";
    /// x86 SSE4.1.
    SSE4_1 = 2, "sse4.1";
    /// x86 SSE4.2.
    SSE4_2 = 3, "sse4.2";
    /// x86 POPCNT.
    POPCNT = 4, "popcnt";
    /// x86 CMPXCHG16B.
    CX16 = 5, "cmpxchg16b";
    /// x86 AES-NI; on aarch64, the AES and PMULL instructions (Rust's aarch64 `aes`).
    AES = 6, "aes";
    /// x86 PCLMULQDQ.
    PCLMULQDQ = 7, "pclmulqdq";
    /// x86 AVX (with the OS saving the ymm state).
    AVX = 8, "avx";
    /// x86 AVX2.
    AVX2 = 9, "avx2";
    /// x86 BMI1.
    BMI1 = 10, "bmi1";
    /// x86 BMI2 (MULX, BZHI, ...).
    BMI2 = 11, "bmi2";
    /// x86 F16C.
    F16C = 12, "f16c";
    /// x86 FMA3.
    FMA = 13, "fma";
    /// x86 LZCNT (`/proc/cpuinfo`: `abm`).
    LZCNT = 14, "lzcnt";
    /// x86 MOVBE.
    MOVBE = 15, "movbe";
    /// x86 ADX (ADCX/ADOX).
    ADX = 16, "adx";
    /// x86 AVX-512 Foundation (with the OS saving the zmm and opmask state).
    AVX512F = 17, "avx512f";
    /// x86 AVX-512 BW.
    AVX512BW = 18, "avx512bw";
    /// x86 AVX-512 CD.
    AVX512CD = 19, "avx512cd";
    /// x86 AVX-512 DQ.
    AVX512DQ = 20, "avx512dq";
    /// x86 AVX-512 VL.
    AVX512VL = 21, "avx512vl";
    /// x86 AVX-512 VBMI.
    AVX512VBMI = 22, "avx512vbmi";
    /// x86 AVX-512 VBMI2.
    AVX512VBMI2 = 23, "avx512vbmi2";
    /// x86 AVX-512 IFMA.
    AVX512IFMA = 24, "avx512ifma";
    /// x86 VAES (needs AVX for its ymm forms).
    VAES = 25, "vaes";
    /// x86 VPCLMULQDQ.
    VPCLMULQDQ = 26, "vpclmulqdq";
    /// x86 GFNI.
    GFNI = 27, "gfni";
    /// x86 SHA extensions.
    SHA = 28, "sha";
    /// x86 enhanced `rep movsb`/`rep stosb`: a speed hint, not an instruction set, so no
    /// cap removes it.
    ERMS = 29, "ermsb";
    /// x86 fast short `rep movsb`: a speed hint like [`Features::ERMS`], never capped.
    FSRM = 30, "fsrm";
    /// aarch64 SHA-1 and SHA-256 instructions.
    SHA2 = 31, "sha2";
}

impl Features {
    /// The empty set.
    pub const NONE: Features = Features(0);

    /// What the build enables at compile time (`-C target-feature`, `-C target-cpu`): every
    /// CPU this binary runs on has them, so they are in every answer of this crate whatever
    /// the cap.
    pub const COMPILE_TIME: Features = compile_time();

    /// Both sets.
    #[inline]
    #[must_use]
    pub const fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// What both sets have.
    #[inline]
    #[must_use]
    pub const fn intersection(self, other: Features) -> Features {
        Features(self.0 & other.0)
    }

    /// `self` without `other`.
    #[inline]
    #[must_use]
    pub const fn difference(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }

    /// Whether `self` has every extension of `other`.
    #[inline]
    #[must_use]
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty.
    #[inline]
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The extensions' names (`target_feature` spelling), in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        NAMES.iter().filter(move |(f, _)| self.contains(*f)).map(|&(_, n)| n)
    }
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// Calls `$m!` with every x86_64 feature this crate knows, as `"target_feature name" =>
/// CONSTANT` pairs: the one list that [`compile_time`] and the test against std's detection
/// share.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_target_features {
    ($m:ident) => {
        $m!(
            "sse3" => SSE3, "ssse3" => SSSE3, "sse4.1" => SSE4_1, "sse4.2" => SSE4_2,
            "popcnt" => POPCNT, "cmpxchg16b" => CX16, "aes" => AES, "pclmulqdq" => PCLMULQDQ,
            "avx" => AVX, "avx2" => AVX2, "bmi1" => BMI1, "bmi2" => BMI2, "f16c" => F16C,
            "fma" => FMA, "lzcnt" => LZCNT, "movbe" => MOVBE, "adx" => ADX,
            "avx512f" => AVX512F, "avx512bw" => AVX512BW, "avx512cd" => AVX512CD,
            "avx512dq" => AVX512DQ, "avx512vl" => AVX512VL, "avx512vbmi" => AVX512VBMI,
            "avx512vbmi2" => AVX512VBMI2, "avx512ifma" => AVX512IFMA, "vaes" => VAES,
            "vpclmulqdq" => VPCLMULQDQ, "gfni" => GFNI, "sha" => SHA,
        )
    };
}
// For the test in lib.rs that checks each feature against std's detection.
#[cfg(all(target_arch = "x86_64", test))]
pub(crate) use x86_target_features;

/// Builds [`Features::COMPILE_TIME`] from `cfg!(target_feature)`.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_mut, unused_macros)
)]
const fn compile_time() -> Features {
    let mut f = 0u64;
    macro_rules! on {
        ($($feature:literal => $name:ident),* $(,)?) => {
            $(if cfg!(target_feature = $feature) {
                f |= Features::$name.0;
            })*
        };
    }
    #[cfg(target_arch = "x86_64")]
    {
        x86_target_features!(on);
    }
    #[cfg(target_arch = "aarch64")]
    {
        on!("aes" => AES, "sha2" => SHA2);
    }
    Features(f)
}
