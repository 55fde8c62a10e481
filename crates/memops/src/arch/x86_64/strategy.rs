//! The x86_64 [`Strategy`] from the CPU's facts (`nab_isa::CpuFacts`: vendor, family and
//! model, ERMS/FSRM, cache sizes and the threads sharing them), chosen at the first large move
//! or fill and cached: glibc's rules (`sysdeps/x86/dl-cacheinfo.h`, `cpu-features.c`) where
//! this crate has not measured better, this crate's measurements on AMD Zen where it has.
//! Each rule is written beside its function with what set it.

use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use nab_isa::{CpuFacts, Vendor};

use crate::arch::table::Strategy;

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

/// glibc's floor for the non-temporal threshold (`minimum_non_temporal_threshold`, 0x4040):
/// below it the cache reading is taken as failed and [`NT_FALLBACK`] is used.
const NT_MIN: usize = 0x4040;
/// glibc's non-temporal threshold when the caches are unknown (64 MiB).
const NT_FALLBACK: usize = 64 * MIB;

/// The strategy for a CPU with these facts.
pub(crate) fn strategy_for(f: &CpuFacts) -> Strategy {
    let intel = f.vendor == Vendor::Intel;
    let nt = nt_threshold(f);
    let narrow = prefer_no_avx512(f);
    let rep = f.erms || f.fsrm;
    let (movsb_min, movsb_min_sse2, movsb_max, stosb_min, stosb_min_sse2) = match (rep, intel) {
        (false, _) => (usize::MAX, usize::MAX, usize::MAX, usize::MAX, usize::MAX),
        (true, true) => {
            let (wide, sse2) = intel_rep_movsb_min(f, narrow);
            (wide, sse2, nt, INTEL_REP_STOSB_MIN, INTEL_REP_STOSB_MIN)
        }
        (true, false) => (
            ZEN_REP_MOVSB_MIN,
            ZEN_REP_MOVSB_MIN_SSE2,
            usize::MAX,
            zen_rep_stosb_min(f),
            ZEN_REP_STOSB_MIN_SSE2,
        ),
    };
    Strategy {
        rep_movsb_min: movsb_min,
        rep_movsb_min_sse2: movsb_min_sse2,
        rep_movsb_max: movsb_max,
        rep_stosb_min: stosb_min,
        rep_stosb_min_sse2: stosb_min_sse2,
        nt_threshold: nt,
        nt_memset_threshold: if avoid_nt_memset(f) { usize::MAX } else { nt },
        narrow_moves: narrow,
    }
}

/// Non-temporal stores from here: glibc's `non_temporal_threshold`, the larger of the shared
/// cache over a per-microarchitecture divisor and 3/4 of one thread's share of it (only the
/// latter without ERMS), 64 MiB when the caches are unknown.
///
/// "Shared" is the L3 (the L2 when there is none); one thread's share is the L3 over the
/// threads sharing it on Intel, the whole L3 (one CCX's) on AMD; a non-inclusive Intel L3
/// (Skylake-SP, Cascade Lake) adds the L2 to both. The divisor is 2 on Intel big cores from
/// Skylake on (Cascade Lake included), 8 on Nehalem to Broadwell, 4 elsewhere (AMD).
///
/// Zen 5 (32 MiB CCX L3): 24 MiB. Cascade Lake in the 2-vCPU guest of the Intel record
/// (35.75 MiB L3 over 2 threads, 1 MiB L2): max(36.75 / 2, 3/4 × 18.875) = 18.4 MiB; glibc 2.36
/// there, which has no divisor, reported the second term, 14.2 MiB (re-verify on Intel). On
/// this Zen 5 the threshold serves copies only without ERMS/FSRM (see [`strategy_for`]):
/// the 8 MiB class with streaming stores ran at 29 GB/s against 47 GB/s for plain stores
/// (the destination stays in the L3 between calls), so it must stay above 8 MiB, as it does.
fn nt_threshold(f: &CpuFacts) -> usize {
    let intel = f.vendor == Vendor::Intel;
    let (mut shared, mut per_thread) = if f.l3.size != 0 {
        (f.l3.size, if intel { f.l3.per_thread() } else { f.l3.size })
    } else {
        (f.l2.size, if intel { f.l2.per_thread() } else { f.l2.size })
    };
    if intel && f.l3.size != 0 && !f.l3_inclusive {
        shared += f.l2.size;
        per_thread += f.l2.per_thread();
    }
    if !intel && f.family != 0 && f.family < 0x17 && f.l3.size != 0 {
        // Before Zen the L2 and L3 are exclusive (glibc).
        shared += f.l2.size;
        per_thread = shared;
    }
    let low = per_thread / 4 * 3;
    let nt = if f.erms { (shared / nt_divisor(f)).max(low) } else { low };
    if nt < NT_MIN { NT_FALLBACK } else { nt }
}

