//! `cargo xtask bench`: runs the criterion comparisons of `benches/` and writes the report
//! (`target/bench-report/index.md`, `index.html`, one SVG plot per table).
//!
//! The headline is the **default build**: no `target-cpu`, and cargo's own `bench` profile as a
//! dependency gets it (no LTO, 16 codegen units: the workspace's release profile, which the
//! bench profile inherits, is overridden through `CARGO_PROFILE_BENCH_*`). Then one section per
//! ISA tier ([`plan::TIERS`]), each measured in processes of its own because every cap is read
//! once per process:
//!
//! - the default build again with `NAB_MAX_ISA=<tier>` (ours), `GLIBC_TUNABLES` (glibc),
//!   `SIMDUTF_FORCE_IMPLEMENTATION` (simdutf), and the AVX2 run-time peers from v3 up;
//! - a build for the tier (`-C target-cpu=x86-64-vN +aes`, or `native`) of the bench targets
//!   whose peers pick their kernels at compile time, which times only those peers (for
//!   `native`, ours too);
//! - the peers that gain nothing from a tier (GMP, malachite, num-bigint, dashu, foldhash) are
//!   the headline's rows, marked `(shared)`.

mod entry;
mod import;
mod json;
mod plan;
pub(crate) mod record;
mod report;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use crate::util::{cargo, output, root, show};
use plan::{BENCHES, Build, Tier};

pub struct Options {
    pub quick: bool,
    /// Bench targets of `benches/` to run (all when empty), e.g. `nabhash`.
    pub benches: Vec<String>,
    /// Store the run as the CPU's record, `benches/results/<slug>.jsonl`.
    pub record: bool,
}

/// Where the records of each CPU live.
pub fn results_dir() -> PathBuf {
    root().join("benches/results")
}

/// Where every run writes its own rows, as a record (`live` in `--diff`).
fn live_path() -> PathBuf {
    root().join("target/bench-report/run.jsonl")
}

/// A record by name: `live` (the last run), a CPU's slug, or a path.
fn record_by_name(name: &str) -> Result<record::Record, String> {
    let path = match name {
        "live" => live_path(),
        n if !n.contains('/') && !n.ends_with(".jsonl") => results_dir().join(format!("{n}.jsonl")),
        n => PathBuf::from(n),
    };
    record::read(&path)
}

/// `cargo xtask bench --diff A B`: the rows that moved beyond their confidence intervals.
pub fn diff(a: &str, b: &str) -> Result<(), String> {
    let (ra, rb) = (record_by_name(a)?, record_by_name(b)?);
    print!("{}", record::diff_text(&ra, &rb, a, b));
    Ok(())
}

/// The crates whose READMEs carry a speed table (`<!-- speed:begin -->` ... `end`).
const README_CRATES: &[(&str, &str)] = &[
    ("nabhash", "crates/nabhash/README.md"),
    ("b64", "crates/b64/README.md"),
    ("memops", "crates/memops/README.md"),
    ("bignum-fib", "crates/bignum-fib/README.md"),
    ("splice-pool", "crates/splice-pool/README.md"),
];

/// `cargo xtask bench --readme`: fills each crate README's speed table from the records of
/// every CPU in `benches/results/` (also done by every `--record` run).
pub fn fill_readmes() -> Result<(), String> {
    let cpus: Vec<record::Record> = record::read_all(&results_dir())?.into_values().collect();
    for (krate, path) in README_CRATES {
        let path = root().join(path);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Some(new) = report::fill_markers(&text, &report::readme_table(krate, &cpus)) else {
            continue;
        };
        if new != text {
            std::fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("xtask: speed table of {} from {} records", path.display(), cpus.len());
        }
    }
    Ok(())
}

