//! `fib`, `fib_pair`, `lucas` against the spec's facts, small definitions and num-bigint.

mod common;

use bignum_fib::{Nat, fib, fib_pair, lucas};
use common::{Rng, emulated, fib_num_bigint, to_big};

/// The spec's facts: `(n, digits, first 20, last 20)`.
const FACTS: &[(u64, u64, &str, &str)] = &[
    (10_000, 2_090, "33644764876431783266", "66073310059947366875"),
    (100_000, 20_899, "25974069347221724166", "49895374653428746875"),
    (1_000_000, 208_988, "19532821287077577316", "68996526838242546875"),
    (10_000_000, 2_089_877, "11298343782253997603", "86998673686380546875"),
];

fn check_fact(n: u64, digits: u64, first: &str, last: &str) {
    let f = fib(n);
    let s = f.to_string();
    assert_eq!(s.len() as u64, digits, "digits of F({n})");
    assert_eq!(&s[..20], first, "first digits of F({n})");
    assert_eq!(&s[s.len() - 20..], last, "last digits of F({n})");
    assert_eq!(f.decimal_digits(), digits, "decimal_digits of F({n})");
}

/// F(10⁸) (the spec's last fact): seconds in a debug build, so not by default; `cargo
/// xtask bench` runs it (`cargo test --release -p bignum-fib --test fib -- --ignored`).
#[test]
#[ignore = "F(10^8) takes seconds; run with --ignored"]
fn spec_fact_10_pow_8() {
    check_fact(100_000_000, 20_898_764, "47371034734563369625", "06082642167760546875");
}

#[test]
#[cfg_attr(miri, ignore)]
fn spec_facts() {
    let max = if emulated() { 100_000 } else { 10_000_000 };
    for &(n, digits, first, last) in FACTS.iter().filter(|f| f.0 <= max) {
        check_fact(n, digits, first, last);
    }
}

#[test]
fn small_values_by_definition() {
    let limit = if cfg!(miri) { 120 } else { 400 };
    let (mut a, mut b) = (Nat::zero(), Nat::from(1u64));
    for n in 0..limit {
        assert_eq!(fib(n), a, "F({n})");
        assert_eq!(fib_pair(n), (a.clone(), b.clone()), "fib_pair({n})");
        let next = &a + &b;
        a = std::mem::replace(&mut b, next);
    }
}

#[test]
fn lucas_by_definition() {
    let limit = if cfg!(miri) { 110 } else { 300 };
    let (mut a, mut b) = (Nat::from(2u64), Nat::from(1u64));
    for n in 0..limit {
        assert_eq!(lucas(n), a, "L({n})");
        let next = &a + &b;
        a = std::mem::replace(&mut b, next);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn against_num_bigint_random() {
    let (cases, max) = if emulated() { (6, 20_000) } else { (40, 100_000) };
    let mut rng = Rng(0xF1B0);
    for _ in 0..cases {
        let n = rng.below(max + 1);
        assert_eq!(to_big(&fib(n)), fib_num_bigint(n), "F({n})");
    }
    for n in [94, 95, 127, 128, 129, 255, 256, 1000, 4095, 4096, 4097, 65535, 65536] {
        assert_eq!(to_big(&fib(n)), fib_num_bigint(n), "F({n})");
        let (f, f1) = fib_pair(n);
        assert_eq!(to_big(&f1), fib_num_bigint(n + 1), "F({n} + 1)");
        assert_eq!(to_big(&f), fib_num_bigint(n), "fib_pair F({n})");
    }
}
