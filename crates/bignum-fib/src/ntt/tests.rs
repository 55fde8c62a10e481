//! The NTT's unit tests: every engine this CPU runs against the portable one and against
//! schoolbook products, the CRT bounds of every plan at their longest transforms, and the
//! FMA kernels' lazy bounds at their edges.

#![allow(clippy::needless_range_loop)]

#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
use super::crt::*;
use super::cyclic::*;
use super::engine::*;
use super::field::*;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
use super::fma_wide::*;
use super::plan::*;
use super::recombine::*;
use super::tables::*;
use super::transform::*;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
use super::truncated::*;
use super::wide::*;
use super::*;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::fma::Fma;

/// The engines this CPU runs ([`crate::ntt_engines`]), each with three primes and with four.
fn engines() -> Vec<Engine> {
    let mut v = vec![Engine::Portable];
    for e in crate::ntt_engines().filter(|&e| e != crate::NttEngine::PORTABLE) {
        v.extend([Engine::with_primes(e, false), Engine::with_primes(e, true)]);
    }
    v
}

/// Under qemu-user (`cargo xtask test`'s cross matrix sets `XTASK_EMULATED`).
fn emulated() -> bool {
    std::env::var_os("XTASK_EMULATED").is_some()
}

fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

#[test]
#[cfg_attr(miri, ignore = "a 4096-limb product is too slow under Miri")]
fn products_keep_their_buffers_until_released() {
    // 4096-limb operands: an NTT product on every engine (and small enough for qemu).
    let mut next = xorshift(7);
    let a: Vec<u64> = (0..4096).map(|_| next()).collect();
    let b: Vec<u64> = (0..4096).map(|_| next()).collect();
    let mut r = vec![0u64; 8192];
    release_thread_buffers();
    mul(&mut r, &a, &b);
    let held = release_thread_buffers();
    assert!(held > 0, "a product past the NTT threshold keeps its buffers");
    assert_eq!(release_thread_buffers(), 0, "released buffers are gone");
    // And the next product still works without kept buffers.
    let mut r2 = vec![0u64; 8192];
    mul(&mut r2, &a, &b);
    assert_eq!(r, r2);
}

#[test]
fn fields_are_ntt_primes_with_the_given_generators() {
    for (fields, two_adicity) in
        [(&FIELDS[..], MAX_LOG_LEN), (&WIDE_FIELDS[..], MAX_LOG_LEN), (&FIELDS52[..], 32)]
    {
        for &f in fields {
            assert_eq!((f.p - 1) % (1 << two_adicity), 0);
            assert_eq!(f.p.wrapping_mul(f.pinv), 1);
            assert_eq!(f.p.wrapping_mul(f.pinv52) & LOW52, LOW52, "−p⁻¹ mod 2⁵²");
            // p − 1 = c·2^k: a generator has order p − 1, i.e. no g^((p−1)/q) is 1 for
            // a prime q | p − 1.
            let mut c = (f.p - 1) >> two_adicity;
            let mut primes = vec![2];
            let mut q = 2;
            while q * q <= c {
                if c.is_multiple_of(q) {
                    primes.push(q);
                    while c.is_multiple_of(q) {
                        c /= q;
                    }
                }
                q += 1;
            }
            if c > 1 {
                primes.push(c);
            }
            // A Fermat check with several bases (the primes are also checked by the
            // product tests: a composite modulus would break them).
            for base in [2, 3, 5, 7, 11, 13] {
                assert_eq!(pow_mod(base, f.p - 1, f.p), 1, "{} is not prime", f.p);
            }
            for q in primes {
                assert_ne!(pow_mod(f.generator, (f.p - 1) / q, f.p), 1, "{} {q}", f.p);
            }
        }
        // Garner's single corrections need every prime below twice every other.
        assert!(fields.windows(2).all(|w| w[0].p > w[1].p));
        assert!(fields[0].p < 2 * fields[fields.len() - 1].p);
    }
    for f in WIDE_FIELDS {
        assert!(f.p > 1 << 61 && f.p < 1 << 62);
    }
    // The wide products' CRT bounds, exactly: the primes' product is at least
    // 2^(2·bits + WIDE_MAX_LOG_LEN) (a sum of N products of two coefficients of `bits`
    // bits is below N·2^(2·bits)).
    for w in [WIDE4, WIDE5] {
        let p = WIDE_FIELDS[..w.primes].iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
        let top = 2 * w.bits + WIDE_MAX_LOG_LEN as usize;
        assert!(p[top / 64 + 1..].iter().any(|&l| l != 0) || p[top / 64] >> (top % 64) != 0);
    }
    // And the four primes' bound is tight: below 2^(224 + WIDE_MAX_LOG_LEN + 1).
    let p = WIDE_FIELDS[..4].iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
    let top = 224 + WIDE_MAX_LOG_LEN as usize;
    let below = |l: &[u64]| l.iter().all(|&l| l == 0);
    assert!(p[top / 64] >> (top % 64) == 1 && below(&p[top / 64 + 1..]), "{p:x?}");
    // The CRT bounds of the 50-bit engines: p₁p₂p₃ > 2^(128 + NARROW_MAX_LOG_LEN) and
    // p₁p₂p₃p₄ > 2^(128 + MAX_LOG_LEN52) (a sum of N products of two limbs).
    let bits = |k: usize| FIELDS52[..k].iter().map(|f| (f.p as f64).log2()).sum::<f64>();
    assert!(FIELDS52.iter().all(|f| f.p < 1 << 50));
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    {
        assert!(bits(3) > f64::from(128 + NARROW_MAX_LOG_LEN) + 0.5, "{}", bits(3));
        assert!(bits(4) > f64::from(128 + MAX_LOG_LEN52) + 0.5, "{}", bits(4));
    }
    assert!(bits(3) > 149.5 && bits(4) > 199.5);
    // The FMA engine's wide products: p₁…p₅ > 2^(2·116 + FMA_WIDE_MAX_LOG_LEN), exactly.
    let p = FIELDS52.iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
    let top = 2 * FMA_WIDE.bits + FMA_WIDE_MAX_LOG_LEN as usize;
    assert!(p[top / 64 + 1..].iter().any(|&l| l != 0) || p[top / 64] >> (top % 64) != 0);
    assert_eq!(FMA_WIDE.primes, FIELDS52.len());
}

