//! What `cargo xtask bench` builds and runs: the builds (default, native, one per ISA tier),
//! the processes (the headline, one capped process per tier, the compile-time peers of each
//! tier build) and how every implementation a bench times is classified, which decides the
//! process it runs in and the tier tables it appears in.
//!
//! One table here, [`PEERS`], names every peer the benches know; an implementation it does not
//! name and that is not ours is shown from the default build, marked `(shared)`, and listed in
//! the report as unclassified.

/// The bench targets of `benches/`, one per crate, in report order.
pub const BENCHES: &[&str] = &["nabhash", "b64", "memops", "bignum-fib", "splice-pool", "kcapi"];

/// A build of the bench crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Build {
    /// Short name: the target dir is `target/bench-<name>`.
    pub name: &'static str,
    /// `RUSTFLAGS` (empty: none, what a `cargo add` user gets).
    pub rustflags: &'static str,
    /// Every peer (the default features, plus GMP), or only our crates and the light peers
    /// (`--no-default-features`: no bignum peers, simdutf, tokio).
    pub full: bool,
    /// Bench targets this build runs (those also selected with `--crate`).
    pub benches: &'static [&'static str],
}

/// The default build: no `target-cpu`, every bench.
pub const DEFAULT: Build = Build {
    name: "default",
    rustflags: "",
    full: true,
    benches: &["nabhash", "b64", "memops", "bignum-fib", "splice-pool", "kcapi"],
};

/// The crates that get tier sections.
pub const TIERED: &[&str] = &["nabhash", "b64", "memops", "bignum-fib"];

/// An x86 ISA tier of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tier {
    /// `NAB_MAX_ISA` value and section name (`native`: no cap).
    pub name: &'static str,
    /// What the section's heading says the tier is.
    pub about: &'static str,
    /// The build its compile-time peers (and, for `native`, ours) come from.
    pub build: Build,
    /// `GLIBC_TUNABLES` for the glibc rows (and every `memcpy` in the process).
    pub glibc_tunables: Option<&'static str>,
    /// `SIMDUTF_FORCE_IMPLEMENTATION`.
    pub simdutf: Option<&'static str>,
    /// Whether the run-time-dispatch peers that top out at AVX2 run at this tier.
    pub avx2_peers: bool,
}

/// `glibc.cpu.hwcaps` tokens of glibc 2.36 (sysdeps/x86/cpu-tunables.c; they are the strings
/// in `ld-linux-x86-64.so.2`): unknown ones are ignored, so which variant ran is checked
/// separately ([`crate::bench`] resolves the IFUNCs and prints their names).
/// FSRM goes at every tier: the tiers model Skylake-family and Zen 1-2 CPUs, which lack it
/// (it moves glibc's `rep movsb` threshold). At v2, `Fast_Unaligned_Copy` (a preference glibc
/// sets itself on Nehalem-class CPUs) makes `memmove` the SSE2 variant,
/// `__memmove_sse2_unaligned_erms`, as on those CPUs; without it this Zen 4 got
/// `__memmove_ssse3`.
const GLIBC_V4: &str = "glibc.cpu.hwcaps=-FSRM";
const GLIBC_V3: &str = "glibc.cpu.hwcaps=-AVX512F,-AVX512BW,-AVX512CD,-AVX512DQ,-AVX512VL,-FSRM";
const GLIBC_V2: &str = "glibc.cpu.hwcaps=-AVX512F,-AVX512BW,-AVX512CD,-AVX512DQ,-AVX512VL,\
-AVX2,-AVX,-FMA,-F16C,-BMI1,-BMI2,-LZCNT,-MOVBE,-AVX_Fast_Unaligned_Load,-FSRM,\
Fast_Unaligned_Copy";

/// Tier builds time only the peers compiled for the tier (and `native` ours as well), so they
/// leave out the heavy peers.
const TIER_BENCHES: &[&str] = &["nabhash", "b64", "memops"];

