//! `cargo xtask mca`: a cycle model of our hot loops against the peers' on CPUs no machine
//! here has, with `llvm-mca-19` (Debian's `llvm-19`).
//!
//! 1. Builds `target/mca/probe` (written from `mca/probe/`: a binary calling each kernel once
//!    through its public API) with the workspace's bench profile for x86_64, aarch64 and
//!    riscv64 (`+v`, the extension the modelled RISC-V CPUs have). Installs llvm-19, the
//!    cross gcc and the rustup targets if missing.
//! 2. Disassembles each binary once (`llvm-objdump-19 -d -C`) and, per kernel and backend,
//!    finds the hot loop among the functions the kernel names (`mca/spec.rs`; no marker in
//!    our code): the innermost backward-branch loop with the most vector instructions
//!    (`mca/disasm.rs`).
//! 3. Per `-mcpu` model, takes the backend the dispatch would choose on that CPU (the first in
//!    dispatch order whose extensions the CPU has), refuses the row if the loop uses an
//!    extension the CPU lacks (x86: `mca/isa.rs`, since llvm-mca does not check; aarch64 and
//!    RISC-V: the model's assembler refuses), prepends a RISC-V loop's governing `vsetvli`,
//!    and runs `llvm-mca-19 -iterations=200 -bottleneck-analysis`.
//! 4. Writes `target/mca/modelled.md` ("Modelled CPUs": a table per architecture, cycles per
//!    64 bytes of the loop's larger stream, ours/peer, the bottleneck, the model's known
//!    errors) and, for x86 models whose CPU has a bench record, the agreement of the modelled
//!    ratio with the measured one (in-cache rows, 4-64 KiB; ±3 % is a tie).
//!
//! Bytes per iteration: the largest immediate a pointer advances by in the loop (x86, aarch64,
//! scalar RISC-V), or for RVV the bytes of its vector loads or stores (the larger) at the vl
//! of its governing `vsetvli` with the model's VLEN. The model has no caches (every load hits
//! L1), no branch mispredictions, and on x86 no frequency licences.
//!
//! A kernel inlined into its caller is found under the caller's symbol (the probe's
//! `probe_*` functions are never inlined); a scalar loop among others (the limb `addmul_1`,
//! inlined into the basecase product) by the mnemonics it must hold (`mulx`, `adox`, `adcx`).
//!
//! Peers that need more than the probe's plain build: gxhash refuses to build without AES at
//! compile time, so a second probe build with `+aes` (x86_64, aarch64) supplies its functions
//! only (`+aes` changes how our own kernels inline); simdutf (C++) is in the x86_64 probe only,
//! since no cross g++ is installed. A loop not found (a kernel renamed or moved) fails the run.
//!
//! glibc's mem* variants (x86_64) come from the host's `libc.so.6`, located by the symbols of
//! Debian's `libc6-dbg` and disassembled by address range, and are chosen per model by glibc
//! 2.36's rules (`spec::GLIBC_MEMMOVE`).
//!
//! Left out so far: glibc on aarch64 and riscv64 (the cross `libc6` packages have no debug
//! symbols), GMP (Debian's generic x86-64 build: not the build users of a tuned GMP get), and
//! mips64 (no model).
//! The cold run takes about 1.5 minutes on 2 busy cores (three probe builds of about 30 s
//! each); with the builds cached, about 10 s.

mod arch;
mod disasm;
mod isa;
mod spec;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{on_path, output, root, run};
pub use arch::Arch;
use disasm::{Function, Insn, Loop};
use spec::{Backend, Impl, KERNELS, MODELS, Model};

const LLVM_MCA: &str = "llvm-mca-19";
const OBJDUMP: &str = "llvm-objdump-19";
/// The host's glibc, whose mem* variants are modelled as peers on x86_64.
const GLIBC: &str = "/lib/x86_64-linux-gnu/libc.so.6";
/// The functions taken from the `+aes` build (`Arch::aes_rustflags`): the peers that need it.
const AES_ONLY_PEERS: &[&str] = &["gxhash::", "mca_probe::probe_gxhash"];
/// Iterations of the loop body llvm-mca simulates: enough for its steady state.
const ITERATIONS: u32 = 200;

/// The report's section, if `cargo xtask mca` has written it.
/// Called by `cargo xtask bench`, which puts it in the report.
pub fn modelled_section(root: &Path) -> Option<String> {
    std::fs::read_to_string(root.join("target/mca/modelled.md")).ok()
}

