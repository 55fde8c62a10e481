//! What `cargo xtask mca` models: the CPU models per architecture and, per kernel, the
//! backends of ours and of the peer in dispatch order, each with the extensions it needs and
//! the functions its hot loop may sit in (a kernel inlined into its caller is found there).

use super::arch::Arch;

/// One llvm-mca CPU model.
pub struct Model {
    pub arch: Arch,
    /// `-mcpu`.
    pub cpu: &'static str,
    /// `-mattr`: what the CPU has beyond what LLVM's `-mcpu` gives it (neoverse-v2 has AES,
    /// but `-mcpu=neoverse-v2` alone refuses `aese`).
    pub mattr: &'static str,
    /// Extensions for the dispatch choice on aarch64 and RISC-V (x86: `isa::x86_extensions`).
    pub exts: &'static [&'static str],
    /// The vector register width in bits (RISC-V: bytes per iteration follow from it).
    pub vlen: u32,
    /// The slug of this CPU's bench record (`benches/results/<slug>.jsonl`), if it has one.
    pub slug: &'static str,
    /// The model's known errors, printed beside its rows.
    pub known_errors: &'static str,
    /// Text (a mnemonic, a register name) whose presence in a row's loop, ours or the peer's,
    /// makes [`Model::known_errors`] apply to the row; empty: every row.
    pub errors_when: &'static [&'static str],
}

pub const MODELS: &[Model] = &[
    Model {
        arch: Arch::X86_64,
        cpu: "znver4",
        mattr: "",
        exts: &[],
        vlen: 512,
        slug: "amd-zen4",
        known_errors: "times `vpcompressb` to memory as cheap; Zen 4 is widely reported to microcode it",
        errors_when: &["vpcompressb"],
    },
    Model {
        arch: Arch::X86_64,
        cpu: "znver5",
        mattr: "",
        exts: &[],
        vlen: 512,
        slug: "amd-zen5",
        known_errors: "LLVM 19 schedules znver5 with the Zen 4 model (Zen 5's full-width 512-bit datapath is not modelled)",
        errors_when: &["zmm"],
    },
    Model {
        arch: Arch::X86_64,
        cpu: "cascadelake",
        mattr: "",
        exts: &[],
        vlen: 512,
        slug: "intel-cascadelake",
        known_errors: "no licence-based down-clocking of 512-bit code (Skylake-SP class parts drop frequency under heavy 512-bit work, which is why glibc prefers 256-bit loops there)",
        errors_when: &["zmm"],
    },
    Model {
        arch: Arch::X86_64,
        cpu: "icelake-server",
        mattr: "",
        exts: &[],
        vlen: 512,
        slug: "intel-icelakex",
        known_errors: "no licence-based down-clocking of 512-bit code",
        errors_when: &["zmm"],
    },
    Model {
        arch: Arch::X86_64,
        cpu: "sapphirerapids",
        mattr: "",
        exts: &[],
        vlen: 512,
        slug: "intel-sapphirerapids",
        known_errors: "no licence-based down-clocking of 512-bit code",
        errors_when: &["zmm"],
    },
    Model {
        arch: Arch::Aarch64,
        cpu: "neoverse-n1",
        mattr: "+aes,+sha2,+crc",
        exts: &["neon", "aes"],
        vlen: 128,
        slug: "arm-neoverse-n1",
        known_errors: "AES pairs (`aese`+`aesmc`) fuse on the CPU; the model times them apart",
        errors_when: &["aese", "aesd"],
    },
    Model {
        arch: Arch::Aarch64,
        cpu: "neoverse-v2",
        mattr: "+aes,+sha2,+sha3,+crc",
        exts: &["neon", "aes", "sve2"],
        vlen: 128,
        slug: "arm-neoverse-v2",
        known_errors: "`-mcpu=neoverse-v2` refuses `aese` without `-mattr=+aes`; AES fusion not modelled",
        errors_when: &["aese", "aesd"],
    },
    Model {
        arch: Arch::Riscv64,
        cpu: "sifive-p670",
        mattr: "",
        exts: &["v"],
        vlen: 128,
        slug: "",
        known_errors: "vector cost by LMUL of the governing `vsetvli`, not by vl; `vrgather` at LMUL>1 as LMUL² per the model",
        errors_when: &[],
    },
    Model {
        arch: Arch::Riscv64,
        cpu: "sifive-x280",
        mattr: "",
        exts: &["v"],
        vlen: 512,
        slug: "",
        known_errors: "in-order core: llvm-mca's out-of-order dispatch overstates overlap",
        errors_when: &[],
    },
];