/// `cargo xtask bench --import REPORT --cpu VENDOR/FAMILY/MODEL/STEPPING --commit C`: a report
/// of another machine (written before records existed) as that CPU's record, with the
/// throughputs of the live run (`run.jsonl`).
pub fn import_report(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask bench --import REPORT.md --cpu VENDOR/FAMILY/MODEL/STEPPING \
                 --commit COMMIT [--out PATH]";
    let (mut file, mut cpu, mut commit, mut out) = (None, None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().ok_or(usage)?;
        match a.as_str() {
            "--import" => file = Some(v.clone()),
            "--cpu" => cpu = Some(v.clone()),
            "--commit" => commit = Some(v.clone()),
            "--out" => out = Some(PathBuf::from(v)),
            _ => return Err(usage.into()),
        }
    }
    let (Some(file), Some(cpu), Some(commit)) = (file, cpu, commit) else {
        return Err(usage.into());
    };
    let parts: Vec<&str> = cpu.split('/').collect();
    let num = |s: &str| s.parse::<u32>().map_err(|_| format!("--cpu: `{s}` is not a number"));
    let [vendor, f, m, s] = parts[..] else { return Err(usage.into()) };
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
    let live = record::read(&live_path()).map_err(|e| {
        format!("{e} (run `cargo xtask bench --quick` first: its rows give the throughputs)")
    })?;
    let got = import::import(&text, &live, (vendor, num(f)?, num(m)?, num(s)?), &commit);
    let path =
        out.unwrap_or_else(|| results_dir().join(format!("{}.jsonl", got.record.machine.slug)));
    record::write(&path, &got.record)?;
    eprintln!(
        "xtask: {} rows of {} in {} ({} cells left out: no throughput in the live run, or CPU-time tables)",
        got.record.rows.len(),
        got.record.machine.slug,
        path.display(),
        got.skipped
    );
    Ok(())
}

/// `git rev-parse --short=10 HEAD`, with `-dirty` when tracked files differ from it.
fn commit() -> String {
    let head =
        output(Command::new("git").current_dir(root()).args(["rev-parse", "--short=10", "HEAD"]))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|| "unknown".into());
    let dirty = output(Command::new("git").current_dir(root()).args([
        "status",
        "--porcelain",
        "--untracked-files=no",
    ]))
    .is_some_and(|s| !s.trim().is_empty());
    if dirty { format!("{head}-dirty") } else { head }
}

/// The version of an implementation: a peer's from `Cargo.lock`, ours from its crate's
/// `Cargo.toml`.
fn version_of(group: &str, function: &str, lock: &str) -> Option<String> {
    if let Some(p) = plan::peer_of(function).filter(|p| !p.package.is_empty()) {
        return plan::locked_version(lock, p.package, p.version);
    }
    let krate = group.split('/').next()?;
    if !plan::is_ours(krate, group, function) {
        return None;
    }
    let toml =
        std::fs::read_to_string(root().join("crates").join(krate).join("Cargo.toml")).ok()?;
    toml.lines()
        .find_map(|l| l.strip_prefix("version = "))
        .map(|v| v.trim().trim_matches('"').to_owned())
}

/// Criterion's timing options for a process: the headline's, or the tiers' shorter ones.
fn timing(quick: bool, headline: bool) -> &'static [&'static str] {
    match (quick, headline) {
        // A minute-scale run: short warm-up and measurement, few samples, fewer resamples for
        // the confidence intervals (the report uses the median only); the benches read
        // XTASK_BENCH_QUICK and take fewer sizes.
        (true, true) => &[
            "--warm-up-time",
            "0.1",
            "--measurement-time",
            "0.3",
            "--sample-size",
            "10",
            "--nresamples",
            "1000",
        ],
        (true, false) => &[
            "--warm-up-time",
            "0.05",
            "--measurement-time",
            "0.1",
            "--sample-size",
            "10",
            "--nresamples",
            "1000",
        ],
        // Criterion's defaults (3 s warm-up, 5 s measurement) over the ~800 benchmarks of the
        // headline would take two hours by themselves. Measured (5875bb4, 2 vCPUs under load):
        // 0.3 s + 1.5 s per benchmark took 33 minutes for the headline's 731 benchmarks, of which
        // ~5 minutes are the F(10^8) groups that set their own times; 0.2 s + 1 s keeps the
        // headline near 22 minutes. Groups that set their own times keep them.
        (false, true) => {
            &["--warm-up-time", "0.2", "--measurement-time", "1", "--nresamples", "10000"]
        }
        // The seven tier processes time ~2500 benchmarks between them: 0.1 s + 0.4 s (30
        // samples) took 0.6 s per benchmark and 5-6 minutes per process; 0.05 s + 0.25 s (20
        // samples) takes about 0.35 s.
        (false, false) => &[
            "--warm-up-time",
            "0.05",
            "--measurement-time",
            "0.25",
            "--sample-size",
            "20",
            "--nresamples",
            "2000",
        ],
    }
}

