//! Decimal and hexadecimal conversion: round trips, num-bigint as the oracle, errors.

mod common;

use bignum_fib::{Nat, ParseNatError};
use common::{Rng, emulated, to_big};

fn sizes() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 1, 2, 3, 5];
    }
    let mut v: Vec<usize> = (0..40).collect();
    v.extend([63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 500, 1000]);
    if !emulated() {
        // 9000 and 20000 limbs: divisions by powers of 4040 and 8079 limbs, NTT-sized.
        v.extend([2047, 2048, 4000, 9000, 20000]);
    }
    v
}

#[test]
fn decimal_matches_num_bigint_and_round_trips() {
    let mut rng = Rng(10);
    for n in sizes() {
        for _ in 0..2 {
            let x = rng.nat(n);
            let s = x.to_string();
            assert_eq!(s, to_big(&x).to_str_radix(10), "decimal of {n} limbs");
            assert_eq!(s.parse::<Nat>().unwrap(), x, "decimal round trip of {n} limbs");
            assert_eq!(x.decimal_digits(), s.len() as u64, "digit count of {n} limbs");
        }
    }
}

#[test]
fn powers_of_ten_and_neighbours() {
    let max = if cfg!(miri) { 60 } else { 700 };
    let ten = Nat::from(10u64);
    let mut p = Nat::from(1u64);
    for e in 0..max {
        let s = p.to_string();
        assert_eq!(s.len(), e + 1);
        assert_eq!(p.decimal_digits(), e as u64 + 1);
        if e > 0 {
            let below = p.checked_sub(&Nat::from(1u64)).unwrap();
            assert_eq!(below.to_string(), "9".repeat(e));
            assert_eq!(below.decimal_digits(), e as u64);
        }
        p = &p * &ten;
    }
}

#[test]
fn hex_matches_num_bigint_and_round_trips() {
    let mut rng = Rng(16);
    for n in sizes() {
        let x = rng.nat(n);
        let s = format!("{x:x}");
        assert_eq!(s, to_big(&x).to_str_radix(16));
        assert_eq!(Nat::from_str_radix(&s, 16).unwrap(), x);
        assert_eq!(Nat::from_str_radix(&s.to_uppercase(), 16).unwrap(), x);
        assert_eq!(x.to_str_radix(16), s);
        assert_eq!(x.to_str_radix(10), x.to_string());
    }
}

#[test]
fn leading_zeros_and_formatting() {
    assert_eq!("000123".parse::<Nat>().unwrap(), Nat::from(123u64));
    assert_eq!(Nat::from_str_radix("00ff", 16).unwrap(), Nat::from(255u64));
    assert_eq!(Nat::zero().to_string(), "0");
    assert_eq!(format!("{:x}", Nat::zero()), "0");
    assert_eq!(format!("{:#x}", Nat::from(255u64)), "0xff");
    assert_eq!(format!("{:X}", Nat::from(255u64)), "FF");
    assert_eq!(format!("{:>5}", Nat::from(42u64)), "   42");
}

#[test]
fn parse_errors() {
    assert_eq!("".parse::<Nat>(), Err(ParseNatError::Empty));
    assert_eq!("12a".parse::<Nat>(), Err(ParseNatError::InvalidDigit(2)));
    assert_eq!("-1".parse::<Nat>(), Err(ParseNatError::InvalidDigit(0)));
    assert_eq!(Nat::from_str_radix("fg", 16), Err(ParseNatError::InvalidDigit(1)));
    assert_eq!(Nat::from_str_radix("12", 37), Err(ParseNatError::UnsupportedRadix(37)));
    assert_eq!(Nat::from_str_radix("19", 8), Err(ParseNatError::InvalidDigit(1)));
    assert_eq!(ParseNatError::InvalidDigit(3).to_string(), "invalid digit at byte 3");
}
