//! The hot loop of a kernel, found in `llvm-objdump-19 -d -C --no-show-raw-insn` text.
//!
//! A loop is a backward branch: its body runs from the branch's target to the branch. The
//! finder keeps the innermost loops (those holding no other loop) of every function the kernel
//! names, and takes the one with the most vector instructions (ties: the longest): the unrolled
//! main loop, not its one-vector tail or a scalar prologue.

use super::arch::Arch;

/// One disassembled instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Insn {
    pub addr: u64,
    pub mnemonic: String,
    /// The operands as printed, without objdump's trailing `# ...` or `<sym+off>` comments.
    pub operands: String,
    /// The target of a direct branch (not of a call).
    pub target: Option<u64>,
}

/// One function of the disassembly.
#[derive(Debug, Clone)]
pub struct Function {
    /// The demangled name, with its `::h<hash>` and `(.llvm.N)` suffixes.
    pub name: String,
    pub insns: Vec<Insn>,
}

/// A loop body cut out of a function.
#[derive(Debug, Clone)]
pub struct Loop {
    pub function: String,
    /// The whole function: the RISC-V prepend looks before the loop for its `vsetvli`.
    pub function_insns: Vec<Insn>,
    /// Indices into `function_insns`: the body is `start..=end` (`end` is the back branch).
    pub start: usize,
    pub end: usize,
}

impl Loop {
    pub fn body(&self) -> &[Insn] {
        &self.function_insns[self.start..=self.end]
    }
}

/// Calls and address computations print a `<sym>` too; they are not loop branches.
const NOT_BRANCHES: &[&str] =
    &["call", "bl", "blr", "jal", "jalr", "adr", "adrp", "auipc", "lea", "la", "ret"];

/// Splits objdump's text into functions.
pub fn parse(text: &str) -> Vec<Function> {
    let mut out: Vec<Function> = Vec::new();
    for line in text.lines() {
        // `0000000000026b20 <name>:` opens a function.
        if let Some(rest) = line.strip_suffix(">:") {
            if let Some((addr, name)) = rest.split_once(" <")
                && u64::from_str_radix(addr.trim(), 16).is_ok()
            {
                out.push(Function { name: unescape(name), insns: Vec::new() });
            }
            continue;
        }
        let Some(f) = out.last_mut() else { continue };
        if let Some(insn) = parse_insn(line) {
            f.insns.push(insn);
        }
    }
    out
}