pub const TIERS: &[Tier] = &[
    Tier {
        name: "x86-64-v2",
        about: "SSE4.2, POPCNT, plus AES-NI and PCLMULQDQ (Nehalem/Westmere-class)",
        build: Build {
            name: "x86-64-v2",
            rustflags: "-C target-cpu=x86-64-v2 -C target-feature=+aes,+pclmulqdq",
            full: false,
            benches: TIER_BENCHES,
        },
        glibc_tunables: Some(GLIBC_V2),
        simdutf: Some("westmere"),
        avx2_peers: false,
    },
    Tier {
        name: "x86-64-v3",
        about: "v2 plus AVX2, BMI1/2, FMA, MOVBE, ADX; no VAES (Haswell-Skylake clients, Zen 1-2)",
        build: Build {
            name: "x86-64-v3",
            rustflags: "-C target-cpu=x86-64-v3 -C target-feature=+aes,+pclmulqdq,+adx",
            full: false,
            benches: TIER_BENCHES,
        },
        glibc_tunables: Some(GLIBC_V3),
        simdutf: Some("haswell"),
        avx2_peers: true,
    },
    Tier {
        name: "x86-64-v4",
        about: "v3 plus AVX-512 F/BW/CD/DQ/VL; no VAES, VBMI or IFMA (Skylake-SP, Cascade Lake)",
        build: Build {
            name: "x86-64-v4",
            rustflags: "-C target-cpu=x86-64-v4 -C target-feature=+aes,+pclmulqdq,+adx",
            full: false,
            benches: TIER_BENCHES,
        },
        glibc_tunables: Some(GLIBC_V4),
        // simdutf's `icelake` kernels need VBMI2, which v4 CPUs lack.
        simdutf: Some("haswell"),
        avx2_peers: true,
    },
    Tier {
        name: "native",
        about: "everything this CPU has, our crates and the compile-time peers built with \
                `-C target-cpu=native`",
        build: Build {
            name: "native",
            rustflags: "-C target-cpu=native",
            full: false,
            benches: &["nabhash", "b64", "memops", "bignum-fib"],
        },
        glibc_tunables: None,
        simdutf: None,
        avx2_peers: true,
    },
];

/// How a peer is run and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Measured once in the default build and shown in every tier table, marked `(shared)`:
    /// it uses no instruction a tier adds that it would profit from.
    Shared,
    /// Picks its kernel at run time, cannot be capped, tops out at AVX2: runs as it is at v3
    /// and above, not at v2.
    RuntimeAvx2,
    /// Picks its kernel at run time and is capped by an environment variable (glibc's
    /// `GLIBC_TUNABLES`, simdutf's `SIMDUTF_FORCE_IMPLEMENTATION`).
    RuntimeCapped,
    /// Picks its kernel at compile time: built for the tier.
    CompileTime,
    /// A yardstick, not a peer (`memcpy`, `rep movsb`...): runs in the capped process.
    Reference,
}

/// A peer: the function-name prefix its bench rows use, its package on crates.io (for the
/// version in the column header; empty for non-Rust peers) and the version requirement the
/// benches use, and its [`Kind`].
pub struct Peer {
    pub prefix: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    pub kind: Kind,
}

const fn peer(
    prefix: &'static str,
    package: &'static str,
    version: &'static str,
    kind: Kind,
) -> Peer {
    Peer { prefix, package, version, kind }
}

pub const PEERS: &[Peer] = &[
    // nabhash
    peer("foldhash", "foldhash", "0.2", Kind::Shared),
    peer("xxh3", "xxhash-rust", "0.8", Kind::CompileTime),
    peer("rapidhash", "rapidhash", "4", Kind::CompileTime),
    peer("ahash", "ahash", "0.8", Kind::CompileTime),
    peer("gxhash", "gxhash", "3", Kind::CompileTime),
    peer("std-siphash", "", "", Kind::CompileTime),
    // The HashMap rows' floor: a lookup with the hash precomputed.
    peer("precomputed-floor", "", "", Kind::Reference),
    // b64
    peer("base64-0.22", "base64", "0.22", Kind::CompileTime),
    peer("base64-0.23-simd", "base64", "0.23", Kind::RuntimeAvx2),
    peer("base64-simd", "base64-simd", "0.8", Kind::RuntimeAvx2),
    peer("simdutf", "simdutf", "0.7", Kind::RuntimeCapped),
    // memops
    peer("glibc", "", "", Kind::RuntimeCapped),
    peer("memchr", "memchr", "2", Kind::RuntimeAvx2),
    peer("compiler-builtins", "", "", Kind::CompileTime),
    peer("memcpy", "", "", Kind::Reference),
    peer("rep-movsb", "", "", Kind::Reference),
    peer("rep-stosb", "", "", Kind::Reference),
    peer("call-floor", "", "", Kind::Reference),
    // bignum-fib
    peer("malachite-nz", "malachite-nz", "0.14", Kind::Shared),
    peer("num-bigint", "num-bigint", "0.5", Kind::Shared),
    peer("dashu-int", "dashu-int", "0.6", Kind::Shared),
    peer("gmp", "", "", Kind::Shared),
];

