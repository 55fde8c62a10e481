//! `cargo xtask test`: lints, host tests, Miri, the cross matrix under qemu-user, the VM tests;
//! then one summary line per run and a table of where the time went.
//!
//! The work is a list of jobs with dependencies (a cross row's tests wait for its build), run
//! [`parallel_jobs()`] at a time, so that on two cores one job builds while the other emulates: the next
//! target compiles while the current one's tests run under qemu. Each job writes its output to
//! its own log under `target/xtask/logs/`; a job that runs tests (or fails) has its log printed
//! whole when it ends, so the CI log reads one job at a time.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use crate::install::{self, Needs};
use crate::matrix::{self, Choice, HOST_BACKENDS, MIRI_RUNS, RUNS, Run, TARGETS};
use crate::util::{cargo, nightly_cargo, root, show, toolchain_cargo};

/// Property-test cases per test: full on the host, fewer under emulation (proptest reads
/// `PROPTEST_CASES`).
const HOST_CASES: &str = "512";
const EMULATED_CASES: &str = "48";
const QUICK_CASES: &str = "16";
/// Miri interprets code thousands of times slower; the tests also shrink their inputs.
const MIRI_CASES: &str = "4";
/// Optional features the host run enables: splice-pool's tokio API, kcapi's RustCrypto trait
/// impls (skipped on the host without AF_ALG, run in the VM), bignum-fib's num-bigint
/// conversions and num-traits impls.
const HOST_FEATURES: &str = "splice-pool/tokio,nab-kcapi/digest,nab-kcapi/aead,\
    nab-kcapi/rand_core,nab-kcapi/cipher,bignum-fib/num-bigint,bignum-fib/num-traits";
/// Cross builds that may exist at once (built and not yet deleted): one being emulated, one
/// waiting, one building. One cross build is 0.5-1 GB.
const LIVE_BUILDS: usize = 3;

pub struct Options {
    pub host: bool,
    pub archs: Vec<String>,
    pub vm: bool,
    /// The publish checks ([`publish_cmds`]).
    pub publish: bool,
    pub quick: bool,
    /// Keep each cross run's build once it has run (by default it is deleted, so that the whole
    /// matrix fits on a small disk: one cross build is 0.5–1 GB).
    pub keep_builds: bool,
}

/// A row of the summary: a run of tests (or the lints) and what it found.
struct Row {
    target: String,
    cpu: String,
    rustflags: String,
    /// Where the crates' `report_backend` tests write the backend they dispatched to.
    report: Option<PathBuf>,
    /// Where `xtask emulate` records qemu-user stalls.
    stall_log: Option<PathBuf>,
}

/// What a job does.
enum Work {
    /// Commands run one after the other, all of them even when one fails; the job fails if any
    /// does. `row`: the job runs tests and is a line of the summary.
    Commands { cmds: Vec<Command>, row: Option<Row> },
    /// The kernel-VM stage, in a child xtask (`xtask vm-stage`) so that its CPU time and output
    /// are its own.
    Vm { quick: bool },
}

struct Job {
    name: String,
    deps: Vec<usize>,
    work: Work,
    /// A cross build: counted against [`LIVE_BUILDS`] and deleted (this directory) once every
    /// job that depends on it has run, unless `--keep-builds`.
    prune: Option<PathBuf>,
}

/// How one job went.
struct Done {
    name: String,
    ok: bool,
    wall: f64,
    cpu: Option<f64>,
    passed: u64,
    failed: u64,
    backends: String,
    note: String,
    stalls: Vec<String>,
    row: Option<Row>,
    /// The job's output.
    log: PathBuf,
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
        publish: opts.publish,
    })?;
    let timer = timer_exe()?;
    let jobs = plan(&opts, &targets, &timer);
    let done = schedule(jobs, &timer, opts.keep_builds);
    summary(&done)
}