/// The FMA engine's wide products at their longest transform (`2¹⁷`) with all-ones
/// operands, the largest coefficients the CRT bound must cover: `(B^m − 1)²`.
#[test]
#[cfg_attr(miri, ignore)]
fn fma_wide_products_at_their_longest_transform() {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    for e in engines() {
        let Engine::Fma(t, 3) = e else { continue };
        let w = FMA_WIDE;
        let log = if emulated() { 8 } else { FMA_WIDE_MAX_LOG_LEN };
        // `m` limbs: 2·w.len(m) − 1 > 2^(log − 1) coefficients: a transform of 2^log.
        let m = ((1usize << (log - 2)) + 1) * w.bits / 64 + 1;
        assert_eq!(w.transform_len(m, m), 1 << log);
        let a = vec![u64::MAX; m];
        for b in [None, Some(&a[..])] {
            let mut got = vec![0u64; 2 * m];
            fma_wide_product(t, &mut got, &a, b);
            let ok = got[0] == 1
                && got[1..m].iter().all(|&l| l == 0)
                && got[m] == u64::MAX - 1
                && got[m + 1..].iter().all(|&l| l == u64::MAX);
            assert!(ok, "(B^{m} − 1)² is wrong over 2^{log} points with {e:?}");
        }
    }
}

/// The wide FMA products whose operands fill the lower half of the transform exactly
/// (the forward transform that skips the zero upper half, [`forward_lower_half`]) or
/// one coefficient more (the full one), at its shortest transform (`2¹⁴`, `n/4 =
/// BLOCK`), with all-ones operands: `(B^x − 1)(B^y − 1) = B^(x+y) − B^x − B^y + 1`.
/// In this order, on one thread, each product takes the buffers that the last one kept
/// (their old values in place, and from the last case on longer than the transform),
/// so the zero padding is checked where each load reads it.
#[test]
#[cfg_attr(miri, ignore)]
fn fma_wide_products_around_the_half_filled_transform() {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    for e in engines() {
        let Engine::Fma(t, 3) = e else { continue };
        let w = FMA_WIDE;
        let n = 4 * BLOCK;
        // Limbs for `c` coefficients of 116 bits (`16` coefficients in 29 limbs).
        let limbs = |c: usize| c / 16 * 29 + (c % 16 * w.bits).div_ceil(64);
        let half = limbs(n / 2);
        assert_eq!((w.len(half), w.len(half + 1)), (n / 2, n / 2 + 1));
        let shorter = limbs(n / 2 - 1);
        for (x, y) in [(half, half), (half + 1, shorter), (shorter, half + 1), (half, 1)] {
            let (a, b) = (vec![u64::MAX; x], vec![u64::MAX; y]);
            assert_eq!(w.transform_len(x, y), if y == 1 { n / 2 } else { n });
            // B^(x+y) − B^y is all ones above limb y; less B^x − 1.
            let mut want = vec![0u64; x + y];
            want[y..].fill(u64::MAX);
            let mut borrow = false;
            for (i, v) in want.iter_mut().enumerate() {
                let s = if i < x { u64::MAX } else { 0 };
                let (d, b1) = v.overflowing_sub(s);
                let (d, b2) = d.overflowing_sub(u64::from(borrow));
                (*v, borrow) = (d, b1 || b2);
            }
            assert!(!borrow);
            let ops: &[Option<&[u64]>] = if x == y { &[None, Some(&b)] } else { &[Some(&b)] };
            for &bo in ops {
                let mut got = vec![0u64; x + y];
                fma_wide_product(t, &mut got, &a, bo);
                assert!(
                    got == want,
                    "all-ones {x} × {y} limbs ({bo:?}) with {e:?}",
                    bo = bo.is_some()
                );
            }
        }
    }
}

/// The vector kernels' Garner digits ([`Fma::garner5`], every width) of residues made
/// from chosen digits `t₁…t₅` (`x_j = Σ_m t_m·p₁…p_{m−1} mod p_j`, unscaled: scale 1),
/// against the digits themselves and [`wide_w`]`(t₄, t₅)`: at their largest (`p_j − 1`,
/// so `w` at its largest), zero, small `t₄` with large `t₅` (the low half of `p₄t₅`
/// rounded up, so the carry into `w`'s high piece is taken back) and random, over 200
/// indices (the 16- and 4-vector loops and the single vectors; the tail is the
/// caller's).
#[test]
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn fma_garner5_matches_the_chosen_digits() {
    let primes = FIELDS52.map(|f| f.p);
    let mut next = xorshift(5);
    for e in engines() {
        let Engine::Fma(t, 3) = e else { continue };
        for pattern in 0..4 {
            let digits: Vec<[u64; 5]> = (0..200)
                .map(|i| match pattern {
                    0 => primes.map(|p| p - 1),
                    1 => [0; 5],
                    2 => primes.map(|p| [i as u64 % 3, p - 1 - i as u64][i % 2]),
                    _ => primes.map(|p| next() % p),
                })
                .collect();
            // x mod p_j from the digits, as an inverse transform's outputs (f64 bits).
            let mut rows: Vec<Vec<u64>> = (0..5)
                .map(|j| {
                    let pj = u128::from(primes[j]);
                    digits
                        .iter()
                        .map(|t| {
                            let (mut x, mut prod) = (0u128, 1u128);
                            for m in 0..5 {
                                x = (x + u128::from(t[m]) * prod) % pj;
                                prod = prod * u128::from(primes[m]) % pj;
                            }
                            (x as f64).to_bits()
                        })
                        .collect()
                })
                .collect();
            let mut g = *fma_wide_constants();
            g.scale = [1.0; 5];
            let [y1, y2, y3, y4, y5] = &mut rows[..] else { unreachable!() };
            let done =
                t.garner5([&mut y1[..], &mut y2[..], &mut y3[..], &mut y4[..], &mut y5[..]], &g);
            assert_eq!(done, 200, "{e:?}");
            for (i, d) in digits.iter().enumerate() {
                let [lo, hi] = wide_w(d[3], d[4]);
                let want = [d[0], d[1], d[2], lo, hi];
                let got = [0, 1, 2, 3, 4].map(|j| rows[j][i]);
                assert_eq!(got, want, "pattern {pattern}, index {i}, {e:?}");
            }
        }
    }
}

