//! `cargo xtask test`: lints, host tests, the cross matrix under qemu-user, the VM tests;
//! then one summary line per run.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::install::{self, Needs};
use crate::matrix::{self, Choice, HOST_BACKENDS, MIRI_CRATES, RUNS, Run, TARGETS};
use crate::util::{cargo, nightly_cargo, root, run_tee};

/// Property-test cases per test: full on the host, fewer under emulation (proptest reads
/// `PROPTEST_CASES`).
const HOST_CASES: &str = "512";
const EMULATED_CASES: &str = "48";
const QUICK_CASES: &str = "16";
/// Miri interprets code thousands of times slower; the tests also shrink their inputs.
const MIRI_CASES: &str = "4";
/// Optional features the host run enables: splice-pool's tokio API, kcapi's RustCrypto trait
/// impls (skipped on the host without AF_ALG, run in the VM).
const HOST_FEATURES: &str = "splice-pool/tokio,kcapi/digest,kcapi/aead";

pub struct Options {
    pub host: bool,
    pub archs: Vec<String>,
    pub vm: bool,
    pub quick: bool,
    /// Keep each cross run's build once it has run (by default it is deleted, so that the whole
    /// matrix fits on a small disk: one cross build is 0.5–1 GB).
    pub keep_builds: bool,
}

/// The outcome of one stage, for the summary.
struct Outcome {
    target: String,
    cpu: String,
    rustflags: String,
    passed: u64,
    failed: u64,
    /// The command itself failed (a build error, a crash) beyond failing tests.
    ok: bool,
    backends: String,
    secs: u64,
    note: String,
    /// Test binaries that qemu-user deadlocked and `xtask emulate` ran again.
    stalls: Vec<String>,
}

pub fn run(opts: Options) -> Result<(), String> {
    let targets: Vec<_> =
        TARGETS.iter().filter(|t| opts.archs.iter().any(|a| a == "all" || a == t.arch)).collect();
    install::ensure(&Needs {
        targets: targets.clone(),
        lints: opts.host,
        miri: opts.host,
        vm: opts.vm,
        gmp: false,
    })?;

    let mut outcomes = Vec::new();
    if opts.host {
        outcomes.push(lint()?);
        outcomes.push(host(&opts)?);
        outcomes.push(miri()?);
    }
    for t in &targets {
        let mut rows = RUNS.iter().filter(|r| r.target == t.triple);
        let rows: Vec<&Run> =
            if opts.quick { rows.next().into_iter().collect() } else { rows.collect() };
        for r in rows {
            outcomes.push(cross(r, &opts)?);
            if !opts.keep_builds && !r.rustflags.is_empty() {
                prune(&flags_dir(r.rustflags));
            }
        }
        if !opts.keep_builds {
            prune(&target_base().join(t.triple));
        }
    }
    if opts.vm {
        outcomes.push(vm_stage(&opts));
    }
    summary(&outcomes)
}

/// kcapi's tests inside qemu-system-x86_64 (xtask/src/vm.rs). A failure to build or boot the
/// VM is a failed row with the reason, not an early exit, so the summary still prints.
fn vm_stage(opts: &Options) -> Outcome {
    eprintln!("\nxtask: ==== vm (qemu-system-x86_64, Debian kernel) ==== ({})", since_start());
    let start = Instant::now();
    let (passed, failed, ok, backends, note) = match crate::vm::run_vm(opts.quick) {
        Ok(r) => (r.passed, r.failed, r.ok, r.backends, r.note),
        Err(e) => (0, 0, false, "-".into(), e),
    };
    Outcome {
        target: "vm (qemu-system-x86_64)".into(),
        cpu: "tcg max".into(),
        rustflags: "+crt-static".into(),
        passed,
        failed,
        ok,
        backends,
        secs: start.elapsed().as_secs(),
        note,
        stalls: Vec::new(),
    }
}

/// `cargo fmt --check` and clippy with warnings denied.
fn lint() -> Result<Outcome, String> {
    let start = Instant::now();
    let fmt = crate::util::run(cargo().args(["fmt", "--all", "--check"]));
    let clippy = crate::util::run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--quiet",
        "--",
        "-D",
        "warnings",
    ]));
    for e in [&fmt, &clippy].into_iter().filter_map(|r| r.as_ref().err()) {
        eprintln!("xtask: {e}");
    }
    let verdict = |r: &Result<(), String>| if r.is_ok() { "ok" } else { "FAILED" };
    Ok(Outcome {
        target: "lint".into(),
        cpu: "-".into(),
        rustflags: "-".into(),
        passed: 0,
        failed: 0,
        ok: fmt.is_ok() && clippy.is_ok(),
        backends: "-".into(),
        secs: start.elapsed().as_secs(),
        note: format!(
            "cargo fmt --check: {}, clippy -D warnings: {}",
            verdict(&fmt),
            verdict(&clippy)
        ),
        stalls: Vec::new(),
    })
}

