//! Every large-move and large-fill strategy forced on every backend the CPU supports, at sizes
//! around each strategy's thresholds: `rep movsb`/`rep stosb` windows, non-temporal stores and
//! the loops, non-overlapping copies at several misalignments and overlapping moves both ways
//! (where `rep movsb` and streaming stores must not be taken), against `slice::copy_within`
//! and `slice::fill`. The CPU's own strategy is in the list, with sizes around its windows.
//! A module of `backends.rs`, whose test binary it shares.

use memops::{Strategy, backends};

/// Forced strategies whose thresholds fall at `T` (4 KiB) and `U` (64 KiB), plus the CPU's.
fn strategies() -> Vec<(&'static str, Strategy)> {
    const T: usize = 4096;
    const U: usize = 65536;
    let loops = Strategy::LOOPS_ONLY;
    vec![
        ("loops only", loops),
        ("this CPU's", memops::strategy()),
        (
            "rep from 4 KiB to 64 KiB, streaming above",
            Strategy {
                rep_movsb_min: T,
                rep_movsb_min_sse2: T,
                rep_movsb_max: U,
                rep_stosb_min: U,
                rep_stosb_min_sse2: U,
                nt_threshold: U,
                nt_memset_threshold: T,
                ..loops
            },
        ),
        (
            "rep for every large size",
            Strategy {
                rep_movsb_min: 0,
                rep_movsb_min_sse2: 0,
                rep_movsb_max: usize::MAX,
                rep_stosb_min: 0,
                rep_stosb_min_sse2: 0,
                ..loops
            },
        ),
        (
            "streaming for every large size",
            Strategy { nt_threshold: 0, nt_memset_threshold: 0, ..loops },
        ),
    ]
}

/// Sizes one below, at and one above each threshold of `s` (those up to 3 MiB; the largest
/// windows of a real CPU are tested at their lower ends), and a few between.
fn sizes(s: &Strategy) -> Vec<usize> {
    // Miri runs the portable backend alone, whose loops take no strategy (the windows are
    // x86's `rep` and streaming paths): two sizes check the API path there; the thresholds
    // up to 3 MiB took 18 minutes under it.
    if cfg!(miri) {
        return vec![513, 4097];
    }
    let reduced = std::env::var_os("XTASK_EMULATED").is_some();
    let mut v = vec![513, 1000, 2047, 2048, 2049, 4095, 4096, 4097, 65535, 65536, 65537];
    for t in [
        s.rep_movsb_min,
        s.rep_movsb_min_sse2,
        s.rep_movsb_max,
        s.rep_stosb_min,
        s.rep_stosb_min_sse2,
        s.nt_threshold,
        s.nt_memset_threshold,
    ] {
        if (1..=3 << 20).contains(&t) && !(reduced && t > 1 << 20) {
            v.extend([t - 1, t, t + 1]);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Bytes that differ at every position of a long run (no period a wrong offset could match).
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i ^ (i >> 8) ^ (i >> 16)).wrapping_mul(31) as u8).collect()
}

#[test]
fn every_strategy_on_every_backend() {
    for (name, s) in strategies() {
        for n in sizes(&s) {
            let src = pattern(n + n / 2 + 200);
            for b in backends() {
                let ctx = || format!("{:?}, strategy {name:?}, n {n}", b);
                // Non-overlapping, at a few misalignments of each side.
                for (so, dof) in [(0, 0), (1, 0), (0, 33), (7, 61)] {
                    let mut dst = vec![0xa5u8; n + 128];
                    b.copy_with_strategy(&mut dst[dof..dof + n], &src[so..so + n], &s);
                    assert!(dst[dof..dof + n] == src[so..so + n], "copy: {}", ctx());
                    assert!(dst[..dof].iter().all(|&x| x == 0xa5), "copy before: {}", ctx());
                    assert!(dst[dof + n..].iter().all(|&x| x == 0xa5), "copy after: {}", ctx());
                }
                // Overlapping both ways: destination inside the source (backward) and before
                // it (forward), near and far.
                for d in [1, 63, 64, n / 2] {
                    for backward in [true, false] {
                        let (from, to) = if backward { (0, d) } else { (d, 0) };
                        let mut buf = src[..n + d].to_vec();
                        let mut want = buf.clone();
                        want.copy_within(from..from + n, to);
                        b.copy_within_with_strategy(&mut buf, from..from + n, to, &s);
                        assert!(buf == want, "overlap {d} backward {backward}: {}", ctx());
                    }
                }
                // Fills, with guard bytes.
                for off in [0, 5] {
                    let mut buf = vec![0x3cu8; n + 64];
                    b.fill_with_strategy(&mut buf[off..off + n], 0xc3, &s);
                    assert!(buf[off..off + n].iter().all(|&x| x == 0xc3), "fill: {}", ctx());
                    assert!(buf[..off].iter().all(|&x| x == 0x3c), "fill before: {}", ctx());
                    assert!(buf[off + n..].iter().all(|&x| x == 0x3c), "fill after: {}", ctx());
                }
            }
        }
    }
}

/// The reported strategy is the one the crate's functions use (the windows a user's copies
/// take), and on x86_64 with ERMS a `rep movsb` window exists.
#[test]
fn the_cpus_strategy_is_reported() {
    let s = memops::strategy();
    assert_eq!(s, memops::strategy());
    // (Under `--cfg memops_backend="portable"` only the portable backend runs: no strategy.)
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if backends().count() > 1 {
        let f = nab_isa::cpu_facts();
        assert_eq!(f.erms || f.fsrm, s.rep_movsb_min < s.rep_movsb_max, "{s:?}");
        assert!(s.nt_threshold >= 0x4040, "{s:?}");
    }
}
