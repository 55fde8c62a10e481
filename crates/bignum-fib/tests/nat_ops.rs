//! `Nat`'s num-bigint-shaped surface against num-bigint's `BigUint`: division, `pow`,
//! primitive operands and comparisons, `Sum`/`Product`, bytes, radix 2-36 text and, with the
//! `num-traits` feature, the num-traits impls. Random operands come from `common::Rng`
//! (runs of all-ones and zeros mixed in, to reach the rare correction paths of division).

mod common;

use bignum_fib::{Nat, ParseNatError};
use common::{Rng, emulated, to_big};
use num_bigint::BigUint;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::default() }
}

/// The longest operand of the random cases: past the recursive division's 60-limb cut-over
/// on both quotient and divisor (120 limbs and more).
fn max_limbs() -> usize {
    if cfg!(miri) { 4 } else { 200 }
}

/// A random `Nat` of 0 to `max` limbs, from `seed`.
fn nat(seed: u64, max: usize) -> Nat {
    let mut rng = Rng(seed);
    let n = rng.below(max as u64 + 1) as usize;
    rng.nat(n)
}

/// The same as a `BigUint` and back: a `Nat` from a `BigUint` result.
fn from_big(b: &BigUint) -> Nat {
    Nat::from_limbs(b.to_u64_digits())
}

