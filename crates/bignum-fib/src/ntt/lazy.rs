//! The portable engine's transforms (`Engine::Portable` and `Engine::Wide`): Harvey's lazy
//! butterflies ("Faster arithmetic for number-theoretic transforms", 2014) in plain Rust
//! over `u128` products, two stages per pass over memory.
//!
//! - A twiddle product is Shoup's (`Field::mul_shoup`): `Tables` holds each twiddle `w` with
//!   `⌊w·2⁶⁴/p⌋`, and `a·w mod p` comes in `[0, 2p)` for any 64-bit `a` from one high
//!   product and two low ones (Montgomery's takes two high products and one low).
//! - Forward (decimation in frequency): values stay in `[0, 2p)`; a butterfly maps `(a, b)`
//!   to `(a + b` less `2p` if it reaches it`, (a − b + 2p)·w)`, one correction instead of
//!   three. Inputs may be anywhere in `[0, 2p)`; the last stage (`h = 1`, no twiddle)
//!   reduces its outputs to `[0, p)`.
//! - Inverse (decimation in time): values stay in `[0, 4p)`; a butterfly reduces `a` to
//!   `[0, 2p)`, takes `t = b·w ∈ (0, 2p)` and gives `(a + t, a − t + 2p)`. Inputs may be
//!   anywhere in `[0, 4p)`; the last pass of the whole transform reduces to `[0, p)`.
//!   Values below `4p < 2⁶⁴` need the primes below `2⁶²`, which all of `field`'s portable
//!   primes are.
//! - Two stages per pass (radix 4 as two radix-2 levels in registers: four loads, four
//!   stores, four products), up to `plan::BLOCK` coefficients stage by stage, which
//!   stay in cache, and recursing on quarters (on threads when asked, `par`) above it, as
//!   `transform` does for the other engines.
//!
//! The outputs are the residues the fully reduced stages of `engine` give (the unit tests
//! compare them), so the product's coefficients are bit-identical.

use crate::par;

use super::field::Field;
use super::plan::{BLOCK, PAR_MIN_LEN};
use super::tables::Levels;

/// The first `h` of Shoup's pairs in `w`.
#[inline(always)]
fn pairs(w: &[u64], h: usize) -> &[[u64; 2]] {
    &w.as_chunks::<2>().0[..h]
}

/// `x` less `m` if `x ≥ m` (for `x < 2m`): `x − m` wraps above `x` when `x < m`, so the
/// minimum is the reduced value (a compare and a conditional move, no branch).
#[inline(always)]
fn reduce(x: u64, m: u64) -> u64 {
    x.min(x.wrapping_sub(m))
}

/// A forward butterfly on values in `[0, 2p)`: `(a + b, (a − b)·w)`, both in `[0, 2p)`;
/// `w` is Shoup's pair.
#[inline(always)]
fn dif(f: Field, a: u64, b: u64, w: [u64; 2]) -> (u64, u64) {
    let p2 = 2 * f.p;
    (reduce(a + b, p2), f.mul_shoup(a + p2 - b, w))
}

/// An inverse butterfly on values in `[0, 4p)`: `(a + b·w, a − b·w)`, both in `[0, 4p)`;
/// `w` is Shoup's pair.
#[inline(always)]
fn dit(f: Field, a: u64, b: u64, w: [u64; 2]) -> (u64, u64) {
    let p2 = 2 * f.p;
    let a = reduce(a, p2);
    let t = f.mul_shoup(b, w);
    (a + t, a + p2 - t)
}

/// A value in `[0, 4p)` reduced to `[0, p)`.
#[inline(always)]
fn canonical(f: Field, x: u64) -> u64 {
    reduce(reduce(x, 2 * f.p), f.p)
}

/// Forward transform (natural order in, bit-reversed out) of `x.len()`, a power of two, on
/// values in `[0, 2p)`, with the twiddles `tw` (Shoup's pairs of `w_{2h}^i`); the
/// outputs are in `[0, p)`.
#[inline(never)] // kept out of `transform::forward`, which the other engines run
pub(super) fn forward(f: Field, x: &mut [u64], tw: &Levels) {
    let n = x.len();
    if n <= BLOCK {
        let mut h = n / 2;
        while h >= 8 {
            dif4(f, x, h / 2, &tw[h..2 * h], &tw[h / 2..h]);
            h /= 4;
        }
        if h == 4 {
            dif2(f, x, 4, &tw[4..8]);
            h = 2;
        }
        if h == 2 {
            last_dif4(f, x, pairs(&tw[2..4], 2)[1]);
        } else if n == 2 {
            last_dif(f, x);
        }
    } else if n / 4 >= BLOCK {
        // The top two stages in one pass, then the quarters.
        let h = n / 4;
        dif4(f, x, h, &tw[2 * h..n], &tw[h..2 * h]);
        par::each(x.chunks_exact_mut(h).collect(), n, PAR_MIN_LEN, &|q| forward(f, q, tw));
    } else {
        let h = n / 2;
        dif2(f, x, h, &tw[h..n]);
        let (lo, hi) = x.split_at_mut(h);
        forward(f, lo, tw);
        forward(f, hi, tw);
    }
}