/// Packages the timed peers run code of (kept at the bench profile's `opt-level` in the tier
/// builds, like the peers themselves).
pub const PEER_DEPS: &[&str] = &[
    "vsimd",
    "outref",
    "zerocopy",
    "malachite-base",
    "dashu-base",
    "num-integer",
    "num-traits",
    "rug",
    "gmp-mpfr-sys",
    "tokio",
    "mio",
    "bytes",
    "libc",
];

/// The peer a bench row's function name belongs to (`xxh3-64` → xxh3).
pub fn peer_of(function: &str) -> Option<&'static Peer> {
    PEERS.iter().filter(|p| function.starts_with(p.prefix)).max_by_key(|p| p.prefix.len())
}

/// Whether `function` is one of ours in `crate_name`'s benches (`b64`, `b64-avx2`,
/// `nabhash-v2`), or a per-backend row of a group that has only ours (`nabhash/v1-backends`).
pub fn is_ours(crate_name: &str, group: &str, function: &str) -> bool {
    function == crate_name
        || function.strip_prefix(crate_name).is_some_and(|r| r.starts_with('-'))
        || group.ends_with("-backends")
}

/// Criterion's filter (a regex over `group/function[/param]`, groups being `crate/name`) for
/// the rows whose function name starts with one of `prefixes`.
fn filter(prefixes: &[String], extra: &str) -> String {
    let names: Vec<String> = prefixes.iter().map(|p| format!("{}[^/]*", regex_escape(p))).collect();
    format!("^(?:{extra}[^/]+/[^/]+/(?:{})(?:/|$))", names.join("|"))
}

fn regex_escape(s: &str) -> String {
    s.chars().fold(String::new(), |mut o, c| {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            o.push('\\');
        }
        o.push(c);
        o
    })
}

/// The filter of a tier's capped process (default build, `NAB_MAX_ISA` set): ours, the
/// capped run-time peers, the yardsticks, and the AVX2 run-time peers where the tier has AVX2.
pub fn capped_filter(tier: &Tier) -> String {
    let mut p: Vec<String> = TIERED.iter().map(|c| c.to_string()).collect();
    for peer in PEERS {
        let take = match peer.kind {
            Kind::RuntimeCapped | Kind::Reference => true,
            Kind::RuntimeAvx2 => tier.avx2_peers,
            Kind::Shared | Kind::CompileTime => false,
        };
        if take {
            p.push(peer.prefix.into());
        }
    }
    // Per-backend groups have only ours.
    filter(&p, "[^/]+/[^/]*-backends/|")
}

/// The filter of a tier build's process: its compile-time peers (for `native`, ours too and
/// the run-time peers the build has; the run-time peers' code does not depend on the build).
pub fn tier_build_filter(tier: &Tier) -> String {
    let mut p: Vec<String> = PEERS
        .iter()
        .filter(|x| match x.kind {
            Kind::CompileTime => true,
            Kind::RuntimeAvx2 | Kind::Reference => tier.name == "native",
            Kind::Shared | Kind::RuntimeCapped => false,
        })
        .map(|x| x.prefix.into())
        .collect();
    if tier.name == "native" {
        p.extend(TIERED.iter().map(|c| c.to_string()));
        p.push("glibc".into());
        return filter(&p, "[^/]+/[^/]*-backends/|");
    }
    filter(&p, "")
}

/// A tier by name.
#[cfg(test)]
fn tier(name: &str) -> Option<&'static Tier> {
    TIERS.iter().find(|t| t.name == name)
}