/// The jobs in the order they are preferred: each free slot takes the first job whose
/// dependencies have ended. The long single-threaded ones (Miri, emulated tests) start as
/// early as they can so that builds fill the other core.
fn plan(opts: &Options, targets: &[&matrix::Target], timer: &str) -> Vec<Job> {
    let mut jobs = Vec::new();
    if opts.host {
        jobs.push(Job {
            name: "build: x86_64 host tests".into(),
            deps: vec![],
            work: Work::Commands { cmds: vec![host_cmd(opts, true)], row: None },
            prune: None,
        });
        jobs.push(Job {
            name: "miri (x86_64)".into(),
            deps: vec![],
            work: Work::Commands {
                cmds: miri_cmds(),
                row: Some(Row {
                    target: "miri (x86_64)".into(),
                    cpu: "-".into(),
                    rustflags: "-".into(),
                    report: Some(report_file("miri")),
                    stall_log: None,
                }),
            },
            prune: None,
        });
        jobs.push(Job {
            name: "x86_64 (host) / native".into(),
            deps: vec![0],
            work: Work::Commands {
                cmds: vec![host_cmd(opts, false)],
                row: Some(Row {
                    target: std::env::consts::ARCH.to_string() + " (host)",
                    cpu: "native".into(),
                    rustflags: "-".into(),
                    report: Some(report_file("host")),
                    stall_log: None,
                }),
            },
            prune: None,
        });
        jobs.push(Job {
            name: "lint".into(),
            deps: vec![],
            work: Work::Commands { cmds: lint_cmds(timer), row: None },
            prune: None,
        });
    }
    if opts.publish {
        jobs.push(Job {
            name: "publish: package, docs.rs, MSRV, off-Linux".into(),
            deps: vec![],
            work: Work::Commands { cmds: publish_cmds(timer), row: None },
            prune: None,
        });
    }
    if opts.vm {
        jobs.push(Job {
            name: "vm (qemu-system-x86_64)".into(),
            deps: vec![],
            work: Work::Vm { quick: opts.quick },
            prune: None,
        });
    }
    // The targets whose emulated runs take longest go first, so that the end of the run, when
    // no build is left to overlap, emulates the short ones (aarch64's rows take a minute each;
    // riscv64's and mips64's portable rows run the software AES of nabhash's quality tests).
    let mut targets = targets.to_vec();
    targets.sort_by_key(|t| {
        ["riscv64", "mips64", "mips64el", "aarch64"].iter().position(|a| *a == t.arch)
    });
    for t in targets {
        let rows: Vec<&Run> = RUNS.iter().filter(|r| r.target == t.triple).collect();
        let rows = if opts.quick { rows[..1].to_vec() } else { rows };
        // One build per flag set; the rows that differ only in QEMU_CPU share it.
        let mut flag_sets: Vec<&str> = Vec::new();
        for r in &rows {
            if !flag_sets.contains(&r.rustflags) {
                flag_sets.push(r.rustflags);
            }
        }
        for flags in flag_sets {
            let mine: Vec<&&Run> = rows.iter().filter(|r| r.rustflags == flags).collect();
            let build = jobs.len();
            let label = if flags.is_empty() { String::new() } else { format!(" {flags}") };
            jobs.push(Job {
                name: format!("build: {}{label}", t.triple),
                deps: vec![],
                work: Work::Commands { cmds: vec![cross_cmd(mine[0], opts, true).0], row: None },
                prune: Some(build_dir(t.triple, flags)),
            });
            for r in mine {
                let (cmd, row) = cross_cmd(r, opts, false);
                jobs.push(Job {
                    name: format!("{} / {}", t.triple, r.cpu),
                    deps: vec![build],
                    work: Work::Commands { cmds: vec![cmd], row: Some(row) },
                    prune: None,
                });
            }
        }
    }
    // The `NAB_MAX_ISA` reruns: a few seconds each, on the host build; last, so that they do
    // not wait for cargo's lock on the host's target dir while the host tests hold it.
    if opts.host && std::env::consts::ARCH == "x86_64" {
        for cap in matrix::CAPS {
            let (cmd, row) = cap_cmd(cap);
            jobs.push(Job {
                name: format!("{} / {}", row.target, row.cpu),
                deps: vec![0],
                work: Work::Commands { cmds: vec![cmd], row: Some(row) },
                prune: None,
            });
        }
    }
    jobs
}

/// How many jobs run at once: `XTASK_JOBS`, or one more than the number of CPUs (at least 2,
/// so that a build always overlaps an emulation). One more, because a job rarely keeps every
/// core busy: an emulated test binary often ends on one thread, a build on its last crate or
/// its link.
fn parallel_jobs() -> usize {
    std::env::var("XTASK_JOBS").ok().and_then(|s| s.parse().ok()).filter(|&n| n > 0).unwrap_or_else(
        || std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get) + 1,
    )
}

