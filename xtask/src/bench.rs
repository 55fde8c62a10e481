//! `cargo xtask bench`: runs the criterion comparisons of `benches/` and writes the report
//! (`target/bench-report/index.md`, `index.html`, one SVG plot per table).

mod json;
mod report;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use crate::util::{cargo, output, root, show};

/// The bench targets of `benches/`, one per crate, in report order.
pub const BENCHES: &[&str] = &["nabhash", "b64", "memops", "bignum-fib", "splice-pool", "kcapi"];

pub struct Options {
    pub quick: bool,
    /// Bench targets of `benches/` to run (all when empty), e.g. `nabhash`.
    pub benches: Vec<String>,
}

/// The build every bench run uses: peers such as gxhash only build with their ISA enabled at
/// compile time, and the spec's peer figures are measured that way. A separate target dir
/// keeps these flags from rebuilding the test builds.
fn bench_cargo() -> Command {
    let mut cmd = cargo();
    cmd.env("RUSTFLAGS", "-C target-cpu=native")
        .env("CARGO_TARGET_DIR", root().join("target/bench-native"));
    cmd
}

pub fn run_benches(opts: Options) -> Result<(), String> {
    for b in &opts.benches {
        if !BENCHES.contains(&b.as_str()) {
            return Err(format!("unknown --crate `{b}`: expected one of {BENCHES:?}"));
        }
    }
    let selected: Vec<&str> = if opts.benches.is_empty() {
        BENCHES.to_vec()
    } else {
        BENCHES.iter().copied().filter(|b| opts.benches.iter().any(|o| o == b)).collect()
    };
    // GMP is a peer of bignum-fib (the benches' `gmp` feature links Debian's libgmp).
    crate::install::ensure(&crate::install::Needs {
        targets: Vec::new(),
        lints: false,
        miri: false,
        vm: false,
        gmp: true,
    })?;
    let started = SystemTime::now();
    let clock = Instant::now();
    // Build everything first, so that compile time is not mistaken for a stuck bench.
    let mut build = bench_cargo();
    build.args(["bench", "--package", "benches", "--features", "gmp", "--no-run"]);
    for b in &selected {
        build.args(["--bench", b]);
    }
    crate::util::run(&mut build)?;
    let built = clock.elapsed().as_secs();

    // The facts too large for `cargo xtask test` (F(10^8) against the spec), in the same
    // build as the benches that time them.
    if selected.contains(&"bignum-fib") && !opts.quick {
        let mut facts = bench_cargo();
        facts.args(["test", "--release", "--package", "bignum-fib", "--test", "fib", "--"]);
        facts.args(["--ignored"]);
        crate::util::run(&mut facts)?;
    }
    let mut skipped = Vec::new();
    for (i, b) in selected.iter().enumerate() {
        eprintln!("xtask: [{}/{}] bench {b}", i + 1, selected.len());
        let mut cmd = bench_cargo();
        cmd.args(["bench", "--package", "benches", "--features", "gmp", "--bench", b, "--"]);
        if opts.quick {
            // A minute-scale run: short warm-up and measurement, few samples; the benches
            // read XTASK_BENCH_QUICK and take fewer sizes.
            cmd.args(["--warm-up-time", "0.3", "--measurement-time", "0.6", "--sample-size", "10"])
                .env("XTASK_BENCH_QUICK", "1");
        } else {
            // Criterion's defaults (3 s warm-up, 5 s measurement) over the ~470 benchmarks
            // would take more than an hour by themselves (470 × 8 s); 1 s + 3 s per benchmark
            // keeps the full run under one. Groups that set their own times keep them.
            cmd.args(["--warm-up-time", "1", "--measurement-time", "3"]);
        }
        let t = Instant::now();
        if let Some(why) = stream_groups(&mut cmd)? {
            skipped.push((b.to_string(), why));
        }
        eprintln!("xtask: bench {b} done in {} s", t.elapsed().as_secs());
    }
    let measured = clock.elapsed().as_secs() - built;

    let criterion = root().join("target/bench-native/criterion");
    let entries = report::collect(&criterion, started)?;
    if entries.is_empty() && skipped.is_empty() {
        return Err(format!("no criterion estimates from this run under {}", criterion.display()));
    }
    let mut machine = machine();
    machine.lines.push(("time".into(), format!("build {built} s, benches {measured} s")));
    let cx = report::Context {
        machine,
        backends: backends()?,
        skipped,
        command: format!(
            "cargo xtask bench{}{}",
            if opts.quick { " --quick" } else { "" },
            opts.benches.iter().map(|b| format!(" --crate {b}")).collect::<String>()
        ),
    };
    let out = root().join("target/bench-report");
    let md = report::write(&out, &entries, &cx)?;
    eprintln!(
        "xtask: {} benchmarks; report: {} and {}",
        entries.len(),
        md.display(),
        out.join("index.html").display()
    );
    Ok(())
}

