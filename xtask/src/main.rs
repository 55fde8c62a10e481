//! `cargo xtask`: the workspace's automation (see xtask/README.md).
//!
//! - `cargo xtask test [--host] [--arch A]... [--vm] [--publish] [--quick] [--keep-builds]`: lints and host
//!   tests, the cross matrix under qemu-user (`A`: aarch64, riscv64, mips64, mips64el, all), the
//!   VM tests, the publish checks. With none of `--host/--arch/--vm/--publish` it runs everything. Installs what it needs.
//!   Deletes each cross build once it has run, unless `--keep-builds`.
//! - `cargo xtask bench [--quick] [--crate NAME]... [--record]`: the criterion comparisons;
//!   `--record` stores the run as the CPU's record in `benches/results/`.
//! - `cargo xtask bench --diff A B`: rows that moved between two records.
//! - `cargo xtask cycles [--edges]`: the module-cycle check of the lint stage, alone.
//! - `cargo xtask doclint [--html TARGET_DIR]`: no commit hash or issue number in READMEs and
//!   `//!` docs; with `--html`, no unresolved `[Name]` link in the built docs.
//! - `cargo xtask mca`: llvm-mca's cycle model of our hot loops and the peers' on CPUs no
//!   machine here has, written to `target/mca/modelled.md`.