pub fn run_mca() -> Result<(), String> {
    let start = std::time::Instant::now();
    ensure_tools()?;
    let root = root();
    let dir = root.join("target/mca");
    let mut disassembly: BTreeMap<Arch, Vec<Function>> = BTreeMap::new();
    for arch in Arch::ALL {
        let exe = build_probe(&root, arch, arch.rustflags(), "build")?;
        let mut funcs = disassemble(arch, &exe)?;
        if let Some(flags) = arch.aes_rustflags() {
            let exe = build_probe(&root, arch, flags, "build-aes")?;
            funcs.extend(
                disassemble(arch, &exe)?
                    .into_iter()
                    .filter(|f| AES_ONLY_PEERS.iter().any(|p| f.name.starts_with(p))),
            );
        }
        if arch == Arch::X86_64 {
            funcs.extend(glibc_functions()?);
        }
        disassembly.insert(arch, funcs);
    }
    // The loops of an earlier run: each run writes its own.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "s") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let records = crate::bench::record::read_all(&root.join("benches/results")).unwrap_or_default();
    let mut rows: Vec<Row> = Vec::new();
    for model in MODELS {
        for kernel in KERNELS {
            let Some(ours) = kernel.ours.iter().find(|i| i.arch == model.arch) else { continue };
            let funcs = &disassembly[&model.arch];
            let ours = model_impl(&dir, model, ours, funcs);
            let peer = kernel
                .peers
                .iter()
                .find(|i| i.arch == model.arch)
                .map(|p| model_impl(&dir, model, p, funcs));
            rows.push(Row { kernel, model, ours, peer });
        }
    }
    let md = markdown(&rows, &records);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("modelled.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{md}");
    // A kernel renamed or moved leaves its symbols stale: fail rather than print a table
    // with holes. (A row refused by the ISA check is a finding, not an error.)
    let stale: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            [Some(&r.ours), r.peer.as_ref()].into_iter().flatten().filter_map(move |m| match m {
                Err(e) if !e.starts_with("refused") && !e.starts_with("no backend runs") => {
                    Some(format!("{} on {}: {e}", r.kernel.name, r.model.cpu))
                }
                _ => None,
            })
        })
        .collect();
    if !stale.is_empty() {
        return Err(format!(
            "mca: {} loop(s) not found; update xtask/src/mca/spec.rs:\n  {}",
            stale.len(),
            stale.join("\n  ")
        ));
    }
    eprintln!(
        "xtask: mca: wrote {} in {:.0} s (probe builds included: five, about 6 minutes cold on 2 busy cores, 15 s cached)",
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// llvm-19 and the cross linkers (apt, as root), the rustup targets.
fn ensure_tools() -> Result<(), String> {
    let mut missing: Vec<&str> = Vec::new();
    for (tool, pkg) in [
        (LLVM_MCA, "llvm-19"),
        // simdutf's C++, in the x86_64 probe.
        ("g++", "g++"),
        ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
        ("riscv64-linux-gnu-gcc", "gcc-riscv64-linux-gnu"),
    ] {
        if !on_path(tool) {
            missing.push(pkg);
        }
    }
    // libc6-dbg: the symbols of glibc's mem* variants (peers on x86_64).
    for pkg in ["libc6-dev-arm64-cross", "libc6-dev-riscv64-cross", "libc6-dbg"] {
        if !crate::install::dpkg_installed(pkg) {
            missing.push(pkg);
        }
    }
    if !missing.is_empty() {
        let line = format!("apt-get install -y --no-install-recommends {}", missing.join(" "));
        if !crate::install::is_root() {
            return Err(format!(
                "missing Debian packages for `mca`; run as root:\n    apt-get update && {line}"
            ));
        }
        run(Command::new("apt-get").arg("update").env("DEBIAN_FRONTEND", "noninteractive"))?;
        run(Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        eprintln!("xtask: installed Debian packages: {}", missing.join(" "));
    }
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
        .ok_or("`rustup target list --installed` failed: is rustup installed?")?;
    let want: Vec<&str> = [Arch::Aarch64, Arch::Riscv64]
        .iter()
        .map(|a| a.triple())
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if !want.is_empty() {
        run(Command::new("rustup").args(["target", "add"]).args(&want))?;
    }
    Ok(())
}

/// The host glibc's variants of the functions a kernel compares with (`spec::GLIBC`), named
/// `glibc::<variant>`: they have no symbols in the stripped `libc.so.6`, so their addresses
/// and sizes come from Debian's `libc6-dbg` (by build id) and each is disassembled by range.
fn glibc_functions() -> Result<Vec<Function>, String> {
    let lib = Path::new(GLIBC);
    let notes = output(Command::new("readelf").arg("-n").arg(lib))
        .ok_or_else(|| format!("`readelf -n {GLIBC}` failed"))?;
    let id = notes
        .lines()
        .find_map(|l| l.trim().strip_prefix("Build ID: "))
        .ok_or_else(|| format!("{GLIBC}: no build id"))?
        .trim()
        .to_owned();
    let debug = format!("/usr/lib/debug/.build-id/{}/{}.debug", &id[..2], &id[2..]);
    let nm = output(Command::new("nm").args(["-S", "--defined-only", &debug]))
        .ok_or_else(|| format!("`nm {debug}` failed: is libc6-dbg installed?"))?;
    let mut out = Vec::new();
    for line in nm.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [addr, size, _, name] = f[..] else { continue };
        if !spec::GLIBC_VARIANTS.contains(&name) {
            continue;
        }
        let (Ok(addr), Ok(size)) = (u64::from_str_radix(addr, 16), u64::from_str_radix(size, 16))
        else {
            continue;
        };
        let mut cmd = Command::new(OBJDUMP);
        // No debug directory: with the debug file found by build id, llvm-objdump prints its
        // empty `.text` instead of the library's code.
        let empty = root().join("target/mca/no-debug");
        std::fs::create_dir_all(&empty).map_err(|e| format!("{}: {e}", empty.display()))?;
        cmd.args(["-d", "--no-show-raw-insn", "-M", "intel"])
            .arg(format!("--debug-file-directory={}", empty.display()))
            .arg(format!("--start-address={addr:#x}"))
            .arg(format!("--stop-address={:#x}", addr + size))
            .arg(lib);
        let text =
            output(&mut cmd).ok_or_else(|| format!("`{}` failed", crate::util::show(&cmd)))?;
        // The range prints under whatever dynamic symbol precedes it: one function of its own.
        let insns = disasm::parse(&text).into_iter().flat_map(|f| f.insns).collect();
        out.push(Function { name: format!("glibc::{name}"), insns });
    }
    Ok(out)
}

/// `llvm-objdump-19`'s functions of `exe`.
fn disassemble(arch: Arch, exe: &Path) -> Result<Vec<Function>, String> {
    let mut cmd = Command::new(OBJDUMP);
    cmd.args(["-d", "-C", "--no-show-raw-insn"]);
    if arch == Arch::X86_64 {
        cmd.args(["-M", "intel"]);
    } else {
        cmd.arg(format!("--mattr={}", arch.objdump_mattr()));
    }
    cmd.arg(exe);
    let text = output(&mut cmd).ok_or_else(|| format!("`{}` failed", crate::util::show(&cmd)))?;
    Ok(disasm::parse(&text))
}

/// Writes the probe crate into `target/mca/probe` and builds it for `arch` with `rustflags`
/// into `target/mca/<dir>`; the executable.
fn build_probe(root: &Path, arch: Arch, rustflags: &str, dir: &str) -> Result<PathBuf, String> {
    let probe = root.join("target/mca/probe");
    let src = probe.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let manifest =
        include_str!("mca/probe/Cargo.toml.in").replace("@ROOT@", &root.display().to_string());
    write_if_changed(&probe.join("Cargo.toml"), &manifest)?;
    write_if_changed(&src.join("main.rs"), include_str!("mca/probe/main.rs"))?;
    if !probe.join("Cargo.lock").exists() {
        // The workspace's lock: the peers are the versions the benches measure.
        std::fs::copy(root.join("Cargo.lock"), probe.join("Cargo.lock"))
            .map_err(|e| format!("Cargo.lock: {e}"))?;
    }
    let target_dir = root.join("target/mca").join(dir);
    let mut cmd = crate::util::cargo();
    cmd.current_dir(&probe)
        .args(["build", "--quiet", "--profile", "bench", "--target", arch.triple()])
        .arg("--target-dir")
        .arg(&target_dir)
        .env("RUSTFLAGS", rustflags)
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    run(&mut cmd)?;
    Ok(target_dir.join(arch.triple()).join("release/mca-probe"))
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One modelled loop.
#[derive(Debug, Clone)]
struct Modelled {
    backend: &'static str,
    cycles_per_64: f64,
    bottleneck: String,
    /// The function the loop was found in.
    function: String,
    /// The loop's instructions, `mnemonic operands`.
    text: Vec<String>,
}

struct Row {
    kernel: &'static spec::Kernel,
    model: &'static Model,
    ours: Result<Modelled, String>,
    peer: Option<Result<Modelled, String>>,
}

/// The extensions `model`'s CPU has.
fn model_extensions(model: &Model) -> Vec<&'static str> {
    match model.arch {
        Arch::X86_64 => {
            let mut v = isa::x86_extensions(model.cpu);
            // glibc's `Prefer_No_AVX512` is not set (AMD; Intel with AVX-VNNI): see
            // `spec::GLIBC_MEMMOVE`.
            if ["znver4", "znver5", "sapphirerapids"].contains(&model.cpu) {
                v.push("glibc-avx512");
            }
            v
        }
        _ => model.exts.to_vec(),
    }
}

/// The backend the dispatch picks on `model`: the first whose extensions the CPU has.
fn choose<'a>(model: &Model, backends: &'a [Backend]) -> Option<&'a Backend> {
    let has = model_extensions(model);
    backends.iter().find(|b| b.needs.iter().all(|n| has.contains(n)))
}

