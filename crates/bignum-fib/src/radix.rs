//! Conversion to and from decimal and hexadecimal text, and the division it needs.
//!
//! Decimal output is divide-and-conquer by the powers `10^(19·2^i)` (computed once per
//! conversion by squaring): a number below `P_{i+1} = P_i²` splits into quotient and
//! remainder by `P_i`, each half converted recursively, down to a basecase of
//! [`DECIMAL_BASECASE_LIMBS`] limbs that peels 19 digits at a time by a two-by-one division
//! with a precomputed inverse of `10^19` (Möller–Granlund). Each division is a Barrett
//! reduction by a reciprocal of `P_i` computed once per level by Newton's iteration, so a
//! split costs two multiplications and the whole conversion `O(M(n) log n)` in the
//! multiplication it uses. Decimal input is the mirror image (`hi · 10^(19·2^i) + lo`);
//! hexadecimal both ways is linear.

use crate::nat::Nat;
use crate::ntt;

/// `10^19`, the largest power of ten in a limb.
const TEN19: u64 = 10_000_000_000_000_000_000;
/// Decimal digits per limb-sized chunk.
const DIGITS_PER_LIMB: usize = 19;

/// Below this many limbs a number is converted to decimal by repeated division by `10^19`
/// (quadratic, but cheap per limb). Measured with `cargo run --release -p bignum-fib
/// --example tune decimal` (F(10⁴), F(10⁵), F(10⁶), fastest of 15 batches, ns): 16 limbs
/// 17212 / 539047 / 6446180, 24: 17550 / 562619 / 6639608, 32: 18330 / 558724 / 6455003;
/// 64 and 128 are slower (21142 / 705119 / 8425824 at 64).
pub(crate) const DECIMAL_BASECASE_LIMBS: usize = 16;

/// Reciprocals of at most this many limbs are computed by schoolbook division (the Newton
/// iteration's base case; the Newton step needs more than 4).
const RECIPROCAL_BASECASE_LIMBS: usize = 16;

/// `floor((B² − 1) / d) − B` for a normalized `d` (top bit set): Möller–Granlund's inverse.
const fn inverse_2by1(d: u64) -> u64 {
    (u128::MAX / d as u128 - (1u128 << 64)) as u64
}

/// `(u1·B + u0) / d` and its remainder, for normalized `d`, `u1 < d` and `v = inverse_2by1(d)`.
#[inline(always)]
fn div_2by1(u1: u64, u0: u64, d: u64, v: u64) -> (u64, u64) {
    let q = (u128::from(v) * u128::from(u1)).wrapping_add((u128::from(u1) << 64) | u128::from(u0));
    let mut q1 = ((q >> 64) as u64).wrapping_add(1);
    let q0 = q as u64;
    let mut r = u0.wrapping_sub(q1.wrapping_mul(d));
    // The first adjustment is taken about half the time: branch-free (a mask), so it does
    // not cost a misprediction per limb. The second is rare.
    let mask = 0u64.wrapping_sub(u64::from(r > q0));
    q1 = q1.wrapping_add(mask);
    r = r.wrapping_add(mask & d);
    if r >= d {
        q1 += 1;
        r -= d;
    }
    (q1, r)
}

/// `x /= 10^19` in place; returns the remainder.
fn divrem_ten19(x: &mut [u64]) -> u64 {
    const INV: u64 = inverse_2by1(TEN19);
    let mut rem = 0u64;
    for limb in x.iter_mut().rev() {
        let (q, r) = div_2by1(rem, *limb, TEN19, INV);
        *limb = q;
        rem = r;
    }
    rem
}

/// `"00" "01" … "99"`: two digits per table lookup.
const DIGIT_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// Writes `v < 10^8` as exactly 8 digits.
#[inline(always)]
fn write_8(out: &mut [u8], v: u32) {
    let (hi, lo) = (v / 10_000, v % 10_000);
    for (chunk, x) in out[..8].chunks_exact_mut(4).zip([hi, lo]) {
        let (a, b) = ((x / 100) as usize, (x % 100) as usize);
        chunk[..2].copy_from_slice(&DIGIT_PAIRS[2 * a..2 * a + 2]);
        chunk[2..].copy_from_slice(&DIGIT_PAIRS[2 * b..2 * b + 2]);
    }
}