/// One implementation of a kernel on one architecture: its backends in dispatch order.
pub struct Impl {
    pub arch: Arch,
    pub backends: &'static [Backend],
}

/// A backend: a name, the extensions the dispatch requires, where its loop is.
pub struct Backend {
    pub name: &'static str,
    pub needs: &'static [&'static str],
    /// Demangled function names without their hash; a trailing `*` matches a prefix.
    pub symbols: &'static [&'static str],
    /// Mnemonics the loop must hold, for a scalar loop among others in its function (the
    /// limb loops: `mulx`, `adox`).
    pub loop_has: &'static [&'static str],
}

/// A kernel: ours and (if it has one) the peer, with the bench rows they match.
pub struct Kernel {
    pub name: &'static str,
    /// The unit the row's figure is per: 64 bytes of the kernel's larger stream, or what
    /// [`Kernel::units_in_64`] counts.
    pub unit: &'static str,
    /// How many units 64 bytes of the larger stream hold, from the name of the function the
    /// loop was found in; `None`: the unit is the 64 bytes.
    pub units_in_64: Option<fn(&str) -> f64>,
    pub peer: &'static str,
    pub ours: &'static [Impl],
    pub peers: &'static [Impl],
    /// Errors of the models in this kernel's loops, beside each model's own.
    pub note: &'static str,
    /// The `-mcpu` models [`Kernel::note`] is about; empty: every model of the kernel.
    pub note_cpus: &'static [&'static str],
    /// The bench group and the `impl` names of ours and the peer in it (agreement check).
    pub group: &'static str,
    pub ours_row: &'static str,
    pub peer_row: &'static str,
}

/// Butterflies per 64 bytes of one of an NTT stage loop's coefficient streams (8 coefficients
/// of 8 bytes): the radix-2 `stage` does one butterfly per coefficient of its first half; the
/// fused `stage2` (two radix-2 stages over four streams) four per coefficient of one stream.
fn ntt_butterflies_in_64(function: &str) -> f64 {
    if function.contains("stage2") { 32.0 } else { 8.0 }
}

const fn b(
    name: &'static str,
    needs: &'static [&'static str],
    symbols: &'static [&'static str],
) -> Backend {
    Backend { name, needs, symbols, loop_has: &[] }
}

/// A backend whose loop is the one holding `loop_has`.
const fn with_loop(
    name: &'static str,
    needs: &'static [&'static str],
    symbols: &'static [&'static str],
    loop_has: &'static [&'static str],
) -> Backend {
    Backend { name, needs, symbols, loop_has }
}

const VBMI: &[&str] = &["avx512f", "avx512bw", "avx512vl", "avx512vbmi", "bmi2"];
const BW: &[&str] = &["avx512f", "avx512bw"];
const AVX2: &[&str] = &["avx2"];
const SSSE3: &[&str] = &["ssse3"];
const NONE: &[&str] = &[];
/// simdutf's x86 kernels (its `implementation::required_instruction_sets`).
const SIMDUTF_ICELAKE: &[&str] =
    &["avx512f", "avx512bw", "avx512vl", "avx512vbmi2", "avx512vpopcntdq", "bmi2"];
const SIMDUTF_HASWELL: &[&str] = &["avx2", "bmi1", "bmi2", "pclmul"];
const SIMDUTF_WESTMERE: &[&str] = &["sse4.2", "pclmul"];
/// memops: `AVX512_NEEDS` and `AVX2_NEEDS` in crates/memops/src/arch/x86_64.rs.
const MEMOPS_512: &[&str] = &["avx2", "popcnt", "bmi1", "avx512f", "avx512bw", "avx512vl", "bmi2"];
const MEMOPS_AVX2: &[&str] = &["avx2", "popcnt", "bmi1"];

