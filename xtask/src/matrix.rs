//! The cross-test matrix: every (target, CPU model, RUSTFLAGS) that `cargo xtask test`
//! runs, and the backend each crate must dispatch to there. This is the one place to edit
//! when a crate gains a backend: add the row (or the expectation) that makes it run.

/// One run of the workspace's tests.
pub struct Run {
    /// Rust target triple.
    pub target: &'static str,
    /// `QEMU_CPU` for qemu-user.
    pub cpu: &'static str,
    /// `RUSTFLAGS` of the build: `-C target-feature=...` for ISA extensions chosen at compile
    /// time, `--cfg <crate>_backend="..."` to force a backend ("" for the target's baseline).
    pub rustflags: &'static str,
    /// `(crate, backend)`: the backend the crate's dispatch must pick under this CPU.
    pub expect: &'static [(&'static str, &'static str)],
}

/// A cross target and what it takes to build and run it.
pub struct Target {
    /// Rust target triple.
    pub triple: &'static str,
    /// Short name for `--arch`.
    pub arch: &'static str,
    /// Tier 3: needs nightly and `-Zbuild-std`.
    pub build_std: bool,
    /// The qemu-user binary (also named in `.cargo/config.toml`'s runner).
    pub qemu: &'static str,
    /// The C cross compiler used as linker (`.cargo/config.toml`) and its Debian package.
    pub linker: &'static str,
    pub linker_package: &'static str,
    /// Sysroot passed to qemu with `-L`, and the Debian package that provides its libc.
    pub sysroot: &'static str,
    pub libc_package: &'static str,
}

pub const TARGETS: &[Target] = &[
    Target {
        triple: "aarch64-unknown-linux-gnu",
        arch: "aarch64",
        build_std: false,
        qemu: "qemu-aarch64",
        linker: "aarch64-linux-gnu-gcc",
        linker_package: "gcc-aarch64-linux-gnu",
        sysroot: "/usr/aarch64-linux-gnu",
        libc_package: "libc6-dev-arm64-cross",
    },
    Target {
        triple: "riscv64gc-unknown-linux-gnu",
        arch: "riscv64",
        build_std: false,
        qemu: "qemu-riscv64",
        linker: "riscv64-linux-gnu-gcc",
        linker_package: "gcc-riscv64-linux-gnu",
        sysroot: "/usr/riscv64-linux-gnu",
        libc_package: "libc6-dev-riscv64-cross",
    },
    Target {
        triple: "mips64-unknown-linux-gnuabi64",
        arch: "mips64",
        build_std: true,
        qemu: "qemu-mips64",
        linker: "mips64-linux-gnuabi64-gcc",
        linker_package: "gcc-mips64-linux-gnuabi64",
        sysroot: "/usr/mips64-linux-gnuabi64",
        libc_package: "libc6-dev-mips64-cross",
    },
    Target {
        triple: "mips64el-unknown-linux-gnuabi64",
        arch: "mips64el",
        build_std: true,
        qemu: "qemu-mips64el",
        linker: "mips64el-linux-gnuabi64-gcc",
        linker_package: "gcc-mips64el-linux-gnuabi64",
        sysroot: "/usr/mips64el-linux-gnuabi64",
        libc_package: "libc6-dev-mips64el-cross",
    },
];

/// What Miri runs: the pure crates (no syscalls, no FFI), and in each the test targets that
/// reach `unsafe` code on the paths Miri can take. Under Miri no SIMD backend is detected
/// (`nab-isa` sees only compile-time features), so those paths are the portable backends
/// and the API layer; each crate must report `portable`. Safe code is Miri's to skip: it cannot
/// hold undefined behaviour that these tests would find, and the host and cross rows run it.
/// The packages published to crates.io, in dependency order (`nab-isa` first: the others
/// depend on it). `cargo package` verifies them together, the later ones against the earlier
/// ones' `.crate` files, so none needs to be on the registry first.
pub const PUBLISHED: &[&str] =
    &["nab-isa", "nabhash", "nab-b64", "memops", "bignum-fib", "splice-pool", "nab-kcapi"];