/// Runs `jobs` at most [`parallel_jobs()`] at a time, each as soon as its dependencies have ended, and
/// returns how each went, in the order of `jobs`.
fn schedule(jobs: Vec<Job>, timer: &str, keep_builds: bool) -> Vec<Done> {
    let slots = parallel_jobs();
    let n = jobs.len();
    eprintln!("xtask: {n} jobs, {slots} at a time; logs in {}", log_dir().display());
    let names: Vec<String> = jobs.iter().map(|j| j.name.clone()).collect();
    let deps: Vec<Vec<usize>> = jobs.iter().map(|j| j.deps.clone()).collect();
    let mut prune: Vec<Option<PathBuf>> = jobs.iter().map(|j| j.prune.clone()).collect();
    // Jobs still to end that depend on each job (for pruning).
    let mut dependents = vec![0usize; n];
    for d in deps.iter().flatten() {
        dependents[*d] += 1;
    }
    let mut pending: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
    let mut results: Vec<Option<Done>> = (0..n).map(|_| None).collect();
    let mut running = 0;
    let mut live_builds = 0;
    let (tx, rx) = mpsc::channel::<(usize, Done)>();
    std::thread::scope(|s| {
        loop {
            // Start what can start.
            while running < slots {
                let ready = (0..n).find(|&i| {
                    pending[i].is_some()
                        && deps[i].iter().all(|d| results[*d].is_some())
                        && (prune[i].is_none() || keep_builds || live_builds < LIVE_BUILDS)
                });
                let Some(i) = ready else { break };
                let job = pending[i].take().expect("pending");
                if prune[i].is_some() {
                    live_builds += 1;
                }
                // A job whose build failed does not run; it fails with the reason.
                if let Some(d) =
                    deps[i].iter().find(|d| results[**d].as_ref().is_some_and(|r| !r.ok))
                {
                    let why = format!("not run: `{}` failed", names[*d]);
                    let _ = tx.send((i, skipped(job, why)));
                    running += 1;
                    continue;
                }
                eprintln!("xtask: [{}] start  {}", clock(), job.name);
                let tx = tx.clone();
                let timer = timer.to_string();
                running += 1;
                s.spawn(move || {
                    let done = execute(i, job, &timer);
                    let _ = tx.send((i, done));
                });
            }
            if running == 0 {
                break;
            }
            let (i, done) = rx.recv().expect("a job thread reports");
            running -= 1;
            report_job(&done);
            // A build is deleted once every job that needs it has ended (a build that nothing
            // needs, once it has ended).
            let mut ended = vec![i];
            for d in &deps[i] {
                dependents[*d] -= 1;
                ended.push(*d);
            }
            for j in ended {
                if dependents[j] == 0
                    && let Some(dir) = prune[j].take()
                {
                    live_builds -= 1;
                    if !keep_builds {
                        delete(&dir);
                    }
                }
            }
            results[i] = Some(done);
        }
    });
    results.into_iter().map(|r| r.expect("every job ran")).collect()
}

fn skipped(job: Job, why: String) -> Done {
    let row = match job.work {
        Work::Commands { row, .. } => row,
        Work::Vm { .. } => None,
    };
    Done {
        name: job.name,
        ok: false,
        wall: 0.0,
        cpu: None,
        passed: 0,
        failed: 0,
        backends: "-".into(),
        note: why,
        stalls: Vec::new(),
        row,
        log: PathBuf::new(),
    }
}

