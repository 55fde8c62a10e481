//! One cached CPU feature detection for the nab-kernels crates (`b64`, `nabhash`, `memops`,
//! `bignum-fib`), with one cap for all of them: the `NAB_MAX_ISA` environment variable.
//!
//! - [`Features`]: a set of ISA extensions; [`cpu`] is what the CPU has (detected once,
//!   cached in an atomic), [`available`] what dispatch may use under the cap.
//! - [`Tier`]: the values of the cap, the x86-64 psABI levels with the extensions the CPUs
//!   of each class have, and `portable`.
//! - [`token!`]: zero-sized types whose only constructor checks [`available`], so holding one
//!   proves the check; `#[target_feature]` kernels take one and are then safe to call.
//! - [`backends!`] and [`cached_fn!`] ([`dispatch`]): the one dispatch shape of the SIMD
//!   crates, their backends listed once and a cached pointer for short calls.
//! - [`build_script`]: for build scripts, whether the build enables a target feature that
//!   stable Rust leaves out of `cfg(target_feature)` (riscv64's `v`).
//!
//! ```
//! nab_isa::token! {
//!     /// Proof that AVX2 and BMI2 may be used.
//!     pub struct Avx2Bmi2 = AVX2 | BMI2;
//! }
//! match Avx2Bmi2::new() {
//!     Some(_token) => { /* call the AVX2 kernel, passing the token */ }
//!     None => { /* the portable code */ }
//! }
//! println!("cap: {:?}, usable: {:?}", nab_isa::cap(), nab_isa::available());
//! ```
//!
//! # `NAB_MAX_ISA`
//!
//! | value | run-time detection keeps |
//! | --- | --- |
//! | unset or empty | everything the CPU has (AVX-512 VBMI/VBMI2, IFMA, VAES, GFNI, ...) |
//! | `x86-64-v4` | v3 + AVX-512 F/BW/CD/DQ/VL (no VAES, VBMI or IFMA: Skylake-SP, Cascade Lake) |
//! | `x86-64-v3` | v2 + AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE + ADX (no VAES) |
//! | `x86-64-v2` | SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, CMPXCHG16B + AES-NI, PCLMULQDQ |
//! | `portable` | nothing, on any architecture |
//! | anything else | everything (ignored; [`Cap::Unrecognised`] lets a CLI warn) |
//!
//! The cap is read once per process, at the first call of [`available`] (a crate's first
//! dispatch), and never again: set it in the environment of the process, not with
//! `std::env::set_var` halfway through. Names are matched ignoring ASCII case. A cap above
//! what the CPU has changes nothing (it only removes). An unknown value is ignored: this
//! crate never prints or fails; [`cap`] returns [`Cap::Unrecognised`] so that command-line
//! tools can warn. The x86 tiers do not cap other architectures; `portable` caps all of
//! them. [`Features::ERMS`] and [`Features::FSRM`] are speed hints for `rep movsb`, not
//! instruction sets, and no cap removes them.
//!
//! **Compile-time features win.** What dispatch may use is
//! `COMPILE_TIME ∪ (cpu ∩ cap)`, where [`Features::COMPILE_TIME`] is what the build
//! enables (`-C target-cpu`, `-C target-feature`). A binary built with
//! `-C target-cpu=x86-64-v3` keeps AVX2 under `NAB_MAX_ISA=x86-64-v2` and under
//! `portable`: the compiler already uses those instructions anywhere in the binary, so the
//! binary runs only on CPUs that have them, and no run-time switch can take them away. The
//! same holds for the kernels each crate selects at compile time only (NEON on aarch64 in
//! `b64` and `memops`, riscv64's V and Zkne, mips64's portable code): the cap does not
//! change them.
//!
//! # Without `std`
//!
//! The `std` feature (default) reads the environment with `std::env::var_os`. Cargo
//! unifies features, so a `no_std` crate of the workspace (`memops`, or `b64`/`nabhash`
//! without their `std` feature) honours `NAB_MAX_ISA` whenever anything else in the
//! program turns on `nab-isa/std` (the default features of `b64`, `nabhash` and
//! `bignum-fib` do); a program that uses only `memops` adds `nab-isa` with its default
//! features to its own dependencies. Without `std` anywhere there is no environment to
//! read: the cap is unset unless the program calls [`set_cap`] before the first dispatch.
//!
//! `memops` with its `c-symbols` feature is the exception: it is the program's `memcpy`,
//! which the C library may call before `main` and before the environment is set up, and
//! which reading the environment itself calls. It uses [`cpu_bare`], which only runs
//! `cpuid`/`xgetbv` (no memory is copied or compared, so it cannot recurse into `memcpy`;
//! nothing is allocated), and ignores the cap.
//!
//! # Detection
//!
//! [`cpu`] reads the CPU through RustCrypto's `cpufeatures` for every extension it names with
//! the meaning this crate gives it, and through this crate's own decoding for the rest:
//!
//! | target | through `cpufeatures` | own decoding |
//! | --- | --- | --- |
//! | x86_64 | SSE3 to SSE4.2, POPCNT, AES-NI, PCLMULQDQ, AVX, FMA, AVX2, BMI1/2, ADX, SHA, AVX-512 F/BW/CD/DQ/VL/VBMI/VBMI2/IFMA | `cpuid`/`xgetbv`: CMPXCHG16B, F16C, LZCNT, MOVBE, ERMS, FSRM (it has no name for them); GFNI, VAES, VPCLMULQDQ (it wants the AVX-512 registers for them, which would lose VAES on Zen 3 and Alder Lake) |
//! | aarch64 Linux, Android | SHA2 | `getauxval(AT_HWCAP)`: AES (it accepts AES or PMULL alone; Rust's `aes` needs both) |
//! | aarch64 macOS, iOS (Apple) | AES, SHA2 (every Apple CPU has them), also without `std` | — |
//! | aarch64 Windows and others | — (it detects nothing there) | with `std`, the standard library's `is_aarch64_feature_detected!` |
//! | x86_64 without an OS, UEFI, SGX | — (it reports nothing there) | `cpuid`/`xgetbv` |
//! | riscv64, mips64, others; Miri | — (it does not build there) | none: only [`Features::COMPILE_TIME`] |
//!
//! Before `cpufeatures` came in, aarch64 read `getauxval` on Linux and Android and needed
//! `std` everywhere else; now macOS and iOS are served without `std` too. On x86_64 the
//! leaf-7 answers of `cpufeatures` count only when the CPU has leaf 7 (it does not check;
//! this crate did and does). [`cpu_bare`] gives the same answer from the own decoding alone,
//! for memops' `c-symbols`.
//!
//! # Under Miri
//!
//! Miri cannot run `cpuid`: [`cpu`] is empty and only [`Features::COMPILE_TIME`] remains, so
//! every crate takes its portable code.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![no_std]

