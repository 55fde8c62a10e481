//! For build scripts (`[build-dependencies] nab-isa`): whether the build enables a target
//! feature that stable Rust leaves out of `cfg(target_feature)`.
//!
//! On stable Rust an unstable target feature such as riscv64's `v` is enabled for code
//! generation and the assembler by `-C target-feature=+v`, but `cfg(target_feature = "v")`
//! stays false, and so does cargo's `CARGO_CFG_TARGET_FEATURE` (nightly reports it). So a
//! crate that picks its RVV kernels at compile time reads the flags themselves: cargo passes
//! them to the build script as `CARGO_ENCODED_RUSTFLAGS`, separated by `0x1f`.
//!
//! `-C target-cpu=NAME` is not interpreted: which features a CPU name implies is rustc's
//! knowledge, not in the flags (and `rustc --print cfg` leaves the unstable ones out too).
//! Enable the feature by name as well.
//!
//! ```
//! use nab_isa::build_script::flags_enable;
//! assert!(flags_enable("v", "", "-C\x1ftarget-feature=+v,+zbb"));
//! assert!(!flags_enable("v", "", "-Ctarget-feature=+v\x1f-Ctarget-feature=-v"));
//! ```

/// Whether the build enables `feature`: named in `reported` (cargo's
/// `CARGO_CFG_TARGET_FEATURE`, comma-separated) or by the last `+feature`/`-feature` of the
/// `target-feature` codegen flags in `encoded_rustflags` (cargo's `CARGO_ENCODED_RUSTFLAGS`,
/// `0x1f`-separated). A flag overrides what `reported` says.
///
/// The codegen flags are read in the spellings rustc accepts: `-C target-feature=...`
/// (two arguments), `-Ctarget-feature=...`, `--codegen target-feature=...` and
/// `--codegen=target-feature=...`. A `-C`/`--codegen` always takes the next argument as its
/// value, as rustc does, so that value is never read as a flag of its own.
#[must_use]
pub fn flags_enable(feature: &str, reported: &str, encoded_rustflags: &str) -> bool {
    let mut on = reported.split(',').any(|f| f == feature);
    let mut args = encoded_rustflags.split('\x1f').filter(|a| !a.is_empty());
    while let Some(arg) = args.next() {
        let codegen = match arg {
            "-C" | "--codegen" => args.next().unwrap_or_default(),
            _ => arg
                .strip_prefix("-C")
                .or_else(|| arg.strip_prefix("--codegen="))
                .unwrap_or_default(),
        };
        let Some(list) = codegen.strip_prefix("target-feature=") else { continue };
        for f in list.split(',') {
            if f.strip_prefix('+') == Some(feature) {
                on = true;
            } else if f.strip_prefix('-') == Some(feature) {
                on = false;
            }
        }
    }
    on
}

/// In a build script: [`flags_enable`] over cargo's `CARGO_CFG_TARGET_FEATURE` and
/// `CARGO_ENCODED_RUSTFLAGS` for the target being built. It prints
/// `cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS` (this crate never prints elsewhere:
/// here the output is cargo's protocol).
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
#[must_use]
pub fn build_enables(feature: &str) -> bool {
    std::println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let var = |name| std::env::var(name).unwrap_or_default();
    flags_enable(feature, &var("CARGO_CFG_TARGET_FEATURE"), &var("CARGO_ENCODED_RUSTFLAGS"))
}

#[cfg(test)]
mod tests {
    use super::flags_enable;

    #[test]
    fn every_spelling_of_the_codegen_flag() {
        for flags in [
            "-C\x1ftarget-feature=+v",
            "-Ctarget-feature=+v",
            "-Ctarget-feature=+v,+zbb",
            "-C\x1ftarget-feature=+zbb,+v,+zkne",
            "--codegen\x1ftarget-feature=+v",
            "--codegen=target-feature=+v",
            "-C\x1fopt-level=3\x1f-Ctarget-feature=+v\x1f--cfg\x1ffoo",
        ] {
            assert!(flags_enable("v", "", flags), "{flags:?}");
            assert!(!flags_enable("zvl", "", flags), "{flags:?}: not a prefix match");
        }
    }

    #[test]
    fn absent_or_disabled() {
        for flags in [
            "",
            "-C\x1ftarget-cpu=sifive-x280",
            "-Ctarget-feature=+zbb",
            "-Ctarget-feature=+zvl128b",
            "-Ctarget-feature=v",
            "-Ctarget-feature=+v\x1f-C\x1ftarget-feature=-v",
            "-Ctarget-feature=+v,-v",
            "--cfg\x1ftarget-feature=+v",
            "target-feature=+v",
        ] {
            assert!(!flags_enable("v", "", flags), "{flags:?}");
        }
    }

    #[test]
    fn value_of_c_is_not_a_flag() {
        // `-C` takes the next argument whatever it is (rustc then rejects it).
        assert!(!flags_enable("v", "", "-C\x1f-Ctarget-feature=+v"));
        // A trailing `-C` has no value.
        assert!(flags_enable("v", "", "-Ctarget-feature=+v\x1f-C"));
    }

    #[test]
    fn reported_features_and_flags_together() {
        assert!(flags_enable("v", "a,c,v", ""));
        assert!(!flags_enable("v", "a,c,zve64x", ""));
        assert!(!flags_enable("v", "v", "-Ctarget-feature=-v"));
        assert!(flags_enable("v", "", "-Ctarget-feature=-v\x1f-Ctarget-feature=+v"));
    }
}
