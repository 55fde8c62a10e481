//! Conversion to decimal and hexadecimal text, and the division it needs (which is also
//! `Nat`'s `/` and `%`, through [`divrem_nat`]).
//!
//! Decimal output is divide-and-conquer by the powers `10^(19·2^i)` (computed once per
//! conversion by squaring): a number below `P_{i+1} = P_i²` splits into quotient and
//! remainder by `P_i`, each half converted recursively. Below NTT sizes a split is a
//! recursive division ([`divrem_dc`]: two half-size divisions and two products, down to
//! schoolbook division with Möller–Granlund's three-by-two quotient estimate), done in place
//! with no allocation per node, down to `x < 10^38`, which is one two-by-one division by
//! `10^19`. At NTT sizes, on levels with enough divisions to pay for it, a split is a
//! Barrett reduction by a reciprocal of `P_i` computed once per level by Newton's iteration
//! with its NTT transform cached, so the whole conversion is `O(M(n) log n)` in the
//! multiplication it uses. Hexadecimal output is linear. Input, in every radix, is
//! `text.rs`'s.

use crate::dispatch::{Backend, with_kernels};
use crate::kernels::Kernels;
use crate::nat::Nat;
use crate::ntt;
use crate::par;

/// `10^19`, the largest power of ten in a limb.
const TEN19: u64 = 10_000_000_000_000_000_000;
/// Decimal digits per limb-sized chunk.
const DIGITS_PER_LIMB: usize = 19;

/// The leading part of a number, once below this many limbs, is converted by repeated
/// division by `10^19` (quadratic, but cheap per limb; the padded parts below it go through
/// [`padded_in_place`]). Timed on F(10⁴) and F(10⁵) the way `examples/tune decimal` does
/// (fastest of 15 batches): 4, 8 and 16 limbs within 2 % of each other, 32 slower at
/// F(10⁴) (11.5 µs against 8.1 µs).
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

/// `floor((B³ − 1) / (d1·B + d0)) − B` for a normalized `d1` (top bit set): the inverse
/// [`div_3by2`] takes. Starts from `d1`'s two-by-one inverse, which is never smaller, and
/// steps down while `(B + v)·d` does not fit in three limbs (at most a few steps).
fn inverse_3by2(d1: u64, d0: u64) -> u64 {
    let mut v = inverse_2by1(d1);
    loop {
        // (B + v)·(d1·B + d0) = v·d0 + B·(d0 + v·d1) + B²·d1: overflows B³ iff its top
        // limb's carry does.
        let t0 = u128::from(v) * u128::from(d0);
        let t1 = u128::from(v) * u128::from(d1) + u128::from(d0) + (t0 >> 64);
        if u64::MAX - d1 >= (t1 >> 64) as u64 {
            return v;
        }
        v -= 1;
    }
}

/// `(u2·B² + u1·B + u0) / (d1·B + d0)` for a normalized `d1`, `(u2, u1) < (d1, d0)` and
/// `v = inverse_3by2(d1, d0)`: the quotient limb and the two-limb remainder
/// (Möller–Granlund, "Improved division by invariant integers", algorithm 5).
#[inline(always)]
fn div_3by2(u2: u64, u1: u64, u0: u64, d1: u64, d0: u64, v: u64) -> (u64, u128) {
    let d = (u128::from(d1) << 64) | u128::from(d0);
    let q = (u128::from(v) * u128::from(u2)).wrapping_add((u128::from(u2) << 64) | u128::from(u1));
    let (mut q1, q0) = ((q >> 64) as u64, q as u64);
    let r1 = u1.wrapping_sub(q1.wrapping_mul(d1));
    let mut r = ((u128::from(r1) << 64) | u128::from(u0))
        .wrapping_sub(u128::from(d0) * u128::from(q1))
        .wrapping_sub(d);
    q1 = q1.wrapping_add(1);
    if (r >> 64) as u64 >= q0 {
        q1 = q1.wrapping_sub(1);
        r = r.wrapping_add(d);
    }
    if r >= d {
        q1 += 1;
        r -= d;
    }
    (q1, r)
}

