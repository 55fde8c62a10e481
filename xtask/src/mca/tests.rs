//! The loop finder, the ISA check, the `vsetvli` prepend and the agreement check, on
//! checked-in objdump excerpts and a fixture record (`xtask/tests/data/mca/`).

use std::collections::BTreeMap;

use super::disasm::{self, Function};
use super::spec::{KERNELS, MODELS};
use super::*;

fn fixture(name: &str) -> String {
    let path = root().join("xtask/tests/data/mca").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn functions(name: &str) -> Vec<Function> {
    disasm::parse(&fixture(name))
}

fn model(cpu: &str) -> &'static Model {
    MODELS.iter().find(|m| m.cpu == cpu).unwrap()
}

fn kernel(name: &str) -> &'static spec::Kernel {
    KERNELS.iter().find(|k| k.name == name).unwrap()
}

#[test]
fn finds_the_avx2_encode_loop() {
    let fs = functions("x86_64-encode_avx2.objdump");
    assert_eq!(fs.len(), 1);
    assert!(matches(&fs[0].name, "b64::arch::x86_64::pshufb::encode_avx2"));
    let l = disasm::find_loop(Arch::X86_64, &[&fs[0]], &[]).expect("a loop");
    let body = l.body();
    // From `lea rax, [rdi + 0x18]` at 0x26a70 to the `jbe` back to it.
    assert_eq!(body.first().unwrap().addr, 0x26a70);
    assert_eq!(body.last().unwrap().mnemonic, "jbe");
    assert_eq!(body.iter().filter(|i| i.mnemonic == "vpshufb").count(), 5);
    // 32 output bytes per iteration (`add rcx, 0x20`).
    assert_eq!(bytes_per_iteration(Arch::X86_64, body, 256), Some(32));
    let asm = asm_for(Arch::X86_64, body);
    assert!(asm.starts_with(".intel_syntax noprefix\n.Lloop:\n"));
    assert!(asm.contains("\tjbe\t.Lloop\n"), "{asm}");
    assert!(asm.contains("\tja\t.Lloop\n"), "{asm}");
    assert!(!asm.contains('#') && !asm.contains('<'), "{asm}");
}

#[test]
fn skips_return_blocks_and_finds_the_aarch64_memchr_loop() {
    let fs = functions("aarch64-memops_memchr.objdump");
    let l = disasm::find_loop(Arch::Aarch64, &[&fs[0]], &[]).expect("a loop");
    let body = l.body();
    assert_eq!(body.first().unwrap().addr, 0x3079c);
    assert_eq!(body.iter().filter(|i| i.mnemonic == "cmeq").count(), 4);
    // `add x11, x9, #0x40` then `mov x9, x11`: 64 bytes per iteration.
    assert_eq!(bytes_per_iteration(Arch::Aarch64, body, 128), Some(64));
}

#[test]
fn unescapes_legacy_rust_names() {
    assert_eq!(
        disasm::unescape(
            "_$LT$nabhash..portable..Portable$u20$as$u20$nabhash..dispatch..Kernels$GT$::v1_compress::h0123456789abcdef"
        ),
        "<nabhash::portable::Portable as nabhash::dispatch::Kernels>::v1_compress::h0123456789abcdef"
    );
    assert_eq!(
        disasm::unescape("b64::encode::encode_long::h0123456789abcdef"),
        "b64::encode::encode_long::h0123456789abcdef"
    );
}

#[test]
fn refuses_a_vbmi_loop_on_cascadelake() {
    let body = vec![
        ("vpermb".to_string(), "zmm0, zmm1, zmmword ptr [rsi]".to_string()),
        ("vpaddb".to_string(), "zmm0, zmm0, zmm2".to_string()),
        ("add".to_string(), "rsi, 0x40".to_string()),
    ];
    let missing = isa::x86_missing("cascadelake", &body);
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert_eq!(missing[0].0, "avx512vbmi");
    assert!(isa::x86_missing("znver4", &body).is_empty());
    assert!(isa::x86_missing("icelake-server", &body).is_empty());
    // And through `prepare`, as a row would be refused.
    let insns: Vec<Insn> = body
        .iter()
        .enumerate()
        .map(|(k, (m, o))| Insn {
            addr: k as u64 * 4,
            mnemonic: m.clone(),
            operands: o.clone(),
            target: None,
        })
        .collect();
    let l = Loop { function: "f".into(), function_insns: insns, start: 0, end: 2 };
    let err = prepare(model("cascadelake"), &l).unwrap_err();
    assert!(err.contains("avx512vbmi") && err.contains("vpermb"), "{err}");
    assert!(prepare(model("znver4"), &l).is_ok());
    // VAES on ymm is refused too; AES-NI on xmm is not.
    assert!(isa::x86_needs("vaesenc", "ymm0, ymm0, ymm1").contains(&"vaes"));
    assert!(
        isa::x86_missing("cascadelake", &[("vaesenc".into(), "xmm0, xmm0, xmm1".into())])
            .is_empty()
    );
}