/// Undoes the escapes of Rust's legacy mangling that `llvm-objdump -C` leaves in place:
/// `_$LT$nabhash..portable..Portable$u20$as$u20$...$GT$::v1_compress` →
/// `<nabhash::portable::Portable as ...>::v1_compress`.
pub fn unescape(name: &str) -> String {
    if !name.contains('$') {
        return name.to_string();
    }
    let name = name.strip_prefix("_$").map_or(name.to_string(), |r| format!("${r}"));
    let mut s = name;
    for (from, to) in [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$u20$", " "),
        ("$RF$", "&"),
        ("$C$", ","),
        ("$BP$", "*"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u27$", "'"),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7e$", "~"),
        ("..", "::"),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// `   26a77:      \tja\t0x26b0e <sym+0x12e>` → the instruction.
fn parse_insn(line: &str) -> Option<Insn> {
    let (addr, rest) = line.split_once(':')?;
    let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
    let rest = rest.trim();
    if rest.is_empty() || rest.starts_with('<') {
        return None;
    }
    // objdump's comments: `# ymm0 = ...` (x86), `// =0x10` (aarch64).
    let rest = rest.split(" # ").next().unwrap_or(rest);
    let rest = rest.split("\t# ").next().unwrap_or(rest);
    let rest = rest.split(" //").next().unwrap_or(rest);
    let rest = rest.split("\t//").next().unwrap_or(rest).trim();
    let (mnemonic, operands) = match rest.split_once(['\t', ' ']) {
        Some((m, o)) => (m.trim(), o.trim()),
        None => (rest, ""),
    };
    let mut operands = operands.to_string();
    let mut target = None;
    if let Some(lt) = operands.find(" <") {
        let before = operands[..lt].trim_end();
        let last = before.rsplit([' ', ',']).next().unwrap_or("");
        if !NOT_BRANCHES.contains(&mnemonic) {
            target = last.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok());
        }
        operands = before.to_string();
    }
    Some(Insn { addr, mnemonic: mnemonic.to_string(), operands, target })
}

/// Whether `insn` works on vector registers.
pub fn is_vector(arch: Arch, insn: &Insn) -> bool {
    match arch {
        Arch::X86_64 => ["xmm", "ymm", "zmm"].iter().any(|r| insn.operands.contains(r)),
        Arch::Aarch64 => {
            insn.operands.split([',', ' ', '{', '}', '[']).any(|op| {
                let op = op.trim();
                (op.starts_with('v') || op.starts_with('z'))
                    && op[1..].split('.').next().is_some_and(|n| n.parse::<u8>().is_ok())
                    && op.contains('.')
                    || op.starts_with('q') && op[1..].parse::<u8>().is_ok()
            }) || insn.mnemonic.starts_with("aes")
        }
        Arch::Riscv64 => insn.mnemonic.starts_with('v') || insn.mnemonic.starts_with("aes64"),
    }
}

/// The hot loop among `functions`: the innermost loop with the most vector instructions
/// (holding every mnemonic of `must_hold`).
pub fn find_loop(arch: Arch, functions: &[&Function], must_hold: &[&str]) -> Option<Loop> {
    let mut best: Option<(bool, usize, usize, Loop)> = None;
    for f in functions {
        let loops: Vec<(usize, usize)> = f
            .insns
            .iter()
            .enumerate()
            .filter_map(|(end, i)| {
                let t = i.target?;
                if t > i.addr {
                    return None;
                }
                let start = f.insns.iter().position(|j| j.addr == t)?;
                Some((start, end))
            })
            .collect();
        for &(start, end) in &loops {
            let holds_another =
                loops.iter().any(|&(s, e)| (s, e) != (start, end) && s >= start && e <= end);
            let body = &f.insns[start..=end];
            // A backward branch to a shared return or tail block is no loop: such a region
            // returns, or jumps unconditionally before its last instruction.
            let unconditional = |i: &Insn| ["jmp", "b", "j"].contains(&i.mnemonic.as_str());
            if holds_another
                || !must_hold.iter().all(|m| body.iter().any(|i| i.mnemonic == *m))
                || body.iter().any(|i| i.mnemonic == "ret")
                || body[..body.len() - 1].iter().any(unconditional)
            {
                continue;
            }
            // The in-cache loop before a non-temporal one (memmove's loop past the cache
            // size): the model has no caches, and the bench rows it is checked against are
            // in-cache.
            let temporal = !body.iter().any(|i| is_non_temporal(&i.mnemonic));
            let vectors = body.iter().filter(|i| is_vector(arch, i)).count();
            let better = match &best {
                None => true,
                Some((t, v, n, _)) => (temporal, vectors, body.len()) > (*t, *v, *n),
            };
            if better {
                let l =
                    Loop { function: f.name.clone(), function_insns: f.insns.clone(), start, end };
                best = Some((temporal, vectors, body.len(), l));
            }
        }
    }
    best.map(|(_, _, _, l)| l)
}

/// A store that bypasses the caches: `movntdq`, `vmovntps`, aarch64's `stnp`.
fn is_non_temporal(m: &str) -> bool {
    m.starts_with("movnt") || m.starts_with("vmovnt") || m == "stnp"
}

/// The loop as assembly llvm-mca accepts: a label at the top, every branch to it.
pub fn to_asm(arch: Arch, body: &[Insn]) -> String {
    let mut s = String::from(".Lloop:\n");
    for i in body {
        let ops = if i.target.is_some() {
            // The branch target is the last operand; llvm-mca does not follow it.
            match i.operands.rsplit_once([' ', ',']) {
                Some((head, _)) => format!("{}, .Lloop", head.trim_end_matches([',', ' '])),
                None => ".Lloop".to_string(),
            }
        } else {
            i.operands.clone()
        };
        // x86 in Intel syntax: objdump's `ymmword ptr` forms are what llvm-mca parses.
        let _ = arch;
        if ops.is_empty() {
            s += &format!("\t{}\n", i.mnemonic);
        } else {
            s += &format!("\t{}\t{}\n", i.mnemonic, ops);
        }
    }
    s
}

/// For RISC-V: the loop with its governing `vsetvli`/`vsetivli` in front, unless the body sets
/// the vector type itself before its first vector instruction. Cut out without it, llvm-mca
/// assumes LMUL=8 and e8 for every vector instruction.
pub fn with_governing_vset(l: &Loop) -> Vec<Insn> {
    let body = l.body();
    let is_vset = |i: &Insn| i.mnemonic.starts_with("vset");
    let first_vector = body.iter().position(|i| i.mnemonic.starts_with('v') && !is_vset(i));
    let set_in_body = match first_vector {
        Some(fv) => body[..fv].iter().any(is_vset),
        None => true,
    };
    let mut out = Vec::new();
    if !set_in_body {
        // The last vset before the loop; or, for a rotated loop, the last one in the body.
        let before = l.function_insns[..l.start].iter().rev().find(|i| is_vset(i));
        if let Some(v) = before.or_else(|| body.iter().rev().find(|i| is_vset(i))) {
            out.push(v.clone());
        }
    }
    out.extend_from_slice(body);
    out
}

/// The governing vector type of a RISC-V body: (SEW in bits, LMUL) from its first vset.
pub fn vtype(body: &[Insn]) -> Option<(u32, f64)> {
    let v = body.iter().find(|i| i.mnemonic.starts_with("vset"))?;
    let mut sew = None;
    let mut lmul = None;
    for op in v.operands.split(',').map(str::trim) {
        if let Some(e) = op.strip_prefix('e') {
            sew = e.parse::<u32>().ok().or(sew);
        }
        if let Some(m) = op.strip_prefix("mf") {
            lmul = m.parse::<f64>().ok().map(|d| 1.0 / d);
        } else if let Some(m) = op.strip_prefix('m') {
            lmul = m.parse::<f64>().ok().or(lmul);
        }
    }
    Some((sew?, lmul?))
}