/// nabhash v2's backends, modelled against two peers.
const V2_OURS: &[Impl] = &[
    Impl {
        arch: Arch::X86_64,
        backends: &[
            b(
                "vaes512",
                &["vaes", "avx512f", "avx512bw"],
                &["nabhash::arch::x86_64::vaes::v2_long_vaes512"],
            ),
            b(
                "aesni-avx512",
                &["aes", "avx2", "avx512f", "avx512vl", "avx512bw", "bmi2"],
                &["nabhash::arch::x86_64::aesni_avx2::v2_long_aesni_avx512"],
            ),
            b(
                "aesni-avx2",
                &["aes", "avx2"],
                &["nabhash::arch::x86_64::aesni_avx2::v2_long_aesni_avx2"],
            ),
            b("aesni", &["aes", "ssse3"], &["nabhash::arch::x86_64::aesni::v2_long_aesni"]),
        ],
    },
    Impl {
        arch: Arch::Aarch64,
        backends: &[b(
            "aes",
            &["aes"],
            &[
                "nabhash::arch::aarch64::aes::v2_absorb_aes",
                "nabhash::v2::*",
                "mca_probe::probe_nabhash_v2",
            ],
        )],
    },
    Impl {
        arch: Arch::Riscv64,
        backends: &[
            b(
                "zkne",
                &["zkne"],
                &[
                    "<nabhash::arch::riscv64::zkne::Zkne as nabhash::kernels::Kernels>::v2_absorb",
                    "nabhash::v2::hash_long",
                ],
            ),
            b(
                "portable",
                NONE,
                &[
                    "<nabhash::portable::Portable as nabhash::kernels::Kernels>::v2_absorb",
                    "nabhash::v2::*",
                    "mca_probe::probe_nabhash_v2",
                ],
            ),
        ],
    },
];

/// b64 encode's backends, modelled against two peers.
const B64_ENCODE_OURS: &[Impl] = &[
    Impl {
        arch: Arch::X86_64,
        backends: &[
            b("avx512vbmi", VBMI, &["b64::arch::x86_64::avx512vbmi::encode_all_avx512vbmi"]),
            b("avx512bw", BW, &["b64::arch::x86_64::avx512bw::encode_runs_avx512bw"]),
            b(
                "avx2",
                AVX2,
                &[
                    "<b64::arch::x86_64::pshufb::Avx2 as b64::arch::x86_64::pshufb::Pshufb>::encode_all",
                    "<b64::arch::x86_64::pshufb::Avx2 as b64::arch::x86_64::pshufb::Pshufb>::encode_lookup",
                ],
            ),
            b(
                "ssse3",
                SSSE3,
                &[
                    "<b64::arch::x86_64::pshufb::Ssse3 as b64::arch::x86_64::pshufb::Pshufb>::encode_all",
                    "<b64::arch::x86_64::pshufb::Ssse3 as b64::arch::x86_64::pshufb::Pshufb>::encode_lookup",
                ],
            ),
        ],
    },
    Impl {
        arch: Arch::Aarch64,
        backends: &[b("neon", NONE, &["b64::encode::encode_long", "mca_probe::probe_b64_encode"])],
    },
    Impl { arch: Arch::Riscv64, backends: &[b("rvv", &["v"], &["b64_rvv_encode"])] },
];

/// b64 decode's backends, modelled against two peers.
const B64_DECODE_OURS: &[Impl] = &[
    Impl {
        arch: Arch::X86_64,
        backends: &[
            b(
                "avx512vbmi",
                VBMI,
                &[
                    "b64::arch::x86_64::avx512vbmi::decode_blocks_avx512vbmi",
                    "b64::arch::x86_64::avx512vbmi::decode_avx512vbmi",
                ],
            ),
            // `Avx512Bw`'s bulk loop; the AVX2 kernel does the rest of a text.
            b("avx512bw", BW, &["b64::arch::x86_64::avx512bw::decode_blocks_avx512bw"]),
            b(
                "avx2",
                AVX2,
                &[
                    "<b64::arch::x86_64::pshufb::Avx2 as b64::arch::x86_64::pshufb::Pshufb>::decode_nibbles",
                    "<b64::arch::x86_64::pshufb::Avx2 as b64::arch::x86_64::pshufb::Pshufb>::decode_rows",
                ],
            ),
            b(
                "ssse3",
                SSSE3,
                &[
                    "<b64::arch::x86_64::pshufb::Ssse3 as b64::arch::x86_64::pshufb::Pshufb>::decode_nibbles",
                    "<b64::arch::x86_64::pshufb::Ssse3 as b64::arch::x86_64::pshufb::Pshufb>::decode_rows",
                ],
            ),
        ],
    },
    Impl {
        arch: Arch::Aarch64,
        backends: &[b(
            "neon",
            NONE,
            &[
                "b64::decode::decode_split",
                "b64::portable::decode_bulk",
                "mca_probe::probe_b64_decode",
            ],
        )],
    },
    Impl { arch: Arch::Riscv64, backends: &[b("rvv", &["v"], &["b64_rvv_decode"])] },
];