/// Runs a bench binary, passing its output through and printing a progress line on stderr
/// whenever a new criterion group starts. Returns the reason a bench gave for skipping
/// (a `<crate> benches skipped: <why>` line), if it did.
fn stream_groups(cmd: &mut Command) -> Result<Option<String>, String> {
    eprintln!("xtask: $ {}", show(cmd));
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut group = String::new();
    let mut skipped = None;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        if let Some((_, why)) = line.split_once(" benches skipped: ") {
            skipped = Some(why.to_string());
        }
        // Criterion names each result `group/function[/param]` at the start of a line.
        let id = line.split_whitespace().next().unwrap_or("");
        let mut parts = id.split('/');
        if let (Some(c), Some(g), Some(_)) = (parts.next(), parts.next(), parts.next()) {
            let this = format!("{c}/{g}");
            if this != group && !line.starts_with(' ') && !id.ends_with(':') {
                eprintln!("xtask: group {this}");
                group = this;
            }
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() { Ok(skipped) } else { Err(format!("`{}` failed: {status}", show(cmd))) }
}

/// `crate -> backend` as the benches' probe binary prints them (the same build flags as the
/// benches, so the backend is the one that was measured).
fn backends() -> Result<BTreeMap<String, String>, String> {
    let mut cmd = bench_cargo();
    cmd.args(["run", "--quiet", "--release", "--package", "benches", "--bin", "backends"]);
    let text = output(&mut cmd)
        .ok_or_else(|| format!("`{}` failed: no backend probe output", show(&cmd)))?;
    Ok(text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect())
}

/// CPU model and the ISA flags our kernels care about, kernel, toolchain, date.
fn machine() -> report::Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
    };
    let flags = field("flags").or_else(|| field("Features")).unwrap_or_default();
    const INTERESTING: &[&str] = &[
        "sse2",
        "ssse3",
        "sse4_2",
        "avx",
        "avx2",
        "bmi2",
        "adx",
        "aes",
        "vaes",
        "pclmulqdq",
        "sha_ni",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512vbmi",
        "avx512_vbmi2",
        "avx512ifma",
        "erms",
        "fsrm",
        "asimd",
        "pmull",
        "sha2",
    ];
    let have: Vec<&str> =
        INTERESTING.iter().copied().filter(|f| flags.split_whitespace().any(|x| x == *f)).collect();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let rustc = output(Command::new("rustc").arg("-V")).unwrap_or_default();
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
    report::Machine {
        lines: vec![
            ("date".into(), date.trim().into()),
            ("CPU".into(), field("model name").unwrap_or_else(|| std::env::consts::ARCH.into())),
            ("cores".into(), cores.to_string()),
            ("features".into(), have.join(" ")),
            ("kernel".into(), kernel.trim().into()),
            ("rustc".into(), rustc.trim().into()),
            ("RUSTFLAGS".into(), "-C target-cpu=native".into()),
        ],
    }
}