/// glibc's `cachesize_non_temporal_divisor` (`cpu-features.c`, `init_cpu_features`).
fn nt_divisor(f: &CpuFacts) -> usize {
    if f.vendor != Vendor::Intel || f.family != 6 {
        return 4;
    }
    match f.model {
        // Nehalem, Westmere, Sandy Bridge, Ivy Bridge, Haswell, Broadwell.
        0x1a | 0x1e | 0x1f | 0x2e | 0x25 | 0x2c | 0x2f | 0x2a | 0x2d | 0x3a | 0x3e | 0x3c
        | 0x3f | 0x45 | 0x46 | 0x3d | 0x47 | 0x4f | 0x56 => 8,
        // Skylake (client and SP: Skylake-SP, Cascade Lake, Cooper Lake), Kaby/Coffee/Comet
        // Lake, Cannon Lake, Ice Lake, Tiger Lake, Rocket Lake, Alder/Raptor Lake, Meteor,
        // Lunar and Arrow Lake, Sapphire/Emerald/Granite Rapids.
        0x4e | 0x5e | 0x55 | 0x8e | 0x9e | 0xa5 | 0xa6 | 0x66 | 0x6a | 0x6c | 0x7d | 0x7e
        | 0x8c | 0x8d | 0xa7 | 0x97 | 0x9a | 0xb7 | 0xba | 0xbf | 0xaa | 0xac | 0xbd | 0xc5
        | 0xc6 | 0x8f | 0xcf | 0xad | 0xae => 2,
        _ => 4,
    }
}

/// glibc's `Prefer_No_AVX512`: Intel parts with AVX-512 lower their clock under 512-bit
/// stores unless they have AVX-VNNI (Sapphire Rapids on) or are a Xeon Phi (AVX-512ER); there
/// glibc's `memmove`/`memset` are the 256-bit EVEX ones, and the AVX-512 backend's moves and
/// fills are the AVX2 backend's (this crate's moves use no EVEX-only instruction). Cascade
/// Lake: yes (glibc 2.36 there reports `Prefer_No_AVX512=1`). The Intel record
/// (`intel-cascadelake-quick.md`, quick run, GB/s) agrees: 4–64 KiB fills 35.9 with the
/// AVX-512 backend (default build) against 57.8 with the AVX2 one (`NAB_MAX_ISA=x86-64-v3`),
/// moves 36.7 against 41.8 (re-verify on Intel with this rule in place). AMD Zen 4 and Zen 5
/// keep full-width stores (no clock penalty; glibc leaves them too).
fn prefer_no_avx512(f: &CpuFacts) -> bool {
    f.vendor == Vendor::Intel && f.avx512f && !f.avx512er && !f.avx_vnni
}

/// glibc's `Avoid_Non_Temporal_Memset` for Skylake-SP class servers (and Cannon Lake): fills
/// never stream there ("much worse in some cases" on its mesh).
fn avoid_nt_memset(f: &CpuFacts) -> bool {
    f.vendor == Vendor::Intel && f.family == 6 && matches!(f.model, 0x55 | 0x66)
}