fn host(opts: &Options) -> Result<Outcome, String> {
    let report = report_file("host");
    let mut cmd = cargo();
    cmd.args(["test", "--workspace", "--no-fail-fast"])
        // Optional features whose tests are meant to run (not `--all-features`: memops'
        // `c-symbols` would put our `memcpy` into every test binary of the workspace).
        .args(["--features", HOST_FEATURES])
        .env("PROPTEST_CASES", if opts.quick { QUICK_CASES } else { HOST_CASES })
        .env("XTASK_BACKEND_REPORT", &report);
    let flags = host_flags();
    for h in HOST_BACKENDS {
        let usable = |c: &&Choice| c.flags.iter().all(|f| flags.iter().any(|h| h == f));
        let want = h.choices.iter().find(usable).map_or("portable", |c| c.backend);
        cmd.env(expect_var(h.krate), want);
    }
    let host = std::env::consts::ARCH.to_string() + " (host)";
    execute(cmd, host, "native".into(), "-".into(), report, None)
}

/// `cargo miri test` of the pure crates (undefined behaviour in the portable and API layers).
fn miri() -> Result<Outcome, String> {
    let report = report_file("miri");
    let mut cmd = nightly_cargo();
    cmd.args(["miri", "test", "--no-fail-fast"]);
    for krate in MIRI_CRATES {
        cmd.args(["--package", krate]).env(expect_var(krate), "portable");
    }
    // proptest's failure persistence needs the working directory: no isolation.
    cmd.env("MIRIFLAGS", "-Zmiri-disable-isolation")
        .env("PROPTEST_CASES", MIRI_CASES)
        .env("XTASK_BACKEND_REPORT", &report);
    execute(cmd, "miri (x86_64)".into(), "-".into(), "-".into(), report, None)
}

fn cross(r: &Run, opts: &Options) -> Result<Outcome, String> {
    let t = matrix::target(r.target);
    let report = report_file(&format!("{}-{}", t.arch, r.cpu.replace([',', '='], "_")));
    let mut cmd = if t.build_std { nightly_cargo() } else { cargo() };
    cmd.arg("test");
    if t.build_std {
        cmd.arg("-Zbuild-std");
    }
    // Doc tests run on the host only; benches and xtask are host tools.
    cmd.args(["--workspace", "--exclude", "xtask", "--exclude", "benches"])
        .args(["--lib", "--bins", "--tests", "--no-fail-fast", "--target", t.triple])
        .env("QEMU_CPU", r.cpu)
        .env("PROPTEST_CASES", if opts.quick { QUICK_CASES } else { EMULATED_CASES })
        .env("XTASK_BACKEND_REPORT", &report)
        // nabhash's SMHasher-style checks at a size that suits emulation.
        .env("NABHASH_QUALITY", "reduced")
        // Every crate: shrink exhaustive loops (lengths, offsets) that suit the host only.
        .env("XTASK_EMULATED", "1");
    if !r.rustflags.is_empty() {
        // A target dir per flag set, so that the runs do not rebuild each other.
        cmd.env("RUSTFLAGS", r.rustflags).env("CARGO_TARGET_DIR", flags_dir(r.rustflags));
    }
    for (krate, backend) in r.expect {
        cmd.env(expect_var(krate), backend);
    }
    // The runner of `.cargo/config.toml` (qemu-user), watched by `xtask emulate`.
    let runner = format!("{} emulate {} -L {} --", emulate_exe()?, t.qemu, t.sysroot);
    let var = format!("CARGO_TARGET_{}_RUNNER", t.triple.to_uppercase().replace('-', "_"));
    let stalls = report.with_extension("stalls");
    let _ = std::fs::remove_file(&stalls);
    cmd.env(var, runner).env(crate::emulate::STALL_LOG, &stalls);
    let flags = if r.rustflags.is_empty() { "-" } else { r.rustflags };
    execute(cmd, t.triple.into(), r.cpu.into(), flags.into(), report, Some(stalls))
}

/// The target dir of the cross runs built with `rustflags`.
fn flags_dir(rustflags: &str) -> PathBuf {
    let slug: String = rustflags.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    root().join("target/xtask").join(slug)
}

/// Where cargo puts builds that xtask does not redirect.
fn target_base() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// Deletes a cross build that has run; a failure to delete is reported, not fatal.
fn prune(dir: &std::path::Path) {
    if !dir.exists() {
        return;
    }
    match std::fs::remove_dir_all(dir) {
        Ok(()) => eprintln!("xtask: deleted {} (use --keep-builds to keep it)", dir.display()),
        Err(e) => eprintln!("xtask: could not delete {}: {e}", dir.display()),
    }
}

