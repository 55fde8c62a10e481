//! Checks of a hasher's integer path (`write_u64` and friends, what `HashMap<u64, _>` runs),
//! which SMHasher3 does not reach (it feeds bytes through `write`).
//!
//! - Avalanche: for random keys (with a random seed per sample, and with each of two fixed
//!   seeds, as a hash table uses one), flip each input bit; every
//!   output bit must flip with probability 1/2. Fails when the worst of the `64 x 64` cells
//!   has bias `|2p - 1|` above `max(1%, 6/sqrt(n))` (SMHasher's limit, widened to 6 sigma for
//!   our sample count), or when the cells' chi-square is 6 sigma above its mean.
//! - Distribution of the bits hashbrown uses: the top 7 bits (the control-byte tag) and the
//!   low `b` bits (the bucket index of a table with `2^b` buckets, `2^b` about the key count)
//!   over sequential, strided and sparse key sets. Each histogram's chi-square against the
//!   uniform distribution must be within 6 sigma of its mean (`k - 1` for `k` buckets,
//!   sigma `sqrt(2(k - 1))`); a perfect hash fails one of the 30-odd histograms with
//!   probability below 1e-7.

use super::rng::SplitMix64;
use super::stats::Verdict;
use super::{Report, Scale};

/// The integer hash under test: `(key, seed) -> 64-bit hash`.
pub type IntHashFn<'a> = dyn Fn(u64, u64) -> u64 + 'a;

/// Avalanche of `f` over keys of `bits` bits (random keys masked to `bits`), and the
/// distribution checks over the key sets below, for keys that fit in `bits` bits.
pub fn integer_path(name: &str, f: &IntHashFn<'_>, bits: u32, scale: Scale) -> Vec<Report> {
    let mut reports = Vec::new();
    let reps = scale.pick(200_000, 20_000);
    reports.push(Report::run("IntAvalanche", &format!("{name}, {reps} samples"), || {
        avalanche(f, bits, reps, None)
    }));
    // A hash table keeps one key for its life: the avalanche must hold for a fixed seed too.
    // (A random seed per sample averages out key-dependent structure: the XOR of two
    // parallel multiplies, `fm(x ^ a, k1) ^ fm(rotl(x, 32) ^ b, k2)`, passes that check and
    // has an 88% bias with any fixed key.)
    // Under emulation one seed and fewer samples (limit 8.5%: such biases are far above it).
    let (seeds, fixed_reps) =
        scale.pick((&[0u64, 0x9e37_79b9_7f4a_7c15][..], reps), (&[0][..], 5000));
    for &seed in seeds {
        let what = format!("{name}, seed {seed:#x}, {fixed_reps} samples");
        reports.push(Report::run("IntAvalanche", &what, || {
            avalanche(f, bits, fixed_reps, Some(seed))
        }));
    }
    let n: u64 = scale.pick(1 << 16, 1 << 12);
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let mut sets: Vec<(String, Vec<u64>)> = vec![
        ("sequential 0..n".into(), (0..n).collect()),
        ("sequential from 2^31".into(), (0..n).map(|i| (1u64 << 31) + i).collect()),
    ];
    for shift in [3, 8, 12, 16, 24, 32, 48] {
        if shift + n.trailing_zeros() <= bits {
            sets.push((format!("stride 2^{shift}"), (0..n).map(|i| i << shift).collect()));
        }
    }
    sets.push(("stride 1000".into(), (0..n).map(|i| (i * 1000) & mask).collect()));
    sets.push((
        "reversed bits of 0..n".into(),
        (0..n).map(|i| i.reverse_bits() >> (64 - bits)).collect(),
    ));
    let mut sparse = Vec::new();
    for a in 0..bits {
        sparse.push(1u64 << a);
        for b in a + 1..bits {
            sparse.push(1u64 << a | 1u64 << b);
            if scale == Scale::Full && bits <= 64 {
                for c in b + 1..bits {
                    sparse.push(1u64 << a | 1u64 << b | 1u64 << c);
                }
            }
        }
    }
    sets.push((format!("sparse, <={} bits set", scale.pick(3, 2)), sparse));
    for (set, keys) in sets {
        for seed in [0u64, 0x1234_5678_9abc_def0] {
            let name = format!("{name}, {set}, seed {seed:#x}, {} keys", keys.len());
            reports.push(Report::run("IntDistribution", &name, || distribution(f, &keys, seed)));
        }
    }
    reports
}