/// Schoolbook division by a normalized divisor `d` (`n >= 2` limbs, top bit set, `v =
/// inverse_3by2` of its top two limbs): `u` (whose top `n` limbs are below `d`) becomes the
/// remainder in `u[..n]` with zeros above, and the quotient's `u.len() − n` limbs go to
/// `q`. Each quotient limb comes from a three-by-two division of the running remainder's
/// top limbs, at most one too large, and costs one `submul_1` of `n − 2` limbs (Knuth's
/// algorithm D with Möller–Granlund's estimate).
fn divrem_sb<K: Kernels>(k: K, u: &mut [u64], d: &[u64], v: u64, q: &mut [u64]) {
    let n = d.len();
    debug_assert!(n >= 2 && d[n - 1] >> 63 == 1 && u.len() > n && q.len() == u.len() - n);
    debug_assert!(crate::limbs::cmp_limbs(&u[u.len() - n..], d) == core::cmp::Ordering::Less);
    let (d1, d0) = (d[n - 1], d[n - 2]);
    for j in (0..q.len()).rev() {
        let (u2, u1, u0) = (u[j + n], u[j + n - 1], u[j + n - 2]);
        // The window u[j..=j+n] is below d·B, so (u2, u1) <= (d1, d0).
        let (mut qj, mut top) = if u2 == d1 && u1 == d0 {
            #[cfg(test)]
            tests::RARE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let borrow = k.submul_1(&mut u[j..j + n], d, u64::MAX);
            (u64::MAX, u2.wrapping_sub(borrow))
        } else {
            let (qj, r) = div_3by2(u2, u1, u0, d1, d0, v);
            let borrow = if n > 2 { k.submul_1(&mut u[j..j + n - 2], &d[..n - 2], qj) } else { 0 };
            let (r, negative) = r.overflowing_sub(u128::from(borrow));
            u[j + n - 2] = r as u64;
            u[j + n - 1] = (r >> 64) as u64;
            (qj, 0u64.wrapping_sub(u64::from(negative)))
        };
        // A negative window (`top` read as signed) takes `d` back.
        while (top as i64) < 0 {
            #[cfg(test)]
            tests::ADD_BACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            qj = qj.wrapping_sub(1);
            top = top.wrapping_add(k.add_assign_n(&mut u[j..j + n], d));
        }
        debug_assert_eq!(top, 0);
        u[j + n] = 0;
        q[j] = qj;
    }
}

/// Quotients of fewer limbs than this (or divisors) are computed by [`divrem_sb`], larger
/// ones by [`divrem_dc`]'s recursion.
pub(crate) const DC_DIVISION_LIMBS: usize = 60;

/// `x −= y` over `x`'s length (`y` no longer); returns the borrow out of the top.
fn sub_from<K: Kernels>(k: K, x: &mut [u64], y: &[u64]) -> bool {
    if y.is_empty() {
        return false;
    }
    let (lo, hi) = x.split_at_mut(y.len());
    k.sub_assign_n(lo, y) != 0 && crate::limbs::decr(hi)
}

/// `x += y` over `x`'s length; returns the carry out of the top.
fn add_to<K: Kernels>(k: K, x: &mut [u64], y: &[u64]) -> bool {
    if y.is_empty() {
        return false;
    }
    let (lo, hi) = x.split_at_mut(y.len());
    k.add_assign_n(lo, y) != 0 && crate::limbs::incr(hi)
}

/// Division of `u` (`m + n` limbs) by a normalized `d` (`n >= 2` limbs, `v` its
/// [`inverse_3by2`]) with any `u`: returns the quotient's top bit `qh` (quotient `qh·B^m +
/// q`); the remainder is left in `u[..n]`, zeros above. Recursive (Burnikel–Ziegler, as in
/// Brent and Zimmermann's "Modern Computer Arithmetic", algorithm 1.8): the top half of the
/// quotient from the top limbs of `u` and `d`, corrected with one product, then the bottom
/// half the same way; [`divrem_sb`] below [`DC_DIVISION_LIMBS`].
fn divrem_dc<K: Kernels>(k: K, u: &mut [u64], d: &[u64], v: u64, q: &mut [u64]) -> bool {
    let n = d.len();
    let m = q.len();
    debug_assert!(n >= 2 && d[n - 1] >> 63 == 1 && u.len() == m + n);
    // The top n limbs at least d: take d once (the quotient's top bit).
    let qh = crate::limbs::cmp_limbs(&u[m..], d) != core::cmp::Ordering::Less;
    if qh {
        k.sub_assign_n(&mut u[m..], d);
    }
    if m == 0 {
        return qh;
    }
    if m < DC_DIVISION_LIMBS || n < DC_DIVISION_LIMBS {
        divrem_sb(k, u, d, v, q);
        return qh;
    }
    if m > n {
        // Blocks of n quotient limbs from the top, each a 2n-by-n division.
        let mut hi = m;
        while hi > 0 {
            let lo = hi.saturating_sub(n);
            let top = divrem_dc(k, &mut u[lo..hi + n], d, v, &mut q[lo..hi]);
            debug_assert!(!top, "the block's top window is below d");
            hi = lo;
        }
        return qh;
    }
    let t = crate::mul::Thresholds::detect();
    let kk = m / 2;
    // d1 (n − kk >= 2 limbs) has d's top two limbs, so d's inverse `v` serves it too.
    let (d0, d1) = d.split_at(kk);
    // Q1 (m − kk limbs, top bit q1h) and R1 from u / B^(2kk) by d1.
    let mut q1h = divrem_dc(k, &mut u[2 * kk..], d1, v, &mut q[kk..]);
    // A' = R1·B^(2kk) + (u mod B^(2kk)) − Q1·d0·B^kk, in u[..n + kk] (zeros above).
    let mut prod = vec![0u64; m];
    crate::mul::mul_any(k, &mut prod, &q[kk..], d0, &t);
    let mut negative = sub_from(k, &mut u[kk..n + kk], &prod);
    if q1h {
        negative |= sub_from(k, &mut u[m..n + kk], d0);
    }
    while negative {
        #[cfg(test)]
        tests::DC_FIX.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Q1 −= 1, A' += d·B^kk.
        if crate::limbs::decr(&mut q[kk..]) {
            q1h = false;
        }
        negative = !add_to(k, &mut u[kk..n + kk], d);
    }
    // Q0 (kk limbs, top bit q0h) and R0 from A' / B^kk by d1.
    let q0h = divrem_dc(k, &mut u[kk..n + kk], d1, v, &mut q[..kk]);
    // A'' = R0·B^kk + (A' mod B^kk) − Q0·d0, in u[..n].
    let mut prod = vec![0u64; 2 * kk];
    crate::mul::mul_any(k, &mut prod, &q[..kk], d0, &t);
    let mut negative = sub_from(k, &mut u[..n], &prod);
    if q0h {
        negative |= sub_from(k, &mut u[kk..n], d0);
    }
    let mut q0h = q0h;
    while negative {
        #[cfg(test)]
        tests::DC_FIX.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Q0 −= 1, A'' += d.
        if crate::limbs::decr(&mut q[..kk]) {
            q0h = false;
        }
        negative = !add_to(k, &mut u[..n], d);
    }
    // Q = Q1·B^kk + Q0 (Q0's top bit carries into Q1).
    if q0h && crate::limbs::incr(&mut q[kk..]) {
        q1h = true;
    }
    qh || q1h
}

