//! `cargo xtask vm-test`: kcapi's tests inside a small `qemu-system-x86_64` VM, because this
//! machine's kernel (and CI's) has no `AF_ALG`.
//!
//! The recipe, step by step (everything cached under `target/vm/`):
//!
//! 1. Debian's packaged kernel: `apt-cache depends linux-image-amd64` names the current
//!    `linux-image-6.1.0-*-amd64`; `apt-get download` fetches it, `dpkg-deb -x` unpacks it and
//!    `depmod -b` indexes its modules (Debian builds `CONFIG_CRYPTO_USER_API_*` as modules).
//! 2. An ELF `vmlinux` from `vmlinuz`: the XZ payload is found by its magic and decompressed
//!    with `xz -dc --single-stream` (what the kernel's `scripts/extract-vmlinux` does); qemu
//!    boots an ELF kernel through its PVH entry point (`CONFIG_PVH=y`).
//! 3. kcapi's test binaries, linked statically against glibc (`+crt-static`) in their own
//!    target dir, found through cargo's JSON messages.
//! 4. A newc cpio initramfs written here: static busybox, the crypto modules and their
//!    dependencies, the test binaries and an `/init` that mounts proc/sys/devtmpfs, loads
//!    `af_alg` and `algif_{hash,skcipher,aead,rng}`, runs every test binary with
//!    `KCAPI_REQUIRE=1` (unavailability is a failure there) and powers off.
//! 5. The VM boots under TCG (KVM is not usable on these hosts) with a hard timeout; the serial
//!    console comes back on stdout and libtest's summary lines are counted.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::util::{output, root, run, show};

/// libkcapi, the peer of the VM bench (`vm-test --bench` only): its static library.
const BENCH_PACKAGE: &str = "libkcapi-dev";

/// Debian's metapackage that depends on the current `linux-image-<abi>-amd64`.
const KERNEL_META: &str = "linux-image-amd64";

/// Wall-clock limit of one VM run unless `XTASK_VM_TIMEOUT` (seconds) says otherwise. A TCG
/// boot takes about 7 s; the tests, at the property-test case count below, well under a
/// minute on this machine; the rest is margin for a loaded CI runner.
const DEFAULT_TIMEOUT_SECS: u64 = 900;

/// Property-test cases inside the VM: TCG runs the kernel's crypto several times slower than
/// the host does.
const VM_CASES: &str = "256";
const VM_QUICK_CASES: &str = "16";

/// Printed by `/init` around each test binary; parsed back from the serial console.
const MARK: &str = "XTASK-VM:";

/// The modules `/init` loads; the algorithms they expose (gcm, ctr, chacha20poly1305, drbg...)
/// come in on demand through the kernel's `request_module` and busybox `modprobe`.
const MODULES: &[&str] = &["af_alg", "algif_hash", "algif_skcipher", "algif_aead", "algif_rng"];

/// Directories of the kernel tree whose modules go into the initramfs (with their
/// dependencies): every crypto algorithm, its x86 accelerations and the library helpers.
const MODULE_DIRS: &[&str] = &["kernel/crypto/", "kernel/arch/x86/crypto/", "kernel/lib/crypto/"];

/// The result of one VM run, for the summary.
pub struct VmRun {
    /// What kcapi's `report_backend` test wrote inside the VM (`kcapi=af_alg`).
    pub backends: String,
    pub passed: u64,
    pub failed: u64,
    pub ok: bool,
    pub note: String,
}

/// Builds (or reuses) the image, boots it and counts the tests.
pub fn run_vm(quick: bool) -> Result<VmRun, String> {
    let dir = root().join("target/vm");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let t0 = Instant::now();
    let kernel = kernel_tree(&dir)?;
    let vmlinux = vmlinux(&dir, &kernel)?;
    let tests = test_binaries(&dir)?;
    if tests.is_empty() {
        return Err("cargo built no kcapi test binary".into());
    }
    let initrd = initramfs(&dir, &kernel, &tests, Payload::Tests, quick)?;
    eprintln!("xtask: VM image ready in {} s", t0.elapsed().as_secs());
    let timeout = timeout_secs();
    let (serial, finished) = boot(&vmlinux, &initrd, Duration::from_secs(timeout))?;
    Ok(judge(&serial, finished, &tests, timeout))
}