#[cfg(any(feature = "std", test))]
extern crate std;

pub mod build_script;
mod cap;
mod detect;
pub mod dispatch;
mod facts;
mod features;
mod tier;

use core::sync::atomic::{AtomicU64, Ordering};

#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
pub use cap::cap_warning;
pub use cap::{Cap, CapDecided, ENV_VAR, cap, set_cap};
#[doc(hidden)]
pub use facts::facts_from_dump;
pub use facts::{Cache, CpuFacts, Vendor, facts_from_cpuid};
pub use features::Features;
pub use tier::Tier;

/// Set in the caches once they hold an answer (no extension uses bit 63).
const READY: u64 = 1 << 63;
static CPU: AtomicU64 = AtomicU64::new(0);
static AVAILABLE: AtomicU64 = AtomicU64::new(0);

static CPU_BARE: AtomicU64 = AtomicU64::new(0);

/// What this CPU has, whatever the cap: the run-time detection (once per process; later
/// calls load one atomic) and [`Features::COMPILE_TIME`].
///
/// It reads the CPU through `cpufeatures` for every extension that crate names, and through
/// this crate's own `cpuid`/`getauxval` decoding for the rest (see [Detection](crate#detection)).
/// It never reads the environment. Inside a program's own `memcpy`, call [`cpu_bare`].
#[inline]
pub fn cpu() -> Features {
    let v = CPU.load(Ordering::Relaxed);
    if v & READY != 0 {
        return Features(v & !READY);
    }
    detect_cpu()
}

#[cold]
#[inline(never)]
fn detect_cpu() -> Features {
    let f = detect::cpu().union(Features::COMPILE_TIME);
    CPU.store(f.0 | READY, Ordering::Relaxed);
    f
}