/// `(u / d, u mod d)` for a non-zero `d` (panics on zero): `Nat`'s division (`div.rs`).
/// One limb: Möller–Granlund two-by-one steps by the normalized divisor. More: the operands
/// shifted so `d`'s top bit is set, [`divrem_dc`] (subquadratic from [`DC_DIVISION_LIMBS`]
/// limbs of both quotient and divisor), and the remainder shifted back.
pub(crate) fn divrem_nat(u: &Nat, d: &Nat) -> (Nat, Nat) {
    assert!(!d.is_zero(), "attempt to divide by zero");
    if u < d {
        return (Nat::zero(), u.clone());
    }
    let (u, d) = (&u.limbs, &d.limbs);
    let s = d[d.len() - 1].leading_zeros();
    if let [d0] = d[..] {
        let (dn, mut rem) = (d0 << s, 0u64);
        let inv = inverse_2by1(dn);
        let mut un = u.clone();
        shl_in_place(&mut un, s);
        // The bits shifted out of the top limb start the remainder.
        if s != 0 {
            rem = u[u.len() - 1] >> (64 - s);
        }
        for limb in un.iter_mut().rev() {
            let (q, r) = div_2by1(rem, *limb, dn, inv);
            *limb = q;
            rem = r;
        }
        return (Nat::from_limbs(un), Nat::from(rem >> s));
    }
    let n = d.len();
    let mut dn = d.clone();
    shl_in_place(&mut dn, s);
    // One limb more than `u`: the top `n` limbs are then below `dn`.
    let mut un = u.clone();
    un.push(if s == 0 { 0 } else { u[u.len() - 1] >> (64 - s) });
    shl_in_place(&mut un[..u.len()], s);
    let mut q = vec![0u64; un.len() - n + 1];
    let m = un.len() - n;
    let v = inverse_3by2(dn[n - 1], dn[n - 2]);
    let top = with_kernels!(Backend::detect(), k => divrem_dc(k, &mut un, &dn, v, &mut q[..m]));
    q[m] = u64::from(top);
    un.truncate(n);
    shr_in_place(&mut un, s);
    (Nat::from_limbs(q), Nat::from_limbs(un))
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
        &v0 + &correction(&v0, &e, n)
    } else {
        let e = &p - &top;
        v0.checked_sub(&correction(&v0, &e, n)).unwrap_or_default()
    };
    // Exact correction: 0 <= B^(2n) − d·v < d.
    match excess(d, &v, n) {
        Ok(mut over) => {
            while !over.is_zero() {
                v.sub_small(1);
                over = match over.checked_sub(d) {
                    Some(o) => o,
                    None => break,
                };
            }
        }
        Err(mut rem) => {
            while rem >= *d {
                rem = &rem - d;
                v.add_small(1);
            }
        }
    }
    v
}

