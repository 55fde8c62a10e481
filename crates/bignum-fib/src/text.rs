//! [`Nat`] as text in any radix from 2 to 36, with num-bigint's `BigUint` names and
//! semantics: [`Nat::to_str_radix`] (lowercase digits) and [`Nat::from_str_radix`] (either
//! case, one optional leading `+`, `_` separators after the first digit).
//!
//! Output: radix 10 and 16 take `radix.rs`'s paths (decimal divide-and-conquer, linear
//! hexadecimal); the other powers of two are linear bit slicing; any other radix `r` is
//! divide-and-conquer by `P_i = (r^k)^(2^i)`, `r^k` the largest power in a limb: `x < P_{i+1}`
//! splits into `x / P_i` and `x mod P_i` ([`Nat::div_rem`]), the low half zero-padded to
//! `k·2^i` digits, down to [`TEXT_BASECASE_LIMBS`], below which repeated one-limb division
//! by `r^k` writes `k` digits per step. Input: powers of two are bit packing; any other radix
//! (10 included) reads `k`-digit chunks and combines them pairwise,
//! `hi · (r^k)^(2^i) + lo` (`O(M(n) log n)`).

use crate::nat::Nat;
use crate::radix::{ParseNatError, write_decimal, write_hex};

/// Below this many limbs a number is written by repeated division by `r^k` (quadratic, one
/// cheap one-limb division per `k` digits). The same cut-over as decimal output's
/// (`DECIMAL_BASECASE_LIMBS`, timed there), which does the same work per limb.
const TEXT_BASECASE_LIMBS: usize = crate::radix::DECIMAL_BASECASE_LIMBS;

/// Digit characters, lowercase (num-bigint's output).
const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// `(r^k, k)` for the largest `k` with `r^k < 2^64`.
fn big_base(radix: u32) -> (u64, usize) {
    let r = u64::from(radix);
    let (mut p, mut k) = (r, 1);
    while let Some(next) = p.checked_mul(r) {
        p = next;
        k += 1;
    }
    (p, k)
}

impl Nat {
    /// The digits in `radix` (lowercase letters from 10 up; `"0"` for zero), as num-bigint's
    /// `BigUint::to_str_radix`.
    ///
    /// ```
    /// use bignum_fib::Nat;
    /// let x = Nat::from(255u32);
    /// assert_eq!(x.to_str_radix(2), "11111111");
    /// assert_eq!(x.to_str_radix(16), "ff");
    /// assert_eq!(x.to_str_radix(36), "73");
    /// ```
    ///
    /// # Panics
    /// When `radix` is not in `2..=36` (as `BigUint`'s does).
    pub fn to_str_radix(&self, radix: u32) -> String {
        assert!((2..=36).contains(&radix), "radix {radix} is not in 2..=36");
        let mut out = Vec::new();
        match radix {
            10 => write_decimal(self, &mut out),
            16 => write_hex(self, &mut out, false),
            r if r.is_power_of_two() => write_pow2(self, r.trailing_zeros(), &mut out),
            r => write_any(self, r, &mut out),
        }
        // Only ASCII digits were written.
        String::from_utf8(out).unwrap_or_default()
    }

    /// Parses `s` in `radix` (2 to 36): digits in either case, one optional leading `+`,
    /// and `_` separators anywhere after the first digit, as num-bigint's
    /// `Num::from_str_radix`. [`FromStr`](core::str::FromStr) is this in radix 10.
    ///
    /// ```
    /// use bignum_fib::{Nat, ParseNatError};
    /// assert_eq!(Nat::from_str_radix("ff", 16), Ok(Nat::from(255u32)));
    /// assert_eq!(Nat::from_str_radix("+1_000", 10), Ok(Nat::from(1000u32)));
    /// assert_eq!(Nat::from_str_radix("z", 36), Ok(Nat::from(35u32)));
    /// assert_eq!(Nat::from_str_radix("12", 2), Err(ParseNatError::InvalidDigit(1)));
    /// assert_eq!(Nat::from_str_radix("1", 37), Err(ParseNatError::UnsupportedRadix(37)));
    /// ```
    ///
    /// # Errors
    /// [`ParseNatError::UnsupportedRadix`] for a radix outside `2..=36` (num-bigint panics
    /// there), [`ParseNatError::Empty`] when there is no digit, and
    /// [`ParseNatError::InvalidDigit`] with the byte offset of the first character that is
    /// not a digit of the radix (a leading `_` included).
    pub fn from_str_radix(s: &str, radix: u32) -> Result<Nat, ParseNatError> {
        if !(2..=36).contains(&radix) {
            return Err(ParseNatError::UnsupportedRadix(radix));
        }
        let bytes = s.as_bytes();
        // One `+`, not two (num-bigint's rule).
        let start = usize::from(bytes.first() == Some(&b'+') && bytes.get(1) != Some(&b'+'));
        let body = &bytes[start..];
        if body.is_empty() {
            return Err(ParseNatError::Empty);
        }
        let mut digits = Vec::with_capacity(body.len());
        for (i, &c) in body.iter().enumerate() {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'z' => c - b'a' + 10,
                b'A'..=b'Z' => c - b'A' + 10,
                b'_' if i > 0 => continue,
                _ => u8::MAX,
            };
            if u32::from(d) >= radix {
                return Err(ParseNatError::InvalidDigit(start + i));
            }
            digits.push(d);
        }
        Ok(if radix.is_power_of_two() {
            parse_pow2(&digits, radix.trailing_zeros())
        } else {
            parse_any(&digits, radix)
        })
    }
}