/// Whether a demangled function name matches a spec's symbol.
fn matches(name: &str, pattern: &str) -> bool {
    let name = name.split(" (.llvm.").next().unwrap_or(name);
    let bare = match name.rfind("::h") {
        Some(i) if name.len() - i == 19 => &name[..i],
        _ => name,
    };
    match pattern.strip_suffix('*') {
        Some(prefix) => bare.starts_with(prefix),
        None => bare == pattern,
    }
}

fn model_impl(
    dir: &Path,
    model: &Model,
    imp: &Impl,
    funcs: &[Function],
) -> Result<Modelled, String> {
    let backend =
        choose(model, imp.backends).ok_or_else(|| format!("no backend runs on {}", model.cpu))?;
    let candidates: Vec<&Function> =
        funcs.iter().filter(|f| backend.symbols.iter().any(|p| matches(&f.name, p))).collect();
    if candidates.is_empty() {
        return Err(format!("{}: none of {:?} in the binary", backend.name, backend.symbols));
    }
    let l = disasm::find_loop(model.arch, &candidates, backend.loop_has)
        .ok_or_else(|| format!("{}: no loop in {:?}", backend.name, backend.symbols))?;
    let body = prepare(model, &l)?;
    let bytes = bytes_per_iteration(model.arch, &body, model.vlen)
        .ok_or_else(|| format!("{}: no pointer advance found in its loop", backend.name))?;
    let comment = if model.arch == Arch::Aarch64 { "//" } else { "#" };
    let asm = format!(
        "{comment} {}: {} ({}), {bytes} bytes per iteration\n{}",
        l.function,
        backend.name,
        model.cpu,
        asm_for(model.arch, &body)
    );
    let file = dir.join(format!(
        "{}-{}-{}.s",
        model.cpu,
        l.function.split("::h").next().unwrap_or("loop").replace([':', '<', '>', ' ', '$'], "_"),
        backend.name.replace(['(', ')'], "_")
    ));
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(&file, &asm).map_err(|e| format!("{}: {e}", file.display()))?;
    let report = llvm_mca(model, &file)?;
    let cycles = report.cycles_per_iteration();
    Ok(Modelled {
        backend: backend.name,
        cycles_per_64: cycles * 64.0 / bytes as f64,
        bottleneck: report.bottleneck(),
        function: l.function.clone(),
        text: body.iter().map(|i| format!("{} {}", i.mnemonic, i.operands)).collect(),
    })
}