/// Checks every primitive type's operators and comparisons against num-bigint's.
macro_rules! check_primitive {
    ($x:expr, $v:expr, $($t:ty),*) => {$({
        let (x, big) = ($x, to_big($x));
        let v = $v as $t;
        assert_eq!(x + v, from_big(&(&big + v)), "{x:?} + {v}");
        assert_eq!(v + x, from_big(&(v + &big)));
        assert_eq!(x * v, from_big(&(&big * v)), "{x:?} * {v}");
        assert_eq!(v * x.clone(), from_big(&(v * &big)));
        if big >= BigUint::from(v) {
            assert_eq!(x - v, from_big(&(&big - v)), "{x:?} - {v}");
            assert_eq!(x.clone() - &v, from_big(&(&big - v)));
        } else {
            assert_eq!(v - x, from_big(&(v - &big)), "{v} - {x:?}");
        }
        if v != 0 {
            assert_eq!(x / v, from_big(&(&big / v)), "{x:?} / {v}");
            assert_eq!(x % v, from_big(&(&big % v)), "{x:?} % {v}");
            let mut y = x.clone();
            y /= v;
            assert_eq!(y, from_big(&(&big / v)));
            let mut y = x.clone();
            y %= v;
            assert_eq!(y, from_big(&(&big % v)));
        }
        if !x.is_zero() {
            assert_eq!(v / x, from_big(&(v / &big)), "{v} / {x:?}");
            assert_eq!(&v % x, from_big(&(v % &big)), "{v} % {x:?}");
        }
        let mut y = x.clone();
        y += v;
        y *= v;
        assert_eq!(y, from_big(&((&big + v) * v)));
        let want = big.cmp(&BigUint::from(v));
        assert_eq!(x.partial_cmp(&v), Some(want), "{x:?} <=> {v}");
        assert_eq!(v.partial_cmp(x), Some(want.reverse()));
        assert_eq!(*x == v, want.is_eq());
        assert_eq!(v == *x, want.is_eq());
        assert_eq!(Nat::from(v), from_big(&BigUint::from(v)));
    })*};
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn division_matches_num_bigint(sa in any::<u64>(), sb in any::<u64>()) {
        let a = nat(sa, max_limbs());
        let mut b = nat(sb, max_limbs() / 2);
        if b.is_zero() {
            b = Nat::from(sb | 1);
        }
        let (q, r) = a.div_rem(&b);
        let (bq, br) = (to_big(&a) / to_big(&b), to_big(&a) % to_big(&b));
        prop_assert_eq!(&q, &from_big(&bq), "quotient of {:?} / {:?}", a, b);
        prop_assert_eq!(&r, &from_big(&br));
        prop_assert_eq!(&(&a / &b), &q);
        prop_assert_eq!(&(a.clone() % b.clone()), &r);
        prop_assert_eq!(a.checked_div(&b), Some(q.clone()));
        let mut c = a.clone();
        c /= &b;
        prop_assert_eq!(c, q);
        let mut c = a;
        c %= b;
        prop_assert_eq!(c, r);
    }

    #[test]
    fn pow_matches_num_bigint(s in any::<u64>(), e in 0u32..300) {
        let x = nat(s, 3);
        prop_assert_eq!(x.pow(e), from_big(&to_big(&x).pow(e)));
    }

    #[test]
    fn primitive_operands_match_num_bigint(s in any::<u64>(), v in any::<u128>()) {
        let x = &nat(s, 4);
        // Small values too, and zero, not only full-width ones.
        let v = match s % 4 { 0 => v % 300, 1 => 0, _ => v };
        check_primitive!(x, v, u8, u16, u32, u64, u128, usize);
        // The same value as the smaller types' neighbours of `x` (equality paths).
        if let Some(small) = x.to_u128() {
            check_primitive!(x, small, u128);
        }
    }

    #[test]
    fn sum_and_product_match_num_bigint(s in any::<u64>(), n in 0usize..12) {
        let xs: Vec<Nat> = (0..n as u64).map(|i| nat(s ^ i, 6)).collect();
        let bs: Vec<BigUint> = xs.iter().map(to_big).collect();
        prop_assert_eq!(xs.iter().sum::<Nat>(), from_big(&bs.iter().sum()));
        prop_assert_eq!(xs.iter().product::<Nat>(), from_big(&bs.iter().product()));
        prop_assert_eq!(xs.clone().into_iter().sum::<Nat>(), from_big(&bs.iter().sum()));
        let small: Vec<u32> = (0..n as u32).map(|i| (s as u32).rotate_left(i)).collect();
        prop_assert_eq!(small.iter().sum::<Nat>(), from_big(&small.iter().sum()));
        prop_assert_eq!(small.iter().product::<Nat>(), from_big(&small.iter().product()));
    }

    #[test]
    fn bytes_match_num_bigint(s in any::<u64>(), bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let x = nat(s, 8);
        let big = to_big(&x);
        prop_assert_eq!(x.to_bytes_le(), big.to_bytes_le());
        prop_assert_eq!(x.to_bytes_be(), big.to_bytes_be());
        prop_assert_eq!(Nat::from_bytes_le(&x.to_bytes_le()), x.clone());
        prop_assert_eq!(Nat::from_bytes_be(&x.to_bytes_be()), x);
        prop_assert_eq!(Nat::from_bytes_le(&bytes), from_big(&BigUint::from_bytes_le(&bytes)));
        prop_assert_eq!(Nat::from_bytes_be(&bytes), from_big(&BigUint::from_bytes_be(&bytes)));
    }

    #[test]
    fn radix_text_matches_num_bigint(s in any::<u64>(), radix in 2u32..=36) {
        let x = nat(s, 40);
        let text = x.to_str_radix(radix);
        prop_assert_eq!(&text, &to_big(&x).to_str_radix(radix), "{:?} in radix {}", x, radix);
        prop_assert_eq!(Nat::from_str_radix(&text, radix), Ok(x.clone()));
        prop_assert_eq!(Nat::from_str_radix(&text.to_uppercase(), radix), Ok(x));
    }

    /// Any short string over digits, letters, `_`, `+` and `-`: accepted exactly when
    /// num-bigint accepts it, with the same value.
    #[test]
    fn parsing_accepts_what_num_bigint_accepts(
        s in "[+_-]?[0-9a-zA-Z_+]{0,12}",
        radix in 2u32..=36,
    ) {
        let ours = Nat::from_str_radix(&s, radix);
        let theirs = <BigUint as num_traits::Num>::from_str_radix(&s, radix);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?} in radix {}: {:?}", s, radix, ours);
        if let (Ok(a), Ok(b)) = (ours, theirs) {
            prop_assert_eq!(a, from_big(&b));
        }
        if radix == 10 {
            prop_assert_eq!(s.parse::<Nat>().ok(), s.parse::<BigUint>().ok().map(|b| from_big(&b)));
        }
    }
}

/// Sizes past the recursive division's cut-over and the NTT multiplication's threshold:
/// `(dividend limbs, divisor limbs)`, smaller under emulation.
fn big_division_shapes() -> Vec<(usize, usize)> {
    if cfg!(miri) {
        vec![(8, 3)]
    } else if emulated() {
        vec![(700, 300), (1200, 61), (900, 899), (1100, 900)]
    } else {
        vec![(3000, 1500), (6000, 1200), (5000, 4990), (12000, 5000), (4000, 61), (9000, 8000)]
    }
}

#[test]
fn big_division_matches_num_bigint() {
    let mut rng = Rng(42);
    for (m, n) in big_division_shapes() {
        let a = rng.nat(m);
        let b = rng.nat(n);
        let (q, r) = a.div_rem(&b);
        let (ba, bb) = (to_big(&a), to_big(&b));
        assert_eq!(q, from_big(&(&ba / &bb)), "quotient of {m} by {n} limbs");
        assert_eq!(r, from_big(&(&ba % &bb)), "remainder of {m} by {n} limbs");
    }
}