/// Inverse transform without the `1/N` (bit-reversed in, natural order out) on values in
/// `[0, 4p)`, with the twiddles `tw` (Shoup's pairs of `w_{2h}^{−i}`); the outputs are
/// in `[0, p)`.
#[inline(never)] // kept out of `transform::inverse`, which the other engines run
pub(super) fn inverse(f: Field, x: &mut [u64], tw: &Levels) {
    inverse_part::<true>(f, x, tw);
}

/// [`inverse`]; its outputs in `[0, 4p)` unless `LAST` (the whole transform's last pass).
fn inverse_part<const LAST: bool>(f: Field, x: &mut [u64], tw: &Levels) {
    let n = x.len();
    if n <= BLOCK {
        if n < 2 {
            return;
        }
        if n == 2 {
            return first_dit::<LAST>(f, x);
        }
        let w = pairs(&tw[2..4], 2)[1];
        if n == 4 {
            return first_dit4::<LAST>(f, x, w);
        }
        first_dit4::<false>(f, x, w);
        let mut h = 4;
        while 4 * h <= n {
            if 4 * h == n {
                dit4::<LAST>(f, x, h, &tw[2 * h..4 * h], &tw[h..2 * h]);
            } else {
                dit4::<false>(f, x, h, &tw[2 * h..4 * h], &tw[h..2 * h]);
            }
            h *= 4;
        }
        if h < n {
            dit2::<LAST>(f, x, h, &tw[h..2 * h]);
        }
    } else if n / 4 >= BLOCK {
        let h = n / 4;
        let quarter = |q: &mut [u64]| inverse_part::<false>(f, q, tw);
        par::each(x.chunks_exact_mut(h).collect(), n, PAR_MIN_LEN, &quarter);
        dit4::<LAST>(f, x, h, &tw[2 * h..n], &tw[h..2 * h]);
    } else {
        let h = n / 2;
        let (lo, hi) = x.split_at_mut(h);
        inverse_part::<false>(f, lo, tw);
        inverse_part::<false>(f, hi, tw);
        dit2::<LAST>(f, x, h, &tw[h..n]);
    }
}

/// One forward stage on blocks of `2h` (twiddles `w`, `h` pairs).
#[inline(always)]
fn dif2(f: Field, x: &mut [u64], h: usize, w: &[u64]) {
    let w = pairs(w, h);
    for block in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = block.split_at_mut(h);
        for ((a, b), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
            (*a, *b) = dif(f, *a, *b, w);
        }
    }
}

/// The four quarters of a block of `4h` values, each `h` long (also the FMA engine's split
/// top pass, `transform`).
#[inline(always)]
pub(super) fn quarters(block: &mut [u64], h: usize) -> [&mut [u64]; 4] {
    let (x0, rest) = block.split_at_mut(h);
    let (x1, rest) = rest.split_at_mut(h);
    let (x2, x3) = rest.split_at_mut(h);
    [x0, x1, x2, &mut x3[..h]]
}

/// The forward stages `2h` (twiddles `outer`, `2h` pairs) then `h` (`inner`) in one pass
/// over blocks of `4h`.
#[inline(always)]
fn dif4(f: Field, x: &mut [u64], h: usize, outer: &[u64], inner: &[u64]) {
    let (o0, o1) = outer[..4 * h].split_at(2 * h);
    let (o0, o1, inner) = (pairs(o0, h), pairs(o1, h), pairs(inner, h));
    for block in x.chunks_exact_mut(4 * h) {
        let [x0, x1, x2, x3] = quarters(block, h);
        for i in 0..h {
            let (a0, a2) = dif(f, x0[i], x2[i], o0[i]);
            let (a1, a3) = dif(f, x1[i], x3[i], o1[i]);
            (x0[i], x1[i]) = dif(f, a0, a1, inner[i]);
            (x2[i], x3[i]) = dif(f, a2, a3, inner[i]);
        }
    }
}