/// Runs one job, its output into its log.
fn execute(index: usize, job: Job, timer: &str) -> Done {
    let slug: String =
        job.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let log = log_dir().join(format!("{index:02}-{slug}.log"));
    // The commands append to the log: start it empty (a log of an earlier run would be counted).
    let _ = std::fs::remove_file(&log);
    let start = Instant::now();
    let mut done = Done {
        name: job.name,
        ok: true,
        wall: 0.0,
        cpu: Some(0.0),
        passed: 0,
        failed: 0,
        backends: "-".into(),
        note: String::new(),
        stalls: Vec::new(),
        row: None,
        log: log.clone(),
    };
    let mut notes = Vec::new();
    match job.work {
        Work::Commands { cmds, row } => {
            if let Some(r) = &row {
                for p in [&r.report, &r.stall_log].into_iter().flatten() {
                    let _ = std::fs::remove_file(p);
                }
            }
            for cmd in cmds {
                let (ok, cpu) = timed(cmd, timer, &log);
                if !ok {
                    done.ok = false;
                }
                done.cpu = done.cpu.zip(cpu).map(|(a, b)| a + b);
            }
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(r) = &row {
                (done.passed, done.failed) = count(&text);
                done.backends = backends(r.report.as_ref());
                done.stalls = r
                    .stall_log
                    .as_ref()
                    .and_then(|p| std::fs::read_to_string(p).ok())
                    .map(|s| s.lines().map(str::to_owned).collect())
                    .unwrap_or_default();
            } else if !done.ok {
                notes.push(format!("failed; its log: {}", log.display()));
            }
            done.row = row;
        }
        Work::Vm { quick } => {
            let result = log.with_extension("result");
            let _ = std::fs::remove_file(&result);
            let mut cmd = Command::new(timer);
            cmd.arg("vm-stage").arg(&result);
            if quick {
                cmd.arg("--quick");
            }
            let (ran, cpu) = timed(cmd, timer, &log);
            done.cpu = cpu;
            let text = std::fs::read_to_string(&result).unwrap_or_default();
            let field = |k: &str| {
                text.lines().find_map(|l| l.strip_prefix(k)?.strip_prefix('=')).unwrap_or("")
            };
            done.passed = field("passed").parse().unwrap_or(0);
            done.failed = field("failed").parse().unwrap_or(0);
            done.ok = ran && field("ok") == "true";
            done.backends = field("backends").to_string();
            let note = field("note");
            if !note.is_empty() {
                notes.push(note.to_string());
            } else if !ran || text.is_empty() {
                notes.push(format!("the VM stage failed; its log: {}", log.display()));
            }
            done.row = Some(Row {
                target: "vm (qemu-system-x86_64)".into(),
                cpu: "tcg max".into(),
                rustflags: "+crt-static".into(),
                report: None,
                stall_log: None,
            });
        }
    }
    done.note = notes.join("; ");
    done.wall = start.elapsed().as_secs_f64();
    done
}

/// Prints a job's end: its log when it ran tests or failed, then one line.
fn report_job(d: &Done) {
    let name = &d.name;
    let cpu = d.cpu.map_or("?".into(), |c| format!("{c:.0}"));
    if d.row.is_some() || !d.ok {
        println!("\nxtask: ==== {name} ==== (ended at {}: {:.0} s, {cpu} s CPU)", clock(), d.wall);
        print!("{}", std::fs::read_to_string(&d.log).unwrap_or_default());
    }
    let tests = if d.row.is_some() {
        format!(", {} passed, {} failed", d.passed, d.failed)
    } else {
        String::new()
    };
    let verdict = if d.ok { "ok" } else { "FAILED" };
    eprintln!("xtask: [{}] {verdict:<6} {name} ({:.0} s, {cpu} s CPU{tests})", clock(), d.wall);
}

/// Runs `cmd` through `xtask timed`, its stdout and stderr appended to `log`; whether it
/// succeeded, and the CPU time (user + system) of it and every process it waited for.
fn timed(cmd: Command, timer: &str, log: &std::path::Path) -> (bool, Option<f64>) {
    let cpu_file = log.with_extension("cpu");
    let _ = std::fs::remove_file(&cpu_file);
    let mut wrapped = Command::new(timer);
    wrapped.arg("timed").arg(&cpu_file).arg("--").arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    let opened = std::fs::OpenOptions::new().create(true).append(true).open(log);
    let (out, err) = match opened.and_then(|f| Ok((f.try_clone()?, f))) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("xtask: cannot write {}: {e}", log.display());
            return (false, None);
        }
    };
    let header = format!("xtask: $ {}\n", show(&cmd));
    let _ = std::io::Write::write_all(&mut &out, header.as_bytes());
    let status = wrapped.stdin(Stdio::null()).stdout(out).stderr(err).status();
    let ok = match status {
        Ok(s) => s.success(),
        Err(e) => {
            eprintln!("xtask: cannot start `{}`: {e}", show(&cmd));
            false
        }
    };
    let cpu = std::fs::read_to_string(&cpu_file).ok().and_then(|s| s.trim().parse().ok());
    (ok, cpu)
}