/// The glibc variants `cargo xtask mca` disassembles (`glibc::<name>` in the specs).
pub const GLIBC_VARIANTS: &[&str] = &[
    "__memmove_avx512_unaligned_erms",
    "__memmove_evex_unaligned_erms",
    "__memmove_avx_unaligned_erms",
    "__memmove_sse2_unaligned_erms",
    "__memchr_evex",
    "__memchr_avx2",
    "__memchr_sse2",
];

/// glibc 2.36's x86 choice (`sysdeps/x86/cpu-features.c`, `ifunc-memmove.h`): the 512-bit
/// variant where AVX512F is usable and `Prefer_No_AVX512` is not set (it is set on Intel CPUs
/// without AVX-VNNI: Skylake-SP to Ice Lake-SP; `glibc-avx512` stands for its absence), the
/// 256-bit EVEX one with AVX512VL, then AVX, then SSE2.
const GLIBC_MEMMOVE: &[Backend] = &[
    b("avx512", &["avx512f", "glibc-avx512"], &["glibc::__memmove_avx512_unaligned_erms"]),
    b("evex", &["avx512vl"], &["glibc::__memmove_evex_unaligned_erms"]),
    b("avx", &["avx"], &["glibc::__memmove_avx_unaligned_erms"]),
    b("sse2", NONE, &["glibc::__memmove_sse2_unaligned_erms"]),
];
/// glibc 2.36's memchr (`ifunc-evex.h`): EVEX with AVX512VL/BW and BMI2, AVX2, SSE2.
const GLIBC_MEMCHR: &[Backend] = &[
    b("evex", &["avx512vl", "avx512bw", "bmi2"], &["glibc::__memchr_evex"]),
    b("avx2", &["avx2", "bmi2"], &["glibc::__memchr_avx2"]),
    b("sse2", NONE, &["glibc::__memchr_sse2"]),
];

/// memops find_byte's backends, modelled against two peers.
const FIND_BYTE_OURS: &[Impl] = &[
    Impl {
        arch: Arch::X86_64,
        backends: &[
            // The AVX-512 backend searches with AVX2's `memchr` (crates/memops/src/arch/x86_64.rs).
            b("avx512(avx2)", MEMOPS_512, &["memops::arch::x86_64::AVX2::memchr"]),
            b("avx2", MEMOPS_AVX2, &["memops::arch::x86_64::AVX2::memchr"]),
            b("sse2", NONE, &["memops::arch::x86_64::SSE2::memchr"]),
        ],
    },
    Impl {
        arch: Arch::Aarch64,
        backends: &[b("neon", NONE, &["memops::arch::aarch64::NEON::memchr"])],
    },
    Impl { arch: Arch::Riscv64, backends: &[b("rvv", &["v"], &["memops::arch::riscv64::memchr"])] },
];