/// Intel's `rep movsb` window start, (AVX2/AVX-512 backends, SSE2 backend): glibc's
/// `rep_movsb_threshold`, 2112 bytes with FSRM; else 4096 × (vector bytes / 16) for the
/// 32- and 64-byte loops (8 KiB and 16 KiB), 2048 for SSE2. With `Prefer_No_AVX512` the
/// AVX-512 backend moves with the 32-byte loop, so 8 KiB (Cascade Lake: glibc 2.36's
/// `rep_movsb_threshold` there is 8 KiB; ours was 32 KiB, and our 4 KiB–64 KiB class was
/// 1.04–1.08x glibc's time in the Intel record: re-verify on Intel).
fn intel_rep_movsb_min(f: &CpuFacts, narrow: bool) -> (usize, usize) {
    if f.fsrm {
        (2112, 2112)
    } else if f.avx512f && !narrow {
        (16 * KIB, 2048)
    } else {
        (8 * KIB, 2048)
    }
}

/// Intel's `rep stosb` start: glibc's `rep_stosb_threshold`, 2048 bytes (Cascade Lake:
/// glibc's fills were faster than our loop from 4 KiB to 64 KiB in the Intel record,
/// 0.82–0.84x; re-verify on Intel).
const INTEL_REP_STOSB_MIN: usize = 2048;

/// AMD's `rep movsb` window start for the AVX2/AVX-512 backends: 4 KiB, and the window stays
/// open above (glibc closes it entirely on AMD, BZ #30994, for alignments this crate does
/// not meet: it takes `rep movsb` only for non-overlapping moves).
///
/// Measured on the Zen 5 (default build, an interleaved harness: random sizes per class, the
/// destination half a page off the source, 61 alternated rounds, median of the per-round
/// ratios of our time to glibc 2.36's `__memmove_avx512_unaligned_erms`, load average 7.4):
/// 4–64 KiB 1.09 with the window from 32 KiB (the earlier rule, half the L1d, set with fixed
/// sizes and `-C target-cpu=native`), 1.015 from 16 KiB, 1.01 from 8 KiB, 1.00 from 4 KiB and
/// 1.01 from 2112 bytes; 257 B–4 KiB 0.80–0.84 from 4 KiB and 1.01–1.05 from 2112 bytes. With
/// `NAB_MAX_ISA=x86-64-v3` (the AVX2 loop) 4–64 KiB: 1.10 from 32 KiB, 1.00 from 4 KiB. The
/// same value for Zen 4: re-verify there. Beyond the window's start `rep movsb` was never
/// slower: 64 KiB–1 MiB 1.00, 8 MiB 0.92, 64 MiB 0.78 (glibc runs its vector loop there).
const ZEN_REP_MOVSB_MIN: usize = 4096;

/// The SSE2 backend's `rep movsb` start on AMD: glibc's SSE2 threshold (2048 bytes). Measured
/// on the Zen 4 with `NAB_MAX_ISA=x86-64-v2` against `__memmove_sse2_unaligned_erms` (random
/// sizes per class, min of 15 alternated rounds), ours/glibc with the loop up to 32 KiB:
/// 257 B–4 KiB 1.37, with this threshold 1.03 (and 1.00 for 4–64 KiB and 64 KiB–1 MiB).
const ZEN_REP_MOVSB_MIN_SSE2: usize = 2048;

/// AMD's `rep stosb` start for the AVX2/AVX-512 backends: twice the L2 (2 MiB when unknown).
/// Measured on the Zen 5 (1 MiB L2; min-of-15-rounds interleaved harness over the
/// `memops/memset` classes, ns per call, AVX-512 loop / bare `rep stosb`): 4K–64K 167/225,
/// 64K–1M 3094/3530, 8 MiB 73027/68315. The loop wins while the destination fits in the L2,
/// `rep stosb` beyond (no read-for-ownership); the crossover is taken at twice the L2.
fn zen_rep_stosb_min(f: &CpuFacts) -> usize {
    if f.l2.size == 0 { 2 * MIB } else { 2 * f.l2.size }
}

