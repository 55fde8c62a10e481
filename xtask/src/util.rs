//! Process helpers: run a command, echo its output, fail loudly with what was run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root, whatever directory `cargo xtask` was started from.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace root").into()
}

/// `cargo` of the toolchain that runs xtask.
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    c
}

/// `cargo` of the nightly toolchain (through rustup, which stable's `$CARGO` cannot do).
pub fn nightly_cargo() -> Command {
    toolchain_cargo("nightly")
}

/// `cargo` of a rustup toolchain (`nightly`, or the MSRV's `1.89`).
pub fn toolchain_cargo(toolchain: &str) -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", toolchain, "cargo"]).current_dir(root());
    // Inherited from the stable cargo that runs xtask; they would pin the wrong toolchain.
    for var in ["RUSTUP_TOOLCHAIN", "RUSTC", "RUSTDOC", "CARGO"] {
        c.env_remove(var);
    }
    c
}

/// A readable form of `cmd` for messages.
pub fn show(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s += &format!("{}={:?} ", k.to_string_lossy(), v.to_string_lossy());
        }
    }
    s += &cmd.get_program().to_string_lossy();
    for a in cmd.get_args() {
        s.push(' ');
        s += &a.to_string_lossy();
    }
    s
}

/// Runs `cmd` with inherited output; `Err` names the command if it fails to start or exits
/// non-zero.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: $ {}", show(cmd));
    let status = cmd.status().map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if status.success() { Ok(()) } else { Err(format!("`{}` failed: {status}", show(cmd))) }
}

/// Stdout of `cmd` if it runs and succeeds (for probes; prints nothing).
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether an executable called `name` is on `PATH`.
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
        .unwrap_or(false)
}