#[test]
fn the_dispatch_choice_follows_the_model() {
    let enc = kernel("b64 encode");
    let x86 = enc.ours.iter().find(|i| i.arch == Arch::X86_64).unwrap();
    assert_eq!(choose(model("znver4"), x86.backends).unwrap().name, "avx512vbmi");
    assert_eq!(choose(model("cascadelake"), x86.backends).unwrap().name, "avx512bw");
    let v1 = kernel("nabhash v1 bulk");
    let x86 = v1.ours.iter().find(|i| i.arch == Arch::X86_64).unwrap();
    assert_eq!(choose(model("cascadelake"), x86.backends).unwrap().name, "aesni");
    let v2 = kernel("nabhash v2 bulk");
    let x86 = v2.ours.iter().find(|i| i.arch == Arch::X86_64).unwrap();
    assert_eq!(choose(model("cascadelake"), x86.backends).unwrap().name, "aesni-avx512");
    assert_eq!(choose(model("znver4"), x86.backends).unwrap().name, "vaes512");
    let rv = v1.ours.iter().find(|i| i.arch == Arch::Riscv64).unwrap();
    assert_eq!(choose(model("sifive-p670"), rv.backends).unwrap().name, "portable");
}

#[test]
fn prepends_the_governing_vsetvli() {
    // A loop cut out of b64_rvv_encode, from its first vector load on: the vsetvli that sets
    // e8/m1 for `vlseg3e8.v` is above it.
    let fs = functions("riscv64-b64_rvv_encode.objdump");
    let f = &fs[0];
    let start = f.insns.iter().position(|i| i.mnemonic == "vlseg3e8.v").unwrap();
    let end = f.insns.iter().position(|i| i.mnemonic == "j").unwrap();
    let l = Loop { function: f.name.clone(), function_insns: f.insns.clone(), start, end };
    let body = disasm::with_governing_vset(&l);
    assert_eq!(body[0].mnemonic, "vsetvli");
    assert_eq!(body[0].operands, "t0, t1, e8, m1, ta, ma");
    assert_eq!(body.len(), end - start + 2);
    // The whole loop (from its exit test `beqz`) sets its own vtype before its first vector
    // instruction: nothing is prepended.
    let whole = disasm::find_loop(Arch::Riscv64, &[f], &[]).expect("a loop");
    assert_eq!(whole.body()[0].mnemonic, "beqz");
    assert_eq!(whole.body()[1].mnemonic, "vsetvli");
    assert_eq!(disasm::with_governing_vset(&whole).len(), whole.body().len());
    // vl = VLEN/8 bytes at e8/m1: 3 vectors in, 4 out per iteration.
    assert_eq!(bytes_per_iteration(Arch::Riscv64, whole.body(), 128), Some(64));
    assert_eq!(bytes_per_iteration(Arch::Riscv64, whole.body(), 512), Some(256));
    assert_eq!(disasm::vtype(&body), Some((8, 1.0)));
}

#[test]
fn reads_llvm_mca_reports() {
    let text = "Iterations:        200\nInstructions:      2000\nTotal Cycles:      1003\n\
        Total uOps:        2000\n\nDispatch Width:    6\nuOps Per Cycle:    1.99\n\n\
        Cycles with backend pressure increase [ 80.00% ]\nThroughput Bottlenecks: \n  \
        Resource Pressure       [ 80.00% ]\n  Data Dependencies:      [ 10.00% ]\n\n\
        Resources:\n[0]   - Zn4ALU0\n[1]   - Zn4FP0\n\nResource pressure per iteration:\n\
        [0]    [1]    \n1.00   5.00   \n";
    let r = parse_mca(text).unwrap();
    assert!((r.cycles_per_iteration() - 5.015).abs() < 1e-9);
    assert_eq!(r.bottleneck(), "resource Zn4FP0 (5.00/it)");
}

