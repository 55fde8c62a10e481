//! The FMA engine's wide products: all five 50-bit primes with 116-bit coefficients
//! (`plan::FMA_WIDE`), Garner's digits in vectors, and the coefficients summed at bit
//! `116·i` in Horner's form (`recombine`). Compiled where the FMA engine is.

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
use crate::arch::ntt::fma::Fma;
use crate::arch::ntt::fmacore::Garner5;
#[cfg(target_arch = "aarch64")]
use crate::arch::ntt::neon::Fma;

use super::engine::Engine;
use super::field::{FIELDS52, Field, pow_mod};
use super::plan::BLOCK;
use super::plan::{FMA_WIDE, FMA_WIDE_MAX_LOG_LEN};
use super::recombine::{fma_wide_recombine, wide_w};
use super::tables::tables;
use super::transform::{forward, forward_lower_half, inverse};
use crate::scratch;

/// Garner's constants of [`fma_wide_product`] for the vector kernels.
pub(super) fn fma_wide_constants() -> &'static Garner5 {
    static C: OnceLock<Garner5> = OnceLock::new();
    C.get_or_init(|| {
        let mut inv = [[0f64; 5]; 5];
        for (m, row) in inv.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate().skip(m + 1) {
                let (pm, pj) = (FIELDS52[m].p, FIELDS52[j].p);
                let x = pow_mod(pm % pj, pj - 2, pj);
                *v = if x > pj / 2 { x as f64 - pj as f64 } else { x as f64 };
            }
        }
        let p = FIELDS52.map(|f| f.p as f64);
        let pinv = p.map(|p| 1.0 / p);
        // The scales are the transform length's: `fma_wide_product` sets them.
        Garner5 { p, pinv, scale: [0.0; 5], inv }
    })
}

