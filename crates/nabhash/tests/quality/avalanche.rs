//! Avalanche and bit independence (rurban/smhasher `AvalancheTest.h`).

use super::rng::SplitMix64;
use super::stats::{Verdict, normal_sf};
use super::{HashFn, Report, Scale};

/// `SPREAD[b]` has bit `k` of `b` in byte `k`: adding `SPREAD[byte]` to a `u64` counts the
/// eight bits of `byte` in eight 8-bit lanes at once.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            t[b] |= (((b >> k) & 1) as u64) << (8 * k);
            k += 1;
        }
        b += 1;
    }
    t
};

/// Counts, for each of `rows` inputs, how often each of the 128 output bits was set in the
/// values added for it. Byte-lane accumulators ([`SPREAD`]) flushed every 255 additions keep
/// this at 16 additions per value instead of 128.
struct BitCounters {
    lanes: Vec<u64>,
    counts: Vec<u64>,
    pending: u32,
}

impl BitCounters {
    fn new(rows: usize) -> Self {
        BitCounters { lanes: vec![0; rows * 16], counts: vec![0; rows * 128], pending: 0 }
    }

    #[inline]
    fn add(&mut self, row: usize, value: u128) {
        let lanes = &mut self.lanes[row * 16..row * 16 + 16];
        for (j, lane) in lanes.iter_mut().enumerate() {
            *lane += SPREAD[(value >> (8 * j)) as u8 as usize];
        }
    }

    /// Call once after each round of at most one `add` per row.
    fn end_round(&mut self) {
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            for k in 0..8 {
                // lane i = row i/16, output byte i%16; lane k is output bit 8*(i%16) + k.
                self.counts[(i / 16) * 128 + (i % 16) * 8 + k] += (*lane >> (8 * k)) & 0xff;
            }
            *lane = 0;
        }
        self.pending = 0;
    }

    fn into_counts(mut self) -> Vec<u64> {
        self.flush();
        self.counts
    }
}

/// Avalanche (SMHasher `AvalancheTest`): for random keys of `len` bytes (and a random seed per
/// sample), flip each input bit and record, for every output bit, how often it flips. Each of
/// the `8·len × 128` cells should be a fair coin.
///
/// SMHasher fails when the worst cell's bias `|2p − 1|` exceeds 1%, on 300,000 samples per
/// key size (there 1% is 5.5σ, since σ(bias) = 1/√n). We take fewer samples, so the limit is
/// `max(1%, 6/√n)` (for a perfect hash, P[some cell of 131,072 beyond 6σ] < 3e-4). We also
/// fail when the cells are too spread overall (our addition, from the same counts): the sum of
/// the cells' squared z-scores is χ² with one degree of freedom per cell, and it must not be
/// more than 6 standard deviations above its mean.
///
/// SMHasher's key sizes are 3..20 bytes (24..160 bits); ours add 32, 64 and 128 bytes (one
/// and two 64-byte blocks of NABHash) at fewer samples.
pub fn avalanche(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    let plan: &[(usize, usize)] = scale.pick(
        &[
            (3, 300_000),
            (4, 300_000),
            (8, 200_000),
            (16, 100_000),
            (20, 100_000),
            (32, 25_000),
            (64, 10_000),
            (128, 5_000),
        ],
        &[(4, 4_000), (16, 2_000), (20, 2_000), (64, 500)],
    );
    plan.iter()
        .map(|&(len, reps)| {
            Report::run("Avalanche", &format!("{len}-byte keys, {reps} samples"), || {
                avalanche_one(f, seeded, len, reps)
            })
        })
        .collect()
}