/// The unpacked kernel package: its root and its release (`6.1.0-NN-amd64`).
struct Kernel {
    tree: PathBuf,
    release: String,
}

fn kernel_tree(dir: &Path) -> Result<Kernel, String> {
    let package = kernel_package(dir)?;
    let release = package.trim_start_matches("linux-image-").to_string();
    let tree = dir.join(&package);
    let stamp = tree.join(".xtask-unpacked");
    if stamp.is_file() {
        return Ok(Kernel { tree, release });
    }
    let dl = dir.join("dl");
    std::fs::create_dir_all(&dl).map_err(|e| format!("creating {}: {e}", dl.display()))?;
    let deb = match find_deb(&dl, &package) {
        Some(deb) => deb,
        None => {
            run(Command::new("apt-get").args(["download", &package]).current_dir(&dl))?;
            find_deb(&dl, &package).ok_or_else(|| {
                format!("apt-get download {package} left no .deb in {}", dl.display())
            })?
        }
    };
    let _ = std::fs::remove_dir_all(&tree);
    run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&tree))?;
    run(Command::new("depmod").arg("-b").arg(&tree).arg(&release))?;
    std::fs::write(&stamp, "").map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    Ok(Kernel { tree, release })
}

/// `linux-image-6.1.0-NN-amd64`: what apt's `linux-image-amd64` depends on now, or, when apt
/// cannot say (no package lists, offline), the newest one already unpacked here.
fn kernel_package(dir: &Path) -> Result<String, String> {
    let from_apt = || {
        output(Command::new("apt-cache").args(["depends", KERNEL_META])).and_then(|out| {
            out.lines()
                .filter_map(|l| l.trim().strip_prefix("Depends: "))
                .map(|p| p.trim().to_string())
                .find(|p| p.starts_with("linux-image-") && p.ends_with("-amd64"))
        })
    };
    if let Some(p) = from_apt() {
        return Ok(p);
    }
    let mut cached: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    n.starts_with("linux-image-") && dir.join(n).join(".xtask-unpacked").is_file()
                })
                .collect()
        })
        .unwrap_or_default();
    cached.sort();
    if let Some(p) = cached.pop() {
        return Ok(p);
    }
    if crate::install::is_root() {
        run(Command::new("apt-get").arg("update").env("DEBIAN_FRONTEND", "noninteractive"))?;
        if let Some(p) = from_apt() {
            return Ok(p);
        }
    }
    Err(format!(
        "cannot find Debian's kernel package: `apt-cache depends {KERNEL_META}` names none \
         (run `apt-get update` as root)"
    ))
}

fn find_deb(dl: &Path, package: &str) -> Option<PathBuf> {
    let prefix = format!("{package}_");
    std::fs::read_dir(dl).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".deb"))
    })
}

/// The ELF kernel inside `vmlinuz`: the first XZ stream that decompresses to an ELF file.
fn vmlinux(dir: &Path, k: &Kernel) -> Result<PathBuf, String> {
    let out = dir.join(format!("vmlinux-{}", k.release));
    if out.is_file() {
        return Ok(out);
    }
    let vmlinuz = k.tree.join(format!("boot/vmlinuz-{}", k.release));
    let image =
        std::fs::read(&vmlinuz).map_err(|e| format!("reading {}: {e}", vmlinuz.display()))?;
    const XZ_MAGIC: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0x00];
    for (offset, _) in image.windows(XZ_MAGIC.len()).enumerate().filter(|(_, w)| *w == XZ_MAGIC) {
        let mut child = Command::new("xz")
            .args(["-dc", "--single-stream"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start xz (apt-get install xz-utils): {e}"))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let payload = image[offset..].to_vec();
        let feeder = std::thread::spawn(move || {
            // xz stops reading at the end of the stream: a broken pipe here is expected.
            let _ = stdin.write_all(&payload);
        });
        let result = child.wait_with_output().map_err(|e| format!("running xz: {e}"))?;
        let _ = feeder.join();
        if result.stdout.starts_with(b"\x7fELF") {
            std::fs::write(&out, &result.stdout)
                .map_err(|e| format!("writing {}: {e}", out.display()))?;
            return Ok(out);
        }
    }
    Err(format!("no XZ-compressed ELF kernel found in {}", vmlinuz.display()))
}

/// Builds kcapi's tests statically and returns the executables.
fn test_binaries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    // `--tests`: the test targets only, not the examples (which `cargo test` also builds).
    let args = ["test", "-p", "nab-kcapi", "--all-features", "--tests", "--no-run"];
    static_executables(&dir.join("cargo"), &args, "")
}

