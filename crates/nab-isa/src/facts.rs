//! CPU facts for memory-copy strategies, read from `cpuid` alone: the vendor, family, model
//! and stepping, the string-instruction hints (ERMS, FSRM, FZLRM, FSRS) and the data caches
//! with the number of logical processors sharing each, the inputs of glibc's
//! `sysdeps/x86/dl-cacheinfo.h` and `cpu-features.c`.
//!
//! [`facts_from_cpuid`] is a pure function of a `cpuid` oracle, so the rules can be tested with
//! recorded outputs of other CPUs ([`facts_from_dump`] reads the text form of such a record);
//! `cpu_facts` feeds it the running CPU. Neither allocates or reads the environment, so memops'
//! `c-symbols` `memcpy` may call them before `main`; the struct they return may be moved with
//! `memcpy` by the compiler (see `cpu_facts`).
//!
//! Where the caches come from, in glibc's order:
//!
//! - Intel: leaf 4 (deterministic cache parameters), each level's size as ways × partitions ×
//!   line size × sets, and the logical processors sharing it from `EAX[25:14]`, narrowed with
//!   leaf 0xB the way glibc's `get_common_cache_info` does (leaf 4 counts addressable APIC
//!   IDs, not processors). Without leaf 4 (some hypervisors report zeros): leaf 0x8000_0006's
//!   L2 size, and no L1d or L3.
//! - AMD and Hygon: leaf 0x8000_001D (the same encoding as Intel's leaf 4; the L3 it reports is
//!   one CCX's). When it is absent or zero (older parts, and some hypervisors): leaves
//!   0x8000_0005 and 0x8000_0006, whose L3 is the whole package (a KVM guest on this project's
//!   Zen 5 reads 384 MiB there and 32 MiB in 0x8000_001D; glibc 2.36 reads the former).
//!
//! Under a hypervisor every leaf says what the hypervisor chose: the facts are what a program
//! in the guest can know, as they are for glibc.

/// The CPU's vendor, from `cpuid` leaf 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// `HygonGenuine` (AMD Zen licensees; AMD's cache leaves).
    Hygon,
    /// Anything else, or no `cpuid` (other architectures, Miri).
    Other,
}

/// One cache level: its size and how many logical processors share it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cache {
    /// Bytes; 0 when `cpuid` does not report the level.
    pub size: usize,
    /// Logical processors sharing this cache (at least 1 when `size` is not 0).
    pub threads: u32,
}

impl Cache {
    /// This cache's share for one logical processor (0 when unknown).
    pub const fn per_thread(self) -> usize {
        if self.threads == 0 { self.size } else { self.size / self.threads as usize }
    }
}

/// What memory-copy strategies need to know about the CPU, from `cpuid` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuFacts {
    /// Leaf 0's vendor string.
    pub vendor: Vendor,
    /// Display family (base family, plus the extended family when the base is 0xF).
    pub family: u32,
    /// Display model (the extended model joins it for families 6 and 0xF).
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Enhanced `rep movsb`/`rep stosb` (leaf 7 EBX bit 9).
    pub erms: bool,
    /// Fast short `rep movsb` (leaf 7 EDX bit 4).
    pub fsrm: bool,
    /// Fast zero-length `rep movsb` (leaf 7.1 EAX bit 10).
    pub fzlrm: bool,
    /// Fast short `rep stosb` (leaf 7.1 EAX bit 11).
    pub fsrs: bool,
    /// AVX-512F in `cpuid` (leaf 7 EBX bit 16; whether the OS saves the registers is
    /// [`crate::cpu`]'s business).
    pub avx512f: bool,
    /// AVX-512ER (Xeon Phi only; leaf 7 EBX bit 27): glibc keeps 512-bit string functions there.
    pub avx512er: bool,
    /// AVX-VNNI (leaf 7.1 EAX bit 4): glibc takes it as the mark of Intel parts whose clock
    /// does not drop for 512-bit loads and stores (Sapphire Rapids on).
    pub avx_vnni: bool,
    /// The first-level data cache.
    pub l1d: Cache,
    /// The second-level cache.
    pub l2: Cache,
    /// The third-level cache (one CCX's on AMD Zen).
    pub l3: Cache,
    /// Whether the L3 includes the L2's lines (Intel leaf 4 EDX bit 1; `true` when unknown and
    /// on AMD, whose rules do not use it). Cascade Lake's is not inclusive.
    pub l3_inclusive: bool,
}

impl CpuFacts {
    /// Nothing known: no `cpuid` (other architectures, Miri).
    pub const UNKNOWN: CpuFacts = CpuFacts {
        vendor: Vendor::Other,
        family: 0,
        model: 0,
        stepping: 0,
        erms: false,
        fsrm: false,
        fzlrm: false,
        fsrs: false,
        avx512f: false,
        avx512er: false,
        avx_vnni: false,
        l1d: Cache { size: 0, threads: 0 },
        l2: Cache { size: 0, threads: 0 },
        l3: Cache { size: 0, threads: 0 },
        l3_inclusive: true,
    };
}

