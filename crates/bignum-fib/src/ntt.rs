//! Multiplication of large numbers by number-theoretic transforms (NTT) over three primes.
//!
//! Each 64-bit limb is one coefficient. The cyclic convolution of the two limb vectors is
//! computed modulo three primes `p₁, p₂, p₃ ∈ (2⁶¹, 2⁶²)`, each `c·2⁴⁰ + 1`, whose product
//! (≈2¹⁸⁶) exceeds every coefficient of the product (`< N·2¹²⁸`, `N ≤ 2⁴⁰`), so the Chinese
//! remainder theorem (Garner's form) gives each coefficient exactly; the coefficients are
//! then added with carries at their limb offsets.
//!
//! - Arithmetic mod `p`: Montgomery multiplication with `R = 2⁶⁴` (one 64×64→128 product
//!   and two 64-bit multiplications), values fully reduced in `[0, p)`. Twiddle factors are
//!   stored as `w·R mod p`, so `redc(x · wR) = x·w` needs no conversion.
//! - Forward transform: decimation in frequency, natural order in, bit-reversed order out;
//!   inverse: decimation in time, bit-reversed in, natural out. The pointwise product does
//!   not care about the order, so no bit-reversal pass is made. Both recurse on halves above
//!   [`BLOCK`] coefficients (so that all stages of a block run in cache) and loop stage by
//!   stage below it.
//! - Squaring transforms its operand once per prime instead of twice.
//! - The twiddle tables (`w_{2h}^i` at `h + i` for every half-length `h`, independent of the
//!   transform length) are built once and shared by all later products up to that length.
//!
//! Lengths are powers of two; a product of `m` limbs takes a transform of the next power of
//! two at or above `m − 1` coefficients.

use std::sync::{Arc, Mutex, PoisonError};

/// Transforms of at most this many coefficients run stage by stage (32 KiB: L1-resident);
/// longer ones recurse on their halves after their top stage.
const BLOCK: usize = 1 << 12;

/// The largest transform: the primes are `≡ 1 (mod 2⁴⁰)`, and the CRT bound needs
/// `N·2¹²⁸ < p₁p₂p₃`.
const MAX_LOG_LEN: u32 = 40;

/// Arithmetic modulo an odd prime `p < 2⁶²` in Montgomery form (`R = 2⁶⁴`).
#[derive(Clone, Copy, Debug)]
struct Field {
    p: u64,
    /// `p⁻¹ mod 2⁶⁴`.
    pinv: u64,
    /// `2¹²⁸ mod p`: `redc(x · r2) = x·R mod p`.
    r2: u64,
    /// `2⁶² − p`: reduces any 64-bit value with one multiplication.
    delta: u64,
    /// A generator of the multiplicative group.
    generator: u64,
}

const fn pow_mod(mut b: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1u128;
    let mut bb = b as u128 % p as u128;
    while e > 0 {
        if e & 1 == 1 {
            r = r * bb % p as u128;
        }
        bb = bb * bb % p as u128;
        e >>= 1;
    }
    b = r as u64;
    b
}