/// The loop body as modelled: ISA-checked for x86, its `vsetvli` prepended for RISC-V.
fn prepare(model: &Model, l: &Loop) -> Result<Vec<Insn>, String> {
    match model.arch {
        Arch::X86_64 => {
            let body: Vec<(String, String)> =
                l.body().iter().map(|i| (i.mnemonic.clone(), i.operands.clone())).collect();
            let missing = isa::x86_missing(model.cpu, &body);
            if let Some((ext, insn)) = missing.first() {
                return Err(format!(
                    "refused: the loop of {} uses {ext} (`{insn}`), which {} lacks",
                    l.function, model.cpu
                ));
            }
            Ok(split_flag_chains(l.body()))
        }
        Arch::Riscv64 => Ok(disasm::with_governing_vset(l)),
        Arch::Aarch64 => Ok(l.body().to_vec()),
    }
}

/// A loop with both an ADOX (OF) and an ADCX (CF) chain, as the model should see it:
/// llvm-mca tracks EFLAGS as one register, so the two chains, independent on the CPU, would
/// serialize through it. Each register-register `adox d, s` becomes `lea d, [d + s]` (the same
/// data dependencies, no flags), which leaves out only the OF chain's own 1-cycle latency.
fn split_flag_chains(body: &[Insn]) -> Vec<Insn> {
    let has = |m: &str| body.iter().any(|i| i.mnemonic == m);
    if !(has("adox") && has("adcx")) {
        return body.to_vec();
    }
    body.iter()
        .map(|i| {
            let mut i = i.clone();
            if i.mnemonic == "adox"
                && let Some((d, s)) = i.operands.split_once(", ")
                && !i.operands.contains("ptr")
            {
                i.operands = format!("{d}, [{d} + {s}]");
                i.mnemonic = "lea".into();
            }
            i
        })
        .collect()
}

fn asm_for(arch: Arch, body: &[Insn]) -> String {
    let mut s = String::new();
    if arch == Arch::X86_64 {
        s += ".intel_syntax noprefix\n";
    }
    s + &disasm::to_asm(arch, body)
}

/// The bytes one iteration moves on its larger stream: the largest advance of an induction
/// register (times the scale it indexes memory with); for an RVV loop that advances by vl (a
/// register), the bytes of its vector loads or stores at the model's VLEN.
fn bytes_per_iteration(arch: Arch, body: &[Insn], vlen: u32) -> Option<u64> {
    if let Some(b) = induction_advance(arch, body) {
        return Some(b);
    }
    if arch == Arch::Riscv64 && body.iter().any(|i| rvv_mem(&i.mnemonic).is_some()) {
        return rvv_bytes(body, vlen);
    }
    None
}

/// What an instruction does to the integer registers, for the induction analysis.
enum Effect {
    /// `dst = src + imm`.
    Offset { dst: String, src: String, imm: i64 },
    /// `dst` gets a value that is no offset of one register.
    Clobber(String),
}

/// The 64-bit register a name writes (x86 `ecx` → `rcx`, `r8d` → `r8`; aarch64 `w3` → `x3`).
fn full_register(arch: Arch, r: &str) -> String {
    let r = r.trim();
    match arch {
        Arch::X86_64 => {
            if let Some(n) =
                r.strip_suffix('d').filter(|n| n.starts_with('r') && n[1..].parse::<u8>().is_ok())
            {
                return n.to_string();
            }
            match r.strip_prefix('e') {
                Some(rest) if ["ax", "bx", "cx", "dx", "si", "di", "bp", "sp"].contains(&rest) => {
                    format!("r{rest}")
                }
                _ => r.to_string(),
            }
        }
        Arch::Aarch64 => match r.strip_prefix('w') {
            Some(n) if n.parse::<u8>().is_ok() => format!("x{n}"),
            _ => r.to_string(),
        },
        Arch::Riscv64 => r.to_string(),
    }
}