/// `(b·q + r) / b` gives back `q` and `r`, at NTT sizes and with divisors whose top limbs
/// make the quotient estimate hardest (all ones, a lone top bit).
#[test]
fn big_division_inverts_multiplication() {
    let sizes: &[usize] = if cfg!(miri) {
        &[3]
    } else if emulated() {
        &[130, 500]
    } else {
        &[130, 500, 3000, 9000]
    };
    let mut rng = Rng(7);
    for &n in sizes {
        for top in [u64::MAX, 1 << 63, 1, 3] {
            let mut limbs = rng.limbs(n);
            limbs.push(top);
            let b = Nat::from_limbs(limbs);
            let q = rng.nat(n + n / 3);
            let r = &b - &rng.nat(n / 2 + 1) - 1u32;
            let a = &b * &q + &r;
            assert_eq!(a.div_rem(&b), (q.clone(), r.clone()), "{n} limbs, top limb {top:#x}");
            assert_eq!(a.div_rem(&q).0, b, "{n} limbs, quotient as divisor");
        }
    }
}

/// A quotient much shorter than the divisor comes from the divisor's top limbs, one too
/// large when the dropped limbs are all ones and the remainder is `d − 1`: the correction.
#[test]
fn short_quotient_from_the_divisors_top_limbs() {
    let shapes: &[(usize, usize)] = if cfg!(miri) {
        &[]
    } else if emulated() {
        &[(70, 200)]
    } else {
        &[(70, 200), (100, 2000), (1000, 3000)]
    };
    let mut rng = Rng(99);
    for &(m, n) in shapes {
        for ones in [false, true] {
            // d = top·B^(n−t) + (B^(n−t) − 1) when `ones`, random low limbs otherwise.
            let top = rng.nat(m + 2);
            let low = if ones { vec![u64::MAX; n - m - 2] } else { rng.limbs(n - m - 2) };
            let d = (top << (64 * (n - m - 2)) as u64) + Nat::from_limbs(low);
            let q = rng.nat(m);
            for r in [&d - 1u32, Nat::zero(), rng.nat(n - 1)] {
                let u = &q * &d + &r;
                assert_eq!(u.div_rem(&d), (q.clone(), r.clone()), "{m} by {n} limbs");
                assert_eq!(to_big(&(&u % &d)), to_big(&u) % to_big(&d));
            }
        }
    }
}

/// Text in every radix past the divide-and-conquer base case (and at NTT sizes off qemu).
#[test]
fn big_radix_text_matches_num_bigint() {
    let sizes: &[usize] = if cfg!(miri) {
        &[3]
    } else if emulated() {
        &[17, 200]
    } else {
        &[17, 200, 2500]
    };
    let mut rng = Rng(36);
    for &n in sizes {
        let x = rng.nat(n);
        let big = to_big(&x);
        for radix in [2, 3, 7, 8, 10, 16, 32, 36] {
            let text = x.to_str_radix(radix);
            assert_eq!(text, big.to_str_radix(radix), "{n} limbs in radix {radix}");
            assert_eq!(Nat::from_str_radix(&text, radix), Ok(x.clone()));
        }
    }
    // A power of the radix: its padding zeros at every level.
    let p = Nat::from(7u32).pow(5000);
    assert_eq!(p.to_str_radix(7), format!("1{}", "0".repeat(5000)));
    assert_eq!((&p - 1u32).to_str_radix(7), "6".repeat(5000));
}

#[test]
fn text_edge_cases() {
    assert_eq!(Nat::zero().to_str_radix(2), "0");
    assert_eq!(Nat::zero().to_str_radix(36), "0");
    assert_eq!(Nat::from_str_radix("+", 10), Err(ParseNatError::Empty));
    assert_eq!(Nat::from_str_radix("++1", 10), Err(ParseNatError::InvalidDigit(0)));
    assert_eq!(Nat::from_str_radix("_1", 10), Err(ParseNatError::InvalidDigit(0)));
    assert_eq!(Nat::from_str_radix("+_1", 10), Err(ParseNatError::InvalidDigit(1)));
    assert_eq!(Nat::from_str_radix("1__0_", 2), Ok(Nat::from(2u32)));
    assert_eq!(Nat::from_str_radix("1", 1), Err(ParseNatError::UnsupportedRadix(1)));
}

