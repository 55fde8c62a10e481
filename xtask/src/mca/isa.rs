//! The ISA extensions of each modelled CPU, and of the x86 instructions our loops and the
//! peers' use. llvm-mca does not check the ISA of an x86 `-mcpu` (with `cascadelake` it times
//! `vpermb`, which that CPU lacks), so the loop is checked here first; on aarch64 and RISC-V
//! the assembler of the `-mcpu` refuses such an instruction itself, and that refusal is the
//! check.

/// An x86 extension, by the name `/proc/cpuinfo` and the Intel SDM give it.
pub type Ext = &'static str;

const X86_64_V3: &[Ext] = &[
    "sse2", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2", "lzcnt",
    "movbe", "aes", "pclmul", "adx",
];
const SKX: &[Ext] = &["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"];
const ICX: &[Ext] = &[
    "avx512vbmi",
    "avx512vbmi2",
    "avx512ifma",
    "avx512vnni",
    "avx512bitalg",
    "avx512vpopcntdq",
    "vaes",
    "vpclmulqdq",
    "gfni",
];

/// The extensions of an x86 `-mcpu` model: the Intel SDM's and AMD's feature lists of the CPU
/// (the same sets LLVM's X86.td gives the `-mcpu`).
pub fn x86_extensions(cpu: &str) -> Vec<Ext> {
    let mut v: Vec<Ext> = X86_64_V3.to_vec();
    match cpu {
        "cascadelake" => {
            v.extend(SKX);
            v.push("avx512vnni");
        }
        "icelake-server" | "sapphirerapids" | "znver4" | "znver5" => {
            v.extend(SKX);
            v.extend(ICX);
        }
        _ => {}
    }
    v
}