pub const KERNELS: &[Kernel] = &[
    Kernel {
        name: "b64 encode",
        unit: "64 B out",
        units_in_64: None,
        note: "",
        note_cpus: &[],
        peer: "base64-simd",
        group: "b64/encode",
        ours_row: "b64",
        peer_row: "base64-simd",
        ours: B64_ENCODE_OURS,
        peers: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b("avx2", AVX2, &["base64_simd::multiversion::encode::avx2"]),
                    b("ssse3", SSSE3, &["base64_simd::multiversion::encode::ssse3"]),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b(
                    "neon",
                    NONE,
                    &[
                        "base64_simd::multiversion::encode::neon",
                        "mca_probe::probe_base64_simd_encode",
                        "base64_simd::encode::*",
                    ],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b(
                    "scalar",
                    NONE,
                    &[
                        "base64_simd::encode::encode_fallback",
                        "mca_probe::probe_base64_simd_encode",
                    ],
                )],
            },
        ],
    },
    Kernel {
        name: "b64 encode",
        unit: "64 B out",
        units_in_64: None,
        note: "",
        note_cpus: &[],
        peer: "simdutf",
        group: "b64/encode",
        ours_row: "b64",
        peer_row: "simdutf",
        ours: B64_ENCODE_OURS,
        peers: &[
            // simdutf (C++) in the x86_64 probe only (no cross g++ here); it dispatches at
            // run time: icelake (AVX-512 VBMI2), haswell (AVX2), westmere (SSE4.2).
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b(
                        "icelake",
                        SIMDUTF_ICELAKE,
                        &["simdutf::icelake::implementation::binary_to_base64(*"],
                    ),
                    b(
                        "haswell",
                        SIMDUTF_HASWELL,
                        &["simdutf::haswell::implementation::binary_to_base64(*"],
                    ),
                    b(
                        "westmere",
                        SIMDUTF_WESTMERE,
                        &["simdutf::westmere::implementation::binary_to_base64(*"],
                    ),
                ],
            },
        ],
    },
    Kernel {
        name: "b64 decode",
        unit: "64 B in",
        units_in_64: None,
        note: "both figures are off here: simdutf's AVX2 decode runs two loops (classify and compact 64 bytes into a buffer, then pack the buffer) and the finder takes only the pack loop (the first has a jump inside it), so the peer is undercounted; ours is `decode_blocks_avx512bw`'s two-fix copy (the one with the most vector instructions), while the standard alphabet runs the one-fix copy, 2 µops fewer per 64 symbols",
        note_cpus: &["cascadelake"],
        peer: "base64-simd",
        group: "b64/decode",
        ours_row: "b64",
        peer_row: "base64-simd",
        ours: B64_DECODE_OURS,
        peers: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b("avx2", AVX2, &["base64_simd::multiversion::decode::avx2"]),
                    b("ssse3", SSSE3, &["base64_simd::multiversion::decode::ssse3"]),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b(
                    "neon",
                    NONE,
                    &[
                        "base64_simd::multiversion::decode::neon",
                        "mca_probe::probe_base64_simd_decode",
                        "base64_simd::decode::*",
                    ],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b(
                    "scalar",
                    NONE,
                    &[
                        "base64_simd::decode::decode_fallback",
                        "mca_probe::probe_base64_simd_decode",
                    ],
                )],
            },
        ],
    },
    Kernel {
        name: "b64 decode",
        unit: "64 B in",
        units_in_64: None,
        note: "both figures are off here: simdutf's AVX2 decode runs two loops (classify and compact 64 bytes into a buffer, then pack the buffer) and the finder takes only the pack loop (the first has a jump inside it), so the peer is undercounted; ours is `decode_blocks_avx512bw`'s two-fix copy (the one with the most vector instructions), while the standard alphabet runs the one-fix copy, 2 µops fewer per 64 symbols",
        note_cpus: &["cascadelake"],
        peer: "simdutf",
        group: "b64/decode",
        ours_row: "b64",
        peer_row: "simdutf",
        ours: B64_DECODE_OURS,
        peers: &[
            // As for encode; simdutf's decode is forgiving (it skips whitespace in its loop).
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b(
                        "icelake",
                        SIMDUTF_ICELAKE,
                        &[
                            "simdutf::full_result simdutf::icelake::(anonymous namespace)::compress_decode_base64<false, false, false, char>*",
                            "simdutf::full_result simdutf::icelake::(anonymous namespace)::base64::compress_decode_base64<false, false, false, char>*",
                        ],
                    ),
                    b(
                        "haswell",
                        SIMDUTF_HASWELL,
                        &[
                            "simdutf::full_result simdutf::haswell::(anonymous namespace)::compress_decode_base64<false, false, false, char>*",
                            "simdutf::full_result simdutf::haswell::(anonymous namespace)::base64::compress_decode_base64<false, false, false, char>*",
                        ],
                    ),
                    b(
                        "westmere",
                        SIMDUTF_WESTMERE,
                        &[
                            "simdutf::full_result simdutf::westmere::(anonymous namespace)::compress_decode_base64<false, false, false, char>*",
                            "simdutf::full_result simdutf::westmere::(anonymous namespace)::base64::compress_decode_base64<false, false, false, char>*",
                        ],
                    ),
                ],
            },
        ],
    },
    Kernel {
        name: "memops memmove bulk",
        unit: "64 B",
        units_in_64: None,
        note: "glibc copies from its `rep_movsb_threshold` (2-8 KiB by CPU) with `rep movsb`, which no model times: its row is the 4×VEC loop it runs below that size (or without ERMS), so the measured 4-64 KiB rows compare another path",
        note_cpus: &[],
        peer: "glibc",
        group: "memops/memmove",
        ours_row: "memops",
        peer_row: "glibc",
        ours: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b("avx512", MEMOPS_512, &["memops::arch::x86_64::AVX512_ALL::memmove_large"]),
                    b("avx2", MEMOPS_AVX2, &["memops::arch::x86_64::AVX2::memmove_large"]),
                    b("sse2", NONE, &["memops::arch::x86_64::SSE2::memmove_large"]),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b("neon", NONE, &["memops::arch::aarch64::NEON::memmove_large"])],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b("rvv", &["v"], &["memops::arch::riscv64::memmove"])],
            },
        ],
        peers: &[Impl { arch: Arch::X86_64, backends: GLIBC_MEMMOVE }],
    },
    Kernel {
        name: "memops find_byte bulk",
        unit: "64 B",
        units_in_64: None,
        note: "znver4/5: a loop-carried chain through `vpmovmskb ecx` → `lea rcx` (a register write the CPU renames) makes ours 4x slower than memchr's same loop: an artifact",
        note_cpus: &["znver4", "znver5"],
        peer: "memchr",
        group: "memops/find_byte",
        ours_row: "memops",
        peer_row: "memchr",
        ours: FIND_BYTE_OURS,
        peers: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b(
                        "avx2",
                        AVX2,
                        &[
                            "memchr::arch::x86_64::avx2::memchr::One::find_raw_avx2",
                            "memchr::arch::x86_64::memchr::memchr_raw::find_avx2",
                        ],
                    ),
                    b(
                        "sse2",
                        NONE,
                        &[
                            "memchr::arch::x86_64::memchr::memchr_raw::find_sse2",
                            "memchr::arch::x86_64::sse2::*",
                        ],
                    ),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b(
                    "neon",
                    NONE,
                    &["memchr::arch::aarch64::*", "mca_probe::probe_memchr_memchr"],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b("swar", NONE, &["memchr::*", "mca_probe::probe_memchr_memchr"])],
            },
        ],
    },
    Kernel {
        name: "memops find_byte bulk",
        unit: "64 B",
        units_in_64: None,
        note: "znver4/5: a loop-carried chain through `vpmovmskb ecx` → `lea rcx` (a register write the CPU renames) makes ours 4x slower than memchr's same loop: an artifact",
        note_cpus: &["znver4", "znver5"],
        peer: "glibc",
        group: "memops/find_byte",
        ours_row: "memops",
        peer_row: "glibc",
        ours: FIND_BYTE_OURS,
        peers: &[Impl { arch: Arch::X86_64, backends: GLIBC_MEMCHR }],
    },
    Kernel {
        name: "nabhash v1 bulk",
        unit: "64 B",
        units_in_64: None,
        note: "",
        note_cpus: &[],
        peer: "xxh3-64",
        group: "nabhash/bytes",
        ours_row: "nabhash-v1",
        peer_row: "xxh3-64",
        ours: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b(
                        "vaes512",
                        &["vaes", "avx512f", "avx512bw"],
                        &["nabhash::arch::x86_64::vaes::hash_v1_vaes512"],
                    ),
                    b(
                        "vaes256",
                        &["vaes", "avx2"],
                        &["nabhash::arch::x86_64::vaes::compress_vaes256"],
                    ),
                    b(
                        "aesni",
                        &["aes", "ssse3"],
                        &["nabhash::arch::x86_64::aesni::compress_aesni"],
                    ),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b(
                    "aes",
                    &["aes"],
                    &["nabhash::arch::aarch64::aes::compress_aes", "nabhash::hash_with"],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[
                    b("zkne", &["zkne"], &["nabhash::hash_with", "mca_probe::probe_nabhash_v1"]),
                    b(
                        "portable",
                        NONE,
                        &[
                            "<nabhash::portable::Portable as nabhash::kernels::Kernels>::v1_compress",
                            "nabhash::hash_with",
                            "mca_probe::probe_nabhash_v1",
                        ],
                    ),
                ],
            },
        ],
        peers: &[
            // xxhash-rust picks its kernel at compile time: SSE2 in the baseline x86 build
            // (the bench report's `default` section), NEON on aarch64, scalar on riscv64.
            Impl {
                arch: Arch::X86_64,
                backends: &[b("sse2", NONE, &["xxhash_rust::xxh3::xxh3_64_long_default"])],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b("neon", NONE, &["xxhash_rust::xxh3::*", "mca_probe::probe_xxh3_64"])],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b(
                    "scalar",
                    NONE,
                    &["xxhash_rust::xxh3::*", "mca_probe::probe_xxh3_64"],
                )],
            },
        ],
    },
    Kernel {
        name: "nabhash v2 bulk",
        unit: "64 B",
        units_in_64: None,
        note: "",
        note_cpus: &[],
        peer: "xxh3-128",
        group: "nabhash/bytes",
        ours_row: "nabhash-v2",
        peer_row: "xxh3-128",
        ours: V2_OURS,
        peers: &[
            // xxhash-rust picks its kernel at compile time, as for v1's peer.
            Impl {
                arch: Arch::X86_64,
                backends: &[b("sse2", NONE, &["xxhash_rust::xxh3::xxh3_128_long_default"])],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b(
                    "neon",
                    NONE,
                    &["xxhash_rust::xxh3::*", "mca_probe::probe_xxh3_128"],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[b(
                    "scalar",
                    NONE,
                    &["xxhash_rust::xxh3::*", "mca_probe::probe_xxh3_128"],
                )],
            },
        ],
    },
    Kernel {
        name: "nabhash v2 bulk",
        unit: "64 B",
        units_in_64: None,
        note: "",
        note_cpus: &[],
        peer: "gxhash",
        group: "nabhash/bytes",
        ours_row: "nabhash-v2",
        peer_row: "gxhash128",
        ours: V2_OURS,
        peers: &[
            // gxhash builds only with AES at compile time: taken from the `+aes` probe build;
            // none on riscv64.
            Impl {
                arch: Arch::X86_64,
                backends: &[b(
                    "aes",
                    &["aes", "sse2"],
                    &["mca_probe::probe_gxhash128", "gxhash::*"],
                )],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b("aes", &["aes"], &["mca_probe::probe_gxhash128", "gxhash::*"])],
            },
        ],
    },
    Kernel {
        name: "bignum-fib NTT butterfly",
        unit: "butterfly",
        units_in_64: Some(ntt_butterflies_in_64),
        note: "",
        note_cpus: &[],
        peer: "",
        group: "",
        ours_row: "",
        peer_row: "",
        ours: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    b(
                        "fma512",
                        &["avx512f", "fma"],
                        &[
                            "bignum_fib::arch::ntt::fma512::stage",
                            "bignum_fib::arch::ntt::fma512::stage2",
                        ],
                    ),
                    b(
                        "fma",
                        &["avx2", "fma"],
                        &[
                            "bignum_fib::arch::ntt::fma::Fma::stage",
                            "bignum_fib::arch::ntt::fma::Fma::stage2",
                        ],
                    ),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[b("neon", NONE, &["bignum_fib::arch::ntt::neon::*"])],
            },
        ],
        peers: &[],
    },
    Kernel {
        name: "bignum-fib limb addmul_1",
        unit: "64 B of limbs",
        units_in_64: None,
        note: "x86: llvm-mca tracks EFLAGS as one register, which would serialize the ADOX (OF) and ADCX (CF) chains that the CPU runs apart: ADOX is modelled as `lea` (no flags), leaving out the OF chain's own 1-cycle latency",
        note_cpus: &["znver4", "znver5", "cascadelake", "icelake-server", "sapphirerapids"],
        peer: "",
        group: "",
        ours_row: "",
        peer_row: "",
        ours: &[
            Impl {
                arch: Arch::X86_64,
                backends: &[
                    // `addmul_1_mulx` (crates/bignum-fib/src/arch/x86_64.rs), inlined into
                    // the basecase product: two carry chains, ADOX and ADCX.
                    with_loop(
                        "mulx-adx",
                        &["bmi2", "adx"],
                        &["bignum_fib::mul::*", "bignum_fib::nat::*"],
                        &["mulx", "adox", "adcx"],
                    ),
                ],
            },
            Impl {
                arch: Arch::Aarch64,
                backends: &[with_loop(
                    "asm",
                    NONE,
                    &["bignum_fib::mul::*", "bignum_fib::nat::*"],
                    &["umulh", "adds", "adc"],
                )],
            },
            Impl {
                arch: Arch::Riscv64,
                backends: &[with_loop(
                    "portable",
                    NONE,
                    &["bignum_fib::mul::*", "bignum_fib::nat::*"],
                    &["mulhu", "sltu"],
                )],
            },
        ],
        peers: &[],
    },
];
