//! The values of `NAB_MAX_ISA`: [`Tier`] and what each one allows.

use crate::Features;

/// A level `NAB_MAX_ISA` can cap run-time detection to: the x86-64 psABI levels with the
/// extensions the CPUs of each class really have, and `portable` (any architecture).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// `portable`: no extension detected at run time, on any architecture (compile-time
    /// ones stay: see the crate docs).
    Portable,
    /// `x86-64-v2`: SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, CMPXCHG16B, plus AES-NI and PCLMULQDQ
    /// (Nehalem/Westmere, Jaguar and later).
    X86_64V2,
    /// `x86-64-v3`: v2 plus AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE, plus ADX; no VAES
    /// (most AVX2 machines lack it: Skylake-family clients, Zen 1-2).
    X86_64V3,
    /// `x86-64-v4`: v3 plus AVX-512 F/BW/CD/DQ/VL; no VAES, VBMI or IFMA (Skylake-SP,
    /// Cascade Lake).
    X86_64V4,
}

impl Tier {
    /// Every tier, lowest first.
    pub const ALL: [Tier; 4] = [Tier::Portable, Tier::X86_64V2, Tier::X86_64V3, Tier::X86_64V4];

    /// The value of `NAB_MAX_ISA` that selects this tier.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Portable => "portable",
            Tier::X86_64V2 => "x86-64-v2",
            Tier::X86_64V3 => "x86-64-v3",
            Tier::X86_64V4 => "x86-64-v4",
        }
    }

    /// The tier named `name` (ASCII case ignored), if any.
    #[must_use]
    pub fn from_name(name: &[u8]) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name().as_bytes().eq_ignore_ascii_case(name))
    }

    /// The run-time-detected extensions of the tier's list (for an x86 tier, x86 extensions).
    #[must_use]
    pub const fn features(self) -> Features {
        const V2: Features = Features(
            Features::SSE3.0
                | Features::SSSE3.0
                | Features::SSE4_1.0
                | Features::SSE4_2.0
                | Features::POPCNT.0
                | Features::CX16.0
                | Features::AES.0
                | Features::PCLMULQDQ.0,
        );
        const V3: Features = Features(
            V2.0 | Features::AVX.0
                | Features::AVX2.0
                | Features::BMI1.0
                | Features::BMI2.0
                | Features::F16C.0
                | Features::FMA.0
                | Features::LZCNT.0
                | Features::MOVBE.0
                | Features::ADX.0,
        );
        const V4: Features = Features(
            V3.0 | Features::AVX512F.0
                | Features::AVX512BW.0
                | Features::AVX512CD.0
                | Features::AVX512DQ.0
                | Features::AVX512VL.0,
        );
        match self {
            Tier::Portable => Features::NONE,
            Tier::X86_64V2 => V2,
            Tier::X86_64V3 => V3,
            Tier::X86_64V4 => V4,
        }
    }

    /// What a cap at this tier lets run-time detection keep on the architecture this crate
    /// is built for: the tier's extensions plus the speed hints [`Features::ERMS`] and
    /// [`Features::FSRM`]. An x86 tier does not cap other architectures (their extensions
    /// are not in its list); `portable` caps every architecture.
    #[must_use]
    pub const fn allows(self) -> Features {
        let hints = Features::ERMS.union(Features::FSRM);
        match self {
            Tier::Portable => hints,
            _ if cfg!(target_arch = "x86_64") => self.features().union(hints),
            _ => Features::ALL,
        }
    }
}
