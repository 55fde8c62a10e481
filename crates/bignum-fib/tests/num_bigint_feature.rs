//! The `num-bigint` feature: `From` conversions both ways.
#![cfg(feature = "num-bigint")]

use bignum_fib::Nat;
use num_bigint::BigUint;

#[test]
fn conversions_round_trip() {
    for x in [Nat::zero(), Nat::from(1u64), Nat::from(u128::MAX), bignum_fib::fib(1000)] {
        let big = BigUint::from(&x);
        assert_eq!(big.to_string(), x.to_string());
        assert_eq!(Nat::from(&big), x);
        assert_eq!(Nat::from(BigUint::from(x.clone())), x);
    }
}