fn is_gpr(arch: Arch, r: &str) -> bool {
    let r = r.trim();
    match arch {
        Arch::X86_64 => {
            r.starts_with('r') && !r.contains(['[', ' '])
                || ["eax", "ebx", "ecx", "edx", "esi", "edi", "ebp"].contains(&r)
        }
        Arch::Aarch64 => (r.starts_with('x') || r.starts_with('w')) && r[1..].parse::<u8>().is_ok(),
        Arch::Riscv64 => {
            !r.is_empty()
                && r != "zero"
                && (r.starts_with('a') || r.starts_with('t') || r.starts_with('s'))
                && r[1..].parse::<u8>().is_ok()
                || r == "ra"
        }
    }
}

fn effects(arch: Arch, i: &Insn) -> Vec<Effect> {
    let m = i.mnemonic.as_str();
    let ops: Vec<&str> = i.operands.split(',').map(str::trim).collect();
    let reg = |r: &str| full_register(arch, r);
    let mut out = Vec::new();
    match arch {
        Arch::X86_64 => {
            let (d, src) = (ops[0], ops.get(1).copied().unwrap_or(""));
            if ["cmp", "test", "push", "vzeroupper", "nop"].contains(&m) || m.starts_with('j') {
                return out;
            }
            if !is_gpr(arch, d) {
                return out;
            }
            let d = reg(d);
            let imm = parse_imm(src);
            match (m, imm) {
                ("add", Some(v)) => out.push(Effect::Offset { dst: d.clone(), src: d, imm: v }),
                ("sub", Some(v)) => out.push(Effect::Offset { dst: d.clone(), src: d, imm: -v }),
                ("inc", _) => out.push(Effect::Offset { dst: d.clone(), src: d, imm: 1 }),
                ("dec", _) => out.push(Effect::Offset { dst: d.clone(), src: d, imm: -1 }),
                ("mov", _) if is_gpr(arch, src) => {
                    out.push(Effect::Offset { dst: d, src: reg(src), imm: 0 })
                }
                ("lea", _) => {
                    let addr = src.trim_start_matches(|c| c != '[').trim_matches(['[', ']']);
                    let parts: Vec<&str> = addr.split(' ').filter(|p| !p.is_empty()).collect();
                    match parts.as_slice() {
                        [b] if is_gpr(arch, b) => {
                            out.push(Effect::Offset { dst: d, src: reg(b), imm: 0 })
                        }
                        [b, sign @ ("+" | "-"), k] if is_gpr(arch, b) && parse_imm(k).is_some() => {
                            let v = parse_imm(k).unwrap_or(0);
                            let v = if *sign == "-" { -v } else { v };
                            out.push(Effect::Offset { dst: d, src: reg(b), imm: v })
                        }
                        _ => out.push(Effect::Clobber(d)),
                    }
                }
                _ => out.push(Effect::Clobber(d)),
            }
        }
        Arch::Aarch64 => {
            // Post- and pre-indexed addressing writes its base register back.
            if let Some((addr, post)) = i.operands.split_once("], #") {
                if let Some(base) = addr.rsplit('[').next() {
                    let v = parse_imm(post.trim_end_matches('!')).unwrap_or(0);
                    out.push(Effect::Offset { dst: reg(base), src: reg(base), imm: v });
                }
            } else if i.operands.ends_with("]!")
                && let Some(inner) = i.operands.rsplit('[').next()
                && let Some((base, k)) = inner.trim_end_matches("]!").split_once(", #")
            {
                let v = parse_imm(k).unwrap_or(0);
                out.push(Effect::Offset { dst: reg(base), src: reg(base), imm: v });
            }
            let stores = m.starts_with("st") || m.starts_with("cb") || m.starts_with("tb");
            if stores || ["cmp", "cmn", "tst", "b", "ret"].contains(&m) || m.starts_with("b.") {
                return out;
            }
            if !is_gpr(arch, ops[0]) {
                return out;
            }
            let d = reg(ops[0]);
            let imm = ops.get(2).and_then(|k| parse_imm(k.trim_start_matches('#')));
            match (m, ops.len(), imm) {
                ("add", 3, Some(v)) if is_gpr(arch, ops[1]) => {
                    out.push(Effect::Offset { dst: d, src: reg(ops[1]), imm: v })
                }
                ("sub", 3, Some(v)) if is_gpr(arch, ops[1]) => {
                    out.push(Effect::Offset { dst: d, src: reg(ops[1]), imm: -v })
                }
                ("mov", 2, _) if is_gpr(arch, ops[1]) => {
                    out.push(Effect::Offset { dst: d, src: reg(ops[1]), imm: 0 })
                }
                _ => out.push(Effect::Clobber(d)),
            }
        }
        Arch::Riscv64 => {
            // Branches and stores write no register; vector instructions mostly write a
            // vector register (`vsetvli a3, ...` and `vfirst.m a0, v8` do write one).
            let no_dest = m.starts_with('b')
                || ["sb", "sh", "sw", "sd", "j", "ret", "jr", "fsd", "fsw"].contains(&m)
                || m.starts_with("vs") && !m.starts_with("vset")
                || m.starts_with('v') && ops[0].starts_with('v');
            if no_dest || !is_gpr(arch, ops[0]) {
                return out;
            }
            let d = reg(ops[0]);
            match (m, ops.len()) {
                ("addi", 3) if is_gpr(arch, ops[1]) => {
                    let v = parse_imm(ops[2]).unwrap_or(0);
                    out.push(Effect::Offset { dst: d, src: reg(ops[1]), imm: v })
                }
                ("mv", 2) if is_gpr(arch, ops[1]) => {
                    out.push(Effect::Offset { dst: d, src: reg(ops[1]), imm: 0 })
                }
                _ => out.push(Effect::Clobber(d)),
            }
        }
    }
    out
}

