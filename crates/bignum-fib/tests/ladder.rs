//! Multiplication and squaring at every rung of the ladder (and ±2 limbs around each
//! threshold) against the schoolbook, for every backend; small forced thresholds so that
//! deep recursions with odd splits run on small operands too.

mod common;

use bignum_fib::{
    Backend, MUL_KARATSUBA_THRESHOLD, MUL_NTT_THRESHOLD, MUL_NTT_THRESHOLD_FMA,
    MUL_NTT_THRESHOLD_IFMA, MUL_TOOM3_THRESHOLD, Nat, SQR_KARATSUBA_THRESHOLD, SQR_TOOM3_THRESHOLD,
    Thresholds, backends,
};
use common::{Rng, emulated, to_big};

fn around(t: usize) -> impl Iterator<Item = usize> {
    t.saturating_sub(2).max(1)..=t + 2
}

fn check_mul(rng: &mut Rng, an: usize, bn: usize, t: &Thresholds) {
    let a = rng.nat(an);
    let b = rng.nat(bn);
    let want = a.mul_with(&b, Backend::PORTABLE, &Thresholds::SCHOOLBOOK);
    for k in backends() {
        assert_eq!(a.mul_with(&b, k, t), want, "{an}x{bn} limbs, {t:?}, {}", k.name());
    }
    let sq = a.mul_with(&a, Backend::PORTABLE, &Thresholds::SCHOOLBOOK);
    for k in backends() {
        assert_eq!(a.square_with(k, t), sq, "{an}² limbs, {t:?}, {}", k.name());
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn at_the_tuned_thresholds() {
    let mut rng = Rng(1);
    let t = Thresholds::DEFAULT;
    let toom_mul = 3 * MUL_TOOM3_THRESHOLD;
    let toom_sqr = 3 * SQR_TOOM3_THRESHOLD;
    let mut sizes: Vec<usize> = around(MUL_KARATSUBA_THRESHOLD)
        .chain(around(MUL_TOOM3_THRESHOLD))
        .chain(around(SQR_KARATSUBA_THRESHOLD))
        .chain(around(SQR_TOOM3_THRESHOLD))
        .collect();
    if !emulated() {
        sizes.extend(around(toom_mul).chain(around(toom_sqr)));
    }
    for &n in &sizes {
        check_mul(&mut rng, n, n, &t);
        check_mul(&mut rng, n + n / 3, n, &t);
        check_mul(&mut rng, 2 * n + 1, n, &t);
        check_mul(&mut rng, 5 * n, n.div_ceil(2), &t);
        // Against num-bigint too, so schoolbook and ladder cannot share a bug.
        let (a, b) = (rng.nat(n), rng.nat(n));
        assert_eq!(to_big(&(&a * &b)), to_big(&a) * to_big(&b));
        assert_eq!(to_big(&a.square()), to_big(&a) * to_big(&a));
    }
}

#[test]
fn small_forced_thresholds() {
    let mut rng = Rng(2);
    let t = Thresholds {
        mul_karatsuba: 3,
        mul_toom3: 6,
        sqr_karatsuba: 2,
        sqr_toom3: 5,
        mul_ntt: usize::MAX,
        sqr_ntt: usize::MAX,
    };
    let max: usize = if cfg!(miri) {
        8
    } else if emulated() {
        40
    } else {
        90
    };
    for an in 1..=max {
        for bn in [1, 2, 3, an / 2, an.saturating_sub(1), an] {
            if (1..=an).contains(&bn) {
                check_mul(&mut rng, an, bn, &t);
            }
        }
    }
}

#[test]
fn operators() {
    let mut rng = Rng(3);
    for n in [0, 1, 2, 5] {
        let a = rng.nat(n + 1);
        let b = rng.nat(n);
        let (ba, bb) = (to_big(&a), to_big(&b));
        assert_eq!(to_big(&(&a + &b)), &ba + &bb);
        assert_eq!(to_big(&(&a - &b)), &ba - &bb);
        assert_eq!(to_big(&(&a * &b)), &ba * &bb);
        assert_eq!(to_big(&(&a << 67)), &ba << 67u32);
        assert_eq!(to_big(&(&a >> 67)), &ba >> 67u32);
        assert_eq!(to_big(&(&a >> 3)), &ba >> 3u32);
        assert_eq!(a.cmp(&b), ba.cmp(&bb));
        assert_eq!(b.checked_sub(&a), None);
        let mut c = a.clone();
        c += &b;
        c -= &b;
        c *= Nat::from(1u64);
        assert_eq!(c, a);
    }
    assert_eq!(Nat::from(u128::MAX).limbs(), &[u64::MAX, u64::MAX]);
    assert_eq!(Nat::from_limbs(vec![5, 0, 0]).limbs(), &[5]);
    assert_eq!(Nat::from(0u64).bit_len(), 0);
    assert_eq!(Nat::from(u128::MAX).bit_len(), 128);
}

/// The NTT (forced from 1 limb) against Toom-3 and the lower rungs (the NTT switched off),
/// on random operands: lengths around powers of two (the NTT's transform lengths, and the
/// split of products just above one), odd lengths, and unbalanced pairs.
#[test]
fn ntt_matches_toom3() {
    let mut rng = Rng(3);
    let ntt = Thresholds { mul_ntt: 1, sqr_ntt: 1, ..Thresholds::DEFAULT };
    let toom = Thresholds { mul_ntt: usize::MAX, sqr_ntt: usize::MAX, ..Thresholds::DEFAULT };
    let sizes: &[usize] = if cfg!(miri) {
        &[1, 2, 3, 5, 8]
    } else if emulated() {
        &[1, 2, 3, 17, 255, 256, 257, 1025, 1030]
    } else {
        &[1, 2, 3, 17, 255, 256, 257, 1023, 1024, 1025, 1030, 2049, 2100, 3000, 4097, 8200]
    };
    for &n in sizes {
        for m in [n, n - n / 3, n / 2 + 1, 1, n + 7] {
            let (a, b) = (rng.nat(n), rng.nat(m));
            let want = a.mul_with(&b, Backend::PORTABLE, &toom);
            assert_eq!(a.mul_with(&b, Backend::PORTABLE, &ntt), want, "{n}x{m} limbs");
        }
        let a = rng.nat(n);
        let want = a.square_with(Backend::PORTABLE, &toom);
        assert_eq!(a.square_with(Backend::PORTABLE, &ntt), want, "{n}² limbs");
    }
}

/// The tuned ladders (portable and this CPU's NTT engine) at the NTT's thresholds, ±2
/// limbs, against Toom-3.
#[test]
#[cfg_attr(miri, ignore)]
fn at_the_ntt_thresholds() {
    let mut rng = Rng(4);
    let toom = Thresholds { mul_ntt: usize::MAX, sqr_ntt: usize::MAX, ..Thresholds::DEFAULT };
    let here = Thresholds::detect();
    assert!(
        [MUL_NTT_THRESHOLD, MUL_NTT_THRESHOLD_IFMA, MUL_NTT_THRESHOLD_FMA].contains(&here.mul_ntt),
        "{here:?}"
    );
    for t in [Thresholds::DEFAULT, here] {
        for n in around(t.mul_ntt).chain(around(t.sqr_ntt)) {
            let (a, b) = (rng.nat(n), rng.nat(n + n / 5));
            let k = Backend::detect();
            assert_eq!(a.mul_with(&b, k, &t), a.mul_with(&b, k, &toom), "{n} limbs");
            assert_eq!(a.square_with(k, &t), a.square_with(k, &toom), "{n}² limbs");
        }
    }
}