/// The minimum supported Rust version: `rust-version` of `[workspace.package]` (a test checks
/// that they agree). The publish stage builds every published crate with this toolchain.
pub const MSRV: &str = "1.89";

/// A target that is not Linux, for the publish stage's `cargo check`: every crate must compile
/// there (splice-pool and kcapi to an empty crate).
pub const OFF_LINUX: &str = "x86_64-unknown-freebsd";

/// The package that holds a library: `b64` and `kcapi` are published as `nab-b64` and
/// `nab-kcapi` (the short names are taken on crates.io); the other packages are their library.
pub fn package(krate: &str) -> &str {
    match krate {
        "b64" => "nab-b64",
        "kcapi" => "nab-kcapi",
        other => other,
    }
}

pub struct MiriRun {
    pub krate: &'static str,
    /// Cargo's target selection (`--lib`, `--test NAME`, `--doc`).
    pub targets: &'static [&'static str],
    pub why: &'static str,
}

pub const MIRI_RUNS: &[MiriRun] = &[
    MiriRun {
        krate: "nab-isa",
        targets: &["--lib"],
        why: "its only `unsafe` (cpuid, getauxval in detect/own.rs) is compiled out under Miri: the \
              unit tests check that detection then reports no extension, which every crate's \
              portable Miri run relies on",
    },
    MiriRun {
        krate: "memops",
        targets: &["--lib", "--test", "backends", "--test", "report_backend"],
        why: "the portable backend (arch/scalar.rs, arch/generic.rs) and the dispatch and API \
              layers (dispatch.rs, lib.rs) are raw-pointer code: every test of them",
    },
    MiriRun { krate: "memops", targets: &["--doc"], why: "the examples of the `unsafe fn` API" },
    MiriRun {
        krate: "bignum-fib",
        targets: &["--lib", "--test", "backends", "--test", "report_backend"],
        why: "the portable limb kernels are called through raw pointers (arch/mod.rs): the \
              kernel tests and the unit tests that reach them; fib, ladder and radix are safe \
              code on top",
    },
    MiriRun {
        krate: "nabhash",
        targets: &["--lib", "--test", "report_backend"],
        why: "`unsafe` only in arch/, whose kernels Miri cannot select, and in dispatch.rs's \
              cached kernel pointers (a unit test calls them): the unit tests and the backend \
              report only (v2, vectors and hasher are safe code, run by every other row)",
    },
    MiriRun {
        krate: "b64",
        targets: &["--lib", "--test", "api", "--test", "report_backend"],
        why: "no `unsafe` outside arch/: the API tests and the backend report only \
              (backends.rs, 285 s under Miri, runs safe portable code that every other row runs)",
    },
];

/// Backends of the host run, by the `/proc/cpuinfo` flags they need, most preferred first.
/// The host's expectation is read from the kernel's flags, independently of the crates' own
/// CPUID detection, so a backend that silently falls back fails the host run.
pub const HOST_BACKENDS: &[HostBackends] = &[
    HostBackends {
        krate: "nabhash",
        choices: &[
            Choice {
                backend: "vaes512",
                flags: &["vaes", "avx512f", "avx512bw", "avx512vl", "bmi2", "aes"],
            },
            Choice { backend: "vaes256", flags: &["vaes", "avx2", "aes"] },
            Choice {
                backend: "aesni-avx512",
                flags: &["aes", "avx2", "avx512f", "avx512vl", "avx512bw", "bmi2"],
            },
            Choice { backend: "aesni-avx2", flags: &["aes", "avx2"] },
            Choice { backend: "aesni", flags: &["aes", "sse2"] },
        ],
    },
    HostBackends {
        krate: "b64",
        choices: &[
            Choice { backend: "avx512vbmi", flags: &["avx512vbmi", "avx512bw", "avx512f"] },
            Choice { backend: "avx512bw", flags: &["avx512bw", "avx512f", "avx2"] },
            Choice { backend: "avx2", flags: &["avx2"] },
            Choice { backend: "ssse3", flags: &["ssse3"] },
        ],
    },
    HostBackends {
        krate: "memops",
        choices: &[
            Choice {
                backend: "avx512",
                flags: &["avx512f", "avx512bw", "avx512vl", "avx2", "bmi1", "bmi2", "popcnt"],
            },
            Choice { backend: "avx2", flags: &["avx2", "bmi1", "popcnt"] },
            Choice { backend: "sse2", flags: &["sse2"] },
        ],
    },
    HostBackends {
        krate: "bignum-fib",
        choices: &[Choice { backend: "mulx-adx", flags: &["bmi2", "adx"] }],
    },
    // bignum-fib's NTT butterflies (reported by its own test, as `bignum-fib-ntt`).
    HostBackends {
        krate: "bignum-fib-ntt",
        choices: &[
            Choice { backend: "avx512f-fma", flags: &["avx512f", "avx2", "fma"] },
            Choice { backend: "avx2-fma", flags: &["avx2", "fma"] },
        ],
    },
];