impl Field {
    const fn new(p: u64, generator: u64) -> Field {
        // Newton's iteration for the inverse mod 2⁶⁴: each step doubles the correct bits.
        let mut inv = p;
        let mut i = 0;
        while i < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
            i += 1;
        }
        let r = ((1u128 << 64) % p as u128) as u64;
        let r2 = ((r as u128 * r as u128) % p as u128) as u64;
        Field { p, pinv: inv, r2, delta: (1u64 << 62) - p, generator }
    }

    /// `t · R⁻¹ mod p` for `t < p·2⁶⁴`, fully reduced.
    #[inline(always)]
    fn redc(self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.pinv);
        let mp = u128::from(m) * u128::from(self.p);
        // `t − m·p` is divisible by 2⁶⁴ (the low halves are equal), and lies in (−p·2⁶⁴, p·2⁶⁴).
        self.fix((t >> 64) as u64, (mp >> 64) as u64)
    }

    /// `a · b · R⁻¹ mod p` for any `a` and `b < p` (so `b` is usually a constant in
    /// Montgomery form and the result `a·(b/R)`).
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        self.redc(u128::from(a) * u128::from(b))
    }

    /// `a − b mod p` for `a, b < 2⁶²` with `a − b ∈ (−p, p)`, without a branch: the sign bit
    /// of the difference selects the correction (a comparison would let the compiler emit a
    /// branch, which the NTT's random data mispredicts half the time).
    #[inline(always)]
    fn fix(self, a: u64, b: u64) -> u64 {
        let d = a.wrapping_sub(b);
        let negative = ((d as i64) >> 63) as u64;
        d.wrapping_add(self.p & negative)
    }

    #[inline(always)]
    fn add(self, a: u64, b: u64) -> u64 {
        self.fix(a + b, self.p) // both < p < 2⁶²
    }

    #[inline(always)]
    fn sub(self, a: u64, b: u64) -> u64 {
        self.fix(a, b)
    }

    /// Any 64-bit value mod `p`: `x = h·2⁶² + l ≡ h·δ + l`, which is below `2p`.
    #[inline(always)]
    fn reduce(self, x: u64) -> u64 {
        let t = (x >> 62) * self.delta + (x & ((1 << 62) - 1));
        self.fix(t, self.p) // t < 2⁶² + 3δ < 2p
    }

    /// `x · R mod p`.
    fn to_mont(self, x: u64) -> u64 {
        self.mul(x, self.r2)
    }

    /// A primitive `n`-th root of unity (`n` a power of two up to `2⁴⁰`), plain form.
    fn root(self, n: u64) -> u64 {
        pow_mod(self.generator, (self.p - 1) / n, self.p)
    }
}

/// The three primes `c·2⁴⁰ + 1` below `2⁶²` with the largest `c`, and their least
/// generators (checked by the unit tests).
const FIELDS: [Field; 3] = [
    Field::new(0x3fff_c000_0000_0001, 11),
    Field::new(0x3fff_be00_0000_0001, 3),
    Field::new(0x3fff_8400_0000_0001, 19),
];

/// Twiddle tables for transforms up to `len` coefficients: `fwd[k][h + i] = w_{2h}^i · R`
/// and `inv[k][h + i] = w_{2h}^{−i} · R` modulo prime `k`, for `h = 1, 2, 4, …, len/2`.
struct Tables {
    len: usize,
    fwd: [Vec<u64>; 3],
    inv: [Vec<u64>; 3],
}

impl Tables {
    fn new(len: usize) -> Tables {
        let build = |f: Field, inverse: bool| {
            let mut t = vec![0u64; len.max(2)];
            let mut h = 1;
            while h < len {
                let w = f.root(2 * h as u64);
                let w = if inverse { pow_mod(w, f.p - 2, f.p) } else { w };
                let w = f.to_mont(w);
                let mut cur = f.to_mont(1);
                for slot in &mut t[h..2 * h] {
                    *slot = cur;
                    cur = f.mul(cur, w);
                }
                h *= 2;
            }
            t
        };
        Tables { len, fwd: FIELDS.map(|f| build(f, false)), inv: FIELDS.map(|f| build(f, true)) }
    }
}

/// Tables for at least `len` coefficients, shared with every other product.
fn tables(len: usize) -> Arc<Tables> {
    static CACHE: Mutex<Option<Arc<Tables>>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    match &*cache {
        Some(t) if t.len >= len => t.clone(),
        _ => {
            let t = Arc::new(Tables::new(len));
            *cache = Some(t.clone());
            t
        }
    }
}

/// One decimation-in-frequency stage on blocks of `2h`: `(a, b) → (a + b, (a − b)·w^i)`.
#[inline(always)]
fn dif_stage(f: Field, x: &mut [u64], h: usize, w: &[u64]) {
    for block in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = block.split_at_mut(h);
        for ((a, b), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(&w[..h]) {
            let (s, d) = (f.add(*a, *b), f.sub(*a, *b));
            *a = s;
            *b = f.mul(d, w);
        }
    }
}