/// `cargo` for one of the bench builds: its own target dir, its `RUSTFLAGS`, and the profile a
/// dependency gets by default.
fn build_cargo(b: &Build) -> Command {
    let mut cmd = cargo();
    cmd.env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", target_dir(b))
        // `[profile.release]` sets thin LTO and one codegen unit and `[profile.bench]`
        // inherits it; a user's project building our crates as dependencies has neither.
        .env("CARGO_PROFILE_BENCH_LTO", "false")
        .env("CARGO_PROFILE_BENCH_CODEGEN_UNITS", "16");
    if b.rustflags.is_empty() {
        cmd.env_remove("RUSTFLAGS");
    } else {
        cmd.env("RUSTFLAGS", b.rustflags);
    }
    cmd
}

/// The target dir every bench build shares: they build for the host triple explicitly, so
/// that `RUSTFLAGS` stay off the build scripts and proc macros, which are then built once for
/// all builds (the executables are copied out after each build).
fn target_dir(_: &Build) -> PathBuf {
    root().join("target/bench-builds")
}

/// Profile settings of every bench build: the dependencies that are neither ours nor a timed
/// peer (criterion and its own dependencies) at `opt-level=1`, which builds them about twice
/// as fast; ours (workspace members) and every peer package keep the bench profile's 3 (and
/// its no-LTO, 16 codegen units). The timed loops are criterion's generic code, compiled in
/// the bench crate at 3.
fn light_profile(cmd: &mut Command) {
    cmd.args(["--config", "profile.bench.package.\"*\".opt-level=1"]);
    for p in plan::PEERS.iter().map(|p| p.package).chain(plan::PEER_DEPS.iter().copied()) {
        if !p.is_empty() {
            cmd.args(["--config", &format!("profile.bench.package.{p}.opt-level=3")]);
        }
    }
}

/// The benches crate's features for a build of `benches`: the heavy peers of the selected
/// crates only (a `--crate b64` run builds no bignum or tokio peer), none for a tier build.
fn features(cmd: &mut Command, b: &Build, benches: &[&str]) {
    cmd.arg("--no-default-features");
    let list = if b.full { peer_features(benches) } else { Vec::new() };
    if !list.is_empty() {
        cmd.args(["--features", &list.join(",")]);
    }
}

/// The optional peers (features of `benches/Cargo.toml`) each bench target needs.
fn peer_features(benches: &[&str]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for b in benches {
        let needs: &[&'static str] = match *b {
            "bignum-fib" => &["peers-bignum", "gmp"],
            "b64" => &["peers-simdutf"],
            "splice-pool" | "kcapi" => &["peers-io"],
            _ => &[],
        };
        for f in needs {
            if !out.contains(f) {
                out.push(*f);
            }
        }
    }
    out
}