/// A crate's host backends, most preferred first; with none of them usable, `portable`.
pub struct HostBackends {
    pub krate: &'static str,
    pub choices: &'static [Choice],
}

/// A backend and the `/proc/cpuinfo` flags it needs.
pub struct Choice {
    pub backend: &'static str,
    pub flags: &'static [&'static str],
}

const PORTABLE: &[(&str, &str)] = &[
    ("nabhash", "portable"),
    ("b64", "portable"),
    ("memops", "portable"),
    ("bignum-fib", "portable"),
    ("bignum-fib-ntt", "portable"),
];
const ARM: &[(&str, &str)] = &[
    ("nabhash", "aarch64-aes"),
    ("b64", "neon"),
    ("memops", "neon"),
    ("bignum-fib", "aarch64"),
    ("bignum-fib-ntt", "neon-fma"),
];
const RISCV_V: &[(&str, &str)] =
    &[("nabhash", "portable"), ("b64", "rvv"), ("memops", "rvv"), ("bignum-fib", "portable")];
const RISCV_V_ZK: &[(&str, &str)] =
    &[("nabhash", "zkne"), ("b64", "rvv"), ("memops", "rvv"), ("bignum-fib", "portable")];

/// Cross runs. CPU models are qemu 7.2's. `quick` runs take the first row of each target.
pub const RUNS: &[Run] = &[
    // aarch64: `max` has every extension qemu implements (SVE2, ...); cortex-a53 is an Armv8.0
    // in-order core. Every qemu 7.2 aarch64 model reports AES in AT_HWCAP (checked with
    // getauxval for a64fx, cortex-a35/53/57/72/76, neoverse-n1, max), so a row that must run a
    // crate's non-crypto fallback forces it with that crate's `--cfg <crate>_backend`.
    Run { target: "aarch64-unknown-linux-gnu", cpu: "max", rustflags: "", expect: ARM },
    Run { target: "aarch64-unknown-linux-gnu", cpu: "cortex-a53", rustflags: "", expect: ARM },
    Run {
        target: "aarch64-unknown-linux-gnu",
        cpu: "cortex-a53",
        rustflags: concat!(
            r#"--cfg nabhash_backend="portable" --cfg bignum_fib_backend="portable" "#,
            r#"--cfg b64_backend="portable" --cfg memops_backend="portable""#
        ),
        expect: PORTABLE,
    },
    // riscv64: plain RV64GC; RVV at VLEN 128; RVV at VLEN 256 with the scalar crypto
    // extensions (built with them enabled, as riscv64 kernels are chosen at compile time).
    // `vext_spec=v1.0` is qemu 7.2's default, but without it qemu warns on stderr at every
    // start, which breaks tests that check a child process's stderr.
    Run { target: "riscv64gc-unknown-linux-gnu", cpu: "rv64", rustflags: "", expect: PORTABLE },
    Run {
        target: "riscv64gc-unknown-linux-gnu",
        cpu: "rv64,v=true,vext_spec=v1.0,vlen=128",
        rustflags: "-C target-feature=+v",
        expect: RISCV_V,
    },
    Run {
        target: "riscv64gc-unknown-linux-gnu",
        cpu: "rv64,v=true,vext_spec=v1.0,vlen=256,zkne=true,zknd=true,zbkb=true",
        rustflags: "-C target-feature=+v,+zkne,+zknd,+zbkb",
        expect: RISCV_V_ZK,
    },
    // mips64 big-endian: this is what proves the portable paths endian-correct.
    Run {
        target: "mips64-unknown-linux-gnuabi64",
        cpu: "MIPS64R2-generic",
        rustflags: "",
        expect: PORTABLE,
    },
    Run {
        target: "mips64-unknown-linux-gnuabi64",
        cpu: "Loongson-3A4000",
        rustflags: "",
        expect: PORTABLE,
    },
    Run {
        target: "mips64el-unknown-linux-gnuabi64",
        cpu: "MIPS64R2-generic",
        rustflags: "",
        expect: PORTABLE,
    },
    Run {
        target: "mips64el-unknown-linux-gnuabi64",
        cpu: "Loongson-3A4000",
        rustflags: "",
        expect: PORTABLE,
    },
];