/// Writes `v < 10^19` as exactly 19 digits (leading zeros kept): three independent pieces
/// of 3, 8 and 8 digits, two digits per lookup.
fn write_19(out: &mut [u8], v: u64) {
    let (top, rest) = (v / 10_000_000_000_000_000, v % 10_000_000_000_000_000);
    let (mid, low) = ((rest / 100_000_000) as u32, (rest % 100_000_000) as u32);
    let top = top as usize; // < 1000
    out[0] = b'0' + (top / 100) as u8;
    out[1..3].copy_from_slice(&DIGIT_PAIRS[2 * (top % 100)..2 * (top % 100) + 2]);
    write_8(&mut out[3..11], mid);
    write_8(&mut out[11..19], low);
}

/// `x` (at most a few dozen limbs) as exactly `out.len()` digits, zero-padded on the left.
fn basecase_padded(x: &[u64], out: &mut [u8]) {
    let mut t = x.to_vec();
    let mut end = out.len();
    while end > 0 {
        let mut n = t.len();
        while n > 0 && t[n - 1] == 0 {
            n -= 1;
        }
        t.truncate(n);
        let chunk = if t.is_empty() { 0 } else { divrem_ten19(&mut t) };
        let mut buf = [0u8; DIGITS_PER_LIMB];
        write_19(&mut buf, chunk);
        let take = end.min(DIGITS_PER_LIMB);
        out[end - take..end].copy_from_slice(&buf[DIGITS_PER_LIMB - take..]);
        end -= take;
    }
    debug_assert!(t.iter().all(|&l| l == 0), "basecase_padded: value wider than the field");
}

/// `x` (at most a few dozen limbs) in decimal without leading zeros (`"0"` for zero).
fn basecase_unpadded(x: &[u64], out: &mut Vec<u8>) {
    let mut t = x.to_vec();
    let mut chunks = Vec::new();
    loop {
        let mut n = t.len();
        while n > 0 && t[n - 1] == 0 {
            n -= 1;
        }
        t.truncate(n);
        if t.is_empty() {
            break;
        }
        chunks.push(divrem_ten19(&mut t));
    }
    match chunks.split_last() {
        None => out.push(b'0'),
        Some((&top, rest)) => {
            let mut buf = [0u8; DIGITS_PER_LIMB];
            write_19(&mut buf, top);
            let first = buf.iter().position(|&c| c != b'0').unwrap_or(DIGITS_PER_LIMB - 1);
            out.extend_from_slice(&buf[first..]);
            for &c in rest.iter().rev() {
                write_19(&mut buf, c);
                out.extend_from_slice(&buf);
            }
        }
    }
}

/// `floor(B^(2n) / d)` for a normalized `d` of `n` limbs (top bit set): `n + 1` limbs.
fn reciprocal(d: &Nat) -> Nat {
    let n = d.limbs.len();
    if n <= RECIPROCAL_BASECASE_LIMBS {
        return reciprocal_schoolbook(d);
    }
    // Newton from the reciprocal of the top `h` limbs (two guard limbs over half).
    let h = n / 2 + 2;
    let dh = Nat::from_limbs(d.limbs[n - h..].to_vec());
    let v0 = reciprocal(&dh).shl_limbs(n - h);
    newton_refine(d, v0)
}

/// One Newton step from an approximation `v0` of `B^(2n)/d` good to about half its limbs,
/// then the exact correction to `floor(B^(2n)/d)`.
fn newton_refine(d: &Nat, v0: Nat) -> Nat {
    let n = d.limbs.len();
    // e = B^(2n) − d·v0 (signed); v1 = v0 + v0·e / B^(2n).
    let p = d * &v0;
    let top = Nat::from(1u64).shl_limbs(2 * n);
    let mut v = if p <= top {
        let e = &top - &p;
        &v0 + &(&v0 * &e).shr_limbs(2 * n)
    } else {
        let e = &p - &top;
        v0.checked_sub(&(&v0 * &e).shr_limbs(2 * n)).unwrap_or_default()
    };
    // Exact correction: 0 <= B^(2n) − d·v < d.
    let p = d * &v;
    if p > top {
        let mut over = &p - &top;
        while !over.is_zero() {
            v.sub_small(1);
            over = match over.checked_sub(d) {
                Some(o) => o,
                None => break,
            };
        }
    } else {
        let mut rem = &top - &p;
        while rem >= *d {
            rem = &rem - d;
            v.add_small(1);
        }
    }
    v
}

