//! `cargo xtask bench`: runs the criterion comparisons of `benches/`.
//!
//! Until the report generator lands (tables and plots in `target/bench-report/`), this runs
//! the benches and leaves criterion's estimates in `target/criterion/`.

use crate::util::{cargo, root, run};

pub struct Options {
    pub quick: bool,
    /// Bench targets of `benches/` to run (all when empty), e.g. `nabhash`.
    pub benches: Vec<String>,
}

pub fn run_benches(opts: Options) -> Result<(), String> {
    let mut cmd = cargo();
    // Peers such as gxhash only build with their ISA enabled at compile time, and the spec's
    // peer figures are measured that way; ours then skips run-time detection too. A separate
    // target dir keeps these flags from rebuilding the test builds.
    cmd.args(["bench", "--package", "benches"])
        .env("RUSTFLAGS", "-C target-cpu=native")
        .env("CARGO_TARGET_DIR", root().join("target/bench-native"));
    for b in &opts.benches {
        cmd.args(["--bench", b]);
    }
    cmd.arg("--");
    if opts.quick {
        // A minute-scale run: short warm-up and measurement, fewer samples.
        cmd.args(["--warm-up-time", "0.5", "--measurement-time", "1", "--sample-size", "20"]);
    }
    run(&mut cmd)?;
    eprintln!("xtask: criterion estimates are in {}", root().join("target/criterion").display());
    Ok(())
}