/// Bit `b` of `r`.
const fn bit(r: u32, b: u32) -> bool {
    (r >> b) & 1 == 1
}

/// One cache descriptor of Intel's leaf 4 or AMD's 0x8000_001D (the same layout): its type
/// (0 none, 1 data, 2 instruction, 3 unified), its level, its size and `EAX[25:14]`, the
/// maximum number of addressable IDs sharing it, minus one.
const fn descriptor(r: [u32; 4]) -> (u32, u32, usize, u32) {
    let [eax, ebx, ecx, _] = r;
    let ways = ((ebx >> 22) & 0x3ff) as usize + 1;
    let parts = ((ebx >> 12) & 0x3ff) as usize + 1;
    let line = (ebx & 0xfff) as usize + 1;
    let sets = ecx as usize + 1;
    (eax & 0x1f, (eax >> 5) & 0x7, ways * parts * line * sets, (eax >> 14) & 0xfff)
}

/// The facts from a `cpuid` oracle: `cpuid(leaf, subleaf)` returns `[eax, ebx, ecx, edx]`.
/// Leaves above the maximum the CPU reports are never asked for.
pub fn facts_from_cpuid(cpuid: impl Fn(u32, u32) -> [u32; 4]) -> CpuFacts {
    let l0 = cpuid(0, 0);
    let max = l0[0];
    let vendor = match (l0[1], l0[3], l0[2]) {
        // "Genu" "ineI" "ntel", "Auth" "enti" "cAMD", "Hygo" "nGen" "uine".
        (0x756e_6547, 0x4965_6e69, 0x6c65_746e) => Vendor::Intel,
        (0x6874_7541, 0x6974_6e65, 0x444d_4163) => Vendor::Amd,
        (0x6f67_7948, 0x6e65_476e, 0x656e_6975) => Vendor::Hygon,
        _ => Vendor::Other,
    };
    let mut f = CpuFacts { vendor, ..CpuFacts::UNKNOWN };
    if max == 0 {
        return f;
    }
    let l1 = cpuid(1, 0);
    let base_family = (l1[0] >> 8) & 0xf;
    f.family = base_family + if base_family == 0xf { (l1[0] >> 20) & 0xff } else { 0 };
    f.model = ((l1[0] >> 4) & 0xf)
        | if base_family == 6 || base_family == 0xf { ((l1[0] >> 16) & 0xf) << 4 } else { 0 };
    f.stepping = l1[0] & 0xf;
    let htt = bit(l1[3], 28);
    if max >= 7 {
        let l7 = cpuid(7, 0);
        f.erms = bit(l7[1], 9);
        f.avx512f = bit(l7[1], 16);
        f.avx512er = bit(l7[1], 27);
        f.fsrm = bit(l7[3], 4);
        if l7[0] >= 1 {
            let l71 = cpuid(7, 1);
            f.avx_vnni = bit(l71[0], 4);
            f.fzlrm = bit(l71[0], 10);
            f.fsrs = bit(l71[0], 11);
        }
    }
    let max_ext = cpuid(0x8000_0000, 0)[0];
    let max_ext = if max_ext >= 0x8000_0000 { max_ext } else { 0 };
    match vendor {
        Vendor::Intel | Vendor::Other => intel_caches(&mut f, &cpuid, max, max_ext, htt),
        Vendor::Amd | Vendor::Hygon => amd_caches(&mut f, &cpuid, max_ext),
    }
    f
}

/// Intel's leaf 4, then leaf 0xB's topology (glibc's `handle_intel` and
/// `get_common_cache_info`).
fn intel_caches(
    f: &mut CpuFacts,
    cpuid: &impl Fn(u32, u32) -> [u32; 4],
    max: u32,
    max_ext: u32,
    htt: bool,
) {
    // The raw `EAX[25:14]` of the L2 and L3 descriptors (addressable IDs minus one).
    let (mut ids_l2, mut ids_l3) = (0, 0);
    if max >= 4 {
        for i in 0..16 {
            let r = cpuid(4, i);
            let (kind, level, size, ids) = descriptor(r);
            if kind == 0 {
                break;
            }
            match (kind, level) {
                (1, 1) => f.l1d = Cache { size, threads: 1 },
                (3, 2) => {
                    f.l2 = Cache { size, threads: 1 };
                    ids_l2 = ids;
                }
                (3, 3) => {
                    f.l3 = Cache { size, threads: 1 };
                    ids_l3 = ids;
                    f.l3_inclusive = bit(r[3], 1);
                }
                _ => {}
            }
        }
    }
    if f.l2.size == 0 && max_ext >= 0x8000_0006 {
        // Leaf 0x8000_0006 ECX[31:16]: the L2 in KiB (Intel documents this field too).
        let kib = (cpuid(0x8000_0006, 0)[2] >> 16) as usize;
        f.l2 = Cache { size: kib << 10, threads: u32::from(kib != 0) };
    }
    if !htt {
        // One logical processor per package: nothing is shared.
        return;
    }
    // Leaf 4 counts addressable IDs; leaf 0xB says how many logical processors the SMT and
    // core levels hold, and glibc masks the former with the latter (`get_common_cache_info`).
    let (mut threads_l2, mut threads_l3) = (ids_l2, ids_l3);
    if max >= 0xb {
        for i in 0..8 {
            let r = cpuid(0xb, i);
            let shipped = r[1] & 0xff;
            let level_type = (r[2] >> 8) & 0xff;
            if shipped == 0 || level_type == 0 {
                break;
            }
            match level_type {
                1 if ids_l2 > 0 => threads_l2 = (shipped - 1) & mask_of(ids_l2),
                2 if ids_l3 > 0 => threads_l3 = (shipped - 1) & mask_of(ids_l3),
                _ => {}
            }
        }
    }
    if f.l2.size != 0 && ids_l2 > 0 {
        f.l2.threads = threads_l2 + 1;
    }
    if f.l3.size != 0 {
        f.l3.threads = threads_l3 + 1;
    }
}