/// Appends `x` in radix `2^bits` (`bits` 1 to 5): linear, each digit read from the limbs.
fn write_pow2(x: &Nat, bits: u32, out: &mut Vec<u8>) {
    let bits = u64::from(bits);
    let n = x.bit_len().div_ceil(bits).max(1);
    out.reserve(n as usize);
    let limbs = x.limbs();
    for j in (0..n).rev() {
        let at = j * bits;
        let (i, s) = ((at / 64) as usize, at % 64);
        let mut v = limbs.get(i).map_or(0, |l| l >> s);
        if s + bits > 64 {
            v |= limbs.get(i + 1).map_or(0, |l| l << (64 - s));
        }
        out.push(DIGITS[(v & ((1 << bits) - 1)) as usize]);
    }
}

/// Parses digit values (each below `2^bits`, most significant first) by bit packing.
fn parse_pow2(digits: &[u8], bits: u32) -> Nat {
    let bits = bits as usize;
    let mut limbs = vec![0u64; (digits.len() * bits).div_ceil(64)];
    for (j, &d) in digits.iter().rev().enumerate() {
        let (i, s) = (j * bits / 64, j * bits % 64);
        limbs[i] |= u64::from(d) << s;
        if s + bits > 64 {
            limbs[i + 1] |= u64::from(d) >> (64 - s);
        }
    }
    Nat::from_limbs(limbs)
}

/// Parses digit values (each below `radix`, most significant first): `k`-digit chunks
/// combined pairwise by the powers `(r^k)^(2^i)`.
fn parse_any(digits: &[u8], radix: u32) -> Nat {
    let (big, k) = big_base(radix);
    let mut chunks: Vec<Nat> = digits
        .rchunks(k)
        .map(|c| Nat::from(c.iter().fold(0u64, |acc, &d| acc * u64::from(radix) + u64::from(d))))
        .collect();
    let mut pow = Nat::from(big);
    while chunks.len() > 1 {
        let mut next = Vec::with_capacity(chunks.len().div_ceil(2));
        let mut it = chunks.into_iter();
        while let Some(lo) = it.next() {
            match it.next() {
                Some(hi) => next.push(&(&hi * &pow) + &lo),
                None => next.push(lo),
            }
        }
        chunks = next;
        if chunks.len() > 1 {
            pow = pow.square();
        }
    }
    chunks.pop().unwrap_or_default()
}

/// Appends `x` in any radix from 2 to 36 (not a power of two: see the module docs).
fn write_any(x: &Nat, radix: u32, out: &mut Vec<u8>) {
    let (big, k) = big_base(radix);
    // powers[i] = big^(2^i), while its square is at most x: then x < powers[top]².
    let mut powers = vec![Nat::from(big)];
    while let Some(last) = powers.last() {
        // The square has at least 2·bits − 1 bits: no need to compute it when that is more.
        if 2 * last.bit_len() - 1 > x.bit_len() {
            break;
        }
        let p = last.square();
        if p > *x {
            break;
        }
        powers.push(p);
    }
    let top = powers.len() - 1;
    write_level(x, radix, (big, k), &powers, top, false, out);
}

/// Writes `x < powers[i]²`: exactly `2·k·2^i` digits when `pad`, else without leading zeros.
fn write_level(
    x: &Nat,
    radix: u32,
    (big, k): (u64, usize),
    powers: &[Nat],
    i: usize,
    pad: bool,
    out: &mut Vec<u8>,
) {
    if x.limbs().len() <= TEXT_BASECASE_LIMBS {
        let width = if pad { (2 * k) << i } else { 0 };
        write_basecase(x, radix, (big, k), width, out);
        return;
    }
    // Above the base case x ≥ B^16 > big², so i ≥ 1 (`powers` reaches past x's square root).
    let (q, r) = x.div_rem(&powers[i]);
    let below = i.saturating_sub(1);
    if pad || !q.is_zero() {
        write_level(&q, radix, (big, k), powers, below, pad, out);
        write_level(&r, radix, (big, k), powers, below, true, out);
    } else {
        write_level(&r, radix, (big, k), powers, below, false, out);
    }
}

/// Writes `x` by repeated division by `big = r^k`, zero-padded on the left to `width`
/// digits (`"0"` for zero when `width` is 0).
fn write_basecase(x: &Nat, radix: u32, (big, k): (u64, usize), width: usize, out: &mut Vec<u8>) {
    let mut digits = Vec::new();
    let mut x = x.clone();
    let r = u64::from(radix);
    while !x.is_zero() {
        let (q, rem) = x.div_rem(&Nat::from(big));
        let mut rem = rem.to_u64().unwrap_or_default();
        for _ in 0..k {
            digits.push(DIGITS[(rem % r) as usize]);
            rem /= r;
        }
        x = q;
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    digits.resize(width.max(digits.len()).max(1), b'0');
    out.extend(digits.iter().rev());
}