/// The wide FMA products' recombination ([`fma_wide_recombine`]) against the plain sum
/// `Σᵢ (Σ_j t_j·p₁…p_{j−1})·2^(116·i)` in schoolbook arithmetic, with Garner's digits at
/// their largest (`p_j − 1`: coefficients `p₁…p₅ − 1`, just below `2²⁵⁰`), zero, mixed
/// and random, for digit counts around the 16-digit blocks (so whole blocks and their
/// tail), into a destination of exactly the sum's length.
#[test]
#[cfg_attr(miri, ignore = "safe arithmetic only: the host and cross rows run it")]
#[allow(clippy::needless_range_loop)] // `i` indexes the five digit rows and the bits
fn fma_wide_recombination_matches_the_plain_sum() {
    let mut next = xorshift(2024);
    let primes = FIELDS52.map(|f| f.p);
    // p₁…p_j for j = 0…4, as limbs.
    let mut prods = vec![vec![1u64]];
    for &p in &primes[..4] {
        let v = schoolbook(prods.last().map_or(&[][..], |v| &v[..]), &[p]);
        prods.push(v);
    }
    // Around one, two and three blocks of 16, and five.
    for count in (1..=50).chain([63, 64, 65, 80]) {
        for pattern in 0..4 {
            let digits: Vec<Vec<u64>> = primes
                .iter()
                .map(|&p| {
                    (0..count)
                        .map(|i| match pattern {
                            0 => p - 1,
                            1 => 0,
                            2 => [p - 1, 0, 1, p - 2][(i + p as usize) % 4],
                            _ => next() % p,
                        })
                        .collect()
                })
                .collect();
            // The oracle: each coefficient's sum of products, added at bit 116·i.
            let bits = FMA_WIDE.bits;
            let mut want = vec![0u64; (bits * (count - 1) + 250).div_ceil(64) + 1];
            for i in 0..count {
                for (j, pr) in prods.iter().enumerate() {
                    let v = schoolbook(pr, &[digits[j][i]]);
                    let (q, off) = ((bits * i) / 64, (bits * i) % 64);
                    let mut carry = 0u128;
                    for (k, w) in want[q..].iter_mut().enumerate() {
                        let lo = v.get(k).map_or(0, |&x| x << off);
                        let hi = match (off, k.checked_sub(1).and_then(|k| v.get(k))) {
                            (1.., Some(&x)) => x >> (64 - off),
                            _ => 0,
                        };
                        let t = u128::from(*w) + u128::from(lo | hi) + carry;
                        *w = t as u64;
                        carry = t >> 64;
                    }
                    assert_eq!(carry, 0);
                }
            }
            while want.len() > 1 && want.last() == Some(&0) {
                want.pop();
            }
            let mut got = vec![u64::MAX; want.len()]; // overwritten
            // The last two rows as the recombination takes them.
            let w: Vec<[u64; 2]> = (0..count).map(|i| wide_w(digits[3][i], digits[4][i])).collect();
            let rows = [0, 1].map(|h| w.iter().map(|w| w[h]).collect::<Vec<u64>>());
            let t = [&digits[0][..], &digits[1][..], &digits[2][..], &rows[0][..], &rows[1][..]];
            fma_wide_recombine(&mut got, t);
            assert_eq!(got, want, "{count} digits, pattern {pattern}");
        }
    }
}

/// Which of the FMA engine's products take the wide path: F(10⁷)'s (82 % of their power
/// of two), not full powers of two, nor past the wide transform's longest.
#[test]
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn fma_wide_products_where_they_save_butterflies() {
    assert!(fma_wide_plan(54_238, 54_238)); // F(10⁷)'s last product
    assert!(fma_wide_plan(108_476, 108_476)); // F(2·10⁷)'s
    assert!(fma_wide_plan(27_119, 27_119)); // F(10⁷)'s last squarings: 5·2¹⁵ for 3·2¹⁶
    assert!(fma_wide_plan(1_695, 1_695)); // F(1.5625·10⁵)'s: 5·2¹¹ for 3·2¹²
    assert!(fma_wide_plan(848, 848)); // F(7.8·10⁴)'s: 5·2¹⁰ for 3·2¹¹
    assert!(fma_wide_plan(424, 424)); // 5·2⁹ for 3·2¹⁰
    assert!(!fma_wide_plan(1 << 16, 1 << 16)); // a full power of two
    assert!(!fma_wide_plan(542_377, 542_377)); // F(10⁸)'s: past 2¹⁷
    assert!(!fma_wide_plan(200, 200)); // below the split products' minimum
}

/// Which of the FMA engine's narrow products are truncated: F(10⁶)'s and F(10⁷)'s
/// squarings (66 % and 83 % of their power of two), not full powers of two, nor products
/// just above one (split, see [`coefficients`]), nor short ones.
#[test]
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncated_products_where_they_save_butterflies() {
    assert_eq!(truncates(5_424, 5_424), Some(2)); // F(10⁶)'s last product: 66 % of 2¹⁴
    assert_eq!(truncates(27_119, 27_119), Some(3)); // F(10⁷)'s last squarings: 83 % of 2¹⁶
    assert_eq!(truncates(1 << 15, 1 << 15), None); // a full power of two
    assert_eq!(truncates(1100, 1000), None); // just above 2¹¹: split
    assert_eq!(truncates(200, 200), None); // below `TRUNC_MIN`
    assert_eq!(truncates(7_400, 7_400), None); // 90 % of 2¹⁴: more than three pieces
}