/// `floor(B^(2n) / d)` by schoolbook division (small `n` only).
fn reciprocal_schoolbook(d: &Nat) -> Nat {
    let n = d.limbs.len();
    let mut u = vec![0u64; 2 * n + 1];
    u[2 * n] = 1;
    Nat::from_limbs(divrem_schoolbook(&mut u, &d.limbs))
}

/// Knuth's algorithm D: `u / d` for a normalized `d` (top bit set, `n >= 1` limbs) and
/// `u` of `m + n` limbs; returns the `m + 1` quotient limbs and leaves the remainder in
/// `u[..n]` (the rest of `u` zero). Each quotient limb is estimated from the top two limbs
/// of the running remainder and the top limb of `d`, at most two too large (Knuth's
/// theorem B), and corrected by adding `d` back.
fn divrem_schoolbook(u: &mut Vec<u64>, d: &[u64]) -> Vec<u64> {
    use crate::portable::{add_assign_n, submul_1};
    let n = d.len();
    debug_assert!(n >= 1 && d[n - 1] >> 63 == 1 && u.len() >= n);
    let m = u.len() - n;
    u.push(0);
    let top = d[n - 1];
    let mut q = vec![0u64; m + 1];
    for j in (0..=m).rev() {
        let (hi, lo) = (u[j + n], u[j + n - 1]);
        let mut qh = if hi >= top {
            u64::MAX
        } else {
            (((u128::from(hi)) << 64 | u128::from(lo)) / u128::from(top)) as u64
        };
        let borrow = submul_1(&mut u[j..j + n], d, qh);
        let (t, mut negative) = u[j + n].overflowing_sub(borrow);
        u[j + n] = t;
        while negative {
            qh -= 1;
            let carry = add_assign_n(&mut u[j..j + n], d);
            let (t, c) = u[j + n].overflowing_add(carry);
            u[j + n] = t;
            negative = !c;
        }
        q[j] = qh;
    }
    q
}

/// One level of the conversion tree: `P = 10^(19·2^i)` and what dividing by it needs.
struct Power {
    /// `P`.
    pow: Nat,
    /// Decimal digits of the field this level fills: `19·2^i`.
    digits: usize,
    /// Leading zero bits of `P`'s top limb.
    shift: u64,
    /// `floor(B^(2n) / (P << shift))`, `n` = limbs of `P`; computed on first use.
    inv: std::cell::OnceCell<Nat>,
    /// For NTT-sized levels: the reciprocal and `P` transformed once for all the divisions
    /// of the level ([`Power::divrem`]).
    inv_hat: std::cell::OnceCell<ntt::Transformed>,
    pow_hat: std::cell::OnceCell<ntt::Transformed>,
}

/// The reciprocal of level `i`. From the level below (`P_i = P_{i−1}²`) when there is one:
/// the square of `P_{i−1}`'s reciprocal, rescaled, is good to about half the limbs, so one
/// Newton step finishes it (instead of a whole Newton recursion per level).
fn inverse(powers: &[Power], i: usize) -> &Nat {
    let p = &powers[i];
    p.inv.get_or_init(|| {
        let dn = &p.pow << p.shift;
        let n = dn.limbs.len() as i64;
        if i == 0 || n <= 2 * RECIPROCAL_BASECASE_LIMBS as i64 {
            return reciprocal(&dn);
        }
        let q = &powers[i - 1];
        let m = q.pow.limbs.len() as i64;
        let vq = inverse(powers, i - 1);
        // 1/P·2^-s·B^(2n) ≈ (vq·2^sq / B^(2m))²·B^(2n)/2^s
        let bits = 2 * q.shift as i64 - p.shift as i64 + 64 * (2 * n - 4 * m);
        let sq = vq.square();
        let v0 = if bits >= 0 { &sq << bits as u64 } else { &sq >> (-bits) as u64 };
        newton_refine(&dn, v0)
    })
}

impl Power {
    fn new(pow: Nat, digits: usize) -> Power {
        let shift = u64::from(pow.limbs.last().map_or(0, |t| t.leading_zeros()));
        Power {
            pow,
            digits,
            shift,
            inv: std::cell::OnceCell::new(),
            inv_hat: std::cell::OnceCell::new(),
            pow_hat: std::cell::OnceCell::new(),
        }
    }