/// Runs `cargo <args> --message-format=json` for a static x86_64 build in `target_dir` and
/// returns the executables it produced.
fn static_executables(
    target_dir: &Path,
    args: &[&str],
    extra_flags: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut cmd = crate::util::cargo();
    // `--target` keeps RUSTFLAGS away from build scripts and proc-macros (which cannot be
    // static executables); its own target dir because RUSTFLAGS differ from the host build's.
    cmd.args(args)
        .args(["--message-format=json", "--target", "x86_64-unknown-linux-gnu"])
        .env("CARGO_TARGET_DIR", target_dir)
        .env("RUSTFLAGS", format!("-C target-feature=+crt-static -C strip=debuginfo {extra_flags}"))
        .stdout(Stdio::piped());
    eprintln!("xtask: $ {}", show(&cmd));
    let out = cmd.output().map_err(|e| format!("cannot start `{}`: {e}", show(&cmd)))?;
    if !out.status.success() {
        return Err(format!("`{}` failed: {}", show(&cmd), out.status));
    }
    let json = String::from_utf8_lossy(&out.stdout);
    let mut exes: Vec<PathBuf> = json
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
        .filter_map(|l| {
            let start = l.find("\"executable\":\"")? + "\"executable\":\"".len();
            let end = start + l[start..].find('"')?;
            Some(PathBuf::from(&l[start..end]))
        })
        .collect();
    exes.sort();
    exes.dedup();
    Ok(exes)
}

/// `cargo xtask vm-test --bench`: benches/benches/kcapi.rs in the VM, with libkcapi (Debian's
/// `libkcapi-dev`, linked statically) as the peer. Criterion's report comes back over the
/// serial console and is written to `target/vm/bench-kcapi.txt`.
pub fn run_bench(quick: bool) -> Result<(), String> {
    ensure_libkcapi()?;
    let dir = root().join("target/vm");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let kernel = kernel_tree(&dir)?;
    let vmlinux = vmlinux(&dir, &kernel)?;
    let args = ["bench", "-p", "benches", "--bench", "kcapi", "--no-run"];
    let exes = static_executables(&dir.join("bench"), &args, "--cfg kcapi_bench_libkcapi")?;
    // Cargo also builds the package's binaries for its benches: take the bench itself.
    let bench =
        exes.iter().find(|e| test_name(e) == "kcapi").ok_or("cargo built no kcapi bench binary")?;
    let initrd = initramfs(&dir, &kernel, &[], Payload::Bench(bench), quick)?;
    let (serial, finished) = boot(&vmlinux, &initrd, Duration::from_secs(timeout_secs()))?;
    let report: String = serial
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{MARK} bench-start")))
        .take_while(|l| !l.starts_with(&format!("{MARK} bench-exit")))
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = dir.join("bench-kcapi.txt");
    std::fs::write(&out, &report).map_err(|e| format!("writing {}: {e}", out.display()))?;
    eprintln!("xtask: the VM's criterion report is in {}", out.display());
    if !finished {
        return Err("the VM bench timed out".into());
    }
    if !serial.contains(&format!("{MARK} bench-exit 0")) {
        return Err("the kcapi bench failed in the VM (see the serial log)".into());
    }
    Ok(())
}

/// Where `cargo xtask vm-test --overhead` writes its table (and `cargo xtask bench` reads it).
pub const OVERHEAD_TABLE: &str = "target/vm/kcapi-overhead.md";