/// The FMA engines' truncated products ([`truncated`]) at the edges of each piece count
/// (the fewest coefficients, `N/2 + 1`, and the most, `N − N/2^K`), balanced and not,
/// with random and all-ones operands (the largest coefficients), against schoolbook.
#[test]
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncated_products_at_their_edges() {
    let mut next = xorshift(5);
    let n = TRUNC_MIN;
    let h = n / 2;
    // (a, b, pieces): count = a + b − 1.
    let cases = [
        (h / 2 + 1, h / 2 + 1, 2),                 // N/2 + 1
        (h, 2, 2),                                 // N/2 + 1, unbalanced
        (h / 2 + h / 4, h / 2 + h / 4 + 1, 2),     // 3N/4
        (h / 2 + h / 4 + 1, h / 2 + h / 4 + 1, 3), // 3N/4 + 1
        (h - h / 8, h - h / 8 + 1, 3),             // 7N/8
        (h, h - h / 4 + 1, 3),                     // 7N/8, unbalanced
        (h - 3, h / 2 + 44, 3),                    // between 3N/4 and 7N/8, unbalanced
    ];
    for e in engines() {
        if !matches!(e, Engine::Fma(..)) {
            continue;
        }
        for &(an, bn, k) in &cases {
            assert_eq!(transform_len(an, bn), n);
            assert_eq!(truncated_pieces(an, bn), Some(k), "{an}×{bn}");
            for ones in [false, true] {
                let mut limb = || if ones { u64::MAX } else { next() };
                let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                // The square of `a` where it is truncated too (its own piece count).
                let square = truncated_pieces(an, an).map(|k| (None, schoolbook(&a, &a), k));
                for (b, want, k) in
                    [(Some(&b[..]), schoolbook(&a, &b), k)].into_iter().chain(square)
                {
                    let residues = truncated(e, &a, b, k);
                    let mut got = vec![0u64; want.len()];
                    let carry = crt_into(e, &mut got, &residues);
                    assert_eq!(carry, [0; 3]);
                    assert_eq!(got, want, "{e:?} {an}×{bn} ({k} pieces, ones {ones})");
                }
            }
        }
    }
}

#[test]
fn field_arithmetic_matches_u128() {
    let mut next = xorshift(0x1234_5678_9abc_def0);
    let rounds = if cfg!(miri) { 20 } else { 1000 };
    for f in WIDE_FIELDS {
        let m = u128::from(f.p);
        // Shoup's companions, at the edges and at random.
        let random: Vec<u64> = (0..rounds).map(|_| next() % f.p).collect();
        for w in [0, 1, 2, f.p - 2, f.p - 1].into_iter().chain(random) {
            assert_eq!(u128::from(f.shoup(w)), (u128::from(w) << 64) / m, "p = {:#x}", f.p);
            // Shoup's products of any 64-bit value, in [0, 2p).
            for a in [0, 1, u64::MAX, next()] {
                let got = u128::from(f.mul_shoup(a, f.shoup_pair(w)));
                assert!(got < 2 * m && got % m == u128::from(a) * u128::from(w) % m, "{a}·{w}");
            }
        }
        for _ in 0..rounds {
            let (x, b) = (next(), next() % f.p);
            let a = f.reduce(x);
            assert_eq!(u128::from(a), u128::from(x) % m);
            assert_eq!(u128::from(f.add(a, b)), (u128::from(a) + u128::from(b)) % m);
            assert_eq!(u128::from(f.sub(a, b)), (u128::from(a) + m - u128::from(b)) % m);
            let prod = f.mul(f.to_mont(a), b); // a·R·b·R⁻¹ = a·b
            assert_eq!(u128::from(prod), u128::from(a) * u128::from(b) % m);
        }
    }
    for f in FIELDS52 {
        let m = u128::from(f.p);
        let r52 = (1u128 << 52) % m;
        for _ in 0..rounds {
            let (a, b) = (next() & LOW52, next() % f.p);
            // mul52(a, b)·2⁵² ≡ a·b
            let prod = u128::from(f.mul52(a, b));
            assert!(prod < m);
            assert_eq!(prod * r52 % m, u128::from(a) * u128::from(b) % m);
            // redc of a limb: x·2⁻⁶⁴
            let x = next();
            let r64 = (1u128 << 64) % m;
            assert_eq!(u128::from(f.redc(u128::from(x))) * r64 % m, u128::from(x) % m);
        }
    }
}

/// The FMA engine's `cube` twiddles against powers of the root: `w_{4h}^{3i}` for every
/// `h < len/2`, `i < h` (the other engines have none), up to [`CUBE_MAX_LEN`]; and its
/// forward transforms without them (the radix-2 form of the passes past
/// `CUBE_MAX_LEN`) against those with them (not under Miri: safe arithmetic, no vector
/// engine there).
#[test]
#[cfg_attr(miri, ignore)]
fn cube_twiddles_are_cubes_of_the_roots() {
    for e in engines() {
        if e.has_radix4_cube() && !emulated() {
            let long = Tables::new(e, 2 * CUBE_MAX_LEN, None);
            assert!(long.cube.iter().all(|c| c.len() == CUBE_MAX_LEN / 2), "{e:?}");
        }
        let tabs = Tables::new(e, 1 << 10, None);
        let mut next = xorshift(7);
        for (k, &f) in e.fields().iter().enumerate().filter(|_| e.has_radix4_cube()) {
            // 2¹⁰ (stage by stage) and, natively, 2¹⁴ (recursing, a radix-4 top pass).
            for log in if emulated() { 10..=10 } else { 10..=14 } {
                let tabs = Tables::new(e, 1 << log, None);
                let x: Vec<u64> = (0..1u64 << log).map(|_| e.encode(next() % f.p)).collect();
                let (mut with, mut without) = (x.clone(), x);
                forward(e, f, &mut with, tabs.fwd(k));
                forward(e, f, &mut without, Fwd { tw: &tabs.fwd[k], cube: &Levels::default() });
                let plain = |v: &[u64]| v.iter().map(|&x| e.unload(f, x)).collect::<Vec<_>>();
                assert_eq!(plain(&with), plain(&without), "{e:?} 2^{log}");
            }
        }
        for (k, &f) in e.fields().iter().enumerate() {
            let c = &tabs.cube[k];
            if !e.has_radix4_cube() {
                assert!(c.is_empty(), "{e:?}");
                continue;
            }
            assert_eq!(c.len(), 1 << 9, "{e:?}");
            let mut h = 1;
            while h < 1 << 9 {
                let w = f.root(4 * h as u64);
                for i in 0..h {
                    let want = pow_mod(w, 3 * i as u64, f.p);
                    assert_eq!(e.unload(f, c[h + i]), want, "{e:?} prime {k}, h = {h}, i = {i}");
                }
                h *= 2;
            }
        }
    }
}