/// The SSE2 backend's `rep stosb` start on AMD: glibc's `x86_rep_stosb_threshold` (2048).
/// Measured as [`ZEN_REP_MOVSB_MIN_SSE2`], ours/glibc for 257 B–4 KiB: 1.50 with the loop up
/// to 2 MiB, 1.00 with this threshold (4–64 KiB and 64 KiB–1 MiB: 1.00).
const ZEN_REP_STOSB_MIN_SSE2: usize = 2048;

/// The cached strategy's fields, in [`Strategy`]'s order, valid once [`STATE`] is [`READY`].
static FIELDS: [AtomicUsize; 8] = [const { AtomicUsize::new(0) }; 8];
/// [`UNKNOWN`], [`DECIDING`] or [`READY`].
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
const UNKNOWN: u8 = 0;
const DECIDING: u8 = 1;
const READY: u8 = 2;

/// The strategy while another call decides: the loops (correct everywhere). Reading the
/// facts may itself call `memcpy` (the compiler copies structs with it, in debug builds
/// especially), which with `c-symbols` is this crate: that nested call, and any other thread's
/// during the few microseconds of the first decision, gets this instead of recursing.
const WHILE_DECIDING: Strategy = Strategy::LOOPS_ONLY;

/// The running CPU's strategy: read from `cpuid` at the first call (no allocation, no
/// environment), then cached; see [`WHILE_DECIDING`] for calls made meanwhile.
#[inline]
pub(crate) fn current() -> Strategy {
    if STATE.load(Ordering::Acquire) == READY {
        let g = |i: usize| FIELDS[i].load(Ordering::Relaxed);
        Strategy {
            rep_movsb_min: g(0),
            rep_movsb_min_sse2: g(1),
            rep_movsb_max: g(2),
            rep_stosb_min: g(3),
            rep_stosb_min_sse2: g(4),
            nt_threshold: g(5),
            nt_memset_threshold: g(6),
            narrow_moves: g(7) != 0,
        }
    } else {
        decide()
    }
}

/// [`current`], waiting for a decision another thread is making (for reports, never inside
/// `memcpy`).
pub(crate) fn decided() -> Strategy {
    loop {
        let s = current();
        if STATE.load(Ordering::Acquire) == READY {
            return s;
        }
        core::hint::spin_loop();
    }
}