/// `cargo xtask vm-test --overhead`: crates/kcapi/examples/overhead.rs in the VM, with
/// libkcapi linked statically and strace (with its shared libraries) in the image: per bench
/// row, syscalls and bytes per operation and CPU time per operation, ours against libkcapi.
/// Writes [`OVERHEAD_TABLE`].
pub fn run_overhead() -> Result<(), String> {
    ensure_libkcapi()?;
    let dir = root().join("target/vm");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let kernel = kernel_tree(&dir)?;
    let vmlinux = vmlinux(&dir, &kernel)?;
    let args = ["build", "--release", "-p", "nab-kcapi", "--example", "overhead"];
    let exes = static_executables(&dir.join("overhead"), &args, "--cfg kcapi_bench_libkcapi")?;
    let exe = exes
        .iter()
        .find(|e| test_name(e) == "overhead")
        .ok_or("cargo built no overhead example")?;
    let initrd = initramfs(&dir, &kernel, &[], Payload::Overhead(exe), false)?;
    let (serial, finished) = boot(&vmlinux, &initrd, Duration::from_secs(timeout_secs()))?;
    let table: String = serial
        .lines()
        .skip_while(|l| !l.starts_with("XTASK-OVERHEAD-TABLE-BEGIN"))
        .skip(1)
        .take_while(|l| !l.starts_with("XTASK-OVERHEAD-TABLE-END"))
        .map(|l| format!("{l}\n"))
        .collect();
    if !finished {
        return Err("the VM overhead run timed out".into());
    }
    if table.is_empty() || !serial.contains(&format!("{MARK} overhead-exit 0")) {
        return Err("the overhead table failed in the VM (see the serial log)".into());
    }
    let text = format!(
        "Measured inside the VM (`cargo xtask vm-test --overhead`, Debian kernel {}, TCG, one \
         vCPU): crates/kcapi/examples/overhead.rs. Syscalls and bytes per operation are counted \
         by `strace -f` around a loop of operations (bytes by syscall: what `send`/`sendmsg` \
         take, which algif_skcipher and algif_aead copy and algif_hash pins; what `vmsplice` \
         pins; what `read`/`recvmsg` copy out). CPU time is `getrusage` user + system per \
         operation, the median (and range) of 5 alternating runs of each pair; the last column \
         is libkcapi's time over ours (above 1: ours is cheaper).\n\n{table}",
        kernel.release
    );
    let out = root().join(OVERHEAD_TABLE);
    std::fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))?;
    eprintln!("xtask: the overhead table is in {}", out.display());
    Ok(())
}