/// One decimation-in-time stage on blocks of `2h`: `(a, b) → (a + b·w^i, a − b·w^i)`.
#[inline(always)]
fn dit_stage(f: Field, x: &mut [u64], h: usize, w: &[u64]) {
    for block in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = block.split_at_mut(h);
        for ((a, b), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(&w[..h]) {
            let t = f.mul(*b, w);
            let (s, d) = (f.add(*a, t), f.sub(*a, t));
            *a = s;
            *b = d;
        }
    }
}

/// The last DIF (first DIT) stage, `h = 1`: the twiddle is 1.
#[inline(always)]
fn radix2_stage(f: Field, x: &mut [u64]) {
    for pair in x.chunks_exact_mut(2) {
        let (a, b) = (pair[0], pair[1]);
        pair[0] = f.add(a, b);
        pair[1] = f.sub(a, b);
    }
}

/// Forward transform (natural order in, bit-reversed out) of `x.len()`, a power of two.
fn forward(f: Field, x: &mut [u64], tab: &[u64]) {
    let n = x.len();
    if n <= BLOCK {
        let mut h = n / 2;
        while h > 1 {
            dif_stage(f, x, h, &tab[h..2 * h]);
            h /= 2;
        }
        if n >= 2 {
            radix2_stage(f, x);
        }
    } else {
        let h = n / 2;
        dif_stage(f, x, h, &tab[h..n]);
        let (lo, hi) = x.split_at_mut(h);
        forward(f, lo, tab);
        forward(f, hi, tab);
    }
}

/// Inverse transform without the `1/N` (bit-reversed in, natural order out).
fn inverse(f: Field, x: &mut [u64], tab: &[u64]) {
    let n = x.len();
    if n <= BLOCK {
        if n >= 2 {
            radix2_stage(f, x);
        }
        let mut h = 2;
        while h < n {
            dit_stage(f, x, h, &tab[h..2 * h]);
            h *= 2;
        }
    } else {
        let h = n / 2;
        let (lo, hi) = x.split_at_mut(h);
        inverse(f, lo, tab);
        inverse(f, hi, tab);
        dit_stage(f, x, h, &tab[h..n]);
    }
}

/// The transform length for a product of `a_len + b_len` limbs (a power of two at or above
/// the `a_len + b_len − 1` coefficients, at least 2).
fn transform_len(a_len: usize, b_len: usize) -> usize {
    let n = (a_len + b_len - 1).next_power_of_two().max(2);
    assert!(n.trailing_zeros() <= MAX_LOG_LEN, "NTT product of {n} coefficients is too long");
    n
}

/// `r = a · b` (`r.len() == a.len() + b.len()`, both operands non-empty).
pub(crate) fn mul(r: &mut [u64], a: &[u64], b: &[u64]) {
    convolve(r, a, Some(b));
}

/// `r = a²` (`r.len() == 2·a.len()`, `a` non-empty): one forward transform per prime.
pub(crate) fn sqr(r: &mut [u64], a: &[u64]) {
    convolve(r, a, None);
}

fn convolve(r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    debug_assert!(!a.is_empty() && b_len >= 1 && r.len() == a.len() + b_len);
    let residues = coefficients(a, b);
    let carry = crt_into(r, &residues);
    debug_assert_eq!(carry, [0; 3], "NTT product wider than its destination");
}

/// An operand transformed once (modulo each prime, length `n`) for several products with
/// other operands: the divisors of the decimal conversion and their reciprocals, each used
/// by every division of its level.
pub(crate) struct Transformed {
    n: usize,
    len: usize,
    hat: [Vec<u64>; 3],
}

/// `x` transformed for products of transform length `n` (a power of two `>= x.len()`).
pub(crate) fn transform(x: &[u64], n: usize) -> Transformed {
    assert!(n.is_power_of_two() && n >= x.len().max(2) && n.trailing_zeros() <= MAX_LOG_LEN);
    let tabs = tables(n);
    let hat = core::array::from_fn(|k| {
        let f = FIELDS[k];
        let mut v: Vec<u64> = x.iter().map(|&l| f.reduce(l)).collect();
        v.resize(n, 0);
        forward(f, &mut v, &tabs.fwd[k]);
        v
    });
    Transformed { n, len: x.len(), hat }
}