fn avalanche_one(f: &HashFn<'_>, seeded: bool, len: usize, reps: usize) -> Verdict {
    let mut rng = SplitMix64::new(0xa1a1_a1a1 ^ len as u64);
    let bits = len * 8;
    let mut counters = BitCounters::new(bits);
    let mut key = vec![0u8; len];
    for _ in 0..reps {
        rng.fill(&mut key);
        let seed = if seeded { rng.next_u64() } else { 0 };
        let base = f(&key, seed);
        for bit in 0..bits {
            key[bit / 8] ^= 1 << (bit % 8);
            counters.add(bit, base ^ f(&key, seed));
            key[bit / 8] ^= 1 << (bit % 8);
        }
        counters.end_round();
    }
    let counts = counters.into_counts();
    let n = reps as f64;
    let (mut worst, mut worst_cell, mut chi2) = (0.0f64, 0, 0.0);
    for (cell, &c) in counts.iter().enumerate() {
        let bias = (2.0 * c as f64 / n - 1.0).abs();
        if bias > worst {
            worst = bias;
            worst_cell = cell;
        }
        chi2 += bias * bias * n; // z = (2c − n)/√n
    }
    let cells = counts.len() as f64;
    let chi2_z = (chi2 - cells) / (2.0 * cells).sqrt();
    let limit = (6.0 / n.sqrt()).max(0.01);
    let passed = worst <= limit && chi2_z <= 6.0;
    Verdict {
        passed,
        details: format!(
            "worst bias {:.3}% (limit {:.2}%) at input bit {} -> output bit {}; chi2 {:+.1} sd (p {:.2})",
            worst * 100.0,
            limit * 100.0,
            worst_cell / 128,
            worst_cell % 128,
            chi2_z,
            normal_sf(chi2_z)
        ),
    }
}

/// BIC, the bit independence criterion (SMHasher `BicTest3`, run for 128-bit hashes with
/// `--extra`): for random 16-byte keys and each input bit, flip it and tabulate every *pair* of
/// output bits by which of the two flipped (four cells per pair). SMHasher's bias of a cell is
/// `|4·count/n − 1|` (it should hold a quarter of the samples) and it fails above 5%
/// (100,000 samples per input bit; there 5% is 9σ, σ = √(3/n)). With our sample counts the
/// limit is `max(5%, 6.5σ)`: 128 × 8128 pairs × 4 cells, P[a perfect hash exceeds 6.5σ
/// somewhere] < 4e-4.
///
/// Counting uses bit columns: each output bit's flips over all samples form a bitmap, and the
/// "both flipped" count of a pair is the popcount of the AND of two bitmaps; the other three
/// cells follow from the two marginals.
pub fn bic(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    let (len, reps) = scale.pick((16, 50_000), (4, 4_000));
    vec![Report::run("BIC", &format!("{len}-byte keys, {reps} samples per bit"), || {
        bic_one(f, seeded, len, reps)
    })]
}

fn bic_one(f: &HashFn<'_>, seeded: bool, len: usize, reps: usize) -> Verdict {
    let mut rng = SplitMix64::new(11_938);
    let words = reps.div_ceil(64);
    let mut columns = vec![0u64; 128 * words];
    let mut key = vec![0u8; len];
    let n = reps as f64;
    let (mut worst, mut at) = (0.0f64, (0, 0, 0));
    for in_bit in 0..len * 8 {
        columns.fill(0);
        for rep in 0..reps {
            rng.fill(&mut key);
            let seed = if seeded { rng.next_u64() } else { 0 };
            let a = f(&key, seed);
            key[in_bit / 8] ^= 1 << (in_bit % 8);
            let mut d = a ^ f(&key, seed);
            while d != 0 {
                let out = d.trailing_zeros() as usize;
                columns[out * words + rep / 64] |= 1 << (rep % 64);
                d &= d - 1;
            }
        }
        let marginal: Vec<u64> = columns
            .chunks(words)
            .map(|c| c.iter().map(|w| u64::from(w.count_ones())).sum())
            .collect();
        for i in 0..128 {
            let ci = &columns[i * words..(i + 1) * words];
            for j in i + 1..128 {
                let cj = &columns[j * words..(j + 1) * words];
                let both: u64 =
                    ci.iter().zip(cj).map(|(x, y)| u64::from((x & y).count_ones())).sum();
                let cells = [
                    both,
                    marginal[i] - both,
                    marginal[j] - both,
                    reps as u64 + both - marginal[i] - marginal[j],
                ];
                for c in cells {
                    let bias = (4.0 * c as f64 / n - 1.0).abs();
                    if bias > worst {
                        worst = bias;
                        at = (in_bit, i, j);
                    }
                }
            }
        }
    }
    let limit = (6.5 * (3.0 / n).sqrt()).max(0.05);
    Verdict {
        passed: worst <= limit,
        details: format!(
            "worst bias {:.2}% (limit {:.2}%) at input bit {} -> output bits ({}, {})",
            worst * 100.0,
            limit * 100.0,
            at.0,
            at.1,
            at.2
        ),
    }
}