/// libkcapi's static library, the peer of the VM bench and of the overhead table.
fn ensure_libkcapi() -> Result<(), String> {
    if !crate::install::dpkg_installed(BENCH_PACKAGE) {
        if !crate::install::is_root() {
            return Err(format!(
                "the VM bench links libkcapi statically; run as root: apt-get install -y {BENCH_PACKAGE}"
            ));
        }
        run(Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", BENCH_PACKAGE])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        eprintln!("xtask: installed Debian package {BENCH_PACKAGE}");
    }
    Ok(())
}

fn timeout_secs() -> u64 {
    std::env::var("XTASK_VM_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_TIMEOUT_SECS)
}

/// The initramfs: busybox, modules, tests, `/init`. Rewritten on every run (it takes well
/// under a second) so that it always holds the tests just built.
/// What an image runs besides its test binaries.
#[derive(Clone, Copy)]
enum Payload<'a> {
    Tests,
    /// The criterion bench (`--bench`).
    Bench(&'a Path),
    /// The overhead example and strace (`--overhead`).
    Overhead(&'a Path),
}

fn initramfs(
    dir: &Path,
    k: &Kernel,
    tests: &[PathBuf],
    payload: Payload<'_>,
    quick: bool,
) -> Result<PathBuf, String> {
    let mut cpio = Cpio::default();
    for d in ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "proc", "sys", "dev", "tmp", "tests"] {
        cpio.dir(d);
    }
    cpio.dir("lib");
    cpio.dir("lib/modules");
    let busybox = read(Path::new("/bin/busybox"))?;
    if !is_static_elf64(&busybox) {
        return Err("/bin/busybox is not the static one: apt-get install busybox-static".into());
    }
    cpio.file("bin/busybox", 0o755, &busybox);
    cpio.file("init", 0o755, init_script(tests, payload, quick).as_bytes());
    match payload {
        Payload::Tests => {}
        Payload::Bench(b) => {
            cpio.dir("bench");
            cpio.file("bench/kcapi", 0o755, &read(b)?);
        }
        Payload::Overhead(exe) => {
            cpio.dir("overhead");
            cpio.file("overhead/kcapi-overhead", 0o755, &read(exe)?);
            add_strace(&mut cpio)?;
        }
    }

    // Modules: those under MODULE_DIRS and everything they depend on, by modules.dep.
    let mods = k.tree.join("lib/modules").join(&k.release);
    let dep = std::fs::read_to_string(mods.join("modules.dep"))
        .map_err(|e| format!("reading modules.dep of {}: {e}", mods.display()))?;
    let mut wanted: Vec<String> = Vec::new();
    for line in dep.lines() {
        let Some((module, deps)) = line.split_once(':') else { continue };
        if MODULE_DIRS.iter().any(|d| module.starts_with(d)) {
            wanted.push(module.to_string());
            wanted.extend(deps.split_whitespace().map(str::to_string));
        }
    }
    wanted.sort();
    wanted.dedup();
    let base = format!("lib/modules/{}", k.release);
    let mut made = vec![base.clone()];
    cpio.dir(&base);
    for m in &wanted {
        let mut prefix = String::new();
        let parts: Vec<&str> = m.split('/').collect();
        for p in &parts[..parts.len() - 1] {
            prefix = if prefix.is_empty() { p.to_string() } else { format!("{prefix}/{p}") };
            let d = format!("{base}/{prefix}");
            if !made.contains(&d) {
                cpio.dir(&d);
                made.push(d);
            }
        }
        cpio.file(&format!("{base}/{m}"), 0o644, &read(&mods.join(m))?);
    }
    for index in
        ["modules.dep", "modules.alias", "modules.symbols", "modules.builtin", "modules.order"]
    {
        if let Ok(data) = std::fs::read(mods.join(index)) {
            cpio.file(&format!("{base}/{index}"), 0o644, &data);
        }
    }
    for (i, t) in tests.iter().enumerate() {
        cpio.file(&format!("tests/{i:02}-{}", test_name(t)), 0o755, &read(t)?);
    }
    let out = dir.join("initrd.cpio");
    std::fs::write(&out, cpio.finish()).map_err(|e| format!("writing {}: {e}", out.display()))?;
    Ok(out)
}

/// `kat-0123abcd` → `kat`: the test target's name without cargo's hash.
fn test_name(exe: &Path) -> String {
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match name.rsplit_once('-') {
        Some((stem, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => stem.to_string(),
        _ => name,
    }
}

/// `/usr/bin/strace` and the shared libraries `ldd` names for it, at their own paths.
fn add_strace(cpio: &mut Cpio) -> Result<(), String> {
    let strace = Path::new("/usr/bin/strace");
    if !strace.is_file() {
        return Err("the overhead table needs strace: apt-get install strace".into());
    }
    let ldd = output(Command::new("ldd").arg(strace))
        .ok_or("`ldd /usr/bin/strace` failed (is strace installed?)")?;
    let mut files = vec![strace.to_path_buf()];
    for line in ldd.lines() {
        // `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)` or `/lib64/ld-linux... (0x...)`.
        let path = line.split("=>").last().unwrap_or("").trim().split(' ').next().unwrap_or("");
        if path.starts_with('/') {
            files.push(PathBuf::from(path));
        }
    }
    let mut made: Vec<String> = ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "lib"]
        .iter()
        .map(|d| d.to_string())
        .collect();
    for f in &files {
        let rel = f.strip_prefix("/").unwrap_or(f).to_string_lossy().into_owned();
        let mut prefix = String::new();
        for part in rel.split('/').collect::<Vec<_>>().split_last().map_or(&[][..], |(_, d)| d) {
            prefix = if prefix.is_empty() { part.to_string() } else { format!("{prefix}/{part}") };
            if !made.contains(&prefix) {
                cpio.dir(&prefix);
                made.push(prefix.clone());
            }
        }
        cpio.file(&rel, 0o755, &read(f)?);
    }
    Ok(())
}

fn init_script(tests: &[PathBuf], payload: Payload<'_>, quick: bool) -> String {
    let bench_line = match payload {
        Payload::Tests => String::new(),
        // Criterion's defaults (3 s warm-up, 5 s measurement per case) would take many
        // minutes under TCG.
        Payload::Bench(_) => {
            let times = if quick { "0.5 --measurement-time 1" } else { "1 --measurement-time 3" };
            format!(
                "echo \"{MARK} bench-start\"\n/bench/kcapi --bench --noplot --color never --warm-up-time {times}\necho \"{MARK} bench-exit $?\"\n"
            )
        }
        Payload::Overhead(_) => {
            format!("/overhead/kcapi-overhead table\necho \"{MARK} overhead-exit $?\"\n")
        }
    };
    let cases = if quick { VM_QUICK_CASES } else { VM_CASES };
    // `XTASK_VM_FILTER=name`: each test binary runs only the tests whose name contains it
    // (libtest's filter), for a quick look at a few tests; names are [A-Za-z0-9_:] only.
    let filter: String = std::env::var("XTASK_VM_FILTER")
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let modules = MODULES.join(" ");
    let count = tests.len();
    format!(
        r#"#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo /sbin/modprobe > /proc/sys/kernel/modprobe
# The loopback interface, for kcapi's service test (a TCP server and its clients).
ip link set lo up || echo "{MARK} lo failed"
for m in {modules}; do
    modprobe $m || echo "{MARK} modprobe $m failed"
done
export KCAPI_REQUIRE=1 XTASK_BACKEND_REPORT=/tmp/backend-report PROPTEST_CASES={cases} HOME=/tmp TMPDIR=/tmp PATH=/bin:/sbin:/usr/bin:/usr/sbin
cd /tmp
echo "{MARK} start {count}"
for t in $(ls /tests); do
    t=/tests/$t
    echo "{MARK} run $t"
    $t --test-threads=1 --show-output {filter}
    echo "{MARK} exit $? $t"
done
{bench_line}echo "{MARK} backend $(cat /tmp/backend-report 2>/dev/null)"
echo "{MARK} done"
poweroff -f
sleep 10
"#
    )
}

/// Boots the VM; returns the serial output and whether qemu exited on its own in time.
fn boot(vmlinux: &Path, initrd: &Path, timeout: Duration) -> Result<(String, bool), String> {
    let mut cmd = Command::new("qemu-system-x86_64");
    cmd.args(["-accel", "tcg", "-m", "512", "-smp", "1", "-cpu", "max"])
        .arg("-kernel")
        .arg(vmlinux)
        .arg("-initrd")
        .arg(initrd)
        .args(["-append", "console=ttyS0 panic=-1 quiet"])
        .args(["-nographic", "-no-reboot", "-monitor", "none", "-serial", "stdio", "-nic", "none"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    eprintln!("xtask: $ {}", show(&cmd));
    let mut child = cmd.spawn().map_err(|e| {
        format!("cannot start qemu-system-x86_64 (apt-get install qemu-system-x86): {e}")
    })?;
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { break };
            let line = String::from_utf8_lossy(&line).trim_end_matches('\r').to_string();
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut serial = String::new();
    let mut finished = true;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                println!("vm| {line}");
                serial += &line;
                serial.push('\n');
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                eprintln!("xtask: the VM ran past {} s: killing qemu", timeout.as_secs());
                let _ = child.kill();
                finished = false;
                break;
            }
        }
    }
    let _ = child.wait();
    let _ = reader.join();
    Ok((serial, finished))
}

/// Counts libtest's summaries and checks that every binary ran to its end, none skipped.
fn judge(serial: &str, finished: bool, tests: &[PathBuf], timeout: u64) -> VmRun {
    let (mut passed, mut failed) = (0, 0);
    let mut problems = Vec::new();
    let mut exits = 0;
    let mut skipped = 0;
    let mut backends = Vec::new();
    for line in serial.lines() {
        if let Some(summary) = line.trim().strip_prefix("test result: ") {
            for part in summary.split(';') {
                let mut words = part.split_whitespace().rev();
                let (Some(kind), Some(Ok(n))) = (words.next(), words.next().map(str::parse::<u64>))
                else {
                    continue;
                };
                match kind {
                    "passed" => passed += n,
                    "failed" => failed += n,
                    _ => {}
                }
            }
        }
        if line.contains("kcapi-test: SKIPPED") {
            skipped += 1;
        }
        if let Some(rest) = line.strip_prefix(MARK) {
            let rest = rest.trim();
            if let Some(exit) = rest.strip_prefix("exit ") {
                exits += 1;
                if !exit.starts_with("0 ") {
                    problems.push(format!("test binary exited {exit}"));
                }
            } else if let Some(b) = rest.strip_prefix("backend") {
                backends.extend(b.split_whitespace().map(str::to_string));
            } else if rest.starts_with("modprobe") || rest.starts_with("lo failed") {
                problems.push(rest.to_string());
            }
        }
    }
    if !finished {
        problems.push(format!("timed out after {timeout} s"));
    } else if !serial.contains(&format!("{MARK} done")) {
        problems.push("the VM stopped before its /init finished (see the serial log)".into());
    }
    if exits != tests.len() {
        problems.push(format!("{exits} of {} test binaries ran to their end", tests.len()));
    }
    if skipped > 0 {
        problems.push(format!("{skipped} tests skipped inside the VM"));
    }
    backends.sort();
    backends.dedup();
    let backends = if backends.is_empty() { "(none reported)".into() } else { backends.join(" ") };
    VmRun { backends, passed, failed, ok: problems.is_empty(), note: problems.join("; ") }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// Whether `elf` is a 64-bit little-endian ELF executable without a `PT_INTERP` header (no
/// dynamic loader: it runs in an initramfs that has no libc).
fn is_static_elf64(elf: &[u8]) -> bool {
    let u16_at = |o: usize| elf.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u64_at = |o: usize| {
        elf.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
    };
    // ELF64 header: e_phoff at 0x20, e_phentsize at 0x36, e_phnum at 0x38 (System V gABI).
    if !elf.starts_with(b"\x7fELF\x02\x01") {
        return false;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        return false;
    };
    const PT_INTERP: u32 = 3;
    (0..phnum).all(|i| {
        let o = phoff + i * phentsize;
        elf.get(o..o + 4)
            .is_some_and(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) != PT_INTERP)
    })
}

/// A newc ("070701") cpio archive, the format the kernel unpacks as an initramfs.
#[derive(Default)]
struct Cpio {
    data: Vec<u8>,
    ino: u32,
}

impl Cpio {
    fn dir(&mut self, name: &str) {
        self.entry(name, 0o040_755, &[]);
    }

    fn file(&mut self, name: &str, perm: u32, contents: &[u8]) {
        self.entry(name, 0o100_000 | perm, contents);
    }

    fn entry(&mut self, name: &str, mode: u32, contents: &[u8]) {
        self.ino += 1;
        let nlink = if mode & 0o040_000 != 0 { 2 } else { 1 };
        let fields = [
            self.ino,
            mode,
            0, // uid
            0, // gid
            nlink,
            0, // mtime
            contents.len() as u32,
            0, // devmajor
            0, // devminor
            0, // rdevmajor
            0, // rdevminor
            name.len() as u32 + 1,
            0, // check
        ];
        self.data.extend_from_slice(b"070701");
        for f in fields {
            self.data.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        self.data.extend_from_slice(name.as_bytes());
        self.data.push(0);
        self.pad();
        self.data.extend_from_slice(contents);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", 0, &[]);
        self.data
    }
}