/// The cyclic convolution of length `b.n` of `a` with the transformed `b`, per prime.
fn cyclic_with(a: &[u64], b: &Transformed) -> [Vec<u64>; 3] {
    let n = b.n;
    assert!(a.len() <= n, "operand of {} limbs longer than the transform ({n})", a.len());
    let tabs = tables(n);
    core::array::from_fn(|k| {
        let f = FIELDS[k];
        let mut x: Vec<u64> = a.iter().map(|&l| f.reduce(l)).collect();
        x.resize(n, 0);
        forward(f, &mut x, &tabs.fwd[k]);
        for (x, &y) in x.iter_mut().zip(&b.hat[k]) {
            *x = f.mul(*x, y);
        }
        inverse(f, &mut x, &tabs.inv[k]);
        let inv_n = f.p - (f.p - 1) / n as u64;
        let scale = f.to_mont(f.to_mont(inv_n));
        for x in x.iter_mut() {
            *x = f.mul(*x, scale);
        }
        x
    })
}

/// `r = a · b` for a transformed `b`, when the product's coefficients fit the transform
/// (`a.len() + b.len − 1 <= b.n`); `r.len() == a.len() + b.len`.
pub(crate) fn mul_transformed(r: &mut [u64], a: &[u64], b: &Transformed) {
    assert!(!a.is_empty() && a.len() + b.len - 1 <= b.n && r.len() == a.len() + b.len);
    let mut residues = cyclic_with(a, b);
    for v in &mut residues {
        v.truncate(a.len() + b.len - 1);
    }
    let carry = crt_into(r, &residues);
    debug_assert_eq!(carry, [0; 3], "NTT product wider than its destination");
}

/// `r = a · b mod (B^n − 1)` (`B = 2⁶⁴`, `n = b.n = r.len()`, `a.len() <= n`): the cyclic
/// convolution is that product, once the carries out of the top limb are added at the
/// bottom. The result is in `[0, B^n − 1]` (`B^n − 1` also stands for zero).
pub(crate) fn mul_mod_bnm1(r: &mut [u64], a: &[u64], b: &Transformed) {
    assert!(r.len() == b.n && b.n >= 4);
    let residues = cyclic_with(a, b);
    let carry = crt_into(r, &residues);
    // B^n ≡ 1: what left the top comes back in at the bottom (at most twice, as the second
    // carry is at most 1).
    let mut pending = carry;
    let last = r.len() - 1;
    while pending != [0; 3] {
        let mut c = 0u128;
        let mut out = 0u64;
        for (i, limb) in r.iter_mut().enumerate() {
            let add = if i < 3 { pending[i] } else { 0 };
            if add == 0 && c == 0 && i >= 3 {
                break;
            }
            let s = u128::from(*limb) + u128::from(add) + c;
            *limb = s as u64;
            c = s >> 64;
            if i == last {
                out = c as u64;
            }
        }
        pending = [out, 0, 0];
    }
}

/// Products of at least this many coefficients above a power of two `N` are split as
/// described at [`coefficients`] when that halves the transform length.
const SPLIT_MIN: usize = 1 << 10;