mod bench;
mod cycles;
mod doclint;
mod emulate;
mod install;
mod matrix;
mod mca;
mod test;
mod util;
mod vm;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test [--host] [--arch aarch64|riscv64|mips64|mips64el|all]... [--vm] [--publish] [--quick]
       [--keep-builds]
        lints and host tests, the cross matrix under qemu-user, the kernel-VM tests, the
        publish checks (cargo package, docs.rs docs, MSRV check, off-Linux check);
        with none of --host/--arch/--vm/--publish, all of them. Each cross build is deleted once it
        has run (a small disk holds the matrix) unless --keep-builds. Installs missing apt packages
        (as root), rustup targets and nightly rust-src, and says what it installed.
  vm-test [--quick] [--bench | --overhead]
        the kernel-VM tests only (same as `test --vm`): kcapi's tests in qemu-system-x86_64;
        with --bench, kcapi's benches (against libkcapi) in the VM instead; with --overhead,
        kcapi's per-operation syscalls, bytes and CPU time against libkcapi (strace,
        getrusage), written to target/vm/kcapi-overhead.md for the bench report;
        XTASK_VM_FILTER=NAME runs only the tests whose name contains NAME
  bench [--quick] [--crate NAME]... [--record]
        the criterion comparisons of benches/ (all, or the named crates' benches); the
        report in target/bench-report/, the run's rows in target/bench-report/run.jsonl;
        with --record, also stored as this CPU's record, benches/results/<cpu>.jsonl (a
        full run replaces it, --quick or --crate replace only the rows they ran)
  bench --readme
        fills the speed table of each crate README (between <!-- speed:begin --> and
        <!-- speed:end -->) from every CPU's record (a --record run does it too)
  bench --import REPORT.md --cpu VENDOR/FAMILY/MODEL/STEPPING --commit COMMIT [--out PATH]
        a report written before records existed, as that CPU's record (or as PATH)
        (the byte and element counts behind its speeds come from the last run's run.jsonl)
  bench --diff A B
        the rows that moved beyond their confidence intervals between two records: each a
        CPU slug (benches/results/<slug>.jsonl), a path, or `live` (the last run)
  cycles [--edges]
        the module-cycle check of the lint stage alone: fails on modules of a crate that import
        each other in a cycle, and names each cycle; --edges also prints every edge
  doclint [--html TARGET_DIR]
        fails on a commit hash (a hex token `git cat-file -e TOKEN^{commit}` resolves) or
        `issue N` in a README.md or a `//!` doc (part of test's lints); with --html, on
        literal `[Name]` link text in the pages `cargo doc --target-dir TARGET_DIR` built
  mca
        llvm-mca-19's cycle model of each kernel's hot loop (ours and the peer's, the backend
        the dispatch picks on each CPU) on znver4/5, cascadelake, icelake-server,
        sapphirerapids, neoverse-n1/v2, sifive-p670/x280, per 64 bytes (NTT: per
        butterfly): builds a probe with the bench profile for x86_64, aarch64 and riscv64,
        and with +aes for gxhash (installs llvm-19, g++, the cross gcc and the rustup
        targets); peers base64-simd, simdutf (x86_64), memchr, xxh3, gxhash, foldhash;
        writes target/mca/modelled.md (section Modelled CPUs, checked against the x86
        records in benches/results/), says how long it took, and fails when a kernel's loop
        is not found (a stale symbol in xtask/src/mca/spec.rs). Not part of `test`.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    test::START.get_or_init(std::time::Instant::now);
    // Not a user command: cargo's runner for the cross rows (xtask/src/emulate.rs).
    if args.first().is_some_and(|a| a == "emulate") {
        return emulate::main(&args[1..]);
    }
    // Not user commands either: `cargo xtask test`'s CPU-time wrapper and its VM stage.
    if args.first().is_some_and(|a| a == "timed") {
        return test::timed_main(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "vm-stage") {
        return test::vm_stage_main(&args[1..]);
    }
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn dispatch(args: &[String]) -> Result<(), String> {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return Err("no command given".into());
    };
    match command.as_str() {
        "test" => test::run(test_options(rest)?),
        "vm-test" => {
            if let Some(other) =
                rest.iter().find(|a| !["--quick", "--bench", "--overhead"].contains(&a.as_str()))
            {
                return Err(format!("unknown option `{other}` for vm-test\n{USAGE}"));
            }
            let quick = rest.iter().any(|a| a == "--quick");
            if rest.iter().any(|a| a == "--bench") {
                return vm::run_bench(quick);
            }
            if rest.iter().any(|a| a == "--overhead") {
                return vm::run_overhead();
            }
            let mut opts = vec!["--vm".to_string()];
            if quick {
                opts.push("--quick".into());
            }
            test::run(test_options(&opts)?)
        }
        "bench" if rest.first().is_some_and(|a| a == "--diff") => match rest {
            [_, a, b] => bench::diff(a, b),
            _ => Err(format!("--diff needs two records (a slug, a path or `live`)\n{USAGE}")),
        },
        "bench" if rest.first().is_some_and(|a| a == "--readme") => bench::fill_readmes(),
        "bench" if rest.first().is_some_and(|a| a == "--import") => bench::import_report(rest),
        "bench" => bench::run_benches(bench_options(rest)?),
        "cycles" => match rest {
            [] => cycles::run(false),
            [edges] if edges == "--edges" => cycles::run(true),
            [other, ..] => Err(format!("unknown option `{other}` for cycles\n{USAGE}")),
        },
        "doclint" => doclint::run(rest),
        "mca" => match rest {
            [] => mca::run_mca(),
            [other, ..] => Err(format!("unknown option `{other}` for mca\n{USAGE}")),
        },
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

fn test_options(args: &[String]) -> Result<test::Options, String> {
    let mut opts = test::Options {
        host: false,
        archs: Vec::new(),
        vm: false,
        publish: false,
        quick: false,
        keep_builds: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--host" => opts.host = true,
            "--vm" => opts.vm = true,
            "--publish" => opts.publish = true,
            "--quick" => opts.quick = true,
            "--keep-builds" => opts.keep_builds = true,
            "--arch" => {
                let arch = it.next().ok_or("--arch needs a value")?;
                let known = matrix::TARGETS.iter().any(|t| t.arch == arch);
                if !known && arch != "all" {
                    return Err(format!(
                        "unknown --arch `{arch}`: expected aarch64, riscv64, mips64, mips64el or all"
                    ));
                }
                opts.archs.push(arch.clone());
            }
            other => return Err(format!("unknown option `{other}` for test\n{USAGE}")),
        }
    }
    if !opts.host && opts.archs.is_empty() && !opts.vm && !opts.publish {
        opts.host = true;
        opts.archs.push("all".into());
        opts.vm = true;
        opts.publish = true;
    }
    Ok(opts)
}

fn bench_options(args: &[String]) -> Result<bench::Options, String> {
    let mut opts = bench::Options { quick: false, benches: Vec::new(), record: false };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--record" => opts.record = true,
            "--crate" => opts.benches.push(it.next().ok_or("--crate needs a value")?.clone()),
            other => return Err(format!("unknown option `{other}` for bench\n{USAGE}")),
        }
    }
    Ok(opts)
}