/// The extension an x86 instruction (Intel syntax, as objdump prints it) needs beyond SSE2,
/// for the instructions of the modelled loops; `None`: baseline. Operands matter: `vpshufb`
/// is AVX2 on ymm and AVX512BW on zmm, `vaesenc` is AES on xmm and VAES on ymm/zmm.
pub fn x86_needs(mnemonic: &str, operands: &str) -> Vec<Ext> {
    let zmm = operands.contains("zmm");
    let ymm = operands.contains("ymm");
    let kreg = operands
        .split([',', ' ', '{', '}'])
        .any(|o| o.len() == 2 && o.starts_with('k') && o[1..].parse::<u8>().is_ok());
    let mut needs: Vec<Ext> = Vec::new();
    let m = mnemonic;
    let table: &[(&[&str], Ext)] = &[
        (&["vpermb", "vpermt2b", "vpermi2b", "vpmultishiftqb"], "avx512vbmi"),
        (
            &[
                "vpcompressb",
                "vpcompressw",
                "vpexpandb",
                "vpexpandw",
                "vpshldq",
                "vpshldd",
                "vpshldw",
                "vpshrdq",
                "vpshrdd",
                "vpshrdw",
                "vpshldvq",
                "vpshldvd",
                "vpshldvw",
                "vpshrdvq",
                "vpshrdvd",
                "vpshrdvw",
            ],
            "avx512vbmi2",
        ),
        (&["vpmadd52luq", "vpmadd52huq"], "avx512ifma"),
        (&["vpdpbusd", "vpdpbusds", "vpdpwssd", "vpdpwssds"], "avx512vnni"),
        (&["vgf2p8affineqb", "vgf2p8affineinvqb", "vgf2p8mulb", "gf2p8affineqb"], "gfni"),
        (&["vpopcntb", "vpopcntw", "vpshufbitqmb"], "avx512bitalg"),
        (&["vpopcntd", "vpopcntq"], "avx512vpopcntdq"),
        (&["mulx", "rorx", "sarx", "shlx", "shrx", "bzhi", "pdep", "pext"], "bmi2"),
        (&["andn", "blsr", "blsi", "blsmsk", "tzcnt", "bextr"], "bmi1"),
        (&["adox", "adcx"], "adx"),
        (&["lzcnt"], "lzcnt"),
        (&["popcnt"], "popcnt"),
        (
            &["pshufb", "palignr", "pmaddubsw", "pmulhrsw", "phaddw", "phaddd", "pabsb", "psignb"],
            "ssse3",
        ),
        (
            &[
                "pblendvb", "pblendw", "ptest", "pminub", "pmovzxbw", "pextrb", "pinsrb", "pinsrd",
                "pinsrq", "pextrq", "pmulld", "pcmpeqq", "packusdw",
            ],
            "sse4.1",
        ),
        (&["aesenc", "aesenclast", "aesdec", "aesdeclast", "aesimc", "aeskeygenassist"], "aes"),
        (&["pclmulqdq"], "pclmul"),
    ];
    for (names, ext) in table {
        if names.contains(&m) {
            needs.push(ext);
        }
    }
    if let Some(base) = m.strip_prefix('v') {
        // VEX forms of the SSE instructions: their SSE extension plus AVX/AVX2.
        for (names, ext) in table {
            if names.contains(&base) && !["aes", "pclmul"].contains(ext) {
                needs.push(ext);
            }
        }
        if ["aesenc", "aesenclast", "aesdec", "aesdeclast"].contains(&base) {
            needs.push(if ymm || zmm { "vaes" } else { "aes" });
        }
        if base == "pclmulqdq" {
            needs.push(if ymm || zmm { "vpclmulqdq" } else { "pclmul" });
        }
        if base.starts_with("fmadd")
            || base.starts_with("fnmadd")
            || base.starts_with("fmsub")
            || base.starts_with("fnmsub")
        {
            needs.push("fma");
        }
        needs.push(if ymm && !m.starts_with("vf") && !is_avx1_ymm(m) { "avx2" } else { "avx" });
    }
    let evex_only = [
        "vmovdqu8",
        "vmovdqu16",
        "vmovdqu32",
        "vmovdqu64",
        "vmovdqa32",
        "vmovdqa64",
        "vpternlogd",
        "vpternlogq",
        "vpermt2d",
        "vpermt2q",
        "vpermi2d",
        "vpermi2q",
        "vpcompressd",
        "vpcompressq",
        "vpbroadcastmb2q",
        "vpmovb2m",
        "vpmovm2b",
        "vptestmb",
        "vptestnmb",
        "vpcmpub",
        "vpcmpb",
        "vpcmpuw",
        "vpcmpw",
        "vpcmpud",
        "vpcmpd",
        "vprolq",
        "vprold",
        "vprorq",
        "vprord",
        "vpsravw",
        "vpsllvw",
        "vpsrlvw",
        "vpermw",
        "vpmovwb",
        "vpmovdb",
        "vpmovqb",
        "vpandq",
        "vpandd",
        "vporq",
        "vpord",
        "vpxorq",
        "vpxord",
    ];
    let byte_word = [
        "vmovdqu8",
        "vmovdqu16",
        "vpcmpub",
        "vpcmpb",
        "vpcmpuw",
        "vpcmpw",
        "vpermw",
        "vpmovb2m",
        "vpmovm2b",
        "vptestmb",
        "vptestnmb",
        "vpsravw",
        "vpsllvw",
        "vpsrlvw",
        "vpmovwb",
    ];
    if zmm || kreg || evex_only.contains(&m) || m.starts_with('k') {
        needs.push("avx512f");
        let bytes = byte_word.contains(&m)
            || (zmm
                && [
                    "vpshufb",
                    "vpaddb",
                    "vpsubb",
                    "vpcmpeqb",
                    "vpminub",
                    "vpmaxub",
                    "vpaddusb",
                    "vpsubusb",
                    "vpmulhuw",
                    "vpmullw",
                    "vpmaddubsw",
                    "vpmaddwd",
                    "vpsllw",
                    "vpsrlw",
                    "vpblendmb",
                    "vpbroadcastb",
                    "vpbroadcastw",
                    "vpalignr",
                    "vpunpcklbw",
                    "vpackuswb",
                ]
                .contains(&m))
            || [
                "kmovq", "kmovd", "kortestq", "kortestd", "kandq", "korq", "kxorq", "knotq",
                "kshiftrq", "kshiftlq", "kunpckdq", "ktestq",
            ]
            .contains(&m);
        if bytes {
            needs.push("avx512bw");
        }
        if !zmm && (ymm || operands.contains("xmm")) && !m.starts_with('k') {
            needs.push("avx512vl");
        }
    }
    needs.sort();
    needs.dedup();
    needs
}

/// AVX (not AVX2) instructions on ymm: floating point, moves and 128-bit lane inserts.
fn is_avx1_ymm(m: &str) -> bool {
    m.ends_with("ps") && !m.starts_with("vp")
        || m.ends_with("pd") && !m.starts_with("vp")
        || [
            "vmovdqu",
            "vmovdqa",
            "vinsertf128",
            "vextractf128",
            "vbroadcastss",
            "vbroadcastsd",
            "vperm2f128",
            "vzeroupper",
            "vptest",
            "vlddqu",
            "vmovntdq",
            "vbroadcastf128",
        ]
        .contains(&m)
}

/// The extensions a loop's instructions need that `cpu` lacks, each with an instruction that
/// needs it (for the refusal's message).
pub fn x86_missing(cpu: &str, body: &[(String, String)]) -> Vec<(Ext, String)> {
    let has = x86_extensions(cpu);
    let mut missing: Vec<(Ext, String)> = Vec::new();
    for (m, ops) in body {
        for ext in x86_needs(m, ops) {
            if !has.contains(&ext) && !missing.iter().any(|(e, _)| *e == ext) {
                missing.push((ext, format!("{m} {ops}")));
            }
        }
    }
    missing
}