/// `xtask timed FILE -- PROGRAM [ARGS]...`: runs the program and writes to FILE the CPU seconds
/// (user + system) that it and the processes it waited for used (this process's reaped
/// children, from `/proc/self/stat`), then exits as the program did.
pub fn timed_main(args: &[String]) -> std::process::ExitCode {
    let (Some(file), Some("--"), Some(program)) =
        (args.first(), args.get(1).map(String::as_str), args.get(2))
    else {
        eprintln!("xtask timed: usage: xtask timed FILE -- PROGRAM [ARGS]...");
        return std::process::ExitCode::from(2);
    };
    let status = Command::new(program).args(&args[3..]).status();
    let code = match status {
        Ok(s) => s.code().map_or(101, |c| u8::try_from(c).unwrap_or(101)),
        Err(e) => {
            eprintln!("xtask timed: cannot start {program}: {e}");
            101
        }
    };
    if let Some(secs) = children_cpu_secs() {
        let _ = std::fs::write(file, format!("{secs:.2}\n"));
    }
    std::process::ExitCode::from(code)
}

/// User + system time of this process's reaped children (fields 16 and 17 of `/proc/self/stat`,
/// in clock ticks: Linux's USER_HZ, 100 per second on every architecture it runs here).
fn children_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // Fields after the command name start at field 3 (state).
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// `xtask vm-stage FILE [--quick]`: the VM stage in a process of its own; writes the result to
/// FILE as `key=value` lines.
pub fn vm_stage_main(args: &[String]) -> std::process::ExitCode {
    let Some(file) = args.first() else {
        eprintln!("xtask vm-stage: usage: xtask vm-stage FILE [--quick]");
        return std::process::ExitCode::from(2);
    };
    let quick = args.iter().any(|a| a == "--quick");
    let r = match crate::vm::run_vm(quick) {
        Ok(r) => r,
        Err(e) => crate::vm::VmRun {
            backends: "-".into(),
            passed: 0,
            failed: 0,
            ok: false,
            note: e.replace('\n', " "),
        },
    };
    let text = format!(
        "passed={}\nfailed={}\nok={}\nbackends={}\nnote={}\n",
        r.passed,
        r.failed,
        r.ok,
        r.backends,
        r.note.replace('\n', " ")
    );
    match std::fs::write(file, text) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask vm-stage: cannot write {file}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `cargo fmt --check`, clippy with warnings denied, the module-cycle check (`xtask cycles`)
/// and `xtask doclint` (no commit hash or issue number in READMEs and `//!` docs), both run by
/// the copy of this binary so that their output goes to the job's log.
fn lint_cmds(xtask: &str) -> Vec<Command> {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    let mut clippy = cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"]);
    let mut cycles = Command::new(xtask);
    cycles.arg("cycles").current_dir(root());
    let mut doclint = Command::new(xtask);
    doclint.arg("doclint").current_dir(root());
    vec![fmt, clippy, cycles, doclint]
}

/// Removes the sources cargo extracted from earlier `cargo package` verify registries
/// (`$CARGO_HOME/registry/src/-<hash>/`: a local registry has no name, so its directory starts
/// with `-`; crates.io's is `index.crates.io-...`). The hash is of the registry's path, the
/// same on every run from one checkout, and cargo reuses an extracted `nab-isa-0.1.0` there
/// without looking at the new `.crate`: a machine that ran the stage before verified the
/// crates against the old `nab-isa` source, and failed on the new one's macros.
fn clear_verify_sources() {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else { return };
    let Ok(entries) = std::fs::read_dir(&src) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with('-') {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// What publishing needs, checked before anything is published: for every crate of
/// [`matrix::PUBLISHED`],
/// - `cargo package` with its verify build (the `.crate` is unpacked and built alone, so a file
///   left out of the package, or a path dependency without a version, fails it; the crates are
///   verified together, each against the others' `.crate` files, so the order of publishing
///   does not matter here);
/// - the docs as docs.rs builds them (nightly, every feature, `--cfg docsrs`) with warnings
///   denied (broken intra-doc links), then `xtask doclint --html` over the pages: a link to a
///   `#[doc(hidden)]` item resolves without a warning but shows as literal `[Name]` text;
/// - `cargo check` with the MSRV toolchain (every feature), so that an API or a language
///   feature newer than `rust-version` fails (both fail type checking; the code generation
///   that a build adds finds neither, and was almost half of this command's CPU time: 23 → 13 s);
/// - `cargo check` for a target that is not Linux (every feature).
///
/// Each has its own target dir, so none waits for the host build's lock.
fn publish_cmds(xtask: &str) -> Vec<Command> {
    clear_verify_sources();
    let packages: Vec<String> =
        matrix::PUBLISHED.iter().flat_map(|p| ["--package".to_string(), p.to_string()]).collect();
    let dir = |name: &str| root().join("target/xtask").join(name);
    let mut package = cargo();
    // `--allow-dirty`: the stage checks what would be packaged, also in a work tree with
    // uncommitted edits (CI's clone is clean).
    package.args(["package", "--allow-dirty", "--quiet"]).args(&packages);
    // The verify build only has to compile: no debug info, which is much of a debug build's time.
    package.arg("--target-dir").arg(dir("package")).env("CARGO_PROFILE_DEV_DEBUG", "false");
    let mut doc = nightly_cargo();
    doc.args(["doc", "--no-deps", "--all-features", "--quiet"]).args(&packages);
    doc.arg("--target-dir").arg(dir("doc")).env("RUSTDOCFLAGS", "-D warnings --cfg docsrs");
    let mut doc_links = Command::new(xtask);
    doc_links.args(["doclint", "--html"]).arg(dir("doc")).current_dir(root());
    let mut msrv = toolchain_cargo(matrix::MSRV);
    msrv.args(["check", "--all-features", "--quiet"]).args(&packages);
    msrv.arg("--target-dir").arg(dir("msrv"));
    let mut off_linux = cargo();
    off_linux.args(["check", "--all-features", "--quiet", "--target", matrix::OFF_LINUX]);
    off_linux.args(&packages).arg("--target-dir").arg(dir("off-linux"));
    vec![package, doc, doc_links, msrv, off_linux]
}

fn host_cmd(opts: &Options, build_only: bool) -> Command {
    let mut cmd = cargo();
    // The benches crate has no tests, and testing it would build every peer (its
    // dev-dependencies) in the test profile; clippy checks its code.
    cmd.args(["test", "--workspace", "--exclude", "benches", "--no-fail-fast"])
        // Optional features whose tests are meant to run (not `--all-features`: memops'
        // `c-symbols` would put our `memcpy` into every test binary of the workspace).
        .args(["--features", HOST_FEATURES])
        .env("PROPTEST_CASES", if opts.quick { QUICK_CASES } else { HOST_CASES })
        .env("XTASK_BACKEND_REPORT", report_file("host"))
        // The expectations below are the uncapped CPU's (the cap jobs set the variable).
        .env_remove("NAB_MAX_ISA");
    if build_only {
        cmd.arg("--no-run");
    }
    let flags = host_flags();
    for h in HOST_BACKENDS {
        let usable = |c: &&Choice| c.flags.iter().all(|f| flags.iter().any(|h| h == f));
        let want = h.choices.iter().find(usable).map_or("portable", |c| c.backend);
        cmd.env(expect_var(h.krate), want);
    }
    cmd
}

/// The host's `report_backend` tests again (built by the host build job: a rerun of a few small
/// binaries) with `NAB_MAX_ISA` set to `cap`, each crate expected to pick the backend of the
/// host's `/proc/cpuinfo` flags that the cap leaves; and its summary row.
fn cap_cmd(cap: &matrix::Cap) -> (Command, Row) {
    let report = report_file(&format!("host-cap-{}", cap.value.unwrap_or("unset")));
    let mut cmd = cargo();
    // The host job's packages and features, so that nothing is rebuilt.
    cmd.args(["test", "--workspace", "--exclude", "benches", "--no-fail-fast"])
        .args(["--features", HOST_FEATURES, "--test", "report_backend"])
        .env("XTASK_BACKEND_REPORT", &report);
    match cap.value {
        Some(v) => cmd.env("NAB_MAX_ISA", v),
        None => cmd.env_remove("NAB_MAX_ISA"),
    };
    let flags = cap.apply(&host_flags());
    for h in HOST_BACKENDS {
        cmd.env(expect_var(h.krate), matrix::expected(h, &flags));
    }
    let row = Row {
        target: std::env::consts::ARCH.to_string() + " (host)",
        cpu: format!("NAB_MAX_ISA={}", cap.value.unwrap_or("(unset)")),
        rustflags: "-".into(),
        report: Some(report),
        stall_log: None,
    };
    (cmd, row)
}

/// `cargo miri test` of the pure crates' portable and API layers: one command per entry of
/// [`MIRI_RUNS`], which names the test targets and why.
fn miri_cmds() -> Vec<Command> {
    MIRI_RUNS
        .iter()
        .map(|m| {
            eprintln!("xtask: miri runs {} {}: {}", m.krate, m.targets.join(" "), m.why);
            let mut cmd = nightly_cargo();
            cmd.args(["miri", "test", "--no-fail-fast", "--package", matrix::package(m.krate)])
                .args(m.targets)
                .env(expect_var(m.krate), "portable")
                // proptest's failure persistence needs the working directory: no isolation.
                .env("MIRIFLAGS", "-Zmiri-disable-isolation")
                .env("PROPTEST_CASES", MIRI_CASES)
                .env("XTASK_BACKEND_REPORT", report_file("miri"))
                .env_remove("NAB_MAX_ISA");
            cmd
        })
        .collect()
}

/// The `cargo test` of a cross row (with `--no-run`: its build), and its summary row.
fn cross_cmd(r: &Run, opts: &Options, build_only: bool) -> (Command, Row) {
    let t = matrix::target(r.target);
    // Rows of one build can run at the same time: the name holds CPU model and flags.
    let flags: String = r.rustflags.chars().filter(char::is_ascii_alphanumeric).collect();
    let report = report_file(&format!("{}-{}-{flags}", t.arch, r.cpu.replace([',', '='], "_")));
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
        .env("XTASK_EMULATED", "1")
        // The matrix's expectations are the CPU model's, uncapped.
        .env_remove("NAB_MAX_ISA")
        // A target dir per target and flag set, so that builds of one target can run while
        // another's tests do (cargo locks a target dir while it builds or runs).
        .env("CARGO_TARGET_DIR", build_dir(t.triple, r.rustflags));
    if build_only {
        cmd.arg("--no-run");
    }
    let lld = if t.build_std { String::new() } else { lld_flags() };
    let flags: Vec<&str> = [r.rustflags, &lld].into_iter().filter(|f| !f.is_empty()).collect();
    if !flags.is_empty() {
        cmd.env("RUSTFLAGS", flags.join(" "));
    }
    for (krate, backend) in r.expect {
        cmd.env(expect_var(krate), backend);
    }
    // The runner of `.cargo/config.toml` (qemu-user), watched by `xtask emulate`.
    let runner =
        format!("{} emulate {} -L {} --", timer_exe().unwrap_or_default(), t.qemu, t.sysroot);
    let var = format!("CARGO_TARGET_{}_RUNNER", t.triple.to_uppercase().replace('-', "_"));
    let stalls = report.with_extension("stalls");
    cmd.env(var, runner).env(crate::emulate::STALL_LOG, &stalls);
    let row = Row {
        target: t.triple.into(),
        cpu: r.cpu.into(),
        rustflags: if r.rustflags.is_empty() { "-".into() } else { r.rustflags.into() },
        report: Some(report),
        stall_log: Some(stalls),
    };
    (cmd, row)
}

/// The flags that make the cross gcc link with the stable toolchain's own `rust-lld` (rustc's
/// `gcc-ld/ld.lld`, as rustc links x86_64 Linux itself), or nothing if the toolchain has none.
/// A cross build links ~50 test binaries, each with std's debug info: GNU ld took 0.24 CPU s a
/// binary (aarch64's `hasher` test), lld 0.08, about 8 CPU s a build. Not for the mips64
/// targets: lld refuses Debian's mips64 crt files ("requires an executable stack").
fn lld_flags() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).args(["--print", "sysroot"]).output();
    let Some(sysroot) = out.ok().filter(|o| o.status.success()) else { return String::new() };
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    let dir = PathBuf::from(sysroot).join("lib/rustlib/x86_64-unknown-linux-gnu/bin/gcc-ld");
    // Cargo splits RUSTFLAGS at spaces.
    if !dir.join("ld.lld").exists() || dir.to_string_lossy().contains(char::is_whitespace) {
        return String::new();
    }
    format!("-C link-arg=-fuse-ld=lld -C link-arg=-B{}", dir.display())
}

/// The target dir of the cross runs of `triple` built with `rustflags`.
fn build_dir(triple: &str, rustflags: &str) -> PathBuf {
    let slug: String = rustflags.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    root()
        .join("target/xtask/cross")
        .join(format!("{triple}{}{slug}", if slug.is_empty() { "" } else { "-" }))
}

/// Deletes a cross build that has run; a failure to delete is reported, not fatal.
fn delete(dir: &std::path::Path) {
    if !dir.exists() {
        return;
    }
    match std::fs::remove_dir_all(dir) {
        Ok(()) => eprintln!("xtask: deleted {} (use --keep-builds to keep it)", dir.display()),
        Err(e) => eprintln!("xtask: could not delete {}: {e}", dir.display()),
    }
}

/// A copy of this xtask binary: cargo's runner for the cross rows (`xtask emulate`) and the
/// wrapper that measures each job's CPU time (`xtask timed`). A copy, so that a rebuild of
/// xtask while the matrix runs cannot replace it.
fn timer_exe() -> Result<String, String> {
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

/// The backends a run's `report_backend` tests wrote, sorted, on one line.
fn backends(report: Option<&PathBuf>) -> String {
    let Some(report) = report else { return "-".into() };
    let mut backends: Vec<String> =
        std::fs::read_to_string(report).unwrap_or_default().lines().map(str::to_owned).collect();
    backends.sort();
    backends.dedup();
    if backends.is_empty() { "(none reported)".into() } else { backends.join(" ") }
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

/// `m:ss` since xtask started.
fn clock() -> String {
    let secs = START.get_or_init(Instant::now).elapsed().as_secs();
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// Time since xtask started and the free disk, for stage headers (CI logs show where the time
/// went).
pub fn since_start() -> String {
    format!("at {}{}", clock(), free_space())
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

fn log_dir() -> PathBuf {
    let dir = root().join("target/xtask/logs");
    let _ = std::fs::create_dir_all(&dir);
    dir
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

fn summary(done: &[Done]) -> Result<(), String> {
    println!("\n==== cargo xtask test: summary ({}) ====", since_start());
    println!(
        "{:<34} {:<52} {:<38} {:>6} {:>6} {:>5}  backends",
        "target", "cpu", "rustflags", "passed", "failed", "secs"
    );
    let mut bad = Vec::new();
    for d in done {
        let name = &d.name;
        let Some(o) = &d.row else {
            if !d.ok {
                bad.push(name.to_string());
            }
            continue;
        };
        let status =
            if !d.ok && d.failed == 0 && d.note.is_empty() { " (command failed)" } else { "" };
        println!(
            "{:<34} {:<52} {:<38} {:>6} {:>6} {:>5.0}  {}{}{}",
            o.target,
            o.cpu,
            o.rustflags,
            d.passed,
            d.failed,
            d.wall,
            d.backends,
            status,
            if d.note.is_empty() { String::new() } else { format!("  [{}]", d.note) }
        );
        if !d.ok || d.failed > 0 {
            bad.push(format!("{} / {}", o.target, o.cpu));
        }
        // A run that executed nothing is a failure, not a pass.
        if d.ok && d.passed == 0 && d.note.is_empty() {
            bad.push(format!("{} / {} ran no test", o.target, o.cpu));
        }
    }
    for d in done {
        if let Some(o) = &d.row {
            for s in &d.stalls {
                println!("qemu-user stall in {} / {}: {s}", o.target, o.cpu);
            }
        }
    }
    stage_table(done);
    let passed: u64 = done.iter().map(|d| d.passed).sum();
    let failed: u64 = done.iter().map(|d| d.failed).sum();
    println!("total: {passed} passed, {failed} failed");
    if bad.is_empty() { Ok(()) } else { Err(format!("failing jobs: {}", bad.join(", "))) }
}

/// Where the time went: every job with its wall and CPU time and its tests, then the totals.
fn stage_table(done: &[Done]) {
    println!("\n==== cargo xtask test: stages ({} at a time) ====", parallel_jobs());
    println!("{:<86} {:>7} {:>7} {:>6}  result", "stage", "wall s", "CPU s", "tests");
    let mut cpu_total = 0.0;
    let mut by_kind: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for d in done {
        let name = &d.name;
        let cpu = d.cpu.unwrap_or(0.0);
        cpu_total += cpu;
        let kind = if name.starts_with("build:") {
            "builds"
        } else if name.starts_with("publish:") {
            "publish checks"
        } else if d.row.is_some() {
            "test runs"
        } else {
            "lints"
        };
        let e = by_kind.entry(kind).or_default();
        e.0 += d.wall;
        e.1 += cpu;
        let tests = if d.row.is_some() { d.passed.to_string() } else { "-".into() };
        println!(
            "{:<86} {:>7.0} {:>7} {:>6}  {}",
            name,
            d.wall,
            d.cpu.map_or("?".into(), |c| format!("{c:.0}")),
            tests,
            if d.ok && d.failed == 0 { "ok" } else { "FAILED" }
        );
    }
    for (kind, (wall, cpu)) in by_kind {
        println!("{:<86} {:>7.0} {:>7.0}", format!("(all {kind})"), wall, cpu);
    }
    let wall = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    println!("{:<86} {:>7.0} {:>7.0}", "total (wall: start of xtask to now)", wall, cpu_total);
}