/// The largest advance of an induction register over one iteration of `body`: each register
/// is followed as "its value at the top of the loop, or another's, plus a constant" through
/// adds, moves and address arithmetic; one that ends as itself plus k advances by k (times
/// the scale it indexes memory with). `None` when no register advances by a constant.
fn induction_advance(arch: Arch, body: &[Insn]) -> Option<u64> {
    let mut state: BTreeMap<String, Option<(String, i64)>> = BTreeMap::new();
    let value = |state: &BTreeMap<String, Option<(String, i64)>>, r: &str| {
        state.get(r).cloned().unwrap_or_else(|| Some((r.to_string(), 0)))
    };
    for i in body {
        for e in effects(arch, i) {
            match e {
                Effect::Offset { dst, src, imm } => {
                    let v = value(&state, &src).map(|(o, k)| (o, k + imm));
                    state.insert(dst, v);
                }
                Effect::Clobber(d) => {
                    state.insert(d, None);
                }
            }
        }
    }
    // On x86, a register that addresses memory in the loop: a count register beside the
    // pointers (glibc's `add edx, 0xffffff00`) says nothing of the bytes.
    let addresses = |r: &str| {
        arch != Arch::X86_64
            || body.iter().any(|i| {
                i.operands.split('[').skip(1).any(|m| {
                    m.split(']')
                        .next()
                        .is_some_and(|m| m.split(['+', '-', '*', ' ']).any(|t| t.trim() == r))
                })
            })
    };
    let mut best = 0u64;
    for (r, v) in &state {
        if let Some((origin, k)) = v
            && origin == r
            && *k != 0
            && addresses(r)
        {
            let scale = if arch == Arch::X86_64 { x86_scale(body, r) } else { 1 };
            best = best.max((k * scale).unsigned_abs());
        }
    }
    (best > 0).then_some(best)
}

/// The largest scale `reg` indexes memory with in `body` (`[rax + 8*rdx]`: 8 for `rdx`), or 1.
fn x86_scale(body: &[Insn], reg: &str) -> i64 {
    let mut scale = 1;
    for i in body {
        for part in i.operands.split(['[', ']', '+', '-', ' ']) {
            if let Some((s, r)) = part.split_once('*')
                && r == reg
                && let Ok(s) = s.parse::<i64>()
            {
                scale = scale.max(s);
            }
        }
    }
    scale
}