#[test]
fn transforms_round_trip() {
    let logs: &[u32] = if cfg!(miri) { &[1, 2, 3, 5] } else { &[1, 2, 3, 4, 5, 8, 12, 13, 14] };
    for e in engines() {
        for &log in logs {
            let n = 1usize << log;
            let tabs = Tables::new(e, n, None);
            // Grown from a shorter table: the same.
            let grown = Tables::new(e, n, Some(&Tables::new(e, (n / 4).max(2), None)));
            assert!(grown.fwd == tabs.fwd && grown.inv == tabs.inv, "{e:?} 2^{log}");
            assert!(grown.cube == tabs.cube, "{e:?} 2^{log} cube");
            for (k, &f) in e.fields().iter().enumerate() {
                let m = u128::from(f.p);
                let x: Vec<u64> = (0..n as u64)
                    .map(|i| (u128::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % m) as u64)
                    .collect();
                let mut y: Vec<u64> = x.iter().map(|&v| e.encode(v)).collect();
                forward(e, f, &mut y, tabs.fwd(k));
                inverse(e, f, &mut y, &tabs.inv[k]);
                y.iter_mut().for_each(|v| *v = e.unload(f, *v));
                for (a, b) in x.iter().zip(&y) {
                    assert_eq!(u128::from(*b), u128::from(*a) * n as u128 % m, "{e:?} 2^{log}");
                }
            }
        }
    }
}

/// Schoolbook product, the tests' reference.
fn schoolbook(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut want = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &y) in b.iter().enumerate() {
            let t = u128::from(x) * u128::from(y) + u128::from(want[i + j]) + carry;
            want[i + j] = t as u64;
            carry = t >> 64;
        }
        want[i + b.len()] = carry as u64;
    }
    want
}

#[test]
fn transformed_operands() {
    let mut next = xorshift(11);
    let cases: &[(usize, usize, usize)] =
        if cfg!(miri) { &[(3, 2, 8)] } else { &[(3, 2, 8), (40, 25, 64), (300, 200, 512)] };
    for e in engines() {
        for &(an, bn, n) in cases {
            for ones in [false, true] {
                let mut limb = || if ones { u64::MAX } else { next() };
                let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                let want = schoolbook(&a, &b);
                let mut got = vec![0u64; an + bn];
                mul_transformed(&mut got, &a, &transform_with(e, &b, n));
                assert_eq!(got, want, "{e:?} {an}x{bn}");
                // mod B^h − 1 with h = n/2 < an + bn: against the folded full product.
                let h = n / 2;
                let a_short = &a[..an.min(h)];
                let mut cyc = vec![0u64; h];
                mul_mod_bnm1(&mut cyc, a_short, &transform_with(e, &b, h));
                let mut folded = vec![0u64; h];
                for chunk in schoolbook(a_short, &b).chunks(h) {
                    let mut carry = 0u128;
                    for (i, f) in folded.iter_mut().enumerate() {
                        let t =
                            u128::from(*f) + u128::from(chunk.get(i).copied().unwrap_or(0)) + carry;
                        *f = t as u64;
                        carry = t >> 64;
                    }
                    let mut i = 0;
                    while carry != 0 {
                        let t = u128::from(folded[i]) + carry;
                        folded[i] = t as u64;
                        carry = t >> 64;
                        i = (i + 1) % h;
                    }
                }
                let zero =
                    |v: &[u64]| v.iter().all(|&l| l == 0) || v.iter().all(|&l| l == u64::MAX);
                assert!(cyc == folded || (zero(&cyc) && zero(&folded)), "{e:?} mod B^{h}−1");
            }
        }
    }
}

#[test]
fn products_match_schoolbook() {
    let mut next = xorshift(7);
    let sizes: &[(usize, usize)] = if cfg!(miri) {
        &[(1, 1), (2, 1), (3, 3), (5, 2), (17, 16)]
    } else {
        // (1100, 1000) and (3000, 1100) sit just above a power of two: split products;
        // (1500, 1500) fills 73 % of 2¹² (split into 2¹¹ and a 2¹¹ that is not split);
        // (1300, 1300) 63 % (split twice: 2¹¹, 2¹⁰, 2⁸).
        &[
            (1, 1),
            (2, 1),
            (3, 3),
            (5, 2),
            (8, 8),
            (17, 16),
            (100, 37),
            (4097, 1000),
            (1100, 1000),
            (3000, 1100),
            (1500, 1500),
            (1300, 1300),
        ]
    };
    // The schoolbook references once for all engines (they dominate under qemu-user).
    for &(an, bn) in sizes {
        for pattern in 0..3 {
            let mut limb = || match pattern {
                0 => next(),
                1 => u64::MAX,
                _ => next() & 0xff,
            };
            let a: Vec<u64> = (0..an).map(|_| limb()).collect();
            let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
            let (want, want_sq) = (schoolbook(&a, &b), schoolbook(&a, &a));
            for e in engines() {
                if emulated() && an * bn > 3 << 19 && !matches!(e, Engine::Portable) {
                    // Under qemu-user (softfloat FMAs) the NEON engine takes ~1 s per
                    // such product: it runs the split product (1100, 1000) and the rest
                    // (the split plans are the same code for every engine).
                    continue;
                }
                let mut got = vec![0u64; an + bn];
                convolve(e, &mut got, &a, Some(&b));
                assert_eq!(got, want, "{e:?} {an}×{bn} pattern {pattern}");
                let mut sq = vec![0u64; 2 * an];
                convolve(e, &mut sq, &a, None);
                assert_eq!(sq, want_sq, "{e:?} {an}² pattern {pattern}");
            }
            // The portable engine's wide products (four primes, 112-bit coefficients): safe
            // arithmetic, no limb kernel, so not under Miri (it doubled this test's time).
            if cfg!(miri) {
                continue;
            }
            for w in [WIDE4, WIDE5] {
                let mut got = vec![u64::MAX; an + bn]; // overwritten
                wide_product(w, &mut got, &a, Some(&b));
                assert_eq!(got, want, "{w:?} {an}×{bn} pattern {pattern}");
                let mut sq = vec![u64::MAX; 2 * an];
                wide_product(w, &mut sq, &a, None);
                assert_eq!(sq, want_sq, "{w:?} {an}² pattern {pattern}");
            }
            // The FMA engines' wide products (five primes, 116-bit coefficients).
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            for e in engines() {
                let Engine::Fma(t, 3) = e else { continue };
                if emulated() && an * bn > 3 << 19 {
                    continue; // as above
                }
                let mut got = vec![u64::MAX; an + bn]; // overwritten
                fma_wide_product(t, &mut got, &a, Some(&b));
                assert_eq!(got, want, "wide {e:?} {an}×{bn} pattern {pattern}");
                let mut sq = vec![u64::MAX; 2 * an];
                fma_wide_product(t, &mut sq, &a, None);
                assert_eq!(sq, want_sq, "wide {e:?} {an}² pattern {pattern}");
            }
        }
    }
}