/// [`cpu`]'s answer from this crate's own decoding alone, cached apart: `cpuid`/`xgetbv` on
/// x86_64, `getauxval` on Linux and Android aarch64 (the standard library's detection on other
/// aarch64 systems with `std`).
///
/// For code that runs inside the program's `memcpy` (memops' `c-symbols`), possibly before
/// `main`: on x86_64 and on Linux and Android aarch64 it allocates nothing, never reads the environment, copies and compares no memory
/// (register values and bit operations only, so it cannot recurse into `memcpy`/`memcmp`), and
/// runs no code of another crate. `cpufeatures`' detectors are macros expanded into this crate
/// whose code gives none of those promises (they build arrays of `cpuid` results), and they
/// run about 60 `cpuid`s where this runs 5.
#[inline]
pub fn cpu_bare() -> Features {
    let v = CPU_BARE.load(Ordering::Relaxed);
    if v & READY != 0 {
        return Features(v & !READY);
    }
    detect_cpu_bare()
}

#[cold]
#[inline(never)]
fn detect_cpu_bare() -> Features {
    let f = detect::cpu_bare().union(Features::COMPILE_TIME);
    CPU_BARE.store(f.0 | READY, Ordering::Relaxed);
    f
}

/// The running CPU's [`CpuFacts`] (vendor, family and model, string-instruction hints, caches),
/// read now from `cpuid` (about 15 of them; callers cache what they derive). It allocates
/// nothing and never reads the environment, but unlike [`cpu_bare`] it moves a struct of
/// about 100 bytes, which the compiler may do with `memcpy` (it does in debug builds): a
/// program's own `memcpy` that calls it must tolerate that nested call (memops' does: it
/// serves it with its loops while deciding). [`CpuFacts::UNKNOWN`] without `cpuid` (other
/// architectures, Miri).
pub fn cpu_facts() -> CpuFacts {
    facts_from_cpuid(detect::cpuid)
}

/// What dispatch may use: [`cpu`] under the cap ([`cap`]), plus [`Features::COMPILE_TIME`].
/// The first call decides the cap (reading `NAB_MAX_ISA` with `std`); later calls load one
/// atomic.
#[inline]
pub fn available() -> Features {
    let v = AVAILABLE.load(Ordering::Relaxed);
    if v & READY != 0 {
        return Features(v & !READY);
    }
    detect_available()
}

#[cold]
#[inline(never)]
fn detect_available() -> Features {
    let allowed = cap().tier().map_or(Features::ALL, Tier::allows);
    let f = cpu().intersection(allowed).union(Features::COMPILE_TIME);
    AVAILABLE.store(f.0 | READY, Ordering::Relaxed);
    f
}

/// Whether dispatch may use every extension of `f` (see [`available`]). Constant `true`,
/// with no detection at all, when the build enables them all at compile time.
#[inline]
pub fn has(f: Features) -> bool {
    Features::COMPILE_TIME.contains(f) || available().contains(f)
}