    /// `(a / P, a mod P)` for `a·2^shift < B^(2n)` (`n` = limbs of `P`; true for `a < P²`
    /// and for `a < P·B^n`), by Barrett reduction with the reciprocal.
    fn divrem(&self, a: &Nat, inv: &Nat) -> (Nat, Nat) {
        let n = self.pow.limbs.len();
        let an = a << self.shift;
        debug_assert!(an.limbs.len() <= 2 * n);
        let q1 = an.shr_limbs(n - 1);
        // From the size where the products it replaces are NTT products.
        if n >= crate::mul::Thresholds::detect().mul_ntt
            && !q1.is_zero()
            && let Some(qr) = self.divrem_ntt(a, &q1, inv)
        {
            return qr;
        }
        let mut q = (&q1 * inv).shr_limbs(n + 1);
        // Barrett: the estimate is at most the quotient and at most 2 below it.
        let mut r = loop {
            match a.checked_sub(&(&q * &self.pow)) {
                Some(r) => break r,
                // Unreachable with an exact reciprocal; kept so that a bad estimate costs
                // time, never a wrong digit.
                None => q.sub_small(1),
            }
        };
        while r >= self.pow {
            r = &r - &self.pow;
            q.add_small(1);
        }
        (q, r)
    }

    /// [`Power::divrem`] with transforms made once per level: `q1·inv` with the reciprocal's
    /// transform (2 transforms per prime instead of 3), and the remainder from
    /// `a − q·P mod (B^m − 1)` with `m ≥ n + 2` limbs, a cyclic product of half the length
    /// of the full one, with `P`'s transform. The remainder is below `3P < B^m − 1`, so its
    /// residue is the remainder itself. `None` if the estimate is off (it cannot be with an
    /// exact reciprocal; the caller then takes the plain path).
    fn divrem_ntt(&self, a: &Nat, q1: &Nat, inv: &Nat) -> Option<(Nat, Nat)> {
        let n = self.pow.limbs.len();
        let inv_hat = self.inv_hat.get_or_init(|| {
            // q1 has at most n + 1 limbs, the reciprocal n + 1.
            ntt::transform(&inv.limbs, (2 * n + 1).next_power_of_two())
        });
        let mut prod = vec![0u64; q1.limbs.len() + inv.limbs.len()];
        ntt::mul_transformed(&mut prod, &q1.limbs, inv_hat);
        let mut q = Nat::from_limbs(prod.get(n + 1..).unwrap_or_default().to_vec());
        let m = (n + 2).next_power_of_two();
        if q.limbs.len() > m || a.limbs.len() > 2 * m {
            return None;
        }
        let pow_hat = self.pow_hat.get_or_init(|| ntt::transform(&self.pow.limbs, m));
        let mut qp = vec![0u64; m];
        if !q.is_zero() {
            ntt::mul_mod_bnm1(&mut qp, &q.limbs, pow_hat);
        }
        // a mod (B^m − 1): the two m-limb halves added, the carry brought round.
        let mut am = a.limbs[..a.limbs.len().min(m)].to_vec();
        am.resize(m, 0);
        ntt::add_mod_bnm1(&mut am, a.limbs.get(m..).unwrap_or_default());
        // (am − qp) mod (B^m − 1): subtract; a borrow out of the top wraps as −1 at the
        // bottom (B^m ≡ 1), which cannot borrow again unless the difference is zero.
        let mut borrow = false;
        for (x, &y) in am.iter_mut().zip(&qp) {
            let (d, b1) = x.overflowing_sub(y);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *x = d;
            borrow = b1 || b2;
        }
        if borrow {
            let _ = crate::mul::decr(&mut am);
        }
        // B^m − 1 also stands for zero.
        if am.iter().all(|&l| l == u64::MAX) {
            am.fill(0);
        }
        let mut r = Nat::from_limbs(am);
        // Barrett's estimate is at most 2 below the quotient: r < 3P.
        for _ in 0..2 {
            if r < self.pow {
                break;
            }
            r = &r - &self.pow;
            q.add_small(1);
        }
        (r < self.pow).then_some((q, r))
    }

    /// `(a / P, a mod P)` for any `a`: Barrett on `n`-limb blocks from the top.
    fn divrem_any(&self, a: &Nat, inv: &Nat) -> (Nat, Nat) {
        let n = self.pow.limbs.len();
        if (a << self.shift).limbs.len() <= 2 * n {
            return self.divrem(a, inv);
        }
        let (qh, rh) = self.divrem_any(&a.shr_limbs(n), inv);
        let lo = Nat::from_limbs(a.limbs[..n].to_vec());
        let (ql, r) = self.divrem(&(&rh.shl_limbs(n) + &lo), inv);
        (&qh.shl_limbs(n) + &ql, r)
    }
}