/// A copy of this xtask binary for cargo to run as the cross rows' runner (a copy, so that a
/// rebuild of xtask while the matrix runs cannot replace it).
fn emulate_exe() -> Result<String, String> {
    static EXE: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        let me = std::env::current_exe().map_err(|e| format!("cannot find xtask's binary: {e}"))?;
        let dir = root().join("target/xtask/runner");
        let copy = dir.join("xtask-emulate");
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::copy(&me, &copy))
            .map_err(|e| format!("cannot copy {} to {}: {e}", me.display(), copy.display()))?;
        let copy = copy.to_string_lossy().into_owned();
        // Cargo splits a runner given in the environment at spaces.
        if copy.contains(char::is_whitespace) {
            return Err(format!(
                "the workspace path has a space, which cargo's runner cannot take: {copy}"
            ));
        }
        Ok(copy)
    })
    .clone()
}

fn execute(
    mut cmd: Command,
    target: String,
    cpu: String,
    rustflags: String,
    report: PathBuf,
    stall_log: Option<PathBuf>,
) -> Result<Outcome, String> {
    eprintln!("\nxtask: ==== {target} / {cpu} / {rustflags} ==== ({})", since_start());
    let start = Instant::now();
    let _ = std::fs::remove_file(&report);
    let (out, ok) = run_tee(&mut cmd)?;
    let (passed, failed) = count(&out);
    let mut backends: Vec<String> =
        std::fs::read_to_string(&report).unwrap_or_default().lines().map(str::to_owned).collect();
    backends.sort();
    backends.dedup();
    let backends = if backends.is_empty() { "(none reported)".into() } else { backends.join(" ") };
    let stalls = stall_log
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(Outcome {
        target,
        cpu,
        rustflags,
        passed,
        failed,
        ok,
        backends,
        secs: start.elapsed().as_secs(),
        note: String::new(),
        stalls,
    })
}

/// Sums libtest's `test result: ok. N passed; M failed; ...` lines.
fn count(out: &str) -> (u64, u64) {
    let mut passed = 0;
    let mut failed = 0;
    for line in out.lines().filter_map(|l| l.trim().strip_prefix("test result: ")) {
        for part in line.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(kind), Some(n)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            match kind {
                "passed" => passed += n,
                "failed" => failed += n,
                _ => {}
            }
        }
    }
    (passed, failed)
}

/// Time since xtask started, for the stage headers (CI logs show where the time went).
pub fn since_start() -> String {
    let secs = START.get_or_init(Instant::now).elapsed().as_secs();
    format!("at {}:{:02}{}", secs / 60, secs % 60, free_space())
}

/// `, N.N GB free` on the workspace's file system (from `df`), or nothing when `df` fails: a
/// full disk is the usual cause of a CI build that stops with no test failure.
fn free_space() -> String {
    let out = Command::new("df").args(["-Pk"]).arg(root()).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let kib = text.lines().nth(1).and_then(|l| l.split_whitespace().nth(3)?.parse::<u64>().ok());
    kib.map_or_else(String::new, |k| format!(", {:.1} GB free", k as f64 / 1e6 * 1.024))
}

pub static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

fn report_file(name: &str) -> PathBuf {
    let dir = root().join("target/xtask/reports");
    let _ = std::fs::create_dir_all(&dir);
    dir.join(format!("{name}.txt"))
}

/// `XTASK_EXPECT_<CRATE>`, read by each crate's `report_backend` test.
fn expect_var(krate: &str) -> String {
    format!("XTASK_EXPECT_{}", krate.to_uppercase().replace('-', "_"))
}

/// The CPU flags the host's kernel reports.
fn host_flags() -> Vec<String> {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn summary(outcomes: &[Outcome]) -> Result<(), String> {
    println!("\n==== cargo xtask test: summary ====");
    println!(
        "{:<34} {:<52} {:<38} {:>6} {:>6} {:>5}  backends",
        "target", "cpu", "rustflags", "passed", "failed", "secs"
    );
    let mut bad = Vec::new();
    for o in outcomes {
        let status =
            if !o.ok && o.failed == 0 && o.note.is_empty() { " (command failed)" } else { "" };
        println!(
            "{:<34} {:<52} {:<38} {:>6} {:>6} {:>5}  {}{}{}",
            o.target,
            o.cpu,
            o.rustflags,
            o.passed,
            o.failed,
            o.secs,
            o.backends,
            status,
            if o.note.is_empty() { String::new() } else { format!("  [{}]", o.note) }
        );
        if !o.ok || o.failed > 0 {
            bad.push(format!("{} / {}", o.target, o.cpu));
        }
        // A run that executed nothing is a failure, not a pass.
        if o.ok && o.passed == 0 && o.note.is_empty() {
            bad.push(format!("{} / {} ran no test", o.target, o.cpu));
        }
    }
    for o in outcomes {
        for s in &o.stalls {
            println!("qemu-user stall in {} / {}: {s}", o.target, o.cpu);
        }
    }
    let passed: u64 = outcomes.iter().map(|o| o.passed).sum();
    let failed: u64 = outcomes.iter().map(|o| o.failed).sum();
    println!("total: {passed} passed, {failed} failed");
    if bad.is_empty() { Ok(()) } else { Err(format!("failing runs: {}", bad.join(", "))) }
}