/// Defines a zero-sized token type whose existence proves that dispatch may use a set of
/// extensions ([`has`]): `new()` returns `Some` only then, and it is the only safe
/// constructor. Kernels with `#[target_feature(enable = ...)]` for (a subset of) the same
/// extensions are sound to call while holding one.
///
/// ```
/// nab_isa::token! {
///     /// Proof that SSSE3 may be used.
///     pub(crate) struct Ssse3 = SSSE3;
/// }
/// assert_eq!(Ssse3::FEATURES, nab_isa::Features::SSSE3);
/// assert_eq!(Ssse3::new().is_some(), nab_isa::has(nab_isa::Features::SSSE3));
/// ```
///
/// The type also gets `FEATURES` (the set) and `unsafe fn new_unchecked()` (for a caller
/// that checked otherwise: it must guarantee the CPU has the extensions).
#[macro_export]
macro_rules! token {
    ($(#[$m:meta])* $vis:vis struct $name:ident = $($f:ident)|+ ;) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name(());

        #[allow(dead_code)]
        impl $name {
            /// The extensions this token proves.
            $vis const FEATURES: $crate::Features =
                $crate::Features::NONE $(.union($crate::Features::$f))+;

            /// `Some` when dispatch may use [`Self::FEATURES`] (the CPU has them and the
            /// `NAB_MAX_ISA` cap allows them, or the build enables them).
            #[inline]
            $vis fn new() -> ::core::option::Option<Self> {
                $crate::has(Self::FEATURES).then_some(Self(()))
            }

            /// A token without the check.
            ///
            /// # Safety
            ///
            /// The CPU running this code has every extension of [`Self::FEATURES`].
            #[inline]
            $vis const unsafe fn new_unchecked() -> Self {
                Self(())
            }
        }
    };
}

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;

    #[test]
    fn names_parse_to_their_tier() {
        for t in Tier::ALL {
            assert_eq!(Tier::from_name(t.name().as_bytes()), Some(t));
            assert_eq!(Cap::parse(t.name().to_ascii_uppercase().as_bytes()), Cap::Tier(t));
        }
        assert_eq!(Cap::parse(b""), Cap::Unset);
        for bogus in [&b"x86-64-v5"[..], b"avx2", b"native", b" x86-64-v3", b"x86-64"] {
            assert_eq!(Cap::parse(bogus), Cap::Unrecognised, "{bogus:?}");
        }
        assert!(!Cap::Unrecognised.is_recognised() && Cap::Unset.is_recognised());
    }

    #[test]
    fn tiers_nest() {
        for w in Tier::ALL.windows(2) {
            assert!(w[1].features().contains(w[0].features()), "{:?} in {:?}", w[0], w[1]);
            assert_ne!(w[1].features(), w[0].features());
        }
        let v4 = Tier::X86_64V4.features();
        for f in [Features::VAES, Features::AVX512VBMI, Features::AVX512IFMA, Features::GFNI] {
            assert!(!v4.contains(f), "{f:?} is not in x86-64-v4");
        }
        assert!(!Tier::X86_64V3.features().contains(Features::VAES));
        assert!(Tier::Portable.features().is_empty());
    }

    #[test]
    fn the_answer_is_compile_time_plus_capped_cpu() {
        let a = available();
        assert!(cpu().contains(a));
        assert!(a.contains(Features::COMPILE_TIME));
        if let Some(t) = cap().tier() {
            assert!(t.allows().union(Features::COMPILE_TIME).contains(a));
        } else {
            assert_eq!(a, cpu());
        }
    }

    #[test]
    fn debug_lists_names() {
        let f = Features::AVX2.union(Features::SSE4_1);
        assert_eq!(format!("{f:?}"), r#"{"sse4.1", "avx2"}"#);
    }

    /// Both detections (through `cpufeatures`, and our own `cpuid` decoding) agree with the
    /// standard library's, feature by feature.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn cpu_matches_std_detection() {
        macro_rules! check {
            ($($name:tt => $f:ident),* $(,)?) => {
                $(
                    let std = std::arch::is_x86_feature_detected!($name);
                    assert_eq!(cpu().contains(Features::$f), std, "cpu: {}", $name);
                    assert_eq!(cpu_bare().contains(Features::$f), std, "cpu_bare: {}", $name);
                )*
            };
        }
        crate::features::x86_target_features!(check);
    }

    /// On aarch64 too, both detections agree with the standard library's.
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    #[test]
    fn aarch64_cpu_matches_std_detection() {
        for (f, std) in [
            (Features::AES, std::arch::is_aarch64_feature_detected!("aes")),
            (Features::SHA2, std::arch::is_aarch64_feature_detected!("sha2")),
        ] {
            assert_eq!(cpu().contains(f), std, "cpu: {f:?}");
            assert_eq!(cpu_bare().contains(f), std, "cpu_bare: {f:?}");
        }
    }

    /// The detection through `cpufeatures` and the own decoding give one answer (the speed
    /// hints too, which std's list above lacks).
    #[test]
    fn cpu_and_cpu_bare_agree() {
        assert_eq!(cpu(), cpu_bare());
    }

    /// Every extension the x86_64 `cpufeatures` detectors read is one std can name, so the
    /// test above checks it; the own decoding keeps the rest.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn cpufeatures_reads_a_known_subset() {
        let covered = detect::covered();
        assert!(Features::ALL.contains(covered));
        for kept in [Features::CX16, Features::GFNI, Features::VAES, Features::ERMS] {
            assert!(!covered.contains(kept), "{kept:?}");
        }
        assert!(covered.contains(Features::AVX2.union(Features::AVX512VBMI)));
    }

    #[cfg(miri)]
    #[test]
    fn miri_detects_nothing() {
        assert_eq!(cpu(), Features::COMPILE_TIME);
        assert_eq!(cpu_bare(), Features::COMPILE_TIME);
    }
}