#[test]
fn agreement_with_a_fixture_record_and_without_one() {
    let rec = crate::bench::record::from_jsonl(&fixture("record-fixture.jsonl")).unwrap();
    // The two in-cache rows (4 and 64 KiB), not the 1 MiB one: ours/peer = 0.5.
    let enc = kernel("b64 encode");
    assert!((measured_ratio(&rec, enc).unwrap() - 0.5).abs() < 1e-9);
    assert!((measured_ratio(&rec, kernel("memops find_byte bulk")).unwrap() - 1.1).abs() < 1e-9);
    assert_eq!(measured_ratio(&rec, kernel("nabhash v1 bulk")), None);
    assert_eq!((direction(0.5), direction(1.02), direction(1.1)), (-1, 0, 1));

    let m = |c: f64| Ok(modelled(c, "f", &[]));
    let rows = vec![
        Row { kernel: enc, model: model("znver4"), ours: m(1.0), peer: Some(m(4.0)) },
        Row {
            kernel: kernel("memops find_byte bulk"),
            model: model("znver4"),
            ours: m(1.0),
            peer: Some(m(2.0)),
        },
    ];
    let mut records = BTreeMap::new();
    let none = markdown(&rows, &records);
    assert!(none.contains("records present: none"), "{none}");
    records.insert("amd-zen4".to_string(), rec);
    let md = markdown(&rows, &records);
    assert!(md.starts_with("## Modelled CPUs\n"));
    assert!(md.contains("1 of 2 agree in direction"), "{md}");
    assert!(
        md.contains("| b64 encode | base64-simd | znver4 (amd-zen4) | 0.25 | 0.50 | -50 % | yes |"),
        "{md}"
    );
}

fn insns(arch_ops: &[(&str, &str)]) -> Vec<Insn> {
    arch_ops
        .iter()
        .enumerate()
        .map(|(k, (m, o))| Insn {
            addr: k as u64 * 4,
            mnemonic: m.to_string(),
            operands: o.to_string(),
            target: None,
        })
        .collect()
}

#[test]
fn follows_induction_registers() {
    // memops' AVX-512 memmove: `lea r8, [rcx + 0x100]` … `mov rcx, r8`; the `add rcx, 0x140`
    // in between is an end check on a value `mov` then replaces.
    let body = insns(&[
        ("lea", "r8, [rdi + rcx]"),
        ("vmovups", "zmm5, zmmword ptr [rsi + rcx + 0x40]"),
        ("lea", "r8, [rcx + 0x100]"),
        ("add", "rcx, 0x140"),
        ("cmp", "rcx, rax"),
        ("mov", "rcx, r8"),
    ]);
    assert_eq!(bytes_per_iteration(Arch::X86_64, &body, 512), Some(256));
    // xxh3's stripe loop: `add rdx, 0x8` indexing `[rax + 8*rdx]`: 64 bytes.
    let body = insns(&[("movdqu", "xmm4, xmmword ptr [rax + 8*rdx - 0x30]"), ("add", "rdx, 0x8")]);
    assert_eq!(bytes_per_iteration(Arch::X86_64, &body, 128), Some(64));
    // A 32-bit write clobbers the 64-bit register: no advance.
    let body = insns(&[("add", "rcx, 0x40"), ("vpmovmskb", "ecx, ymm5")]);
    assert_eq!(bytes_per_iteration(Arch::X86_64, &body, 256), None);
    // aarch64 post-index and riscv addi.
    let body = insns(&[("ldp", "q16, q17, [x0], #0x20"), ("subs", "x2, x2, #0x20")]);
    assert_eq!(bytes_per_iteration(Arch::Aarch64, &body, 128), Some(32));
    let body = insns(&[("ld", "a4, 0x0(a3)"), ("addi", "a3, a3, 0x40"), ("bne", "a3, a5, 0x0")]);
    assert_eq!(bytes_per_iteration(Arch::Riscv64, &body, 128), Some(64));
}

#[test]
fn refuses_vbmi2_and_ifma_where_missing() {
    let compress = vec![("vpcompressb".to_string(), "zmmword ptr [rdi] {k1}, zmm0".to_string())];
    assert_eq!(isa::x86_missing("cascadelake", &compress)[0].0, "avx512vbmi2");
    assert!(isa::x86_missing("znver4", &compress).is_empty());
    let ifma = vec![("vpmadd52luq".to_string(), "zmm0, zmm1, zmm2".to_string())];
    assert_eq!(isa::x86_missing("cascadelake", &ifma)[0].0, "avx512ifma");
}