/// The target description of `triple`.
pub fn target(triple: &str) -> &'static Target {
    TARGETS.iter().find(|t| t.triple == triple).expect("every run's target is in TARGETS")
}

/// The values of `NAB_MAX_ISA` under which the host reruns every crate's `report_backend`
/// test, with the `/proc/cpuinfo` flags each one leaves the crates (`None`: all of the
/// host's, for unset and for a value the crates must ignore). The lists are the issue's tiers
/// written here again, not read from `nab-isa`, so that a tier which leaks or loses an
/// extension in the crates' detection fails the run.
pub const CAPS: &[Cap] = &[
    Cap { value: None, flags: None },
    Cap { value: Some("x86-64-v2"), flags: Some(&[X86_64_BASELINE, X86_64_V2]) },
    Cap { value: Some("x86-64-v3"), flags: Some(&[X86_64_BASELINE, X86_64_V2, X86_64_V3]) },
    Cap {
        value: Some("x86-64-v4"),
        flags: Some(&[X86_64_BASELINE, X86_64_V2, X86_64_V3, X86_64_V4]),
    },
    Cap { value: Some("portable"), flags: Some(&[X86_64_BASELINE]) },
    // Not a tier: ignored, as if unset.
    Cap { value: Some("x86-64-v5"), flags: None },
];

