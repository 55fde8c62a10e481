//! Preconditions of the test matrix: apt packages, rustup targets and components. What is
//! missing is installed (apt only as root) and named; without root the exact command is
//! printed and xtask fails.

use std::process::Command;

use crate::matrix::Target;
use crate::util::{on_path, output, run};

/// The Debian packages the VM stage (`vm.rs`) needs. Declared here, not in `vm.rs`, because
/// `vm.rs` uses this module (`is_root`, `dpkg_installed`): the arrow runs one way.
pub const VM_PACKAGES: &[&str] = &["qemu-system-x86", "busybox-static", "cpio", "kmod", "xz-utils"];

/// What a set of stages needs.
#[derive(Default)]
pub struct Needs {
    /// Cross targets to be built and run under qemu-user.
    pub targets: Vec<&'static Target>,
    /// `cargo fmt` and `cargo clippy` for the lint step.
    pub lints: bool,
    /// Miri on nightly.
    pub miri: bool,
    /// The publish stage: nightly (for `cargo doc` with `--cfg docsrs`), the MSRV toolchain,
    /// and the std of the off-Linux target it checks.
    pub publish: bool,
    /// The kernel-VM stage: qemu-system, static busybox, kmod, xz ([`VM_PACKAGES`]).
    pub vm: bool,
    /// GMP's headers and library, for the benches' GMP peer, and glibc's debug symbols, which
    /// name the glibc variants each bench tier ran.
    pub gmp: bool,
}

/// Installs what `needs` lists and is missing; says what it installed.
pub fn ensure(needs: &Needs) -> Result<(), String> {
    ensure_apt(needs)?;
    ensure_rustup(needs)
}

fn ensure_apt(needs: &Needs) -> Result<(), String> {
    let mut missing: Vec<&str> = Vec::new();
    let mut want = |pkg: &'static str| {
        if !missing.contains(&pkg) {
            missing.push(pkg);
        }
    };
    for t in &needs.targets {
        if !on_path(t.qemu) {
            want("qemu-user");
        }
        if !on_path(t.linker) {
            want(t.linker_package);
        }
        if !std::path::Path::new(t.sysroot).join("lib").is_dir() {
            want(t.libc_package);
        }
    }
    if needs.vm {
        for pkg in VM_PACKAGES {
            if !dpkg_installed(pkg) {
                want(pkg);
            }
        }
    }
    if needs.gmp && !dpkg_installed("libgmp-dev") {
        want("libgmp-dev");
    }
    if needs.gmp && !dpkg_installed("libc6-dbg") {
        want("libc6-dbg");
    }
    if missing.is_empty() {
        return Ok(());
    }
    let line = format!("apt-get install -y --no-install-recommends {}", missing.join(" "));
    if !is_root() {
        return Err(format!(
            "missing Debian packages for the cross matrix or the VM tests; run as root:\n    apt-get update && {line}"
        ));
    }
    eprintln!("xtask: installing Debian packages: {}", missing.join(" "));
    run(Command::new("apt-get").arg("update").env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends"])
        .args(&missing)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    eprintln!("xtask: installed Debian packages: {}", missing.join(" "));
    Ok(())
}

fn ensure_rustup(needs: &Needs) -> Result<(), String> {
    let mut stable_targets: Vec<&str> =
        needs.targets.iter().filter(|t| !t.build_std).map(|t| t.triple).collect();
    if needs.publish {
        stable_targets.push(crate::matrix::OFF_LINUX);
        let toolchains =
            output(Command::new("rustup").args(["toolchain", "list"])).unwrap_or_default();
        let msrv = crate::matrix::MSRV;
        if !toolchains.lines().any(|l| l.starts_with(&format!("{msrv}-")) || l.trim() == msrv) {
            run(Command::new("rustup").args([
                "toolchain",
                "install",
                msrv,
                "--profile",
                "minimal",
            ]))?;
            eprintln!("xtask: installed the MSRV toolchain {msrv}");
        }
    }
    if !stable_targets.is_empty() {
        let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
            .ok_or("`rustup target list --installed` failed: is rustup installed?")?;
        let missing: Vec<&str> = stable_targets
            .into_iter()
            .filter(|t| !installed.lines().any(|l| l.trim() == *t))
            .collect();
        if !missing.is_empty() {
            run(Command::new("rustup").args(["target", "add"]).args(&missing))?;
            eprintln!("xtask: installed rustup targets: {}", missing.join(" "));
        }
    }
    if needs.lints {
        for (component, probe) in [("rustfmt", "fmt"), ("clippy", "clippy")] {
            let has = output(Command::new("cargo").args([probe, "--version"])).is_some();
            if !has {
                run(Command::new("rustup").args(["component", "add", component]))?;
                eprintln!("xtask: installed rustup component {component}");
            }
        }
    }
    let mut nightly_components = Vec::new();
    if needs.targets.iter().any(|t| t.build_std) {
        nightly_components.push("rust-src");
    }
    if needs.miri {
        nightly_components.extend(["miri", "rust-src"]);
    }
    if nightly_components.is_empty() && !needs.publish {
        return Ok(());
    }
    let toolchains = output(Command::new("rustup").args(["toolchain", "list"])).unwrap_or_default();
    if !toolchains.lines().any(|l| l.starts_with("nightly")) {
        let mut cmd = Command::new("rustup");
        cmd.args(["toolchain", "install", "nightly", "--profile", "minimal"]);
        for c in &nightly_components {
            cmd.args(["--component", c]);
        }
        run(&mut cmd)?;
        eprintln!("xtask: installed the nightly toolchain with {}", nightly_components.join(", "));
        return Ok(());
    }
    let installed = output(Command::new("rustup").args([
        "component",
        "list",
        "--installed",
        "--toolchain",
        "nightly",
    ]))
    .unwrap_or_default();
    let mut missing: Vec<&str> = nightly_components
        .into_iter()
        .filter(|c| !installed.lines().any(|l| l.starts_with(&format!("{c}-")) || l.trim() == *c))
        .collect();
    missing.dedup();
    if !missing.is_empty() {
        run(Command::new("rustup")
            .args(["component", "add", "--toolchain", "nightly"])
            .args(&missing))?;
        eprintln!("xtask: installed nightly components: {}", missing.join(", "));
    }
    Ok(())
}

/// Whether dpkg reports `pkg` as installed.
pub fn dpkg_installed(pkg: &str) -> bool {
    output(Command::new("dpkg-query").args(["-W", "-f=${Status}", pkg]))
        .is_some_and(|s| s.trim_end().ends_with(" installed"))
}

pub fn is_root() -> bool {
    output(Command::new("id").arg("-u")).is_some_and(|s| s.trim() == "0")
}
