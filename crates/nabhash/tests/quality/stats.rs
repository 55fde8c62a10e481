//! Collision counting and the statistics behind every threshold of the quality checks.
//!
//! [`analyze`] is SMHasher's `TestHashList` (rurban/smhasher, `Stats.h`) for a 128-bit hash:
//! sort the hashes, count collisions (keys minus distinct values) on the full width, then on
//! truncations to the high and the low 64 and 32 bits, on every width between "1% of the
//! buckets collide" and "20 collisions expected" (SMHasher's `TestHighbitsCollisions`, the
//! "worst window" line), and on the saturated 12- and 8-bit widths.
//!
//! The failure rule, [`excessive`], is SMHasher's plus a significance gate:
//!
//! - SMHasher (`TestHashList`, `CountHighbitsCollisions`, `TestHighbitsCollisions`): on the
//!   full width of a hash wider than 32 bits *any* collision fails when fewer than one is
//!   expected; on a truncation a count above twice the expectation fails (four times when
//!   0.1..10 are expected).
//! - Ours: the count must also be improbable for a random function, `P[Poisson(expected) >=
//!   count] < 1e-6` ([`ALPHA`]). SMHasher's ratio rule alone fails a perfect hash one time in
//!   ten when 0.1 collisions are expected and one occurs (a 32-bit truncation of a 30k-key
//!   set); with several hundred truncation counts per hash that would make the suite flaky on
//!   fixed seeds. On the full 128-bit width the gate changes nothing: the expectation is
//!   below 1e-20 here, so one collision is both "any" and improbable.

/// Width of the hashes under test.
pub const HASH_BITS: u32 = 128;

/// Per-count false-alarm level of [`excessive`]. With about 40 counts per key set and about
/// 150 key sets per hash, a perfect hash fails somewhere with probability below 1%.
pub const ALPHA: f64 = 1e-6;

/// Expected collisions (keys minus distinct values) among `n` uniform random `bits`-bit
/// values: `n - m(1 - (1 - 1/m)^n)` with `m = 2^bits`, or `n(n-1)/2m` when `n/m < 1e-3`
/// (relative error below 1e-3; the exact form cancels catastrophically there). SMHasher's
/// `EstimateNbCollisions` is the same pair count, capped.
pub fn expected_collisions(n: usize, bits: u32) -> f64 {
    let n = n as f64;
    let m = 2f64.powi(bits as i32);
    if n < 2.0 {
        0.0
    } else if n / m < 1e-3 {
        n * (n - 1.0) / (2.0 * m)
    } else {
        n - m * -(n * (-1.0 / m).ln_1p()).exp_m1()
    }
}

/// `ln(k!)`: exact sum for small `k`, Stirling's series (error below 1e-10) above.
pub fn ln_factorial(k: u64) -> f64 {
    if k < 64 {
        (2..=k).map(|i| (i as f64).ln()).sum()
    } else {
        let k = k as f64;
        k * k.ln() - k + 0.5 * (2.0 * std::f64::consts::PI * k).ln() + 1.0 / (12.0 * k)
            - 1.0 / (360.0 * k * k * k)
    }
}

/// `P[X >= k]` for `X ~ Poisson(lambda)`, summed from the tail term up. Only meaningful (and
/// only called) for `k > lambda`; returns 1 otherwise.
pub fn poisson_sf(k: u64, lambda: f64) -> f64 {
    if k == 0 || k as f64 <= lambda {
        return 1.0;
    }
    let ln_lambda = lambda.ln();
    let mut ln_term = -lambda + k as f64 * ln_lambda - ln_factorial(k);
    let mut sum = 0.0;
    for i in k + 1..k + 100_000 {
        let term = ln_term.exp();
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
        ln_term += ln_lambda - (i as f64).ln();
    }
    sum.min(1.0)
}

/// The upper tail `P[Z > z]` of a standard normal (Abramowitz & Stegun 7.1.26 for erfc,
/// absolute error below 1.5e-7, plenty for reporting).
pub fn normal_sf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 { erfc / 2.0 } else { 1.0 - erfc / 2.0 }
}

/// Whether `count` collisions are too many when `expected` are expected: SMHasher's ratio
/// rule and our significance gate (see the module docs).
pub fn excessive(count: u64, expected: f64) -> bool {
    let ratio_limit = if (0.1..=10.0).contains(&expected) { 4.0 } else { 2.0 };
    count as f64 > ratio_limit * expected && poisson_sf(count, expected) < ALPHA
}