/// `r = a · b` (`b = None`: `a²`; `r.len() == a.len() + b.len()`) by the FMA engine's
/// transforms over all five of [`FIELDS52`] with 116-bit coefficients ([`FMA_WIDE`]):
/// each coefficient loaded from its low 64 and high 52 bits, the inverse transforms'
/// outputs scaled and turned into Garner's digits in vectors ([`Fma::garner5`]), and the
/// coefficients (below `2²⁵⁰`) summed at bit `116·i` in Horner's form
/// ([`fma_wide_recombine`]).
pub(super) fn fma_wide_product(t: Fma, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    let w = FMA_WIDE;
    let e = Engine::Fma(t, 5);
    let b_len = b.map_or(a.len(), <[u64]>::len);
    debug_assert!(!a.is_empty() && b_len >= 1 && r.len() == a.len() + b_len);
    let (ca, cb) = (w.len(a.len()), w.len(b_len));
    let count = ca + cb - 1;
    let n = w.transform_len(a.len(), b_len);
    assert!(n.trailing_zeros() <= FMA_WIDE_MAX_LOG_LEN, "wide FMA product of {n} coefficients");
    // The coefficients cut once (every prime loads them): low 64 bits, high 52.
    let cut = |x: &[u64], c: usize| -> (Vec<u64>, Vec<u64>) {
        let (mut lo, mut hi) = (Vec::with_capacity(c), Vec::with_capacity(c));
        // Coefficient i starts at bit 116·i and spans three limbs at most; the last few
        // (within three limbs of the end) read zeros past it.
        let fast = x.len().saturating_sub(3) * 64 / w.bits;
        // Whole blocks of 16 coefficients (29 limbs, and the next one read) with constant
        // shifts ([`wide_block_cut`]), then one at a time.
        let blocks = (c / 16).min(x.len().saturating_sub(1) / 29);
        for b in 0..blocks {
            let Some(blk) = x[29 * b..].first_chunk::<30>() else { break };
            let (mut l, mut h) = ([0u64; 16], [0u64; 16]);
            macro_rules! cut16 {
                ($($k:literal)*) => {$(
                    (l[$k], h[$k]) = wide_block_cut::<$k>(blk);
                )*};
            }
            cut16!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            lo.extend_from_slice(&l);
            hi.extend_from_slice(&h);
        }
        for i in 16 * blocks..c.min(fast) {
            let bit = w.bits * i;
            let (q, off) = (bit / 64, (bit % 64) as u32);
            let (l0, l1, l2) = (x[q], x[q + 1], x[q + 2]);
            let (a, b) = if off == 0 {
                (l0, l1)
            } else {
                (l0 >> off | l1 << (64 - off), l1 >> off | l2 << (64 - off))
            };
            lo.push(a);
            hi.push(b & ((1 << 52) - 1));
        }
        for i in c.min(fast).max(16 * blocks)..c {
            let [a, b, _] = w.coefficient(x, i);
            lo.push(a);
            hi.push(b);
        }
        (lo, hi)
    };
    let pa = cut(a, ca);
    let pb = b.map(|b| cut(b, cb));
    let tabs = tables(e, n);
    // Loads the coefficients and transforms them forward. An operand in the lower half
    // (the upper half zero padding) skips the first stage's butterflies: that stage maps
    // `(a, 0)` to `(a, a·w)` ([`forward_lower_half`]). The buffers are used as their first
    // `n` values and never shortened (the residues are sliced, not truncated), so that a
    // kept buffer is zero-filled to its length once, not again by every product (for the
    // upper half, which the lower-half transform does not read, that was most of the wide
    // products' memset).
    let load_forward = |k: usize, f: Field, (lo, hi): &(Vec<u64>, Vec<u64>), dst: &mut Vec<u64>| {
        let half = lo.len() <= n / 2 && n / 4 >= BLOCK;
        if dst.len() < n {
            dst.resize(n, 0);
        }
        let x = &mut dst[..n];
        // The zero padding: up to the half only where the upper half is not read (a kept
        // buffer's old values stay there).
        x[lo.len()..if half { n / 2 } else { n }].fill(0);
        let kf = ((1u128 << 64) % u128::from(f.p)) as u64;
        let kf = if kf > f.p / 2 { kf as f64 - f.p as f64 } else { kf as f64 };
        let done = t.load_wide(&mut x[..lo.len()], lo, hi, kf, f.p as f64);
        for i in done..lo.len() {
            let v = (u128::from(lo[i]) | u128::from(hi[i]) << 64) % u128::from(f.p);
            x[i] = (v as f64).to_bits();
        }
        if half {
            forward_lower_half(t, f, x, tabs.fwd(k));
        } else {
            forward(e, f, x, tabs.fwd(k));
        }
    };
    // The coefficients rounded up to a multiple of every vector width (2, 4, 8): `garner5`
    // then covers them all (the values past `count` are those of zero coefficients, and
    // unused), so the scalar digits below, ten `pow_mod`s each, run only where `n` is not a
    // multiple of 8.
    let count8 = count.next_multiple_of(8).min(n);
    let mut other = if pb.is_some() { scratch::take(n) } else { Vec::new() };
    let residues: Vec<Vec<u64>> = FIELDS52
        .iter()
        .enumerate()
        .map(|(k, &f)| {
            let mut x = scratch::take(n);
            load_forward(k, f, &pa, &mut x);
            match &pb {
                Some(pb) => {
                    load_forward(k, f, pb, &mut other);
                    e.pointwise(f, &mut x[..n], Some(&other[..n]));
                }
                None => e.pointwise(f, &mut x[..n], None),
            }
            inverse(e, f, &mut x[..n], &tabs.inv[k]);
            // Unloaded (scaled) by `garner5`, on the coefficients only (the buffer keeps
            // its length).
            x
        })
        .collect();
    scratch::give(other);
    // Garner's digits t₁…t₅ in place from the unscaled outputs, then x = t₁ + p₁t₂ +
    // p₁p₂t₃ + p₁p₂p₃t₄ + p₁…p₄t₅.
    let mut g = *fma_wide_constants();
    g.scale = FIELDS52.map(|f| {
        // As `Engine::finish`: balanced, so that `|x·s| < p²`.
        let s = f.redc(u128::from(e.scale(f, n))); // plain
        if s > f.p / 2 { s as f64 - f.p as f64 } else { s as f64 }
    });
    let mut residues = residues;
    let [y1, y2, y3, y4, y5] = &mut residues[..] else { unreachable!("five primes") };
    let ys = [
        &mut y1[..count8],
        &mut y2[..count8],
        &mut y3[..count8],
        &mut y4[..count8],
        &mut y5[..count8],
    ];
    let done = t.garner5(ys, &g);
    for i in done..count {
        // Garner's digits in plain integers (the vectors' tail, if any), from the residues
        // unloaded as `Engine::finish` does.
        let ys = [&mut y1[i], &mut y2[i], &mut y3[i], &mut y4[i], &mut y5[i]];
        let mut tt = [0u64; 5];
        for (j, f) in FIELDS52.iter().enumerate() {
            let mut v = f.mul(e.unload(*f, *ys[j]), e.scale(*f, n));
            for (m, &tm) in tt.iter().enumerate().take(j) {
                let inv = pow_mod(FIELDS52[m].p % f.p, f.p - 2, f.p);
                let diff = (v + f.p - tm % f.p) % f.p;
                v = ((u128::from(diff) * u128::from(inv)) % u128::from(f.p)) as u64;
            }
            tt[j] = v;
        }
        let [t1, t2, t3, t4, t5] = tt;
        let [w_lo, w_hi] = wide_w(t4, t5);
        for (y, v) in ys.into_iter().zip([t1, t2, t3, w_lo, w_hi]) {
            *y = v;
        }
    }
    fma_wide_recombine(r, [&y1[..count], &y2[..count], &y3[..count], &y4[..count], &y5[..count]]);
    scratch::give_all(residues);
}

/// Coefficient `K` (of 16) of [`fma_wide_product`]'s operand cut, from a block of 29 limbs
/// and the next: its low 64 bits and its high 52 (116 bits from bit `116K`); `K` a
/// constant, so are the shifts.
#[inline(always)]
pub(super) fn wide_block_cut<const K: usize>(x: &[u64; 30]) -> (u64, u64) {
    // `q + 2 ≤ 29`: the last coefficient starts at bit 1740, in limb 27.
    let (q, off) = (116 * K / 64, 116 * K % 64);
    let (l0, l1, l2) = (x[q], x[q + 1], x[q + 2]);
    let (a, b) = if off == 0 {
        (l0, l1)
    } else {
        (l0 >> off | l1 << (64 - off), l1 >> off | l2 << (64 - off))
    };
    (a, b & ((1 << 52) - 1))
}