/// `[10^19, 10^38, 10^76, …]` up to the last with at most half the limbs of `x` (the top
/// split's divisor).
fn powers_for(x: &Nat) -> Vec<Power> {
    let mut v = vec![Power::new(Nat::from(TEN19), DIGITS_PER_LIMB)];
    while let Some(p) = v.last()
        && 4 * p.pow.limbs.len() <= x.limbs.len() + 1
    {
        let next = Power::new(p.pow.square(), 2 * p.digits);
        v.push(next);
    }
    v
}

/// `x` (`x < P_level`) as exactly `out.len() == powers[level].digits` digits.
fn write_padded(x: &Nat, powers: &[Power], level: usize, out: &mut [u8]) {
    if x.limbs.len() <= DECIMAL_BASECASE_LIMBS || level == 0 {
        return basecase_padded(&x.limbs, out);
    }
    let p = &powers[level - 1];
    let (q, r) = p.divrem(x, inverse(powers, level - 1));
    let (hi, lo) = out.split_at_mut(out.len() - p.digits);
    write_padded(&q, powers, level - 1, hi);
    write_padded(&r, powers, level - 1, lo);
}

/// `x` in decimal, no leading zeros, appended to `out`.
fn write_unpadded(x: &Nat, powers: &[Power], out: &mut Vec<u8>) {
    if x.limbs.len() <= DECIMAL_BASECASE_LIMBS {
        return basecase_unpadded(&x.limbs, out);
    }
    // The largest level with about half the limbs of `x` (the quotient may be longer than
    // `P`: then it is divided again).
    let level =
        powers.iter().rposition(|p| 2 * p.pow.limbs.len() <= x.limbs.len() + 1).unwrap_or(0);
    let p = &powers[level];
    let (q, r) = p.divrem_any(x, inverse(powers, level));
    write_unpadded(&q, powers, out);
    let start = out.len();
    out.resize(start + p.digits, 0);
    write_padded(&r, powers, level, &mut out[start..]);
}

/// Appends `x` in decimal to `out`.
pub(crate) fn write_decimal(x: &Nat, out: &mut Vec<u8>) {
    if x.limbs.len() <= DECIMAL_BASECASE_LIMBS {
        return basecase_unpadded(&x.limbs, out);
    }
    let powers = powers_for(x);
    write_unpadded(x, &powers, out);
}

/// The number of decimal digits of `x` (1 for zero): from the bit length, checked against
/// one power of ten.
pub(crate) fn decimal_digits(x: &Nat) -> u64 {
    let bits = x.bit_len();
    if bits <= 64 {
        return x.to_u64().map_or(1, |v| v.checked_ilog10().map_or(1, |l| u64::from(l) + 1));
    }
    // digits = floor(log10 x) + 1 and (bits − 1)·log10(2) <= log10 x < bits·log10(2).
    let guess = ((bits - 1) as f64 * core::f64::consts::LOG10_2) as u64; // <= floor(log10 x)
    let mut d = guess.saturating_sub(1); // a safe lower bound despite rounding
    let mut p = pow10(d);
    loop {
        let next = &p * &Nat::from(10u64);
        if next > *x {
            return d + 1;
        }
        p = next;
        d += 1;
    }
}

/// `10^e` by binary powering.
fn pow10(e: u64) -> Nat {
    let mut result = Nat::from(1u64);
    let mut base = Nat::from(10u64);
    let mut e = e;
    while e > 0 {
        if e & 1 == 1 {
            result = &result * &base;
        }
        e >>= 1;
        if e > 0 {
            base = base.square();
        }
    }
    result
}

/// Appends `x` in lowercase hexadecimal (no prefix, no leading zeros; `"0"` for zero).
pub(crate) fn write_hex(x: &Nat, out: &mut Vec<u8>, upper: bool) {
    let digits = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let Some((&top, rest)) = x.limbs.split_last() else {
        out.push(b'0');
        return;
    };
    let top_digits = (64 - top.leading_zeros()).div_ceil(4).max(1);
    out.reserve(top_digits as usize + 16 * rest.len());
    for i in (0..top_digits).rev() {
        out.push(digits[((top >> (4 * i)) & 15) as usize]);
    }
    for &limb in rest.iter().rev() {
        for i in (0..16).rev() {
            out.push(digits[((limb >> (4 * i)) & 15) as usize]);
        }
    }
}