#[cold]
#[inline(never)]
fn decide() -> Strategy {
    if STATE.compare_exchange(UNKNOWN, DECIDING, Ordering::Acquire, Ordering::Acquire).is_err() {
        return if STATE.load(Ordering::Acquire) == READY { current() } else { WHILE_DECIDING };
    }
    let s = strategy_for(&nab_isa::cpu_facts());
    let v = [
        s.rep_movsb_min,
        s.rep_movsb_min_sse2,
        s.rep_movsb_max,
        s.rep_stosb_min,
        s.rep_stosb_min_sse2,
        s.nt_threshold,
        s.nt_memset_threshold,
        usize::from(s.narrow_moves),
    ];
    for (a, x) in FIELDS.iter().zip(v) {
        a.store(x, Ordering::Relaxed);
    }
    STATE.store(READY, Ordering::Release);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;

    /// A record of nab-isa's `tests/data/cpuid/`.
    fn facts(name: &str) -> CpuFacts {
        let path = format!("{}/../nab-isa/tests/data/cpuid/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        nab_isa::facts_from_dump(&text)
    }

    /// CPUID records → windows. The expected values are the rules' arithmetic done by hand on
    /// each record's stated caches (and, for the Intel guest, glibc 2.36's reported lower
    /// bound of 14.2 MiB for the non-temporal threshold and 8 KiB for `rep movsb`).
    #[test]
    fn windows_from_cpuid_records() {
        const M: usize = MIB;
        // (record, rep_movsb_min, sse2, rep_movsb_max, rep_stosb_min, sse2, nt, nt memset,
        // narrow)
        type Row = (&'static str, usize, usize, usize, usize, usize, usize, usize, bool);
        let rows: [Row; 6] = [
            // Zen 5 guest: L2 1 MiB → 2 MiB; L3 32 MiB → 3/4 = 24 MiB.
            ("amd-zen5-kvm", 4 * KIB, 2048, usize::MAX, 2 * M, 2048, 24 * M, 24 * M, false),
            // Without 0x8000001D: the package's 384 MiB L3 → 288 MiB (glibc 2.36's
            // non_temporal_threshold on this guest: 0x12000000).
            (
                "amd-zen5-kvm-no-8000001d",
                4 * KIB,
                2048,
                usize::MAX,
                2 * M,
                2048,
                288 * M,
                288 * M,
                false,
            ),
            // Zen 4: L2 1 MiB → 2 MiB; L3 32 MiB → 24 MiB.
            ("amd-zen4-genoa", 4 * KIB, 2048, usize::MAX, 2 * M, 2048, 24 * M, 24 * M, false),
            // Cascade Lake, bare metal: shared 35.75 + 1 MiB over divisor 2 = 18.375 MiB
            // against 3/4 × (35.75/48 + 1/2) MiB: 18.375 MiB.
            (
                "intel-cascadelake-6252",
                8 * KIB,
                2048,
                18 * M + 3 * M / 8,
                2048,
                2048,
                18 * M + 3 * M / 8,
                usize::MAX,
                true,
            ),
            // The 2-vCPU guest: the same shared cache (18.375 MiB) beats 3/4 × (35.75/2 + 1)
            // = 14.156 MiB, glibc 2.36's figure there.
            (
                "intel-cascadelake-kvm-2vcpu",
                8 * KIB,
                2048,
                18 * M + 3 * M / 8,
                2048,
                2048,
                18 * M + 3 * M / 8,
                usize::MAX,
                true,
            ),
            // Leaf 1 only (a Coffee Lake guest hiding every cache leaf and ERMS): glibc's fallbacks.
            (
                "unknown",
                usize::MAX,
                usize::MAX,
                usize::MAX,
                usize::MAX,
                usize::MAX,
                NT_FALLBACK,
                NT_FALLBACK,
                false,
            ),
        ];
        for (name, mv, mv2, mvmax, st, st2, nt, ntm, narrow) in rows {
            let f = if name == "unknown" {
                nab_isa::facts_from_dump("0 0 1 756e6547 6c65746e 49656e69\n1 0 000906ea 0 0 0")
            } else {
                facts(name)
            };
            let s = strategy_for(&f);
            let got = (
                s.rep_movsb_min,
                s.rep_movsb_min_sse2,
                s.rep_movsb_max,
                s.rep_stosb_min,
                s.rep_stosb_min_sse2,
                s.nt_threshold,
                s.nt_memset_threshold,
                s.narrow_moves,
            );
            assert_eq!(got, (mv, mv2, mvmax, st, st2, nt, ntm, narrow), "{name}");
        }
        // The guest's lower bound is glibc 2.36's 14.2 MiB.
        let f = facts("intel-cascadelake-kvm-2vcpu");
        let low = (f.l3.per_thread() + f.l2.per_thread()) / 4 * 3;
        assert_eq!(low / (M / 10), 141, "{low}");
    }

    /// The cached strategy is this CPU's.
    #[test]
    fn current_is_this_cpus() {
        assert_eq!(decided(), strategy_for(&nab_isa::cpu_facts()));
        assert_eq!(current(), decided());
    }
}