fn modelled(cycles_per_64: f64, function: &str, text: &[&str]) -> Modelled {
    Modelled {
        backend: "x",
        cycles_per_64,
        bottleneck: "b".into(),
        function: function.into(),
        text: text.iter().map(|t| t.to_string()).collect(),
    }
}

#[test]
fn known_errors_only_where_they_apply() {
    let row = |k: &str, cpu: &str, text: &[&str]| Row {
        kernel: kernel(k),
        model: model(cpu),
        ours: Ok(modelled(1.0, "f", text)),
        peer: None,
    };
    // znver4's `vpcompressb` error: only for a loop that has one.
    let with =
        known_errors(&row("b64 encode", "znver4", &["vpcompressb zmmword ptr [rdi] {k1}, zmm0"]));
    assert!(with.contains("vpcompressb"), "{with}");
    assert_eq!(known_errors(&row("b64 encode", "znver4", &["vpshufb ymm0, ymm1, ymm2"])), "—");
    // The 512-bit notes: only for zmm loops.
    assert_eq!(known_errors(&row("b64 encode", "cascadelake", &["vpshufb ymm0, ymm1, ymm2"])), "—");
    assert!(
        known_errors(&row("b64 encode", "cascadelake", &["vpshufb zmm0, zmm1, zmm2"]))
            .contains("licence")
    );
    // A kernel's note on the models it names only.
    let find = "memops find_byte bulk";
    assert!(known_errors(&row(find, "znver4", &["vpmovmskb ecx, ymm1"])).contains("artifact"));
    assert_eq!(known_errors(&row(find, "neoverse-n1", &["umaxv b0, v0.16b"])), "—");
}

#[test]
fn ntt_rows_are_per_butterfly() {
    let k = kernel("bignum-fib NTT butterfly");
    let units = k.units_in_64.expect("a butterfly count");
    // The fused radix-4 `stage2`: 4 butterflies per coefficient of one 64-byte stream.
    assert_eq!(units("bignum_fib::arch::ntt::fma512::stage2::h0123456789abcdef"), 32.0);
    assert_eq!(units("bignum_fib::arch::ntt::fma::Fma::stage"), 8.0);
    let rows = vec![Row {
        kernel: k,
        model: model("znver4"),
        ours: Ok(modelled(32.0, "x::stage2", &[])),
        peer: None,
    }];
    let md = markdown(&rows, &BTreeMap::new());
    assert!(
        md.contains("| bignum-fib NTT butterfly (per butterfly) | znver4 | 1.00 (x) |"),
        "{md}"
    );
}

#[test]
fn adox_chains_are_split_from_adcx() {
    let body = insns(&[
        ("mulx", "rbp, rbx, qword ptr [r11 + 8*rcx]"),
        ("adox", "rbx, r15"),
        ("adcx", "rbx, qword ptr [r10 + 8*rcx]"),
        ("adox", "rax, qword ptr [r9]"),
    ]);
    let split = split_flag_chains(&body);
    assert_eq!(
        (split[1].mnemonic.as_str(), split[1].operands.as_str()),
        ("lea", "rbx, [rbx + r15]")
    );
    assert_eq!(split[2].mnemonic, "adcx");
    // A memory operand cannot be a `lea`: kept.
    assert_eq!(split[3].mnemonic, "adox");
    // Without an ADCX chain, nothing to split.
    assert_eq!(split_flag_chains(&body[..2])[1].mnemonic, "adox");
}

#[test]
fn a_count_register_is_no_pointer() {
    // glibc's `__memmove_avx512_unaligned_erms` loop: 256 bytes an iteration, with a count
    // register that a 32-bit immediate decrements.
    let body = insns(&[
        ("vmovdqu64", "zmm16, zmmword ptr [rsi]"),
        ("sub", "rsi, -0x100"),
        ("add", "edx, 0xffffff00"),
        ("vmovdqa64", "zmmword ptr [rdi], zmm16"),
        ("sub", "rdi, -0x100"),
        ("cmp", "edx, 0x100"),
        ("ja", "0x0"),
    ]);
    assert_eq!(bytes_per_iteration(Arch::X86_64, &body, 512), Some(256));
}