/// `d·v − B^(2n)` as `Ok` when it is not negative, `B^(2n) − d·v` as `Err` otherwise, for
/// `|d·v − B^(2n)| < B^(n + 1)` (`d` of `n` limbs, `v` within a few units of `B^(2n)/d`).
/// Where products are NTT products, from `d·v mod (B^m − 1)` with `m >= n + 2` a power of
/// two, a cyclic product of half the full product's length: `B^(2n) ≡ B^(2n − m)` there,
/// and the difference is the residue nearest zero (the bound keeps it below `B^(m − 1)` in
/// size).
fn excess(d: &Nat, v: &Nat, n: usize) -> Result<Nat, Nat> {
    let m = (n + 2).next_power_of_two();
    if n < crate::mul::Thresholds::detect().mul_ntt || v.limbs.len() > m || 2 * n < m {
        let top = Nat::from(1u64).shl_limbs(2 * n);
        let p = d * v;
        return if p >= top { Ok(&p - &top) } else { Err(&top - &p) };
    }
    let mut r = vec![0u64; m];
    ntt::mul_mod_bnm1(&mut r, &v.limbs, &ntt::transform(&d.limbs, m));
    // r − B^(2n − m) mod (B^m − 1): add its complement B^m − 1 − B^(2n − m).
    let mut c = vec![u64::MAX; m];
    c[2 * n - m] = u64::MAX - 1;
    ntt::add_mod_bnm1(&mut r, &c);
    if r.iter().all(|&l| l == u64::MAX) {
        r.fill(0); // B^m − 1 stands for zero
    }
    if r[m - 1] == 0 {
        Ok(Nat::from_limbs(r))
    } else {
        // A negative difference δ is held as B^m − 1 + δ: its complement is −δ.
        Err(Nat::from_limbs(r.iter().map(|&l| !l).collect()))
    }
}

/// `v0·e / B^(2n)` of a Newton step, at most 1 below its floor, from the top limbs of each
/// factor: with `v0 < B^lv` and `e < B^le`, dropping `v0`'s low `a <= 2n − le − 1` limbs
/// and `e`'s low `b <= 2n − lv − 1` limbs takes less than `2·B^(2n − 1)` from `v0·e`, so
/// 1 at most from the floor. With `v0` good to half its `n` limbs, `e` has about `1.5n`
/// limbs: the product is of two `n/2`-limb numbers instead of an `n`- by `1.5n`-limb one.
/// The caller's exact correction absorbs the difference.
fn correction(v0: &Nat, e: &Nat, n: usize) -> Nat {
    let (lv, le) = (v0.limbs.len(), e.limbs.len());
    let a = (2 * n).saturating_sub(le + 1).min(lv);
    let b = (2 * n).saturating_sub(lv + 1).min(le);
    // a + b <= 2n − 1: b <= 2n − lv − 1 with a <= lv, or b = 0 with a <= 2n − le − 1.
    (&v0.shr_limbs(a) * &e.shr_limbs(b)).shr_limbs(2 * n - a - b)
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
    /// `P = 2^(19·2^i)·5^(19·2^i)` ends in `zeros` zero limbs (about 30 % of them), which
    /// the recursive division leaves out: `x / P` is `(x / B^zeros) / (P / B^zeros)`, and
    /// the remainder's low limbs are `x`'s.
    zeros: usize,
    /// `(P / B^zeros) << shift` (top bit set) and the three-by-two inverse of its top limbs,
    /// for [`divrem_dc`].
    normalized: Vec<u64>,
    inv_3by2: u64,
    /// Divide by Barrett reduction (else [`divrem_dc`]); set by [`powers_for`].
    barrett: bool,
    /// Decimal digits of the field this level fills: `19·2^i`.
    digits: usize,
    /// Leading zero bits of `P`'s top limb.
    shift: u64,
    /// `floor(B^(2n) / (P << shift))`, `n` = limbs of `P`; computed on first use.
    inv: std::sync::OnceLock<Nat>,
    /// For NTT-sized levels: the reciprocal and `P` transformed once for all the divisions
    /// of the level ([`Power::divrem`]).
    inv_hat: std::sync::OnceLock<ntt::Transformed>,
    pow_hat: std::sync::OnceLock<ntt::Transformed>,
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
        let zeros = pow.limbs.iter().take_while(|&&l| l == 0).count();
        let normalized = (&Nat::from_limbs(pow.limbs[zeros..].to_vec()) << shift).limbs;
        let inv_3by2 = match normalized[..] {
            [.., d0, d1] => inverse_3by2(d1, d0),
            _ => 0,
        };
        Power {
            pow,
            zeros,
            normalized,
            inv_3by2,
            barrett: false,
            digits,
            shift,
            inv: std::sync::OnceLock::new(),
            inv_hat: std::sync::OnceLock::new(),
            pow_hat: std::sync::OnceLock::new(),
        }
    }

    /// `(a / P, a mod P)` for any `a` by [`divrem_dc`] (`P` of at least two limbs).
    fn divrem_recursive(&self, a: &Nat) -> (Nat, Nat) {
        let (z, n) = (self.zeros, self.normalized.len());
        if a.limbs.len() < z + n {
            return (Nat::zero(), a.clone());
        }
        // (a / B^z) << shift, with a top limb for the bits shifted out (below P's top limb).
        let s = self.shift as u32;
        let mut u = a.limbs[z..].to_vec();
        u.push(0);
        shl_in_place(&mut u, s);
        let mut q = vec![0u64; u.len() - n];
        let top = with_kernels!(Backend::detect(), k => divrem_dc(k, &mut u, &self.normalized, self.inv_3by2, &mut q));
        debug_assert!(!top, "the shifted dividend's top limb is below P's");
        u.truncate(n);
        shr_in_place(&mut u, s);
        let mut r = a.limbs[..z].to_vec();
        r.extend_from_slice(&u);
        (Nat::from_limbs(q), Nat::from_limbs(r))
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
            let _ = crate::limbs::decr(&mut am);
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
    // Barrett where its reciprocal (and the transforms) serve enough divisions and the
    // products are NTT products; recursive division elsewhere.
    let ntt = crate::mul::Thresholds::detect().mul_ntt;
    for p in &mut v {
        let n = p.pow.limbs.len();
        p.barrett = n >= ntt && (x.limbs.len() >= 2 * BARRETT_MIN_DIVISIONS * n || n >= 2 * ntt);
    }
    v
}