/// The x86 level a backend name (as the `backends` probe prints it, e.g. `avx512bw`,
/// `mulx-adx, NTT avx512ifma`) needs: 0 portable, 2 SSE4/SSSE3/AES-NI, 3 AVX2/FMA/BMI2,
/// 4 AVX-512 F/BW, 5 beyond x86-64-v4 (VBMI, VAES, IFMA). The highest over its words.
pub fn backend_rank(name: &str) -> u8 {
    name.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .map(|w| match w {
            w if w.contains("vbmi") || w.contains("vaes") || w.contains("ifma") => 5,
            w if w.contains("avx512") || w.contains("fma512") => 4,
            w if w.contains("avx2") || w.contains("fma") || w.contains("mulx") => 3,
            w if w.contains("ssse3") || w.contains("sse4") || w.contains("aesni") => 2,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// The level of a tier name, as [`backend_rank`] counts (`native`: everything).
pub fn tier_rank(tier: &str) -> u8 {
    match tier {
        "x86-64-v2" => 2,
        "x86-64-v3" => 3,
        "x86-64-v4" => 4,
        "portable" => 0,
        _ => 5,
    }
}

/// The version of `package` matching `req` (a prefix such as `0.22`) in `Cargo.lock`.
pub fn locked_version(lock: &str, package: &str, req: &str) -> Option<String> {
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let Some(v) = line.strip_prefix("version = ") {
            let v = v.trim_matches('"');
            if name == Some(package) && (v == req || v.starts_with(&format!("{req}."))) {
                return Some(v.to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny matcher for the filters' shape (xtask has no regex crate): checks the filter
    /// names what it should by substring.
    #[test]
    fn filters_name_the_right_rows() {
        let v2 = capped_filter(tier("x86-64-v2").unwrap());
        assert!(v2.contains("glibc") && v2.contains("simdutf") && v2.contains("b64"));
        assert!(!v2.contains("memchr") && !v2.contains("base64\\-simd"));
        assert!(!v2.contains("xxh3") && !v2.contains("foldhash"));
        let v3 = capped_filter(tier("x86-64-v3").unwrap());
        assert!(v3.contains("memchr") && v3.contains("base64\\-0\\.23\\-simd"));
        let b3 = tier_build_filter(tier("x86-64-v3").unwrap());
        assert!(b3.contains("xxh3") && b3.contains("gxhash") && b3.contains("compiler\\-builtins"));
        assert!(!b3.contains("glibc") && !b3.contains("nabhash"));
        let native = tier_build_filter(tier("native").unwrap());
        assert!(native.contains("nabhash") && native.contains("memchr"));
        assert!(!native.contains("malachite") && !native.contains("simdutf"));
    }

    #[test]
    fn backends_against_their_tier() {
        // nabhash's AES-NI backend is right at v2 (a CPU without VAES runs it uncapped too).
        assert!(backend_rank("aesni") <= tier_rank("x86-64-v2"));
        assert!(backend_rank("avx2") > tier_rank("x86-64-v2"));
        assert!(backend_rank("avx512bw") <= tier_rank("x86-64-v4"));
        assert!(backend_rank("avx512vbmi") > tier_rank("x86-64-v4"));
        assert!(backend_rank("vaes512") > tier_rank("x86-64-v4"));
        assert!(backend_rank("mulx-adx, NTT avx512ifma") > tier_rank("x86-64-v4"));
        assert!(backend_rank("mulx-adx, NTT portable") <= tier_rank("x86-64-v3"));
        assert_eq!(backend_rank("portable"), 0);
    }

    #[test]
    fn peers_and_ours() {
        assert_eq!(peer_of("xxh3-128").unwrap().package, "xxhash-rust");
        assert_eq!(peer_of("base64-0.23-simd").unwrap().version, "0.23");
        assert_eq!(peer_of("base64-simd").unwrap().package, "base64-simd");
        assert_eq!(peer_of("gmp-6.2").unwrap().kind, Kind::Shared);
        assert!(peer_of("nabhash").is_none());
        assert!(is_ours("b64", "b64/encode", "b64-avx2"));
        assert!(is_ours("nabhash", "nabhash/v1-backends", "vaes512"));
        assert!(!is_ours("b64", "b64/encode", "base64-simd"));
        let lock = "[[package]]\nname = \"base64\"\nversion = \"0.22.1\"\n\n[[package]]\n\
                    name = \"base64\"\nversion = \"0.23.1\"\n";
        assert_eq!(locked_version(lock, "base64", "0.23").as_deref(), Some("0.23.1"));
        assert_eq!(locked_version(lock, "base64", "0.2"), None);
    }
}
