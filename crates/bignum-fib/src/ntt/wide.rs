//! The portable engine's wide products: four or five primes with coefficients of 112 or
//! 140 bits (`plan::Wide`), a transform of half the length where a product's coefficients
//! fill little of their power of two.

use super::crt::wide_crt_into;
use super::engine::Engine;
use super::field::{Field, WIDE_FIELDS, pow_mod};
use super::plan::{WIDE_MAX_LOG_LEN, Wide};
use super::tables::tables;
use super::transform::{forward, inverse};
use crate::scratch;

/// `r = a · b` (`b = None`: `a²`; `r.len() == a.len() + b.len()`) by the portable
/// engine's transforms over the first `w.primes` of [`WIDE_FIELDS`] ([`Engine::Wide`]) with
/// coefficients of `w.bits` bits (see [`Wide`] for the bound); Garner's mixed-radix digits
/// give each coefficient (below `2^(62·primes)`), added with carries at bit `bits·i`.
pub(super) fn wide_product(w: Wide, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    let e = Engine::Wide;
    let b_len = b.map_or(a.len(), <[u64]>::len);
    debug_assert!(!a.is_empty() && b_len >= 1 && r.len() == a.len() + b_len);
    let (ca, cb) = (w.len(a.len()), w.len(b_len));
    let count = ca + cb - 1;
    let n = w.transform_len(a.len(), b_len);
    assert!(n.trailing_zeros() <= WIDE_MAX_LOG_LEN, "wide NTT product of {n} coefficients");
    // The coefficients cut once (every prime reads them).
    let cut =
        |x: &[u64], c: usize| -> Vec<[u64; 3]> { (0..c).map(|i| w.coefficient(x, i)).collect() };
    let pa = cut(a, ca);
    let pb = b.map(|b| cut(b, cb));
    let tabs = tables(e, n);
    let load =
        |f: Field, x: &[[u64; 3]], dst: &mut Vec<u64>| {
            // w₀ + w₁·2⁶⁴ + w₂·2¹²⁸ mod p in [0, 2p), which the forward transform takes
            // (`lazy`): Shoup's products by 2⁶⁴ and 2¹²⁸ mod p, each in [0, 2p); w₂ = 0 when the
            // coefficients have at most 128 bits.
            let (c1, c2) = (f.shoup_pair(pow_mod(2, 64, f.p)), f.shoup_pair(pow_mod(2, 128, f.p)));
            let mul = |a: u64, c: [u64; 2]| f.mul_shoup(a, c);
            let lazy_add = |a: u64, b: u64| {
                let s = a + b; // both below 2p < 2⁶³
                s.min(s.wrapping_sub(2 * f.p))
            };
            dst.clear();
            if w.bits <= 128 {
                dst.extend(x.iter().map(|&[w0, w1, _]| lazy_add(f.reduce(w0), mul(w1, c1))));
            } else {
                dst.extend(x.iter().map(|&[w0, w1, w2]| {
                    lazy_add(lazy_add(f.reduce(w0), mul(w1, c1)), mul(w2, c2))
                }));
            }
            dst.resize(n, 0);
        };
    let mut other = if pb.is_some() { scratch::take(n) } else { Vec::new() };
    let residues: Vec<Vec<u64>> = WIDE_FIELDS[..w.primes]
        .iter()
        .enumerate()
        .map(|(k, &f)| {
            let mut x = scratch::take(n);
            load(f, &pa, &mut x);
            forward(e, f, &mut x, tabs.fwd(k));
            match &pb {
                Some(pb) => {
                    load(f, pb, &mut other);
                    forward(e, f, &mut other, tabs.fwd(k));
                    e.pointwise(f, &mut x, Some(&other));
                }
                None => e.pointwise(f, &mut x, None),
            }
            inverse(e, f, &mut x, &tabs.inv[k]);
            e.finish(f, &mut x, n);
            x.truncate(count);
            x
        })
        .collect();
    scratch::give(other);
    match w.primes {
        4 => wide_crt_into::<4>(w.bits, r, &residues),
        _ => wide_crt_into::<5>(w.bits, r, &residues),
    }
    scratch::give_all(residues);
}