/// One value of `NAB_MAX_ISA` and what it leaves.
pub struct Cap {
    /// `None`: the variable is removed from the environment.
    pub value: Option<&'static str>,
    /// The `/proc/cpuinfo` flags the crates may use, if the host has them.
    pub flags: Option<&'static [&'static [&'static str]]>,
}

/// The x86_64 baseline (enabled at compile time: no cap removes it).
const X86_64_BASELINE: &[&str] = &["fpu", "cx8", "cmov", "mmx", "fxsr", "sse", "sse2"];
/// `x86-64-v2` (SSE3 is `pni`), plus AES-NI and PCLMULQDQ.
const X86_64_V2: &[&str] =
    &["pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "aes", "pclmulqdq"];
/// What `x86-64-v3` adds (LZCNT is `abm`), plus ADX; no VAES.
const X86_64_V3: &[&str] = &["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "adx"];
/// What `x86-64-v4` adds; no VAES, VBMI or IFMA.
const X86_64_V4: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

impl Cap {
    /// The host's flags that this cap leaves.
    pub fn apply(&self, host: &[String]) -> Vec<String> {
        match self.flags {
            None => host.to_vec(),
            Some(lists) => host
                .iter()
                .filter(|f| lists.iter().any(|l| l.contains(&f.as_str())))
                .cloned()
                .collect(),
        }
    }
}

/// The backend `h`'s crate must dispatch to with CPU flags `flags`.
pub fn expected(h: &HostBackends, flags: &[String]) -> &'static str {
    let usable = |c: &&Choice| c.flags.iter().all(|f| flags.iter().any(|h| h == f));
    h.choices.iter().find(usable).map_or("portable", |c| c.backend)
}

#[cfg(test)]
mod tests {
    /// `MSRV` is the workspace's `rust-version`, and `PUBLISHED` is every member that does not
    /// say `publish = false`.
    #[test]
    fn msrv_and_published_packages_match_the_manifests() {
        let root = crate::util::root();
        let ws = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(
            ws.lines().any(|l| l.trim() == format!("rust-version = \"{}\"", super::MSRV)),
            "[workspace.package] rust-version is not {}",
            super::MSRV
        );
        let mut publishable = Vec::new();
        for dir in std::fs::read_dir(root.join("crates")).unwrap() {
            let manifest = std::fs::read_to_string(dir.unwrap().path().join("Cargo.toml")).unwrap();
            if manifest.lines().any(|l| l.trim() == "publish = false") {
                continue;
            }
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|l| l.strip_suffix('"'))
                .unwrap()
                .to_string();
            publishable.push(name);
        }
        publishable.sort();
        let mut listed: Vec<String> = super::PUBLISHED.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(publishable, listed);
    }

    use super::{CAPS, HOST_BACKENDS, expected};

    /// `(crate, backend)` for each of `CAPS` on a CPU with `flags`.
    fn table(flags: &str) -> Vec<Vec<(&'static str, &'static str)>> {
        let host: Vec<String> = flags.split_whitespace().map(str::to_owned).collect();
        CAPS.iter()
            .map(|cap| {
                let flags = cap.apply(&host);
                HOST_BACKENDS.iter().map(|h| (h.krate, expected(h, &flags))).collect()
            })
            .collect()
    }

    /// The tier table of the README on this machine's CPU (AMD Zen 4, `/proc/cpuinfo` flags
    /// trimmed to the ISA ones), and a Haswell-class CPU (no AVX-512) under the same caps.
    #[test]
    fn expectations_per_tier() {
        let zen4 = "fpu cx8 cmov mmx fxsr sse sse2 pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 \
                    movbe popcnt aes xsave avx f16c abm bmi1 avx2 bmi2 erms avx512f avx512dq \
                    adx avx512ifma avx512cd sha_ni avx512bw avx512vl avx512vbmi avx512_vbmi2 \
                    gfni vaes vpclmulqdq fsrm";
        let all = [
            ("nabhash", "vaes512"),
            ("b64", "avx512vbmi"),
            ("memops", "avx512"),
            ("bignum-fib", "mulx-adx"),
            ("bignum-fib-ntt", "avx512f-fma"),
        ];
        let v4 = [
            ("nabhash", "aesni-avx512"),
            ("b64", "avx512bw"),
            ("memops", "avx512"),
            ("bignum-fib", "mulx-adx"),
            ("bignum-fib-ntt", "avx512f-fma"),
        ];
        let v3 = [
            ("nabhash", "aesni-avx2"),
            ("b64", "avx2"),
            ("memops", "avx2"),
            ("bignum-fib", "mulx-adx"),
            ("bignum-fib-ntt", "avx2-fma"),
        ];
        let v2 = [
            ("nabhash", "aesni"),
            ("b64", "ssse3"),
            ("memops", "sse2"),
            ("bignum-fib", "portable"),
            ("bignum-fib-ntt", "portable"),
        ];
        let portable = [
            ("nabhash", "portable"),
            ("b64", "portable"),
            ("memops", "sse2"),
            ("bignum-fib", "portable"),
            ("bignum-fib-ntt", "portable"),
        ];
        // CAPS: unset, v2, v3, v4, portable, bogus.
        assert_eq!(table(zen4), [&all[..], &v2, &v3, &v4, &portable, &all]);
        let haswell = "fpu cx8 cmov mmx fxsr sse sse2 pni pclmulqdq ssse3 fma cx16 sse4_1 \
                       sse4_2 movbe popcnt aes avx f16c abm bmi1 avx2 bmi2 erms";
        // No ADX on Haswell: the limb kernels stay portable at every tier.
        let hsw = |t: &[(&'static str, &'static str)]| -> Vec<(&'static str, &'static str)> {
            t.iter().map(|&(k, b)| (k, if k == "bignum-fib" { "portable" } else { b })).collect()
        };
        assert_eq!(
            table(haswell),
            [hsw(&v3), hsw(&v2), hsw(&v3), hsw(&v3), hsw(&portable), hsw(&v3)]
        );
    }
}