/// The `a.len() + b.len() − 1` coefficients of `a·b` (`b = None`: `a²`) modulo each prime.
///
/// A product of `m = N + e` coefficients (`N` a power of two, `0 < e ≤ N/4`) is not padded
/// to `2N`: the cyclic convolution of length `N` gives `c_j + c_{j+N}` for `j < e`, and
/// `c_N … c_{m−1}` are the top coefficients of the product of the top `e` limbs of the
/// operands (every term of those coefficients comes from there), computed recursively with
/// a transform of at most `N/2`. At F(10⁸), whose products sit just above powers of two,
/// this halves the work.
fn coefficients(a: &[u64], b: Option<&[u64]>) -> [Vec<u64>; 3] {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    let count = a.len() + b_len - 1;
    let n = transform_len(a.len(), b_len);
    let half = n / 2;
    let e = count.saturating_sub(half);
    let split = half >= SPLIT_MIN
        && a.len() <= half
        && b_len <= half
        && e >= 1
        && (2 * e - 1).next_power_of_two() <= half / 2;
    if !split {
        let mut y = cyclic(a, b, n);
        for v in &mut y {
            v.truncate(count);
        }
        return y;
    }
    let mut y = cyclic(a, b, half);
    // The top `e` limbs of each operand (`a.len() − e = half + 1 − b_len ≥ 1`).
    let top_a = &a[a.len() - e..];
    let top_b = b.map(|b| &b[b.len() - e..]);
    let z = coefficients(top_a, top_b);
    // z has 2e − 1 coefficients; c_{N+j} = z[e − 1 + j] for j < e.
    for ((f, y), z) in FIELDS.into_iter().zip(&mut y).zip(&z) {
        let wrapped = &z[e - 1..];
        for (y, &w) in y.iter_mut().zip(wrapped) {
            *y = f.sub(*y, w);
        }
        y.extend_from_slice(wrapped);
    }
    y
}

/// The cyclic convolution of length `n` (a power of two) of `a` and `b` (or `a` with
/// itself), zero-padded, modulo each prime: `n` plain residues per prime.
fn cyclic(a: &[u64], b: Option<&[u64]>, n: usize) -> [Vec<u64>; 3] {
    let tabs = tables(n);
    let load = |f: Field, x: &[u64], buf: &mut Vec<u64>| {
        buf.clear();
        buf.extend(x.iter().map(|&l| f.reduce(l)));
        buf.resize(n, 0);
    };
    let mut residues: [Vec<u64>; 3] = Default::default();
    let mut other = Vec::new();
    for (k, f) in FIELDS.into_iter().enumerate() {
        let x = &mut residues[k];
        load(f, a, x);
        forward(f, x, &tabs.fwd[k]);
        match b {
            Some(b) => {
                load(f, b, &mut other);
                forward(f, &mut other, &tabs.fwd[k]);
                for (x, &y) in x.iter_mut().zip(&other) {
                    *x = f.mul(*x, y);
                }
            }
            None => {
                for x in x.iter_mut() {
                    *x = f.mul(*x, *x);
                }
            }
        }
        inverse(f, x, &tabs.inv[k]);
        // The Montgomery products and the unscaled inverse leave `n·c·R⁻¹`; `R²/n` in
        // Montgomery form turns that into `c`. (`n⁻¹ = p − (p − 1)/n` for n | p − 1.)
        let inv_n = f.p - (f.p - 1) / n as u64;
        let scale = f.to_mont(f.to_mont(inv_n));
        for x in x.iter_mut() {
            *x = f.mul(*x, scale);
        }
    }
    residues
}

/// Garner's constants for the three fields.
struct Crt {
    /// `p₁⁻¹ mod p₂`, Montgomery form.
    inv_p1_mod_p2: u64,
    /// `p₁ mod p₃`, Montgomery form.
    p1_mod_p3: u64,
    /// `(p₁p₂)⁻¹ mod p₃`, Montgomery form.
    inv_p1p2_mod_p3: u64,
    /// `p₁p₂`.
    p1p2: u128,
}

impl Crt {
    fn new() -> Crt {
        let [f1, f2, f3] = FIELDS;
        let inv = |x: u64, f: Field| f.to_mont(pow_mod(x % f.p, f.p - 2, f.p));
        let p1p2_mod_p3 = ((u128::from(f1.p) * u128::from(f2.p)) % u128::from(f3.p)) as u64;
        Crt {
            inv_p1_mod_p2: inv(f1.p, f2),
            p1_mod_p3: f3.to_mont(f1.p % f3.p),
            inv_p1p2_mod_p3: inv(p1p2_mod_p3, f3),
            p1p2: u128::from(f1.p) * u128::from(f2.p),
        }
    }
}