/// The FMA engines' lazy bounds (`arch::ntt::fmacore`): transforms accept values
/// anywhere in `(−2p, 2p)`, and forward transforms and pointwise products keep them
/// there; against the portable engine's transforms and `u128` products of the same
/// residues, with inputs at the edges (`±(2p − 1)`, `±p`, and random).
#[test]
#[cfg_attr(miri, ignore)]
fn fma_engines_accept_their_lazy_bounds() {
    let mut next = xorshift(99);
    // The FMA engines: the ones whose residues are `f64` bits.
    for e in engines().into_iter().filter(|e| e.encode(3) != 3) {
        let p = Engine::Portable;
        // 2¹³ and 2¹⁴ recurse above `BLOCK` (with a radix-2 and a radix-4 top pass).
        let logs: &[u32] = if emulated() { &[3, 4, 5, 8] } else { &[3, 4, 5, 8, 13, 14] };
        for &log in logs {
            let n = 1usize << log;
            let tabs = Tables::new(e, n, None);
            for (k, &f) in e.fields().iter().enumerate() {
                let m = f.p as i64;
                let edge = [2 * m - 1, -(2 * m - 1), m, -m, 2 * m - 2, -(2 * m - 2)];
                let v: Vec<i64> = (0..n)
                    .map(|i| match next() % 4 {
                        0 | 1 => edge[i % edge.len()],
                        _ => (next() % (4 * m as u64 - 1)) as i64 - (2 * m - 1),
                    })
                    .collect();
                let plain: Vec<u64> = v.iter().map(|&x| x.rem_euclid(m) as u64).collect();
                let enc = |v: &[i64]| v.iter().map(|&x| (x as f64).to_bits()).collect();
                let in_bound =
                    |x: &[u64]| x.iter().all(|&b| f64::from_bits(b).abs() < 2.0 * m as f64);
                // The portable transforms over the same prime (Montgomery and Shoup
                // arithmetic with R = 2⁶⁴ take any odd p < 2⁶²), with the same twiddles in
                // its form.
                let port = |t: &Levels| {
                    let plain: Vec<u64> = t.flat().iter().map(|&w| e.unload(f, w)).collect();
                    Levels::from_plain(p, f, &plain)
                };
                let (wf, wi) = (port(&tabs.fwd[k]), port(&tabs.inv[k]));
                let mut want = plain.clone();
                forward(p, f, &mut want, Fwd { tw: &wf, cube: &Levels::default() });
                let mut got: Vec<u64> = enc(&v);
                forward(e, f, &mut got, tabs.fwd(k));
                assert!(in_bound(&got), "{e:?} 2^{log}: forward left (−2p, 2p)");
                let got_plain: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                assert_eq!(got_plain, want, "{e:?} 2^{log} forward");
                // Pointwise squares of values at the edges.
                let mut sq = enc(&v);
                e.pointwise(f, &mut sq, None);
                assert!(in_bound(&sq), "{e:?} 2^{log}: pointwise left (−2p, 2p)");
                for (&s, &x) in sq.iter().zip(&plain) {
                    let want = (u128::from(x) * u128::from(x) % u128::from(f.p)) as u64;
                    assert_eq!(e.unload(f, s), want, "{e:?} {x}²");
                }
                // The inverse from values at the edges.
                let mut want = plain.clone();
                inverse(p, f, &mut want, &wi);
                let mut got: Vec<u64> = enc(&v);
                inverse(e, f, &mut got, &tabs.inv[k]);
                assert!(in_bound(&got), "{e:?} 2^{log}: inverse left (−2p, 2p)");
                // Unloading, scaled, to [0, p) from values at the edges.
                let mut scaled = enc(&v);
                e.finish(f, &mut scaled, n);
                let s = u128::from(f.redc(u128::from(e.scale(f, n))));
                for (&c, &x) in scaled.iter().zip(&plain) {
                    let want = u128::from(x) * s % u128::from(f.p);
                    assert_eq!(u128::from(c), want, "{e:?} 2^{log} unload of {x}");
                }
                let got_plain: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                assert_eq!(got_plain, want, "{e:?} 2^{log} inverse");
            }
        }
    }
}

/// The FMA engines' DIT radix-4 passes at their input bound `(−2.71p, 2.71p)`
/// (`fmacore::stage2`): the `LAZY` pass keeps its outputs within it and the last pass
/// within `(−2p, 2p)`, both with the residues of the portable engine's two stages.
#[test]
#[cfg_attr(miri, ignore)]
fn fma_dit_passes_accept_their_lazy_bounds() {
    let mut next = xorshift(2024);
    for e in engines().into_iter().filter(|e| e.has_radix4_cube()) {
        // h = 4 (four lanes), 8 and 16 (eight lanes, where AVX-512F may be used).
        for h in [4usize, 8, 16] {
            let n = 8 * h;
            let tabs = Tables::new(e, n, None);
            for (k, &f) in e.fields().iter().enumerate() {
                let m = f.p as f64;
                let top = (2.71 * m) as i64 - 1;
                let edge = [top, -top, 2 * f.p as i64, -(2 * f.p as i64)];
                let v: Vec<i64> = (0..n)
                    .map(|i| match next() % 3 {
                        0 => edge[i % edge.len()],
                        _ => (next() % (2 * top as u64 + 1)) as i64 - top,
                    })
                    .collect();
                let plain: Vec<u64> = v.iter().map(|&x| x.rem_euclid(f.p as i64) as u64).collect();
                let mont = |t: &[u64]| -> Vec<u64> {
                    t.iter().map(|&w| f.to_mont(e.unload(f, w))).collect()
                };
                let wi = mont(&tabs.inv[k].flat());
                let mut want = plain.clone();
                Engine::Portable.stage::<true>(f, &mut want, h, &wi[h..2 * h]);
                Engine::Portable.stage::<true>(f, &mut want, 2 * h, &wi[2 * h..4 * h]);
                let (o, i) = (&tabs.inv[k][2 * h..4 * h], &tabs.inv[k][h..2 * h]);
                for (lazy, bound) in [(true, 2.71), (false, 2.0)] {
                    let mut got: Vec<u64> = v.iter().map(|&x| (x as f64).to_bits()).collect();
                    if lazy {
                        e.stage2::<true, true>(f, &mut got, h, o, i, &[]);
                    } else {
                        e.stage2::<true, false>(f, &mut got, h, o, i, &[]);
                    }
                    let worst =
                        got.iter().map(|&b| f64::from_bits(b).abs() / m).fold(0.0, f64::max);
                    assert!(worst < bound, "{e:?} h = {h} lazy {lazy}: |x| = {worst}p");
                    let got: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                    assert_eq!(got, want, "{e:?} h = {h} lazy {lazy}");
                }
            }
        }
    }
}