/// Barrett reduction is used at a level with at least this many divisions (see
/// [`powers_for`]).
pub(crate) const BARRETT_MIN_DIVISIONS: usize = 2;

/// `(a / P_i, a mod P_i)`: by [`divrem_dc`], or by Barrett reduction at the levels
/// [`powers_for`] marks (`any`: `a` of any size; else `a < P_i·B^n`).
fn divide(powers: &[Power], i: usize, a: &Nat, any: bool) -> (Nat, Nat) {
    let p = &powers[i];
    let n = p.normalized.len();
    if n >= 2 && !p.barrett {
        return p.divrem_recursive(a);
    }
    let inv = inverse(powers, i);
    if any { p.divrem_any(a, inv) } else { p.divrem(a, inv) }
}

/// `x <<= s` (`s < 64`); the bits shifted out of the top limb are lost.
fn shl_in_place(x: &mut [u64], s: u32) {
    if s == 0 {
        return;
    }
    for i in (1..x.len()).rev() {
        x[i] = x[i] << s | x[i - 1] >> (64 - s);
    }
    if let Some(l) = x.first_mut() {
        *l <<= s;
    }
}

/// `x >>= s` (`s < 64`).
fn shr_in_place(x: &mut [u64], s: u32) {
    if s == 0 {
        return;
    }
    let n = x.len();
    for i in 0..n.saturating_sub(1) {
        x[i] = x[i] >> s | x[i + 1] << (64 - s);
    }
    if let Some(l) = x.last_mut() {
        *l >>= s;
    }
}

/// The limbs [`padded_in_place`] needs besides `x` at `level` (`x_len` limbs of `x`): the
/// quotient buffers of one path down the tree.
fn in_place_scratch(powers: &[Power], level: usize, x_len: usize) -> usize {
    if level <= 1 {
        return 0;
    }
    let n = powers[level - 1].pow.limbs.len();
    let q = (x_len - n).max(n + 1);
    q + in_place_scratch(powers, level - 1, n + 1)
}

/// `x < P_level` as exactly `out.len() == powers[level].digits` digits, `x` held in a
/// buffer of at least `limbs(P_level) + 1` limbs (zeros above the value), which it
/// overwrites: the remainder of each split stays in `x`, the quotient goes to the front of
/// `scratch` ([`in_place_scratch`] limbs), each half recursively, down to `x < 10^38`.
fn padded_in_place<K: Kernels>(
    k: K,
    powers: &[Power],
    level: usize,
    x: &mut [u64],
    scratch: &mut [u64],
    out: &mut [u8],
) {
    const INV: u64 = inverse_2by1(TEN19);
    if level == 0 {
        return write_19(out, x[0]);
    }
    if level == 1 {
        let (hi, lo) = div_2by1(x[1], x[0], TEN19, INV);
        write_19(&mut out[..DIGITS_PER_LIMB], hi);
        return write_19(&mut out[DIGITS_PER_LIMB..], lo);
    }
    let p = &powers[level - 1];
    // P = (P / B^z)·B^z: the division leaves x's low z limbs where they are.
    let (z, n) = (p.zeros, p.pow.limbs.len());
    let s = p.shift as u32;
    shl_in_place(&mut x[z..], s);
    let qn = x.len() - n;
    let (qbuf, rest) = scratch.split_at_mut(qn.max(n + 1));
    qbuf.fill(0);
    let top = divrem_dc(k, &mut x[z..], &p.normalized, p.inv_3by2, &mut qbuf[..qn]);
    debug_assert!(!top, "x < P_level: the top window is below P_(level − 1)");
    debug_assert!(qbuf[n..].iter().all(|&l| l == 0), "quotient wider than P");
    shr_in_place(&mut x[z..n], s);
    let (hi, lo) = out.split_at_mut(out.len() - p.digits);
    padded_in_place(k, powers, level - 1, &mut qbuf[..n + 1], rest, hi);
    padded_in_place(k, powers, level - 1, &mut x[..n + 1], rest, lo);
}

