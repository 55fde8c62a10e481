//! Differential checks (rurban/smhasher `DifferentialTest.h`).

use super::rng::SplitMix64;
use super::stats::{Verdict, analyze};
use super::{HashFn, Report, Scale};

/// Diff (SMHasher `DiffTest`): for random keys k, every difference d of at most `bits` set
/// bits; record d whenever `hash(k) == hash(k ^ d)`. A difference that collides in two or
/// more of the trials is a differential characteristic and fails (SMHasher's
/// `ProcessDifferentials`; single collisions are ignored as chance, and for a 128-bit hash
/// even those are improbable). SMHasher: 64-bit keys/5 bits, 128/4 and 256/3 with 1000 trials
/// (22 billion hashes); ours 64/4, 128/3, 256/3 with 8, 8 and 2 trials (full), or 64/2, 128/2,
/// 256/2 with 8, 4 and 2 (reduced).
pub fn diff(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    let plan: &[(usize, usize, usize)] = scale
        .pick(&[(64, 4, 8), (128, 3, 8), (256, 3, 2)], &[(64, 2, 8), (128, 2, 4), (256, 2, 2)]);
    plan.iter()
        .map(|&(key_bits, bits, trials)| {
            let name = format!("{key_bits}-bit keys, <={bits}-bit differences, {trials} trials");
            Report::run("Diff", &name, || {
                let mut rng = SplitMix64::new(100);
                let mut key = vec![0u8; key_bits / 8];
                let mut found: Vec<Vec<u16>> = Vec::new();
                let mut tested = 0u64;
                for _ in 0..trials {
                    rng.fill(&mut key);
                    let seed = if seeded { rng.next_u64() } else { 0 };
                    let base = f(&key, seed);
                    let mut flipped = Vec::new();
                    let mut ctx = DiffCtx { f, seed, base, tested: &mut tested, found: &mut found };
                    diff_recurse(&mut ctx, &mut key, 0, bits, &mut flipped);
                }
                found.sort_unstable();
                let repeated = found.windows(2).filter(|w| w[0] == w[1]).count();
                Verdict {
                    passed: repeated == 0,
                    details: format!(
                        "{tested} pairs, {} colliding, {repeated} differences repeated",
                        found.len()
                    ),
                }
            })
        })
        .collect()
}

struct DiffCtx<'a, 'f> {
    f: &'a HashFn<'f>,
    seed: u64,
    base: u128,
    tested: &'a mut u64,
    /// Colliding differences, as their sorted bit positions.
    found: &'a mut Vec<Vec<u16>>,
}

/// SMHasher's `DiffTestRecurse`: flip each bit from `start` on, compare, recurse, unflip.
fn diff_recurse(
    ctx: &mut DiffCtx<'_, '_>,
    key: &mut [u8],
    start: usize,
    left: usize,
    flipped: &mut Vec<u16>,
) {
    for bit in start..key.len() * 8 {
        key[bit / 8] ^= 1 << (bit % 8);
        flipped.push(bit as u16);
        *ctx.tested += 1;
        if (ctx.f)(key, ctx.seed) == ctx.base {
            ctx.found.push(flipped.clone());
        }
        if left > 1 {
            diff_recurse(ctx, key, bit + 1, left - 1, flipped);
        }
        flipped.pop();
        key[bit / 8] ^= 1 << (bit % 8);
    }
}

/// DiffDist (SMHasher `DiffDistTest2`): for each bit of a 64-bit key, many random keys k;
/// the values `hash(k) ^ hash(k with the bit flipped)` should look like random 128-bit values,
/// so they are run through the collision analysis like a key set. SMHasher: all 64 bits,
/// 2 Mi pairs each; ours all 64 bits with 64 Ki pairs (full), or 8 bits with 4 Ki (reduced).
pub fn diff_dist(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let (bits, pairs): (Vec<u32>, usize) =
        scale.pick(((0..64).collect(), 1 << 16), (vec![0, 7, 8, 31, 32, 55, 56, 63], 1 << 12));
    vec![Report::run("DiffDist", &format!("{} key bits x {pairs} pairs", bits.len()), || {
        let mut rng = SplitMix64::new(857_374);
        let mut failures = Vec::new();
        for &bit in &bits {
            let diffs = (0..pairs)
                .map(|_| {
                    let k = rng.next_u64();
                    f(&k.to_le_bytes(), 0) ^ f(&(k ^ (1 << bit)).to_le_bytes(), 0)
                })
                .collect();
            let v = analyze(diffs, true);
            if !v.passed {
                failures.push(format!("bit {bit}: {}", v.details));
            }
        }
        Verdict {
            passed: failures.is_empty(),
            details: match failures.first() {
                None => format!("{} differences, no excess collisions", bits.len() * pairs),
                Some(first) => format!("FAIL {} bits, first {first}", failures.len()),
            },
        }
    })]
}