/// Builds `benches` of `b` and its `backends` probe (a bench target, so that it shares their
/// build); returns the executables by target name.
fn build(b: &Build, benches: &[&str]) -> Result<BTreeMap<String, PathBuf>, String> {
    let mut exes = BTreeMap::new();
    let mut cmd = build_cargo(b);
    cmd.args(["bench", "--package", "benches", "--no-run"]);
    cmd.args(["--message-format", "json-render-diagnostics"]);
    features(&mut cmd, b, benches);
    cmd.args(["--target", &host_triple()?]);
    light_profile(&mut cmd);
    for bench in benches.iter().chain(&["backends"]) {
        cmd.args(["--bench", bench]);
    }
    artifacts(&mut cmd, &mut exes)?;
    // The next tier build overwrites the shared target dir's executables.
    let keep = root().join("target/bench-exes").join(b.name);
    std::fs::create_dir_all(&keep).map_err(|e| format!("{}: {e}", keep.display()))?;
    for (name, exe) in exes.iter_mut() {
        let to = keep.join(name);
        std::fs::copy(&*exe, &to)
            .map_err(|e| format!("{} -> {}: {e}", exe.display(), to.display()))?;
        *exe = to;
    }
    Ok(exes)
}

/// `rustc -vV`'s host triple.
fn host_triple() -> Result<String, String> {
    let v = output(Command::new("rustc").arg("-vV")).ok_or("`rustc -vV` failed")?;
    v.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "no `host:` line in `rustc -vV`".into())
}

