//! `facts_from_cpuid` against recorded `cpuid` outputs (`tests/data/cpuid/`): each record's
//! expected facts are the values its header states (from the vendor's documentation of the
//! part, or glibc's reading of the same CPU), not the decoder's output.

use nab_isa::{Cache, CpuFacts, Vendor, facts_from_dump};

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

/// A record of `tests/data/cpuid/`.
fn record(name: &str) -> CpuFacts {
    let path = format!("{}/tests/data/cpuid/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    facts_from_dump(&text)
}

fn cache(size: usize, threads: u32) -> Cache {
    Cache { size, threads }
}

#[test]
fn records_decode_to_their_stated_facts() {
    // (record, vendor, family, model, stepping, erms, fsrm, avx512f, avx_vnni, l1d, l2, l3,
    // l3 inclusive)
    type Row =
        (&'static str, Vendor, u32, u32, u32, bool, bool, bool, bool, Cache, Cache, Cache, bool);
    let rows: [Row; 5] = [
        (
            "amd-zen5-kvm",
            Vendor::Amd,
            0x1a,
            0x02,
            1,
            true,
            true,
            true,
            true,
            cache(48 * KIB, 1),
            cache(MIB, 1),
            cache(32 * MIB, 2),
            true,
        ),
        (
            // Without 0x8000001D: 0x80000005/6, whose L3 is the package's 384 MiB (glibc
            // 2.36's level3_cache_size on this guest: 0x18000000).
            "amd-zen5-kvm-no-8000001d",
            Vendor::Amd,
            0x1a,
            0x02,
            1,
            true,
            true,
            true,
            true,
            cache(48 * KIB, 1),
            cache(MIB, 1),
            cache(384 * MIB, 1),
            true,
        ),
        (
            "amd-zen4-genoa",
            Vendor::Amd,
            0x19,
            0x11,
            1,
            true,
            true,
            true,
            false,
            cache(32 * KIB, 2),
            cache(MIB, 2),
            cache(32 * MIB, 16),
            true,
        ),
        (
            "intel-cascadelake-6252",
            Vendor::Intel,
            6,
            0x55,
            7,
            true,
            false,
            true,
            false,
            cache(32 * KIB, 1),
            cache(MIB, 2),
            cache(35 * MIB + 3 * MIB / 4, 48),
            false,
        ),
        (
            "intel-cascadelake-kvm-2vcpu",
            Vendor::Intel,
            6,
            0x55,
            7,
            true,
            false,
            true,
            false,
            cache(32 * KIB, 1),
            cache(MIB, 1),
            cache(35 * MIB + 3 * MIB / 4, 2),
            false,
        ),
    ];
    for (name, vendor, family, model, stepping, erms, fsrm, avx512f, avx_vnni, l1d, l2, l3, incl) in
        rows
    {
        let f = record(name);
        assert_eq!(
            (f.vendor, f.family, f.model, f.stepping),
            (vendor, family, model, stepping),
            "{name}"
        );
        assert_eq!(
            (f.erms, f.fsrm, f.avx512f, f.avx_vnni),
            (erms, fsrm, avx512f, avx_vnni),
            "{name}"
        );
        assert_eq!((f.l1d, f.l2, f.l3, f.l3_inclusive), (l1d, l2, l3, incl), "{name}");
        assert!(!f.avx512er && !f.fzlrm && !f.fsrs, "{name}");
    }
}

#[test]
fn an_empty_record_knows_nothing() {
    assert_eq!(facts_from_dump(""), CpuFacts::UNKNOWN);
    // A vendor and leaf 1 but no cache leaves at all: sizes unknown, nothing invented.
    let f = facts_from_dump("0 0 1 756e6547 6c65746e 49656e69\n1 0 00050657 0 0 0");
    assert_eq!((f.vendor, f.family, f.model), (Vendor::Intel, 6, 0x55));
    assert_eq!((f.l1d, f.l2, f.l3), (Cache::default(), Cache::default(), Cache::default()));
}

/// The running CPU's facts agree with the feature detection on the hints both read.
#[test]
fn this_cpu_agrees_with_the_feature_detection() {
    let f = nab_isa::cpu_facts();
    let cpu = nab_isa::cpu_bare();
    if cfg!(all(target_arch = "x86_64", not(miri))) {
        assert_eq!(f.erms, cpu.contains(nab_isa::Features::ERMS));
        assert_eq!(f.fsrm, cpu.contains(nab_isa::Features::FSRM));
        assert_ne!(f.vendor, Vendor::Other);
    } else {
        assert_eq!(f, CpuFacts::UNKNOWN);
    }
}