/// Avalanche over random keys, with a random seed per sample or the `fixed` one.
fn avalanche(f: &IntHashFn<'_>, bits: u32, reps: usize, fixed: Option<u64>) -> Verdict {
    let mut rng = SplitMix64::new(0x1a7a_1a7a ^ u64::from(bits));
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let mut counts = vec![0u32; bits as usize * 64];
    for _ in 0..reps {
        let (key, seed) = (rng.next_u64() & mask, rng.next_u64());
        let seed = fixed.unwrap_or(seed);
        let h = f(key, seed);
        for i in 0..bits as usize {
            let d = h ^ f(key ^ 1 << i, seed);
            for (j, c) in counts[i * 64..i * 64 + 64].iter_mut().enumerate() {
                *c += (d >> j) as u32 & 1;
            }
        }
    }
    let n = reps as f64;
    let (mut worst, mut worst_at, mut chi2) = (0.0f64, (0, 0), 0.0);
    for (cell, &c) in counts.iter().enumerate() {
        let bias = (2.0 * f64::from(c) / n - 1.0).abs();
        chi2 += bias * bias * n;
        if bias > worst {
            worst = bias;
            worst_at = (cell / 64, cell % 64);
        }
    }
    let limit = (6.0 / n.sqrt()).max(0.01);
    let cells = counts.len() as f64;
    let z = (chi2 - cells) / (2.0 * cells).sqrt();
    Verdict {
        passed: worst <= limit && z <= 6.0,
        details: format!(
            "worst bias {:.3}% (input bit {}, output bit {}; limit {:.3}%), chi2 z = {z:.1}",
            100.0 * worst,
            worst_at.0,
            worst_at.1,
            100.0 * limit
        ),
    }
}

/// Chi-square z-score of `values` (already reduced to `0..k`) against uniform over `k` buckets.
fn chi2_z(values: impl Iterator<Item = usize>, k: usize, n: usize) -> f64 {
    let mut hist = vec![0u64; k];
    for v in values {
        hist[v] += 1;
    }
    let e = n as f64 / k as f64;
    let chi2: f64 = hist.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
    let df = (k - 1) as f64;
    (chi2 - df) / (2.0 * df).sqrt()
}

fn distribution(f: &IntHashFn<'_>, keys: &[u64], seed: u64) -> Verdict {
    let hashes: Vec<u64> = keys.iter().map(|&k| f(k, seed)).collect();
    let n = hashes.len();
    let b = (usize::BITS - 1 - n.leading_zeros()).clamp(4, 20);
    let tag = chi2_z(hashes.iter().map(|h| (h >> 57) as usize), 128, n);
    let bucket = chi2_z(hashes.iter().map(|h| (*h as usize) & ((1 << b) - 1)), 1 << b, n);
    // Both together: the tag within the low buckets (hashbrown compares the tag only within
    // a probe group, so tag and bucket should be independent).
    let both =
        chi2_z(hashes.iter().map(|h| ((h >> 57) as usize) << 6 | (*h as usize & 63)), 128 * 64, n);
    Verdict {
        passed: tag <= 6.0 && bucket <= 6.0 && both <= 6.0,
        details: format!(
            "chi2 z: top 7 bits {tag:.1}, low {b} bits {bucket:.1}, top 7 x low 6 {both:.1}"
        ),
    }
}