/// Runs a cargo build with JSON messages and records each executable it reports.
fn artifacts(cmd: &mut Command, exes: &mut BTreeMap<String, PathBuf>) -> Result<(), String> {
    eprintln!("xtask: $ {}", show(cmd));
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        let Ok(v) = json::parse(&line) else { continue };
        let exe = v.get("executable").and_then(json::Value::as_str);
        let name = v.at(&["target", "name"]).and_then(json::Value::as_str);
        if let (Some(exe), Some(name)) = (exe, name) {
            exes.insert(name.to_owned(), PathBuf::from(exe));
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() { Ok(()) } else { Err(format!("`{}` failed: {status}", show(cmd))) }
}

/// The caps of a tier's processes.
fn cap_env(cmd: &mut Command, tier: Option<&Tier>) {
    for var in ["NAB_MAX_ISA", "GLIBC_TUNABLES", "SIMDUTF_FORCE_IMPLEMENTATION"] {
        cmd.env_remove(var);
    }
    let Some(t) = tier else { return };
    if t.name != "native" {
        cmd.env("NAB_MAX_ISA", t.name);
    }
    if let Some(g) = t.glibc_tunables {
        cmd.env("GLIBC_TUNABLES", g);
    }
    if let Some(s) = t.simdutf {
        cmd.env("SIMDUTF_FORCE_IMPLEMENTATION", s);
    }
}

/// One process of the plan: which build, which caps, which rows.
struct Process<'a> {
    /// Name of its criterion directory under `target/bench-runs/`.
    name: String,
    exes: &'a BTreeMap<String, PathBuf>,
    tier: Option<&'a Tier>,
    filter: Option<String>,
    headline: bool,
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
    let pick = |from: &[&'static str]| -> Vec<&'static str> {
        from.iter().copied().filter(|b| selected.contains(b)).collect()
    };
    // GMP is a peer of bignum-fib (the benches' `gmp` feature links Debian's libgmp): needed
    // only when bignum-fib's benches run.
    crate::install::ensure(&crate::install::Needs {
        targets: Vec::new(),
        lints: false,
        miri: false,
        vm: false,
        gmp: selected.contains(&"bignum-fib"),
        publish: false,
    })?;
    if let Some(v) = std::env::var_os("NAB_MAX_ISA") {
        eprintln!(
            "xtask: warning: NAB_MAX_ISA={} is set; the bench processes set their own",
            v.to_string_lossy()
        );
    }
    let started = SystemTime::now();
    let run_date = output(Command::new("date").args(["-u", "+%Y-%m-%dT%H:%MZ"]))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().to_owned();
    let clock = Instant::now();
    let mut times: Vec<(String, String)> = Vec::new();

    // Build everything first, so that compile time is not mistaken for a stuck bench.
    let t = Instant::now();
    let default_exes = build(&plan::DEFAULT, &pick(plan::DEFAULT.benches))?;
    times.push(("build default".into(), secs(t)));
    let mut tier_exes = Vec::new();
    // The tiers are x86's; elsewhere the report is the default build.
    let tiers: &[Tier] = if cfg!(target_arch = "x86_64") { plan::TIERS } else { &[] };
    for tier in tiers {
        let benches = pick(tier.build.benches);
        if benches.is_empty() {
            continue;
        }
        let t = Instant::now();
        tier_exes.push((tier, build(&tier.build, &benches)?));
        times.push((format!("build {}", tier.name), secs(t)));
    }
    let built = clock.elapsed().as_secs();

    // The facts too large for `cargo xtask test` (F(10^8) against the spec), in the default
    // build.
    if selected.contains(&"bignum-fib") && !opts.quick {
        let mut facts = build_cargo(&plan::DEFAULT);
        facts.args(["test", "--profile", "bench", "--package", "bignum-fib", "--test", "fib"]);
        facts.args(["--", "--ignored"]);
        crate::util::run(&mut facts)?;
    }

    let mut processes = vec![Process {
        name: "default".into(),
        exes: &default_exes,
        tier: None,
        filter: None,
        headline: true,
    }];
    for tier in tiers.iter().filter(|t| t.name != "native") {
        processes.push(Process {
            name: format!("cap-{}", tier.name),
            exes: &default_exes,
            tier: Some(tier),
            filter: Some(plan::capped_filter(tier)),
            headline: false,
        });
    }
    for (tier, exes) in &tier_exes {
        processes.push(Process {
            name: format!("build-{}", tier.name),
            exes,
            tier: Some(tier),
            filter: Some(plan::tier_build_filter(tier)),
            headline: false,
        });
    }

    let runs = root().join("target/bench-runs");
    let mut skipped = Vec::new();
    let mut failed = Vec::new();
    let mut runs_entries: BTreeMap<String, Vec<entry::Entry>> = BTreeMap::new();
    let mut probes: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (i, p) in processes.iter().enumerate() {
        let dir = runs.join(&p.name);
        // Old estimates would mix into this run's tables otherwise.
        let _ = std::fs::remove_dir_all(&dir);
        let t = Instant::now();
        let benches: Vec<&str> =
            if p.headline { pick(plan::DEFAULT.benches) } else { pick(plan::TIERED) };
        for b in benches {
            let Some(exe) = p.exes.get(b) else { continue };
            eprintln!("xtask: [{}/{}] {} bench {b}", i + 1, processes.len(), p.name);
            let mut cmd = Command::new(exe);
            cmd.current_dir(root().join("benches")).arg("--bench").env("CRITERION_HOME", &dir);
            cmd.args(timing(opts.quick, p.headline));
            if opts.quick {
                // The tier processes of a quick run take even fewer sizes (no largest one).
                cmd.env("XTASK_BENCH_QUICK", if p.headline { "1" } else { "tier" });
            }
            cap_env(&mut cmd, p.tier);
            if let Some(f) = &p.filter {
                cmd.arg(f);
            }
            match stream_groups(&mut cmd) {
                Ok(Some(why)) if p.headline => skipped.push((b.to_string(), why)),
                Ok(_) => {}
                // One bench that fails (a peer that panics, a timeout) must not cost the
                // whole run: the report says which one failed.
                Err(e) => {
                    eprintln!("xtask: error: {e}");
                    failed.push(format!("{} bench {b}: {e}", p.name));
                }
            }
        }
        if let Some(probe) = p.exes.get("backends") {
            let mut cmd = Command::new(probe);
            cap_env(&mut cmd, p.tier);
            probes.insert(p.name.clone(), probe_output(&mut cmd)?);
        }
        times.push((format!("run {}", p.name), secs(t)));
        runs_entries.insert(p.name.clone(), report::collect(&dir, started)?);
    }
    let measured = clock.elapsed().as_secs() - built;

    if runs_entries.values().all(Vec::is_empty) && skipped.is_empty() {
        return Err(format!("no criterion estimates from this run under {}", runs.display()));
    }
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap_or_default();
    // The machine, the commit and each implementation's version, read once for every row.
    let this = record::this_machine();
    let commit = commit();
    let mut machine = machine(&this);
    machine.lines.push(("time".into(), format!("builds {built} s, benches {measured} s")));
    machine.lines.push((
        "steps".into(),
        times.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "),
    ));
    let options: String = [
        if opts.quick { " --quick" } else { "" }.to_string(),
        opts.benches.iter().map(|b| format!(" --crate {b}")).collect::<String>(),
    ]
    .concat()
    .trim()
    .to_owned();
    let mut cx = report::Context {
        machine,
        probes: probes.into_iter().map(|(k, v)| (k, resolve_glibc(v))).collect(),
        skipped,
        failed: failed.clone(),
        command: format!(
            "cargo xtask bench{}{}",
            if opts.quick { " --quick" } else { "" },
            opts.benches.iter().map(|b| format!(" --crate {b}")).collect::<String>()
        ),
        lock,
        live_slug: String::new(),
        cpus: Vec::new(),
        modelled: crate::mca::modelled_section(&root()),
    };
    // The run as a record, and the CPU's record with it.
    let mut versions: BTreeMap<(String, String), Option<String>> = BTreeMap::new();
    let mut version = |group: &str, function: &str| {
        versions
            .entry((group.to_owned(), function.to_owned()))
            .or_insert_with(|| version_of(group, function, &cx.lock))
            .clone()
    };
    let live = record::Record {
        machine: this.clone(),
        runs: vec![record::Run {
            commit: commit.clone(),
            date: run_date.clone(),
            options: options.clone(),
            quick: opts.quick,
            crates: opts.benches.clone(),
            load: load.clone(),
        }],
        rows: runs_entries
            .iter()
            .flat_map(|(section, es)| es.iter().map(move |e| (section, e)))
            .map(|(section, e)| record::Row {
                commit: commit.clone(),
                date: run_date.clone(),
                run: options.clone(),
                section: section.clone(),
                group: e.group.clone(),
                input: e.param.clone(),
                implementation: e.function.clone(),
                version: version(&e.group, &e.function),
                median_ns: e.median_ns,
                ci_low_ns: e.ci_low_ns,
                ci_high_ns: e.ci_high_ns,
                throughput: e.throughput,
            })
            .collect(),
    };
    record::write(&live_path(), &live)?;
    let own = results_dir().join(format!("{}.jsonl", this.slug));
    let previous = if own.exists() { Some(record::read(&own)?) } else { None };
    let merged = record::merge(previous, live);
    if opts.record {
        record::write(&own, &merged)?;
        eprintln!(
            "xtask: recorded {} rows of {} in {}",
            merged.rows.len(),
            this.slug,
            own.display()
        );
    }
    let mut cpus: Vec<record::Record> = record::read_all(&results_dir())?
        .into_values()
        .filter(|r| r.machine.slug != this.slug)
        .collect();
    cpus.push(merged);
    let compared: Vec<String> = cpus
        .iter()
        .map(|r| {
            let newest = r.runs.iter().map(|run| run.date.as_str()).max().unwrap_or("?");
            if r.machine.slug == this.slug {
                format!("`{}` (this CPU: this run over its record)", r.machine.slug)
            } else {
                format!("`{}` (newest run {newest})", r.machine.slug)
            }
        })
        .collect();
    cx.machine.lines.push(("records".into(), compared.join(", ")));
    cx.cpus = cpus;
    cx.live_slug = this.slug.clone();
    let out = root().join("target/bench-report");
    let md = report::write(&out, &runs_entries, &cx)?;
    if opts.record {
        fill_readmes()?;
    }
    eprintln!(
        "xtask: {} benchmarks in {} s; report: {} and {}",
        runs_entries.values().map(Vec::len).sum::<usize>(),
        clock.elapsed().as_secs(),
        md.display(),
        out.join("index.html").display()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} bench processes failed (the report lists them): {}",
            failed.len(),
            failed.join("; ")
        ))
    }
}