/// The FMA engines' DIT radix-2 stage at its input bound `(−2.71p, 2.71p)`
/// (`fmacore::stage`, which reduces `a` instead of both outputs): outputs within
/// `(−1.52p, 1.52p)`, with the residues of the portable engine's stage.
#[test]
#[cfg_attr(miri, ignore)]
fn fma_dit_stage_accepts_the_lazy_bound() {
    let mut next = xorshift(2411);
    for e in engines().into_iter().filter(|e| e.has_radix4_cube()) {
        // h = 4 (four lanes, two NEON vectors), 8 and 16 (eight lanes, AVX-512F).
        for h in [4usize, 8, 16] {
            let n = 4 * h;
            let tabs = Tables::new(e, 2 * h, None);
            for (k, &f) in e.fields().iter().enumerate() {
                let m = f.p as f64;
                let top = (2.71 * m) as i64 - 1;
                let edge = [top, -top, 2 * f.p as i64, -(2 * f.p as i64), 0];
                let v: Vec<i64> = (0..n)
                    .map(|i| match next() % 3 {
                        0 => edge[i % edge.len()],
                        _ => (next() % (2 * top as u64 + 1)) as i64 - top,
                    })
                    .collect();
                let plain: Vec<u64> = v.iter().map(|&x| x.rem_euclid(f.p as i64) as u64).collect();
                let w = &tabs.inv[k][h..2 * h];
                let wm: Vec<u64> = w.iter().map(|&t| f.to_mont(e.unload(f, t))).collect();
                let mut want = plain.clone();
                Engine::Portable.stage::<true>(f, &mut want, h, &wm);
                let mut got: Vec<u64> = v.iter().map(|&x| (x as f64).to_bits()).collect();
                e.stage::<true>(f, &mut got, h, w);
                let worst = got.iter().map(|&b| f64::from_bits(b).abs() / m).fold(0.0, f64::max);
                assert!(worst < 1.52, "{e:?} h = {h}: |x| = {worst}p");
                let got: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                assert_eq!(got, want, "{e:?} h = {h}");
            }
        }
    }
}

/// The wide products at their longest transform (`2²³`, past F(10⁹)'s products), with
/// all-ones operands, whose middle coefficients are the largest the CRT bound covers:
/// `(B^m − 1)² = B^2m − 2B^m + 1` (`2⁸` points under qemu-user; not under Miri: safe
/// arithmetic, no limb kernel).
#[test]
#[cfg_attr(miri, ignore)]
fn wide_products_at_their_longest_transform() {
    // The five primes' bound has seven bits to spare: 2²² for them (test time).
    for (w, log) in [(WIDE4, WIDE_MAX_LOG_LEN), (WIDE5, WIDE_MAX_LOG_LEN - 1)] {
        let log = if emulated() { 8 } else { log };
        // `m` limbs: 2·w.len(m) − 1 > 2^(log − 1) coefficients: a transform of 2^log.
        let m = ((1usize << (log - 2)) + 1) * w.bits / 64 + 1;
        assert_eq!(w.transform_len(m, m), 1 << log);
        let a = vec![u64::MAX; m];
        let mut got = vec![0u64; 2 * m];
        wide_product(w, &mut got, &a, None);
        let ok = got[0] == 1
            && got[1..m].iter().all(|&l| l == 0)
            && got[m] == u64::MAX - 1
            && got[m + 1..].iter().all(|&l| l == u64::MAX);
        assert!(ok, "(B^{m} − 1)² is wrong over 2^{log} points with {w:?}");
    }
}

/// Which products take the wide path: F(10⁷)'s squarings (54 000 limbs, 82 % of `2¹⁷`
/// coefficients) do, full powers of two and split products do not.
#[test]
fn wide_products_where_they_save_butterflies() {
    assert_eq!(wide_plan(54_238, 54_238), Some(WIDE4)); // F(10⁷)'s last product
    assert_eq!(wide_plan(3_000, 3_000), Some(WIDE4));
    assert_eq!(wide_plan(542_377, 542_377), Some(WIDE5)); // F(10⁸)'s, split otherwise
    assert!(splits(542_377, 542_377));
    // Where the split plans take fewer butterflies than the padded transform: the
    // products of `products_match_schoolbook`, and F(10⁶)'s last (66 % of 2¹⁴).
    assert!(splits(1500, 1500) && !splits(951, 951));
    assert!(splits(1300, 1300) && splits(551, 551));
    assert!(splits(5424, 5424));
    // F(10⁷)'s (83 % of 2¹⁷): the sub-product would need the whole 2¹⁷ again.
    assert!(!splits(54_238, 54_238));
    // Below the split products' minimum: three primes.
    assert_eq!(wide_plan(200, 200), None);
    // Past the CRT bounds' length (2²⁵ and 2²⁴ points): never.
    assert_eq!(wide_plan(1 << 24, 1 << 24), None);
}

/// The 50-bit engines' largest transforms, with all-ones operands (the largest
/// coefficients the CRT bound must cover): against the portable engine.
#[test]
#[cfg_attr(miri, ignore)]
fn vector_engines_at_their_longest_transform() {
    if engines().len() == 1 {
        return; // the portable engine alone: nothing to compare
    }
    // A product of 2·2²⁰ limbs: a transform of 2²¹. Under qemu-user (`XTASK_EMULATED`:
    // the cross matrix's aarch64 rows, where 2²¹ takes minutes) a product of 2·2¹⁴
    // limbs: the butterflies and the CRT are the same code at every length, and the
    // full-length bound is checked on the host (the same values: every lane's arithmetic
    // is exact or correctly rounded IEEE double).
    let n = if emulated() { 1usize << 14 } else { 1 << 20 };
    let a = vec![u64::MAX; n];
    let mut want = vec![0u64; 2 * n];
    convolve(Engine::Portable, &mut want, &a, None);
    // (B^n − 1)² = B^2n − 2B^n + 1
    assert_eq!(want[0], 1);
    assert_eq!(want[n], u64::MAX - 1);
    // Three primes (the four-prime variants: at 2²⁴ below).
    for e in engines().into_iter().skip(1).filter(|e| e.fields().len() == 3) {
        let mut got = vec![0u64; 2 * n];
        convolve(e, &mut got, &a, None);
        assert!(got == want, "(B^{n} − 1)² differs between {e:?} and the portable engine");
    }
}

