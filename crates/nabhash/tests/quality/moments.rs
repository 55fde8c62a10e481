//! MomentChi2 (rurban/smhasher `main.cpp`, `MomentChi2Test`).

use super::stats::Verdict;
use super::{HashFn, Report, Scale};

/// `(E[X^5], Var[X^5])` for `X ~ Binomial(64, 1/2)`, the popcount of 64 random bits:
/// 38918912 and 5.876e14. SMHasher hard-codes close approximations: `srefh` = 38918200 for the
/// mean and `srefl` = 273633.3 for the variance of the mean over its 2^31 keys (exact:
/// 273643.2).
fn popcount5_moments() -> (f64, f64) {
    let (mut m5, mut m10) = (0.0f64, 0.0f64);
    let mut choose = 1.0f64; // C(64, k)
    for k in 0..=64u32 {
        let p = choose / 2f64.powi(64);
        let x = f64::from(k).powi(5);
        m5 += p * x;
        m10 += p * x * x;
        choose = choose * f64::from(64 - k) / f64::from(k + 1);
    }
    (m5, m10 - m5 * m5)
}

/// MomentChi2: hash the 4-byte keys 0, 2, 4, ... (SMHasher's step 2 over the whole 32-bit
/// range, 2^31 keys; ours the first 2^23 keys full, 2^15 reduced) and compare the mean of
/// `popcount^5` of the hash's low 64 bits, of `(64 − popcount)^5`, and of both for the XOR of
/// consecutive hashes (the "derivative"), with the exact binomial moment. SMHasher's statistic
/// is `chi2 = (mean − E)² / (sample variance of the mean + reference variance of the mean)`;
/// it ranks `< 5` Great, `< 50` Good, `< 500` pass, and fails at 500 and above. Same here,
/// with the reference variance computed for our sample count.
pub fn moment_chi2(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let n = scale.pick(1u64 << 23, 1 << 15);
    vec![Report::run("MomentChi2", &format!("{n} keys of 4 bytes, step 2"), || {
        let (mean_ref, var_ref) = popcount5_moments();
        // Exact sums of x and x^2 for: ones, zeros, derivative ones, derivative zeros.
        let mut sums = [(0u128, 0u128); 4];
        let low64 = |i: u64| f(&((i * 2) as u32).to_le_bytes(), 0) as u64;
        let mut previous = low64(u64::from(u32::MAX >> 1)); // the key before 0: 2^32 − 2
        for i in 0..n {
            let h = low64(i);
            let ones = h.count_ones();
            let dones = (h ^ previous).count_ones();
            for (s, bits) in sums.iter_mut().zip([ones, 64 - ones, dones, 64 - dones]) {
                let x = u128::from(bits).pow(5);
                s.0 += x;
                s.1 += x * x;
            }
            previous = h;
        }
        let nf = n as f64;
        let chi2: Vec<f64> = sums
            .iter()
            .map(|&(s, s2)| {
                let mean = s as f64 / nf;
                let var_of_mean = (s2 as f64 / nf - mean * mean) / nf;
                (mean - mean_ref).powi(2) / (var_of_mean + var_ref / nf)
            })
            .collect();
        let worst = chi2.iter().cloned().fold(0.0, f64::max);
        let rank = match worst {
            w if w < 5.0 => "Great",
            w if w < 50.0 => "Good",
            w if w < 500.0 => "pass",
            _ => "FAIL",
        };
        Verdict {
            passed: worst < 500.0,
            details: format!(
                "chi2 ones {:.2}, zeros {:.2}, derivative {:.2}/{:.2}: {rank}",
                chi2[0], chi2[1], chi2[2], chi2[3]
            ),
        }
    })]
}

#[test]
fn popcount5_moments_are_exact() {
    let (mean, var) = popcount5_moments();
    // Exact rationals: sum C(64,k) k^5 / 2^64 and sum C(64,k) k^10 / 2^64 - mean^2.
    assert!((mean - 38_918_912.0).abs() < 1e-6, "{mean}");
    assert!((var - 587_644_240_528_816.0).abs() < 1e3, "{var}");
}