#[test]
fn operators_compile_as_with_biguint() {
    // What num-bigint users write, with `Nat` for `BigUint`.
    let n = Nat::from(1000u32);
    assert_eq!(&n * 3u64 + 1u32, 3001u32);
    assert_eq!(&n % 7u8, 6u8);
    assert_eq!(2u64 * &n - 1u16, 1999u32);
    assert!(n > 999u16 && n < 1001usize && 1001u128 > n);
    let mut m = n.clone();
    m -= 1000u32;
    assert!(m.is_zero());
    assert_eq!(Nat::from(10u32).pow(30) / &n, Nat::from(10u32).pow(27));
}

#[test]
#[should_panic(expected = "divide by zero")]
fn division_by_zero_panics() {
    let _ = Nat::from(1u32) / Nat::zero();
}

#[test]
#[should_panic(expected = "divide by zero")]
fn remainder_by_zero_primitive_panics() {
    let _ = Nat::from(1u32) % 0u32;
}

#[test]
#[should_panic(expected = "underflow")]
fn primitive_subtraction_underflow_panics() {
    let _ = Nat::from(1u32) - 2u32;
}

#[test]
#[should_panic(expected = "radix")]
fn to_str_radix_37_panics() {
    let _ = Nat::from(1u32).to_str_radix(37);
}

#[cfg(feature = "num-traits")]
mod num_traits_impls {
    use super::*;
    use num_traits::{CheckedDiv, CheckedSub, FromPrimitive, Num, One, Pow, ToPrimitive, Zero};

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn floats_match_num_bigint(s in any::<u64>(), shift in 0u64..1200) {
            let x = nat(s, 3) << shift;
            let big = to_big(&x);
            prop_assert_eq!(x.to_f64(), big.to_f64(), "{:?}", x);
            prop_assert_eq!(x.to_f32(), big.to_f32(), "{:?}", x);
            let f = f64::from_bits(s);
            prop_assert_eq!(Nat::from_f64(f), BigUint::from_f64(f).map(|b| from_big(&b)), "{}", f);
            let f = (s as f64) * 2f64.powi(shift as i32 - 600);
            prop_assert_eq!(Nat::from_f64(f), BigUint::from_f64(f).map(|b| from_big(&b)), "{}", f);
        }

        #[test]
        fn integers_and_traits_match_num_bigint(s in any::<u64>(), v in any::<i128>(), e in 0u8..40) {
            let x = nat(s, 3);
            let big = to_big(&x);
            prop_assert_eq!(x.to_i64(), big.to_i64());
            prop_assert_eq!(ToPrimitive::to_u64(&x), big.to_u64());
            prop_assert_eq!(x.to_i128(), big.to_i128());
            prop_assert_eq!(ToPrimitive::to_u128(&x), big.to_u128());
            prop_assert_eq!(Nat::from_i128(v), BigUint::from_i128(v).map(|b| from_big(&b)));
            prop_assert_eq!(Nat::from_i64(v as i64), BigUint::from_i64(v as i64).map(|b| from_big(&b)));
            prop_assert_eq!(Pow::pow(&x, e), from_big(&Pow::pow(&big, e)));
            prop_assert_eq!(Pow::pow(x.clone(), u64::from(e)), from_big(&Pow::pow(&big, u64::from(e))));
            prop_assert_eq!(Pow::pow(&x, Nat::from(e)), from_big(&Pow::pow(&big, BigUint::from(e))));
            prop_assert_eq!(x.is_one(), big.is_one());
            let y = nat(s.rotate_left(17), 3);
            prop_assert_eq!(CheckedSub::checked_sub(&x, &y), big.checked_sub(&to_big(&y)).map(|b| from_big(&b)));
            prop_assert_eq!(CheckedDiv::checked_div(&x, &y), big.checked_div(&to_big(&y)).map(|b| from_big(&b)));
        }
    }

    /// Generic code over num-traits takes a `Nat`.
    fn factorial<T: Num + Clone + FromPrimitive>(n: u32) -> T {
        (1..=n).fold(T::one(), |acc, i| acc * T::from_u32(i).unwrap_or_else(T::zero))
    }

    #[test]
    fn generic_code_takes_nat() {
        assert_eq!(factorial::<Nat>(30), from_big(&factorial::<BigUint>(30)));
        assert_eq!(<Nat as Num>::from_str_radix("zz", 36), Ok(Nat::from(1295u32)));
        assert!(<Nat as Zero>::zero().is_zero() && <Nat as One>::one() == 1u32);
        let huge = Nat::from(1u32) << 200;
        assert_eq!(Pow::pow(Nat::from(1u32), &huge), 1u32);
        assert_eq!(Pow::pow(Nat::zero(), huge), 0u32);
    }
}