/// `x` (`x < P_level`) as exactly `out.len() == powers[level].digits` digits.
fn write_padded(x: &Nat, powers: &[Power], level: usize, out: &mut [u8]) {
    // In place ([`padded_in_place`]) unless a level below divides by Barrett.
    if powers[..level].iter().all(|p| !p.barrett) {
        let len = powers[level].pow.limbs.len() + 1;
        let mut buf = vec![0u64; len + in_place_scratch(powers, level, len)];
        let (xb, scratch) = buf.split_at_mut(len);
        xb[..x.limbs.len()].copy_from_slice(&x.limbs);
        with_kernels!(Backend::detect(), k => padded_in_place(k, powers, level, xb, scratch, out));
        return;
    }
    if x.limbs.len() <= DECIMAL_BASECASE_LIMBS || level == 0 {
        return basecase_padded(&x.limbs, out);
    }
    let p = &powers[level - 1];
    let (q, r) = divide(powers, level - 1, x, false);
    let (hi, lo) = out.split_at_mut(out.len() - p.digits);
    par::join(
        x.limbs.len(),
        RADIX_PAR_MIN_LIMBS,
        || write_padded(&q, powers, level - 1, hi),
        || write_padded(&r, powers, level - 1, lo),
    );
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
    let (q, r) = divide(powers, level, x, true);
    if par::threads() < 2 {
        write_unpadded(&q, powers, out);
        let start = out.len();
        out.resize(start + p.digits, 0);
        return write_padded(&r, powers, level, &mut out[start..]);
    }
    // The quotient's digits in `out`, the remainder's beside them (then copied after them).
    let mut low = vec![0u8; p.digits];
    par::join(
        x.limbs.len(),
        RADIX_PAR_MIN_LIMBS,
        || write_unpadded(&q, powers, out),
        || write_padded(&r, powers, level, &mut low),
    );
    out.extend_from_slice(&low);
}

/// The two halves of a division of the decimal conversion run on two threads (when asked)
/// from this many limbs of the dividend. Measured with `cargo run --release -p bignum-fib
/// --example tune threads` (`amd-zen5`, fastest of 15 batches): starting and joining a
/// scoped thread 23 µs; 2048 limbs to decimal 0.60 ms, 4096 limbs 1.35 ms, so each half of
/// a 4096-limb split takes over 20 times the thread's cost.
const RADIX_PAR_MIN_LIMBS: usize = 4096;

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
#[non_exhaustive]
pub enum ParseNatError {
    /// The string has no digits.
    Empty,
    /// A character that is not a digit of the radix, at this byte offset.
    InvalidDigit(usize),
    /// The radix is not in `2..=36`.
    UnsupportedRadix(u32),
}

impl core::fmt::Display for ParseNatError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ParseNatError::Empty => f.write_str("no digits"),
            ParseNatError::InvalidDigit(at) => write!(f, "invalid digit at byte {at}"),
            ParseNatError::UnsupportedRadix(r) => write!(f, "unsupported radix {r} (2 to 36)"),
        }
    }
}

impl std::error::Error for ParseNatError {}

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
    /// [`Nat::from_str_radix`] in radix 10 (as num-bigint's `BigUint`).
    fn from_str(s: &str) -> Result<Nat, ParseNatError> {
        Nat::from_str_radix(s, 10)
    }
}