fn parse_imm(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => s.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// An RVV unit-stride or segment load/store: (is a store, fields, element bits).
fn rvv_mem(m: &str) -> Option<(bool, u32, u32)> {
    let (store, rest) = if let Some(r) = m.strip_prefix("vl") {
        (false, r)
    } else if let Some(r) = m.strip_prefix("vs") {
        (true, r)
    } else {
        return None;
    };
    let (fields, rest) = match rest.strip_prefix("seg") {
        Some(r) => (r[..1].parse().ok()?, &r[1..]),
        None => (1, rest),
    };
    let eew = rest.strip_prefix('e')?.strip_suffix(".v")?.trim_end_matches("ff").parse().ok()?;
    Some((store, fields, eew))
}

/// Bytes of an RVV loop: its vector loads or stores (the larger) at the vl of the vset that
/// computes vl (its `rd` is not `zero`), each under the vtype in force where it runs.
fn rvv_bytes(body: &[Insn], vlen: u32) -> Option<u64> {
    let vlmax = |sew: u32, lmul: f64| (vlen as f64 * lmul / sew as f64) as u64;
    let mut vl: Option<u64> = None;
    for i in body.iter().filter(|i| i.mnemonic.starts_with("vset")) {
        let (sew, lmul) = disasm::vtype(std::slice::from_ref(i))?;
        let rd = i.operands.split(',').next().unwrap_or("").trim();
        if rd != "zero" {
            let max = vlmax(sew, lmul);
            vl = Some(if i.mnemonic == "vsetivli" {
                let avl = i.operands.split(',').nth(1).and_then(parse_imm).unwrap_or(0);
                max.min(avl as u64)
            } else {
                max
            });
        }
    }
    let first = body.iter().find(|i| i.mnemonic.starts_with("vset"))?;
    let (sew0, lmul0) = disasm::vtype(std::slice::from_ref(first))?;
    let vl = vl.unwrap_or_else(|| vlmax(sew0, lmul0));
    let (mut loads, mut stores) = (0u64, 0u64);
    for i in body {
        if let Some((store, fields, eew)) = rvv_mem(&i.mnemonic) {
            let bytes = vl * fields as u64 * eew as u64 / 8;
            if store { stores += bytes } else { loads += bytes }
        }
    }
    Some(loads.max(stores)).filter(|&b| b > 0)
}

/// What llvm-mca reported for one loop.
struct McaReport {
    iterations: f64,
    total_cycles: f64,
    dispatch_width: f64,
    uops_per_cycle: f64,
    resource_pct: f64,
    dependency_pct: f64,
    top_resource: Option<(String, f64)>,
}

impl McaReport {
    fn cycles_per_iteration(&self) -> f64 {
        self.total_cycles / self.iterations
    }

    /// The bottleneck in llvm-mca's terms: resource pressure (its busiest resource), a
    /// dependency chain, or the dispatch width.
    fn bottleneck(&self) -> String {
        if self.resource_pct == 0.0
            && self.dependency_pct == 0.0
            && self.uops_per_cycle >= 0.9 * self.dispatch_width
        {
            return format!("dispatch width ({})", self.dispatch_width);
        }
        if self.dependency_pct > self.resource_pct {
            return format!("dependency chain ({:.0} %)", self.dependency_pct);
        }
        match &self.top_resource {
            Some((r, p)) => format!("resource {r} ({p:.2}/it)"),
            None => "resource pressure".into(),
        }
    }
}

fn llvm_mca(model: &Model, file: &Path) -> Result<McaReport, String> {
    let triple = match model.arch {
        Arch::X86_64 => "x86_64-unknown-linux-gnu",
        Arch::Aarch64 => "aarch64-unknown-linux-gnu",
        Arch::Riscv64 => "riscv64-unknown-linux-gnu",
    };
    let mut cmd = Command::new(LLVM_MCA);
    cmd.arg(format!("-mtriple={triple}"))
        .arg(format!("-mcpu={}", model.cpu))
        .arg(format!("-iterations={ITERATIONS}"))
        .arg("-bottleneck-analysis")
        .arg("-all-stats=false");
    if !model.mattr.is_empty() {
        cmd.arg(format!("-mattr={}", model.mattr));
    }
    cmd.arg(file);
    let out = cmd.output().map_err(|e| format!("cannot start {LLVM_MCA}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().find(|l| l.contains("error")).unwrap_or("").trim();
        return Err(format!("refused by {} ({}): {first}", model.cpu, file.display()));
    }
    parse_mca(&String::from_utf8_lossy(&out.stdout))
        .ok_or_else(|| format!("cannot read llvm-mca's report for {}", file.display()))
}

fn parse_mca(text: &str) -> Option<McaReport> {
    let field = |name: &str| -> Option<f64> {
        text.lines().find_map(|l| l.strip_prefix(name)).and_then(|v| v.trim().parse().ok())
    };
    let pct = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .and_then(|l| l.split('[').nth(1))
            .and_then(|v| v.split('%').next())
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    // `Resources:` lists `[3]   - Zn4FPU0`; `Resource pressure per iteration:` gives one row
    // of figures under a header of the same indices.
    let mut names: Vec<String> = Vec::new();
    let mut lines = text.lines();
    for l in lines.by_ref() {
        if l.starts_with("Resources:") {
            break;
        }
    }
    for l in lines.by_ref() {
        let l = l.trim();
        if l.is_empty() {
            break;
        }
        if let Some((_, name)) = l.split_once("- ") {
            names.push(name.trim().to_string());
        }
    }
    let mut top = None;
    if let Some(pos) = text.find("Resource pressure per iteration:") {
        let mut it = text[pos..].lines().skip(2);
        if let Some(values) = it.next() {
            for (k, v) in values.split_whitespace().enumerate() {
                let v: f64 = v.parse().unwrap_or(0.0);
                if v > top.as_ref().map_or(0.0, |(_, p): &(String, f64)| *p)
                    && let Some(n) = names.get(k)
                {
                    top = Some((n.clone(), v));
                }
            }
        }
    }
    Some(McaReport {
        iterations: field("Iterations:")?,
        total_cycles: field("Total Cycles:")?,
        dispatch_width: field("Dispatch Width:").unwrap_or(0.0),
        uops_per_cycle: field("uOps Per Cycle:").unwrap_or(0.0),
        resource_pct: pct("Resource Pressure"),
        dependency_pct: pct("Data Dependencies:"),
        top_resource: top,
    })
}

/// The measured in-cache ratio ours/peer (geometric mean over the 4-64 KiB rows of the
/// record's `default` section), if the record has both.
fn measured_ratio(rec: &crate::bench::record::Record, k: &spec::Kernel) -> Option<f64> {
    if k.group.is_empty() || k.peer_row.is_empty() {
        return None;
    }
    let in_cache = |input: &Option<String>| match input.as_deref() {
        Some("4K-64K") => true,
        Some(s) => s.parse::<u64>().is_ok_and(|n| (4096..=65536).contains(&n)),
        None => false,
    };
    let mut logs = Vec::new();
    for ours in rec.rows.iter().filter(|r| {
        r.section == "default"
            && r.group == k.group
            && r.implementation == k.ours_row
            && in_cache(&r.input)
    }) {
        let peer = rec.rows.iter().find(|r| {
            r.section == "default"
                && r.group == k.group
                && r.implementation == k.peer_row
                && r.input == ours.input
        })?;
        if ours.median_ns > 0.0 && peer.median_ns > 0.0 {
            logs.push((ours.median_ns / peer.median_ns).ln());
        }
    }
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// -1: ours faster, 0: a tie (within 3 %), 1: ours slower.
fn direction(ratio: f64) -> i8 {
    if ratio < 0.97 {
        -1
    } else if ratio > 1.03 {
        1
    } else {
        0
    }
}

/// The model's known errors and the kernel's note, each where it applies to the row: the
/// model's where its [`Model::errors_when`] text is in one of the row's loops, the kernel's on
/// the models it names.
fn known_errors(r: &Row) -> String {
    let loops = [Some(&r.ours), r.peer.as_ref()];
    let has = |t: &str| {
        loops
            .iter()
            .flatten()
            .flat_map(|m| m.as_ref().ok())
            .any(|m| m.text.iter().any(|i| i.contains(t)))
    };
    let mut parts = Vec::new();
    if r.model.errors_when.is_empty() || r.model.errors_when.iter().any(|t| has(t)) {
        parts.push(r.model.known_errors);
    }
    if !r.kernel.note.is_empty()
        && (r.kernel.note_cpus.is_empty() || r.kernel.note_cpus.contains(&r.model.cpu))
    {
        parts.push(r.kernel.note);
    }
    if parts.is_empty() { "—".to_string() } else { parts.join("; ") }
}

fn markdown(rows: &[Row], records: &BTreeMap<String, crate::bench::record::Record>) -> String {
    let mut s = String::from("## Modelled CPUs\n\n");
    s += "Steady-state cycles of each kernel's hot loop by `llvm-mca-19` (`cargo xtask mca`), per \
          unit (64 bytes of the loop's larger stream, or one NTT butterfly), for the backend the dispatch picks on that CPU. \
          A model: no caches, no branch mispredictions, no frequency licences; checked against \
          the records below where a CPU has one.\n\n";
    let per_unit = |k: &spec::Kernel, m: &Modelled| match k.units_in_64 {
        Some(units) => m.cycles_per_64 / units(&m.function),
        None => m.cycles_per_64,
    };
    let fmt = |k: &spec::Kernel, m: &Result<Modelled, String>| match m {
        Ok(m) => format!("{:.2} ({})", per_unit(k, m), m.backend),
        Err(e) => format!("— ({e})"),
    };
    let mut agree = (0usize, 0usize, Vec::new());
    for arch in Arch::ALL {
        let _ = writeln!(s, "### {}\n", arch.name());
        s += "| kernel | CPU model | ours (cycles per unit) | peer | peer (cycles per unit) | ours/peer | bottleneck (ours) | model's known errors |\n";
        s += "|---|---|---|---|---|---|---|---|\n";
        for r in rows.iter().filter(|r| r.model.arch == arch) {
            let ratio = match (&r.ours, &r.peer) {
                (Ok(o), Some(Ok(p))) => Some(per_unit(r.kernel, o) / per_unit(r.kernel, p)),
                _ => None,
            };
            let bottleneck = r.ours.as_ref().map(|m| m.bottleneck.clone()).unwrap_or_default();
            let _ = writeln!(
                s,
                "| {} (per {}) | {} | {} | {} | {} | {} | {} | {} |",
                r.kernel.name,
                r.kernel.unit,
                r.model.cpu,
                fmt(r.kernel, &r.ours),
                if r.kernel.peer.is_empty() { "—" } else { r.kernel.peer },
                r.peer.as_ref().map_or("—".into(), |p| fmt(r.kernel, p)),
                ratio.map_or("—".into(), |x| format!("{x:.2}")),
                bottleneck,
                known_errors(r),
            );
            if let (Some(modelled), Some(rec)) = (ratio, records.get(r.model.slug))
                && let Some(measured) = measured_ratio(rec, r.kernel)
            {
                {
                    agree.1 += 1;
                    if direction(modelled) == direction(measured) {
                        agree.0 += 1;
                    }
                    agree.2.push(format!(
                        "| {} | {} | {} ({}) | {modelled:.2} | {measured:.2} | {:+.0} % | {} |",
                        r.kernel.name,
                        r.kernel.peer,
                        r.model.cpu,
                        r.model.slug,
                        (modelled / measured - 1.0) * 100.0,
                        if direction(modelled) == direction(measured) { "yes" } else { "**no**" }
                    ));
                }
            }
        }
        s.push('\n');
    }
    s += "### Agreement with measurement\n\n";
    if agree.1 == 0 {
        let slugs: Vec<&str> = records.keys().map(String::as_str).collect();
        let _ = writeln!(
            s,
            "No modelled x86 CPU has a record with both rows (records present: {}); the \
             model's figures are unchecked.",
            if slugs.is_empty() { "none".to_string() } else { slugs.join(", ") }
        );
    } else {
        let _ = writeln!(
            s,
            "Modelled ours/peer against the measured in-cache ratio (4-64 KiB, `default` \
             section; ±3 % is a tie): {} of {} agree in direction.{}\n",
            agree.0,
            agree.1,
            if agree.0 * 2 < agree.1 {
                " **The model disagrees more often than not: not to be used to claim speed.**"
            } else {
                ""
            }
        );
        s += "| kernel | peer | CPU model (record) | modelled | measured | difference | same direction |\n|---|---|---|---|---|---|---|\n";
        for line in &agree.2 {
            s += line;
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests;