/// Sorts `v`: one most-significant-digit radix pass on the top 16 bits (`top16`), then each
/// bucket on its own. About three times faster than `sort_unstable` on tens of millions of
/// values, which is where the key-set checks spend most of their time.
fn radix_sort<T: Copy + Ord + Default>(v: &mut Vec<T>, top16: impl Fn(T) -> usize) {
    if v.len() < 1 << 18 {
        v.sort_unstable();
        return;
    }
    let mut starts = vec![0usize; (1 << 16) + 1];
    for &x in v.iter() {
        starts[top16(x) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut cursor = starts.clone();
    let mut out = vec![T::default(); v.len()];
    for &x in v.iter() {
        let b = top16(x);
        out[cursor[b]] = x;
        cursor[b] += 1;
    }
    for b in starts.windows(2) {
        out[b[0]..b[1]].sort_unstable();
    }
    *v = out;
}

/// For sorted values: `hist[l]` is the number of neighbouring pairs whose common leading
/// prefix is exactly `l` bits long (`l = width`: equal). Collisions on the top `w` bits are
/// then the pairs with `l >= w`, for every `w` at once.
fn prefix_histogram<T: Copy + std::ops::BitXor<Output = T>>(
    sorted: &[T],
    leading_zeros: impl Fn(T) -> u32,
) -> [u64; 129] {
    let mut hist = [0u64; 129];
    for pair in sorted.windows(2) {
        hist[leading_zeros(pair[0] ^ pair[1]) as usize] += 1;
    }
    hist
}

/// Collisions on the top `w` bits from a [`prefix_histogram`].
fn collisions_at(hist: &[u64; 129], w: u32) -> u64 {
    hist[w as usize..].iter().sum()
}

/// The outcome of one statistical check: pass/fail and a one-line account with the numbers.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub passed: bool,
    pub details: String,
}

/// Collision analysis of one key set's hashes, as SMHasher's `TestHashList` (see the module
/// docs). `truncations: false` counts the full width only (what SMHasher does for the
/// 'Window' key sets).
pub fn analyze(mut hashes: Vec<u128>, truncations: bool) -> Verdict {
    let n = hashes.len();
    radix_sort(&mut hashes, |x| (x >> (HASH_BITS - 16)) as usize);
    let high = prefix_histogram(&hashes, u128::leading_zeros);
    let full = collisions_at(&high, HASH_BITS);
    let full_expected = expected_collisions(n, HASH_BITS);
    let mut failures = Vec::new();
    if excessive(full, full_expected) {
        failures.push(format!("{full} full-width collisions"));
    }
    let mut worst = (0.0f64, String::new());
    if truncations {
        let mut widths: std::collections::BTreeSet<u32> = [64, 32, 12, 8].into();
        widths.extend(window_widths(n));
        let mut side = |hist: &[u64; 129], name: &str| {
            for &w in widths.iter().rev() {
                let count = collisions_at(hist, w);
                let expected = expected_collisions(n, w);
                let ratio = if expected > 0.0 { count as f64 / expected } else { 0.0 };
                let label = format!("{name}{w} {count}/{expected:.1}");
                if excessive(count, expected) {
                    failures.push(label.clone());
                }
                if ratio > worst.0 && expected >= 0.5 {
                    worst = (ratio, label);
                }
            }
        };
        side(&high, "hi");
        // The low side needs widths up to 64 only (the full width is counted above): sort the
        // bit-reversed low halves, so that the lowest bits lead.
        let mut low: Vec<u64> = hashes.iter().map(|&x| (x as u64).reverse_bits()).collect();
        drop(hashes);
        radix_sort(&mut low, |x| (x >> 48) as usize);
        side(&prefix_histogram(&low, u64::leading_zeros), "lo");
    }
    let mut details = format!("{n} keys, {full} full collisions (exp {full_expected:.1e})");
    if truncations {
        details += &format!(", worst truncation {} ({:.2}x)", worst.1, worst.0);
    }
    if !failures.is_empty() {
        details += &format!("; FAIL: {}", failures.join(", "));
    }
    Verdict { passed: failures.is_empty(), details }
}

/// SMHasher's `TestHighbitsCollisions` widths: from the narrowest width where fewer than 1%
/// of the buckets collide (`FindMinBits_TargetCollisionShare(n, 0.01)`) to the widest where
/// more than 20 collisions are expected (`FindMaxBits_TargetCollisionNb(n, 20)`).
fn window_widths(n: usize) -> Vec<u32> {
    let min = (2..64).find(|&b| expected_collisions(n, b) < 0.01 * 2f64.powi(b as i32));
    let max = (3..64).rev().find(|&b| expected_collisions(n, b) > 20.0);
    match (min, max) {
        (Some(min), Some(max)) => (min..=max).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn collision_statistics() {
    // n(n-1)/2 pairs over 2^32 buckets; saturated: every one of 2^8 buckets is hit.
    assert!((expected_collisions(1 << 16, 32) - 0.499_992_370_6).abs() < 1e-9);
    assert!((expected_collisions(1 << 20, 8) - (1_048_576.0 - 256.0)).abs() < 1e-6);
    // P[Poisson(1) >= 5] = 1 - e^-1 (1 + 1 + 1/2 + 1/6 + 1/24).
    assert!((poisson_sf(5, 1.0) - 0.003_659_846_827_343_771).abs() < 1e-12);
    assert!((poisson_sf(1, 1e-20) / 1e-20 - 1.0).abs() < 1e-9);
    assert!(!excessive(1, 0.125) && !excessive(4, 0.125) && excessive(5, 0.125));
    assert!(excessive(1, 1e-20) && !excessive(40, 20.0) && excessive(60, 20.0));
}

#[test]
fn analyze_counts_collisions_on_every_width() {
    let mut rng = super::rng::SplitMix64::new(1);
    let random: Vec<u128> = (0..300_000)
        .map(|_| (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
        .collect();
    assert!(analyze(random.clone(), true).passed);
    // Two exact duplicates: a full-width failure.
    let mut dup = random.clone();
    dup.extend_from_slice(&random[..2]);
    let v = analyze(dup, true);
    assert!(!v.passed && v.details.contains(" 2 full collisions"), "{}", v.details);
    // Low 32 bits forced into 2^16 values: a low-truncation failure only.
    let low = random.iter().map(|&x| x & !0xffff_0000).collect();
    let v = analyze(low, true);
    assert!(
        !v.passed && v.details.contains("lo32") && !v.details.contains("hi32"),
        "{}",
        v.details
    );
}