/// The last forward stage (`h = 1`, no twiddle), outputs reduced to `[0, p)`.
#[inline(always)]
fn last_dif(f: Field, x: &mut [u64]) {
    let p2 = 2 * f.p;
    for pair in x.chunks_exact_mut(2) {
        let (a, b) = (pair[0], pair[1]);
        pair[0] = canonical(f, a + b);
        pair[1] = canonical(f, a + p2 - b);
    }
}

/// The last two forward stages on blocks of four, outputs reduced to `[0, p)`: `h = 2`
/// (twiddles 1 and `w = w₄`, Shoup's pair) then `h = 1` (no twiddle).
#[inline(always)]
fn last_dif4(f: Field, x: &mut [u64], w: [u64; 2]) {
    let p2 = 2 * f.p;
    for q in x.as_chunks_mut::<4>().0 {
        let [x0, x1, x2, x3] = *q;
        let (a0, a2) = (reduce(x0 + x2, p2), reduce(x0 + p2 - x2, p2));
        let (a1, a3) = dif(f, x1, x3, w);
        *q = [
            canonical(f, a0 + a1),
            canonical(f, a0 + p2 - a1),
            canonical(f, a2 + a3),
            canonical(f, a2 + p2 - a3),
        ];
    }
}

/// The first two inverse stages on blocks of four: `h = 1` (no twiddle) then `h = 2`
/// (twiddles 1 and `w = w₄⁻¹`, Shoup's pair); outputs in `[0, 4p)` or with `LAST` in
/// `[0, p)`.
#[inline(always)]
fn first_dit4<const LAST: bool>(f: Field, x: &mut [u64], w: [u64; 2]) {
    let p2 = 2 * f.p;
    for q in x.as_chunks_mut::<4>().0 {
        let [x0, x1, x2, x3] = q.map(|v| reduce(v, p2));
        let (a0, a1) = (x0 + x1, x0 + p2 - x1);
        let (a2, a3) = (reduce(x2 + x3, p2), x2 + p2 - x3);
        let a0 = reduce(a0, p2);
        let (b0, b2) = (a0 + a2, a0 + p2 - a2);
        let (b1, b3) = dit(f, a1, a3, w);
        *q = if LAST { [b0, b1, b2, b3].map(|v| canonical(f, v)) } else { [b0, b1, b2, b3] };
    }
}

/// The first inverse stage (`h = 1`, no twiddle), outputs in `[0, 4p)` or with `LAST` in
/// `[0, p)`.
#[inline(always)]
fn first_dit<const LAST: bool>(f: Field, x: &mut [u64]) {
    let p2 = 2 * f.p;
    for pair in x.chunks_exact_mut(2) {
        let (a, b) = (reduce(pair[0], p2), reduce(pair[1], p2));
        let (s, d) = (a + b, a + p2 - b);
        (pair[0], pair[1]) = if LAST { (canonical(f, s), canonical(f, d)) } else { (s, d) };
    }
}

/// One inverse stage on blocks of `2h` (twiddles `w`), outputs reduced to `[0, p)` with
/// `LAST`.
#[inline(always)]
fn dit2<const LAST: bool>(f: Field, x: &mut [u64], h: usize, w: &[u64]) {
    let w = pairs(w, h);
    for block in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = block.split_at_mut(h);
        for ((a, b), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
            let (s, d) = dit(f, *a, *b, w);
            (*a, *b) = if LAST { (canonical(f, s), canonical(f, d)) } else { (s, d) };
        }
    }
}

/// The inverse stages `h` (twiddles `inner`) then `2h` (`outer`) in one pass over blocks of
/// `4h`, outputs reduced to `[0, p)` with `LAST`.
#[inline(always)]
fn dit4<const LAST: bool>(f: Field, x: &mut [u64], h: usize, outer: &[u64], inner: &[u64]) {
    let (o0, o1) = outer[..4 * h].split_at(2 * h);
    let (o0, o1, inner) = (pairs(o0, h), pairs(o1, h), pairs(inner, h));
    for block in x.chunks_exact_mut(4 * h) {
        let [x0, x1, x2, x3] = quarters(block, h);
        for i in 0..h {
            let (a0, a1) = dit(f, x0[i], x1[i], inner[i]);
            let (a2, a3) = dit(f, x2[i], x3[i], inner[i]);
            let (b0, b2) = dit(f, a0, a2, o0[i]);
            let (b1, b3) = dit(f, a1, a3, o1[i]);
            if LAST {
                (x0[i], x1[i], x2[i], x3[i]) =
                    (canonical(f, b0), canonical(f, b1), canonical(f, b2), canonical(f, b3));
            } else {
                (x0[i], x1[i], x2[i], x3[i]) = (b0, b1, b2, b3);
            }
        }
    }
}