/// The transform length F(10⁹) needs (its last squaring has 2²³·1.3 limbs: `2²⁴`
/// coefficients), where three 50-bit primes no longer cover the coefficients (up to
/// `2²³·2¹²⁸`), against the closed form `(B^n − 1)² = B^2n − 2B^n + 1`: the FMA engine
/// where the CPU has it, else the dispatched one (the butterflies do not depend on the
/// length: the other engines' are tested at `2²¹` above; this tests the twiddle tables
/// and the four-prime CRT at full size, ~3 s of CPU).
#[test]
#[cfg_attr(miri, ignore)]
fn engines_at_the_transform_length_of_f_1e9() {
    let n = 1usize << 23;
    #[allow(unused_mut)]
    let mut e = Engine::for_len(2 * n);
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if let Some(t) = Fma::new() {
        e = Engine::Fma(t, 4);
    }
    if matches!(e, Engine::Portable) || emulated() {
        // No 50-bit engine here (the portable one covers 2⁴⁰ with three primes), or
        // under qemu-user (the cross matrix's aarch64 rows), where 2²⁴ would take many
        // minutes: NEON's lanes compute the values of the x86_64 engines tested here.
        return;
    }
    assert_eq!(e.fields().len(), 4, "{e:?} at 2^24");
    let engines = [e];
    let a = vec![u64::MAX; n];
    for e in engines {
        let mut got = vec![0u64; 2 * n];
        convolve(e, &mut got, &a, None);
        let ok = got[0] == 1
            && got[1..n].iter().all(|&l| l == 0)
            && got[n] == u64::MAX - 1
            && got[n + 1..].iter().all(|&l| l == u64::MAX);
        assert!(ok, "(B^{n} − 1)² is wrong with {e:?}");
    }
}

/// The portable engines' lazy transforms (`lazy`) at their input bounds, `[0, 2p)` forward
/// and `[0, 4p)` inverse, against the fully reduced stages of `Engine::stage` (twiddles in
/// Montgomery form, from powers of the roots) on the same residues; outputs in `[0, p)`.
/// Lengths through the leaf's every shape and, natively, the recursion above `BLOCK`.
#[test]
fn portable_lazy_transforms_accept_their_bounds() {
    let mut next = xorshift(4242);
    let logs: &[u32] = if cfg!(miri) {
        &[1, 2, 3, 4]
    } else if emulated() {
        &[1, 2, 3, 4, 5, 6, 7, 9]
    } else {
        &[1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14]
    };
    for e in [Engine::Portable, Engine::Wide] {
        for &log in logs {
            let n = 1usize << log;
            let tabs = Tables::new(e, n, None);
            for (k, &f) in e.fields().iter().enumerate() {
                // w_{2h}^{±i}·2⁶⁴ mod p at h + i.
                let mont = |sign: u64| -> Vec<u64> {
                    let mut t = vec![0; n];
                    let mut h = 1;
                    while h < n {
                        let w = pow_mod(
                            f.root(2 * h as u64),
                            if sign == 1 { 1 } else { 2 * h as u64 - 1 },
                            f.p,
                        );
                        (0..h).for_each(|i| t[h + i] = f.to_mont(pow_mod(w, i as u64, f.p)));
                        h *= 2;
                    }
                    t
                };
                let (wf, wi) = (mont(1), mont(0));
                for (top, inv) in [(2, false), (4, true)] {
                    let edge = [top * f.p - 1, f.p, f.p - 1, 0, (top - 1) * f.p];
                    let v: Vec<u64> = (0..n)
                        .map(|i| {
                            if next().is_multiple_of(3) {
                                edge[i % 5]
                            } else {
                                next() % (top * f.p)
                            }
                        })
                        .collect();
                    let mut want: Vec<u64> = v.iter().map(|&x| x % f.p).collect();
                    let mut got = v.clone();
                    if inv {
                        let mut h = 1;
                        while h < n {
                            Engine::Portable.stage::<true>(f, &mut want, h, &wi[h..2 * h]);
                            h *= 2;
                        }
                        inverse(e, f, &mut got, &tabs.inv[k]);
                    } else {
                        let mut h = n / 2;
                        while h >= 1 {
                            Engine::Portable.stage::<false>(f, &mut want, h, &wf[h..2 * h]);
                            h /= 2;
                        }
                        forward(e, f, &mut got, tabs.fwd(k));
                    }
                    assert_eq!(got, want, "{e:?} prime {k} 2^{log} inverse {inv}");
                }
            }
        }
    }
}

/// The FMA engine's top radix-4 passes split between two threads (the halves of each
/// quarter, `stage2_part` and `stage2_lower_half_part`) give the one-thread transforms: the
/// forward transform, the one of a lower-half operand and the inverse, at `4·BLOCK` points
/// (the shortest with a top pass), the split forced by the tests' threshold.
#[test]
#[cfg_attr(miri, ignore)]
fn split_top_passes_match_one_thread() {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    for e in engines() {
        let Engine::Fma(t, _) = e else { continue };
        let n = 4 * BLOCK;
        let tabs = Tables::new(e, n, None);
        let mut next = xorshift(17);
        for (k, &f) in e.fields().iter().enumerate() {
            let two = |g: &dyn Fn(&mut [u64]), x: &[u64]| {
                let mut one = x.to_vec();
                g(&mut one);
                let mut split = x.to_vec();
                let ((), splits) = crate::par::with_threads_counted(2, 1, || g(&mut split));
                assert!(splits > 0, "{e:?} prime {k}: no split");
                assert!(one == split, "{e:?} prime {k}: split top pass differs");
            };
            let x: Vec<u64> = (0..n).map(|_| e.encode(next() % f.p)).collect();
            two(&|y| forward(e, f, y, tabs.fwd(k)), &x);
            two(&|y| inverse(e, f, y, &tabs.inv[k]), &x);
            let mut low = x.clone();
            low[n / 2..].fill(0);
            two(&|y| forward_lower_half(t, f, y, tabs.fwd(k)), &low);
        }
    }
}