/// The mask covering `x`'s highest set bit and everything below (`x > 0`).
const fn mask_of(x: u32) -> u32 {
    u32::MAX >> x.leading_zeros()
}

/// AMD's and Hygon's leaf 0x8000_001D, else 0x8000_0005/6 (glibc's `handle_amd`).
fn amd_caches(f: &mut CpuFacts, cpuid: &impl Fn(u32, u32) -> [u32; 4], max_ext: u32) {
    if max_ext >= 0x8000_001d {
        for i in 0..8 {
            let (kind, level, size, ids) = descriptor(cpuid(0x8000_001d, i));
            if kind == 0 {
                break;
            }
            let c = Cache { size, threads: ids + 1 };
            match (kind, level) {
                (1, 1) => f.l1d = c,
                (3, 2) => f.l2 = c,
                (3, 3) => f.l3 = c,
                _ => {}
            }
        }
    }
    if f.l1d.size == 0 && max_ext >= 0x8000_0005 {
        // ECX[31:24]: the L1d in KiB.
        let kib = (cpuid(0x8000_0005, 0)[2] >> 24) as usize;
        f.l1d = Cache { size: kib << 10, threads: 1 };
    }
    if (f.l2.size == 0 || f.l3.size == 0) && max_ext >= 0x8000_0006 {
        let r = cpuid(0x8000_0006, 0);
        // ECX[31:16]: the L2 in KiB; EDX[31:18]: the L3 in 512 KiB units (the package's);
        // an associativity field (bits 15:12) of 0 means the level is absent.
        if f.l2.size == 0 && (r[2] >> 12) & 0xf != 0 {
            f.l2 = Cache { size: ((r[2] >> 16) as usize) << 10, threads: 1 };
        }
        if f.l3.size == 0 && (r[3] >> 12) & 0xf != 0 {
            f.l3 = Cache { size: ((r[3] >> 18) as usize) << 19, threads: 1 };
        }
    }
}

/// The facts from a text record of `cpuid` outputs, one `leaf subleaf eax ebx ecx edx` line
/// each (hexadecimal, `0x` optional; `#` starts a comment); a leaf the record lacks reads as
/// zeros. For tests of the strategy rules with other CPUs' records; allocates nothing.
#[doc(hidden)]
pub fn facts_from_dump(record: &str) -> CpuFacts {
    facts_from_cpuid(|leaf, sub| {
        for line in record.lines() {
            let line = line.split('#').next().unwrap_or("");
            let mut v = [0u32; 6];
            let mut k = 0;
            for w in line.split_whitespace() {
                if k == 6 {
                    break;
                }
                let w = w.trim_start_matches("0x");
                v[k] = u32::from_str_radix(w, 16).unwrap_or(0);
                k += 1;
            }
            if k == 6 && v[0] == leaf && v[1] == sub {
                return [v[2], v[3], v[4], v[5]];
            }
        }
        [0; 4]
    })
}

/// `facts_from_cpuid` against recorded `cpuid` outputs (`tests/data/cpuid/`): each record's
/// expected facts are the values its header states (from the vendor's documentation of the
/// part, or glibc's reading of the same CPU), not the decoder's output.
#[cfg(test)]
mod tests {
    use super::{Cache, CpuFacts, Vendor, facts_from_dump};
    use std::format;
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
        type Row = (
            &'static str,
            Vendor,
            u32,
            u32,
            u32,
            bool,
            bool,
            bool,
            bool,
            Cache,
            Cache,
            Cache,
            bool,
        );
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
        for (
            name,
            vendor,
            family,
            model,
            stepping,
            erms,
            fsrm,
            avx512f,
            avx_vnni,
            l1d,
            l2,
            l3,
            incl,
        ) in rows
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
        let f = crate::cpu_facts();
        let cpu = crate::cpu_bare();
        if cfg!(all(target_arch = "x86_64", not(miri))) {
            assert_eq!(f.erms, cpu.contains(crate::Features::ERMS));
            assert_eq!(f.fsrm, cpu.contains(crate::Features::FSRM));
            assert_ne!(f.vendor, Vendor::Other);
        } else {
            assert_eq!(f, CpuFacts::UNKNOWN);
        }
    }
}
