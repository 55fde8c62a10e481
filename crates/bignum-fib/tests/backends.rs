//! Every backend's kernels against the portable ones on random lengths and values, and every
//! NTT engine against the portable engine.

mod common;

use bignum_fib::{Backend, NttEngine, backends, ntt_engines};
use common::Rng;
use proptest::prelude::*;

fn max_len() -> usize {
    if cfg!(miri) { 6 } else { 300 }
}

/// Runs `f` on every non-portable backend and on the portable one, comparing the outputs.
fn same_as_portable<T: PartialEq + std::fmt::Debug>(what: &str, f: impl Fn(Backend) -> T) {
    let want = f(Backend::PORTABLE);
    for b in backends() {
        assert_eq!(f(b), want, "{what}: backend {}", b.name());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn kernels_equal_portable(seed in any::<u64>(), len in 0usize..=300, v in any::<u64>()) {
        let len = len % (max_len() + 1);
        let mut rng = Rng(seed);
        let a = rng.limbs(len);
        let b = rng.limbs(len);
        let r0 = rng.limbs(len);
        let v = if seed % 5 == 0 { u64::MAX } else { v };
        same_as_portable("add_n", |k| {
            let mut r = r0.clone();
            let c = k.add_n(&mut r, &a, &b);
            (r, c)
        });
        same_as_portable("sub_n", |k| {
            let mut r = r0.clone();
            let c = k.sub_n(&mut r, &a, &b);
            (r, c)
        });
        same_as_portable("add_assign_n", |k| {
            let mut r = r0.clone();
            let c = k.add_assign_n(&mut r, &b);
            (r, c)
        });
        same_as_portable("sub_assign_n", |k| {
            let mut r = r0.clone();
            let c = k.sub_assign_n(&mut r, &b);
            (r, c)
        });
        same_as_portable("mul_1", |k| {
            let mut r = r0.clone();
            let c = k.mul_1(&mut r, &a, v);
            (r, c)
        });
        same_as_portable("addmul_1", |k| {
            let mut r = r0.clone();
            let c = k.addmul_1(&mut r, &a, v);
            (r, c)
        });
        same_as_portable("submul_1", |k| {
            let mut r = r0.clone();
            let c = k.submul_1(&mut r, &a, v);
            (r, c)
        });
        same_as_portable("sqr_basecase", |k| {
            let mut r = vec![0u64; 2 * len];
            k.sqr_basecase(&mut r, &a);
            r
        });
    }
}

/// The portable kernels against `u128`/num-bigint arithmetic (the reference checked itself).
#[test]
fn portable_against_num_bigint() {
    let mut rng = Rng(7);
    for len in 1..=if cfg!(miri) { 4 } else { 40 } {
        let a = rng.limbs(len);
        let v = rng.next_u64();
        let k = Backend::PORTABLE;
        let big = |x: &[u64]| common::to_big(&bignum_fib::Nat::from_limbs(x.to_vec()));
        let mut r = vec![0u64; len];
        let hi = k.mul_1(&mut r, &a, v);
        let mut full = r.clone();
        full.push(hi);
        assert_eq!(big(&full), big(&a) * num_bigint::BigUint::from(v));
        let mut sq = vec![0u64; 2 * len];
        k.sqr_basecase(&mut sq, &a);
        assert_eq!(big(&sq), big(&a) * big(&a));
        let mut s = a.clone();
        let borrow = k.submul_1(&mut s, &a, 1);
        assert!(s.iter().all(|&x| x == 0) && borrow == 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 2 } else { 48 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every NTT engine this CPU runs (`ntt_engines`), at random lengths (three primes; the
    /// four- and five-prime transforms are the unit tests'), against the portable engine and
    /// `Nat`'s product.
    #[test]
    fn ntt_engines_equal_portable(seed in any::<u64>(), an in 1usize..=700, bn in 1usize..=700) {
        let (an, bn) = if cfg!(miri) { (an % 8 + 1, bn % 8 + 1) } else { (an, bn) };
        let mut rng = Rng(seed);
        let a = rng.limbs(an);
        let b = rng.limbs(bn);
        let want = NttEngine::PORTABLE.mul(&a, &b);
        let nat = |x: &[u64]| bignum_fib::Nat::from_limbs(x.to_vec());
        prop_assert_eq!(nat(&want), nat(&a) * nat(&b));
        let want_sqr = NttEngine::PORTABLE.sqr(&a);
        for e in ntt_engines() {
            prop_assert_eq!(&e.mul(&a, &b), &want, "mul on {}", e.name());
            prop_assert_eq!(&e.sqr(&a), &want_sqr, "sqr on {}", e.name());
        }
    }
}

/// The backend list is an iterator a user may move to another thread.
#[test]
fn backends_iterator_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    assert_send(&bignum_fib::backends());
}