/// Reconstructs the coefficients from their residues and adds them with carries into `r`
/// (coefficient `i` at limb `i`); limbs past the last coefficient get the carries. Returns
/// what is carried out of `r` (192 bits, low limb first).
fn crt_into(r: &mut [u64], residues: &[Vec<u64>; 3]) -> [u64; 3] {
    let [f1, f2, f3] = FIELDS;
    let c = Crt::new();
    let count = residues[0].len();
    // The running sum of the coefficients that reach the current limb: 192 bits.
    let (mut acc0, mut acc1, mut acc2) = (0u64, 0u64, 0u64);
    for (i, limb) in r.iter_mut().enumerate() {
        if i < count {
            let (y1, y2, y3) = (residues[0][i], residues[1][i], residues[2][i]);
            // x = y1 + p₁·t2 + p₁p₂·t3 with t2 < p₂ and t3 < p₃.
            let y1_2 = if y1 >= f2.p { y1 - f2.p } else { y1 }; // p₁ < 2·p₂
            let t2 = f2.mul(f2.sub(y2, y1_2), c.inv_p1_mod_p2);
            let y1_3 = if y1 >= f3.p { y1 - f3.p } else { y1 };
            let u = f3.add(y1_3, f3.mul(t2, c.p1_mod_p3));
            let t3 = f3.mul(f3.sub(y3, u), c.inv_p1p2_mod_p3);
            // Sum the three terms into the accumulator.
            let lo = u128::from(y1) + u128::from(t2) * u128::from(f1.p); // < 2¹²⁵
            let hi_lo = u128::from(t3) * (c.p1p2 as u64 as u128);
            let hi_hi = u128::from(t3) * (c.p1p2 >> 64);
            // x = lo + hi_lo + hi_hi·2⁶⁴, added limb by limb with the carries.
            let s0 = u128::from(acc0) + (lo as u64 as u128) + (hi_lo as u64 as u128);
            let s1 =
                u128::from(acc1) + (lo >> 64) + (hi_lo >> 64) + (hi_hi as u64 as u128) + (s0 >> 64);
            let s2 = u128::from(acc2) + (hi_hi >> 64) + (s1 >> 64);
            debug_assert!(s2 >> 64 == 0, "NTT coefficient sum overflows 192 bits");
            (acc0, acc1, acc2) = (s0 as u64, s1 as u64, s2 as u64);
        }
        *limb = acc0;
        (acc0, acc1, acc2) = (acc1, acc2, 0);
    }
    [acc0, acc1, acc2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_ntt_primes_with_the_given_generators() {
        for f in FIELDS {
            assert!(f.p > 1 << 61 && f.p < 1 << 62);
            assert_eq!((f.p - 1) % (1 << MAX_LOG_LEN), 0);
            assert_eq!(f.p.wrapping_mul(f.pinv), 1);
            // p − 1 = c·2⁴⁰: a generator has order p − 1, i.e. no g^((p−1)/q) is 1 for a
            // prime q | p − 1.
            let mut c = (f.p - 1) >> MAX_LOG_LEN;
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
            // A Fermat check with several bases (the primes are also checked by the CRT
            // tests: a composite modulus would break the round trip).
            for base in [2, 3, 5, 7, 11, 13] {
                assert_eq!(pow_mod(base, f.p - 1, f.p), 1, "{} is not prime", f.p);
            }
            for q in primes {
                assert_ne!(pow_mod(f.generator, (f.p - 1) / q, f.p), 1, "{} {q}", f.p);
            }
        }
    }

    #[test]
    fn field_arithmetic_matches_u128() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for f in FIELDS {
            let m = u128::from(f.p);
            for _ in 0..if cfg!(miri) { 20 } else { 1000 } {
                let (x, y) = (next(), next() % f.p);
                let a = f.reduce(x);
                assert_eq!(u128::from(a), u128::from(x) % m);
                let b = y;
                assert_eq!(u128::from(f.add(a, b)), (u128::from(a) + u128::from(b)) % m);
                assert_eq!(u128::from(f.sub(a, b)), (u128::from(a) + m - u128::from(b)) % m);
                let prod = f.mul(f.to_mont(a), b); // a·R·b·R⁻¹ = a·b
                assert_eq!(u128::from(prod), u128::from(a) * u128::from(b) % m);
            }
        }
    }

    #[test]
    fn transforms_round_trip_and_convolve() {
        let logs: &[u32] = if cfg!(miri) { &[1, 2, 3, 5] } else { &[1, 2, 3, 5, 8, 12, 13, 14] };
        for &log in logs {
            let n = 1usize << log;
            let tabs = Tables::new(n);
            for (k, f) in FIELDS.into_iter().enumerate() {
                let x: Vec<u64> = (0..n as u64)
                    .map(|i| f.reduce(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                    .collect();
                let mut y = x.clone();
                forward(f, &mut y, &tabs.fwd[k]);
                inverse(f, &mut y, &tabs.inv[k]);
                let n_mod = f.reduce(n as u64);
                for (a, b) in x.iter().zip(&y) {
                    assert_eq!(
                        u128::from(*b),
                        u128::from(*a) * u128::from(n_mod) % u128::from(f.p)
                    );
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
        let mut s = 11u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let cases: &[(usize, usize, usize)] =
            if cfg!(miri) { &[(3, 2, 8)] } else { &[(3, 2, 8), (40, 25, 64), (300, 200, 512)] };
        for &(an, bn, n) in cases {
            for ones in [false, true] {
                let mut limb = || if ones { u64::MAX } else { next() };
                let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                let bt = transform(&b, n);
                let want = schoolbook(&a, &b);
                let mut got = vec![0u64; an + bn];
                mul_transformed(&mut got, &a, &bt);
                assert_eq!(got, want, "{an}x{bn}");
                // mod B^h − 1 with h = n/2 < an + bn: fold the full product.
                let h = n / 2;
                let bh = transform(&b, h);
                let mut cyc = vec![0u64; h];
                mul_mod_bnm1(&mut cyc, &a[..an.min(h)], &bh);
                let a_short = &a[..an.min(h)];
                let full = schoolbook(a_short, &b);
                let mut folded = vec![0u64; h];
                for chunk in full.chunks(h) {
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
                assert!(cyc == folded || (zero(&cyc) && zero(&folded)), "{an}x{bn} mod B^{h}-1");
            }
        }
    }

    #[test]
    fn products_match_schoolbook() {
        let mut s = 7u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let sizes: &[(usize, usize)] = if cfg!(miri) {
            &[(1, 1), (2, 1), (3, 3), (5, 2), (17, 16)]
        } else {
            // (1100, 1000) and (3000, 1100) sit just above a power of two: split products.
            &[
                (1, 1),
                (2, 1),
                (3, 3),
                (5, 2),
                (17, 16),
                (100, 37),
                (4097, 1000),
                (1100, 1000),
                (3000, 1100),
                (1500, 1500),
            ]
        };
        for &(an, bn) in sizes {
            for pattern in 0..3 {
                let mut limb = || match pattern {
                    0 => next(),
                    1 => u64::MAX,
                    _ => next() & 0xff,
                };
                let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                let mut want = vec![0u64; an + bn];
                for (i, &x) in a.iter().enumerate() {
                    let mut carry = 0u128;
                    for (j, &y) in b.iter().enumerate() {
                        let t = u128::from(x) * u128::from(y) + u128::from(want[i + j]) + carry;
                        want[i + j] = t as u64;
                        carry = t >> 64;
                    }
                    want[i + bn] = carry as u64;
                }
                let mut got = vec![0u64; an + bn];
                mul(&mut got, &a, &b);
                assert_eq!(got, want, "{an}×{bn} pattern {pattern}");
                if an == bn {
                    let mut sq = vec![0u64; 2 * an];
                    sqr(&mut sq, &a);
                    let mut want_sq = vec![0u64; 2 * an];
                    mul(&mut want_sq, &a, &a);
                    assert_eq!(sq, want_sq, "{an}² pattern {pattern}");
                }
            }
        }
    }
}