/// Why a string is not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseNatError {
    /// The string has no digits.
    Empty,
    /// A character that is not a digit of the radix, at this byte offset.
    InvalidDigit(usize),
    /// Only radix 10 and 16 are supported.
    UnsupportedRadix(u32),
}

impl core::fmt::Display for ParseNatError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ParseNatError::Empty => f.write_str("no digits"),
            ParseNatError::InvalidDigit(at) => write!(f, "invalid digit at byte {at}"),
            ParseNatError::UnsupportedRadix(r) => write!(f, "unsupported radix {r} (10 or 16)"),
        }
    }
}

impl std::error::Error for ParseNatError {}

/// Parses hexadecimal digits (no prefix, no sign).
pub(crate) fn parse_hex(s: &[u8]) -> Result<Nat, ParseNatError> {
    if s.is_empty() {
        return Err(ParseNatError::Empty);
    }
    let mut limbs = vec![0u64; s.len().div_ceil(16)];
    for (i, &c) in s.iter().rev().enumerate() {
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return Err(ParseNatError::InvalidDigit(s.len() - 1 - i)),
        };
        limbs[i / 16] |= u64::from(v) << (4 * (i % 16));
    }
    Ok(Nat::from_limbs(limbs))
}

/// Parses decimal digits (no sign): 19-digit chunks combined divide-and-conquer,
/// `hi · 10^(19·2^i) + lo`.
pub(crate) fn parse_decimal(s: &[u8]) -> Result<Nat, ParseNatError> {
    if s.is_empty() {
        return Err(ParseNatError::Empty);
    }
    if let Some(at) = s.iter().position(|c| !c.is_ascii_digit()) {
        return Err(ParseNatError::InvalidDigit(at));
    }
    // Chunks of 19 digits, least significant first.
    let mut chunks: Vec<Nat> = s
        .rchunks(DIGITS_PER_LIMB)
        .map(|c| Nat::from(c.iter().fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'))))
        .collect();
    // Pairwise combination: level i merges runs of 2^i chunks with 10^(19·2^i).
    let mut pow = Nat::from(TEN19);
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
    Ok(chunks.pop().unwrap_or_default())
}

impl core::fmt::Display for Nat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut out = Vec::new();
        write_decimal(self, &mut out);
        // Only ASCII digits were written.
        f.pad_integral(true, "", core::str::from_utf8(&out).unwrap_or_default())
    }
}

impl core::fmt::LowerHex for Nat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut out = Vec::new();
        write_hex(self, &mut out, false);
        f.pad_integral(true, "0x", core::str::from_utf8(&out).unwrap_or_default())
    }
}

impl core::fmt::UpperHex for Nat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut out = Vec::new();
        write_hex(self, &mut out, true);
        f.pad_integral(true, "0x", core::str::from_utf8(&out).unwrap_or_default())
    }
}

impl core::fmt::Debug for Nat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Nat({self:#x})")
    }
}

impl core::str::FromStr for Nat {
    type Err = ParseNatError;
    /// Parses decimal digits (no sign, no separators).
    fn from_str(s: &str) -> Result<Nat, ParseNatError> {
        parse_decimal(s.as_bytes())
    }
}

impl Nat {
    /// Parses `s` in radix 10 or 16 (digits only: no sign, prefix or separators; hexadecimal
    /// digits in either case).
    pub fn from_str_radix(s: &str, radix: u32) -> Result<Nat, ParseNatError> {
        match radix {
            10 => parse_decimal(s.as_bytes()),
            16 => parse_hex(s.as_bytes()),
            r => Err(ParseNatError::UnsupportedRadix(r)),
        }
    }

    /// The digits in radix 10 or 16 (lowercase), or `None` for another radix.
    pub fn to_str_radix(&self, radix: u32) -> Option<String> {
        let mut out = Vec::new();
        match radix {
            10 => write_decimal(self, &mut out),
            16 => write_hex(self, &mut out, false),
            _ => return None,
        }
        String::from_utf8(out).ok()
    }

    /// Appends the decimal digits to `out` (what `fib` writes, without a `String`).
    pub fn write_decimal(&self, out: &mut Vec<u8>) {
        write_decimal(self, out)
    }

    /// Appends the lowercase hexadecimal digits to `out`.
    pub fn write_hex(&self, out: &mut Vec<u8>) {
        write_hex(self, out, false)
    }

    /// The number of decimal digits (1 for zero), without converting.
    pub fn decimal_digits(&self) -> u64 {
        decimal_digits(self)
    }
}