impl Nat {
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

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    /// How often [`divrem_sb`] took the `(u2, u1) == (d1, d0)` path.
    pub(super) static RARE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    /// How often [`divrem_dc`] corrected a half quotient.
    pub(super) static DC_FIX: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);
    /// How often it added the divisor back (an estimate one too large).
    pub(super) static ADD_BACK: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    use super::tests_support::*;

    /// Normalized two-limb divisors: random, the extremes, and all-ones runs.
    fn divisors() -> Vec<(u64, u64)> {
        let mut r = xorshift(3);
        let mut v = vec![(1 << 63, 0), (1 << 63, u64::MAX), (u64::MAX, 0), (u64::MAX, u64::MAX)];
        let random = if cfg!(miri) { 4 } else { 200 };
        v.extend((0..random).map(|_| (r() | 1 << 63, r())));
        v
    }

    #[test]
    fn inverse_3by2_is_the_definition() {
        let b3 = BigUint::from(1u8) << 192u32;
        for (d1, d0) in divisors() {
            let d = big(&[d0, d1]);
            let want = (&b3 - 1u8) / &d - (BigUint::from(1u8) << 64u32);
            assert_eq!(big(&[inverse_3by2(d1, d0)]), want, "d = {d1:#x}:{d0:#x}");
        }
    }

    #[test]
    fn div_3by2_matches_big_division() {
        let mut r = xorshift(5);
        for (d1, d0) in divisors() {
            let v = inverse_3by2(d1, d0);
            let d = big(&[d0, d1]);
            for i in 0..if cfg!(miri) { 4 } else { 50 } {
                // (u2, u1) < (d1, d0), including the largest such and zero.
                let (u2, u1) = match i {
                    0 => (d1, d0.wrapping_sub(1)),
                    1 => (0, 0),
                    _ => {
                        let u2 = r() % d1;
                        (u2, r())
                    }
                };
                if (u2, u1) >= (d1, d0) {
                    continue;
                }
                let u0 = if i % 3 == 0 { u64::MAX } else { r() };
                let (q, rem) = div_3by2(u2, u1, u0, d1, d0, v);
                let u = big(&[u0, u1, u2]);
                assert_eq!(big(&[q]), &u / &d);
                assert_eq!(big(&[rem as u64, (rem >> 64) as u64]), &u % &d);
            }
        }
    }

    /// Schoolbook division on every backend against num-bigint, with the inputs that take
    /// the rare paths: quotient limbs of `B − 1` (the `(u2, u1) == (d1, d0)` case), all-ones
    /// divisors, and remainders of `d − 1`.
    #[test]
    fn divrem_sb_matches_big_division() {
        let mut r = xorshift(7);
        let sizes: &[usize] = if cfg!(miri) { &[2, 3, 5] } else { &[2, 3, 4, 7, 16, 33, 90] };
        for &n in sizes {
            for style in 0..5 {
                let mut d: Vec<u64> =
                    (0..n).map(|_| if style == 1 { u64::MAX } else { r() }).collect();
                d[n - 1] |= 1 << 63;
                let m = 1 + (r() % 2 * n as u64) as usize;
                // u = d·q + rem with q of m limbs, rem < d.
                let (q, rem): (Vec<u64>, Vec<u64>) = match style {
                    2 | 1 => (vec![u64::MAX; m], {
                        let mut t = d.clone();
                        t[0] = t[0].wrapping_sub(1).min(t[0]);
                        t
                    }),
                    _ => ((0..m).map(|_| r()).collect(), {
                        let mut t: Vec<u64> = (0..n).map(|_| r()).collect();
                        t[n - 1] = r() % d[n - 1];
                        t
                    }),
                };
                let mut u_big = big(&d) * big(&q) + big(&rem);
                if style == 4 {
                    // The top two limbs of d times a limb, zeros below, over a divisor whose
                    // lower limbs are all ones: the estimate from the top limbs is one
                    // too large.
                    d[..n - 2].fill(u64::MAX);
                    u_big = (big(&d[n - 2..]) * (r() >> 1)) << (64 * (n - 2) as u32);
                }
                let mut u = u_big.to_u64_digits();
                u.resize(n + m + 1, 0);
                for b in crate::dispatch::backends() {
                    let mut uu = u.clone();
                    let mut qq = vec![0u64; uu.len() - n];
                    let v = inverse_3by2(d[n - 1], d[n - 2]);
                    with_kernels!(b, k => divrem_sb(k, &mut uu, &d, v, &mut qq));
                    assert_eq!(big(&qq), &u_big / big(&d), "quotient, n = {n}, style {style}");
                    assert_eq!(big(&uu), &u_big % big(&d), "remainder, n = {n}, style {style}");
                }
            }
        }
        assert!(RARE.load(std::sync::atomic::Ordering::Relaxed) > 0, "the B − 1 path never ran");
        assert!(ADD_BACK.load(std::sync::atomic::Ordering::Relaxed) > 0, "no add-back ran");
    }
}

#[cfg(test)]
mod dc_tests {
    use super::tests_support::*;
    use super::*;

    /// `reciprocal` (Newton steps with the truncated correction product and the exact
    /// correction from [`excess`]) is `floor(B^(2n)/d)` at sizes from the schoolbook base to
    /// past both NTT thresholds (the cyclic `excess` path runs from `mul_ntt` limbs), for
    /// random and all-ones divisors and `d = B^n/2` (the largest reciprocal).
    #[test]
    fn reciprocal_is_the_floor() {
        let mut r = xorshift(17);
        let ntt = crate::mul::Thresholds::detect().mul_ntt;
        let ns: Vec<usize> = if cfg!(miri) {
            vec![RECIPROCAL_BASECASE_LIMBS + 3]
        } else {
            vec![RECIPROCAL_BASECASE_LIMBS + 1, 37, 200, ntt.min(1200), ntt.min(1200) + 77, 1100]
        };
        for n in ns {
            for style in 0..3 {
                let mut d: Vec<u64> = match style {
                    0 => (0..n).map(|_| r()).collect(),
                    1 => vec![u64::MAX; n],
                    _ => vec![0; n],
                };
                d[n - 1] |= 1 << 63;
                let d = Nat::from_limbs(d);
                let want = (num_bigint::BigUint::from(1u8) << (128 * n as u32)) / big(&d.limbs);
                assert_eq!(big(&reciprocal(&d).limbs), want, "n = {n}, style {style}");
            }
        }
    }