fn secs(t: Instant) -> String {
    format!("{} s", t.elapsed().as_secs())
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

/// `key -> value` as the benches' probe binary prints them: `crate -> backend` (the same build
/// and caps as the benches, so the backend is the one that was measured) and
/// `glibc.<function> -> library+offset`.
fn probe_output(cmd: &mut Command) -> Result<BTreeMap<String, String>, String> {
    let text = output(cmd).ok_or_else(|| format!("`{}` failed: no probe output", show(cmd)))?;
    Ok(text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect())
}

/// Replaces each `glibc.<function>=<library>+<offset>` with the name of the function at that
/// offset in the library's debug symbols (Debian's `libc6-dbg`, found by build id), e.g.
/// `__memmove_avx512_unaligned_erms`. Left as it is when they cannot be read.
fn resolve_glibc(mut probe: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut symbols: BTreeMap<String, Option<BTreeMap<u64, String>>> = BTreeMap::new();
    for (k, v) in probe.iter_mut() {
        if !k.starts_with("glibc.") {
            continue;
        }
        let Some((lib, off)) = v.rsplit_once('+') else { continue };
        let Ok(off) = u64::from_str_radix(off.trim_start_matches("0x"), 16) else { continue };
        let table = symbols.entry(lib.to_owned()).or_insert_with(|| debug_symbols(Path::new(lib)));
        if let Some(name) = table.as_ref().and_then(|t| t.get(&off)) {
            *v = name.clone();
        }
    }
    probe
}

/// Function symbols (`T`/`t`) of `lib`'s separate debug file, by address.
fn debug_symbols(lib: &Path) -> Option<BTreeMap<u64, String>> {
    let notes = output(Command::new("readelf").args(["-n"]).arg(lib))?;
    let id = notes.lines().find_map(|l| l.trim().strip_prefix("Build ID: "))?.trim().to_owned();
    let debug = PathBuf::from(format!("/usr/lib/debug/.build-id/{}/{}.debug", &id[..2], &id[2..]));
    let nm = output(Command::new("nm").arg("--defined-only").arg(&debug))?;
    let mut out = BTreeMap::new();
    for line in nm.lines() {
        let mut f = line.split_whitespace();
        let (Some(addr), Some(kind), Some(name)) = (f.next(), f.next(), f.next()) else { continue };
        if !matches!(kind, "T" | "t" | "i") {
            continue;
        }
        if let Ok(a) = u64::from_str_radix(addr, 16) {
            // Prefer the variant's own name (`__memmove_evex_unaligned_erms`) over an alias.
            let better = |old: &String| old.len() < name.len() && name.starts_with("__");
            match out.get(&a) {
                Some(old) if !better(old) => {}
                _ => {
                    out.insert(a, name.to_owned());
                }
            }
        }
    }
    Some(out)
}

/// CPU model and the ISA flags our kernels care about, kernel, toolchain, date.
fn machine(m: &record::Machine) -> report::Machine {
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
    let have: Vec<&str> = INTERESTING
        .iter()
        .copied()
        .filter(|f| m.flags.split_whitespace().any(|x| x == *f))
        .collect();
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_default();
    let name = if m.model_name.is_empty() { m.arch.as_str() } else { m.model_name.as_str() };
    report::Machine {
        lines: vec![
            ("date".into(), date.trim().into()),
            (
                "CPU".into(),
                format!(
                    "{name} (`{}`: {} family {:#x} model {:#x} stepping {})",
                    m.slug, m.vendor, m.family, m.model, m.stepping
                ),
            ),
            ("cores".into(), m.cores.to_string()),
            (
                "load".into(),
                std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().into(),
            ),
            ("features".into(), have.join(" ")),
            ("kernel".into(), m.kernel.clone()),
            ("glibc".into(), m.glibc.clone()),
            ("rustc".into(), m.rustc.clone()),
        ],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_crate_run_builds_only_its_peers() {
        assert_eq!(super::peer_features(&["b64"]), ["peers-simdutf"]);
        assert!(super::peer_features(&["nabhash", "memops"]).is_empty());
        assert_eq!(
            super::peer_features(&["bignum-fib", "kcapi", "splice-pool"]),
            ["peers-bignum", "gmp", "peers-io"]
        );
    }
}