    /// [`excess`] against the plain product for `v` a few units either side of
    /// `B^(2n)/d`, at sizes on both of its paths.
    #[test]
    fn excess_is_the_signed_difference() {
        let mut r = xorshift(19);
        let ntt = crate::mul::Thresholds::detect().mul_ntt;
        let ns: Vec<usize> = if cfg!(miri) { vec![5] } else { vec![5, 300, ntt.min(1200) + 5] };
        for n in ns {
            let mut d: Vec<u64> = (0..n).map(|_| r()).collect();
            d[n - 1] |= 1 << 63;
            let d = Nat::from_limbs(d);
            let b2n = num_bigint::BigUint::from(1u8) << (128 * n as u32);
            let exact = &b2n / big(&d.limbs);
            for k in 0..7u8 {
                // floor − 3 ..= floor + 3.
                let v_big = &exact + k - 3u8;
                let mut limbs = v_big.to_u64_digits();
                limbs.resize(n + 1, 0);
                let v = Nat::from_limbs(limbs);
                let p = big(&d.limbs) * &v_big;
                match excess(&d, &v, n) {
                    Ok(over) => assert_eq!(big(&over.limbs), &p - &b2n, "n = {n}, k = {k}"),
                    Err(under) => {
                        assert!(p < b2n, "n = {n}, k = {k}: negative for a positive difference");
                        assert_eq!(big(&under.limbs), &b2n - &p, "n = {n}, k = {k}");
                    }
                }
            }
        }
    }

    /// The recursive division against num-bigint at sizes around and well above
    /// [`DC_DIVISION_LIMBS`], quotients shorter and longer than the divisor, dividends whose
    /// top limbs are at least the divisor (the quotient's top bit), and the adversarial
    /// shapes of the schoolbook test (all-ones divisors, quotient limbs of `B − 1`,
    /// remainders of `d − 1`) where the recursion's corrections run.
    #[test]
    fn divrem_dc_matches_big_division() {
        let mut r = xorshift(11);
        let lim = DC_DIVISION_LIMBS;
        let ns: &[usize] =
            if cfg!(miri) { &[] } else { &[2, lim - 1, lim, lim + 1, 2 * lim + 3, 300] };
        for &n in ns {
            for m in [0, 1, lim - 1, lim, n / 2 + 1, n, n + 1, 2 * n + 5] {
                for style in 0..4 {
                    let mut d: Vec<u64> =
                        (0..n).map(|_| if style == 1 { u64::MAX } else { r() }).collect();
                    d[n - 1] |= 1 << 63;
                    let u_big = match style {
                        // d·(B^m − 1) + d − 1 = d·B^m − 1.
                        1 | 2 => (big(&d) << (64 * m as u32)) - 1u8,
                        // Top limbs at least d: the quotient's top bit is set.
                        3 => {
                            (big(&d) << (64 * m as u32))
                                + big(&(0..m).map(|_| r()).collect::<Vec<_>>())
                        }
                        _ => big(&(0..n + m).map(|_| r()).collect::<Vec<_>>()),
                    };
                    let mut u = u_big.to_u64_digits();
                    u.resize(n + m, 0);
                    let v = inverse_3by2(d[n - 1], d[n - 2]);
                    for b in crate::dispatch::backends() {
                        let mut uu = u.clone();
                        let mut qq = vec![0u64; m];
                        let qh = with_kernels!(b, k => divrem_dc(k, &mut uu, &d, v, &mut qq));
                        let q_big =
                            big(&qq) + (num_bigint::BigUint::from(u8::from(qh)) << (64 * m as u32));
                        assert_eq!(
                            q_big,
                            &u_big / big(&d),
                            "quotient, n = {n}, m = {m}, style {style}"
                        );
                        assert_eq!(
                            big(&uu),
                            &u_big % big(&d),
                            "remainder, n = {n}, m = {m}, style {style}"
                        );
                    }
                }
            }
        }
        if !cfg!(miri) {
            let fixes = super::tests::DC_FIX.load(std::sync::atomic::Ordering::Relaxed);
            assert!(fixes > 0, "no half quotient was corrected");
        }
    }
}

#[cfg(test)]
mod tests_support {
    use num_bigint::BigUint;

    pub fn big(limbs: &[u64]) -> BigUint {
        BigUint::from_slice(
            &limbs.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect::<Vec<_>>(),
        )
    }

    pub fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }
}
