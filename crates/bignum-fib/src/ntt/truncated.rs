//! The FMA engine's truncated products: a product of `L` coefficients with
//! `N/2 < L ≤ N − N/2^K` takes `K` transforms of lengths `N/2, N/4, …, N/2^K` (twisted
//! cyclic convolutions) instead of one of `N`, recombined modulo each prime from the zero
//! top coefficients (see [`truncated`]). The coefficients, and so the CRT bound, are those
//! of the padded product. Compiled where the FMA engine is.

use std::sync::{Arc, Mutex, PoisonError};

use super::engine::{Engine, f64_decode};
use super::field::pow_mod;
use super::plan::{TRUNC_MAX_PIECES, transform_len};
use super::tables::tables;
use super::transform::{forward, inverse};
use crate::scratch;

/// The twists of [`truncated`] for transforms of length `n`, per prime and per piece
/// `k = 1 … K − 1` (index `k − 1`): `ψ_k^j` and `2^k·ψ_k^{−j}` for `j < M_k = n/2^{k+1}`,
/// `ψ_k = w_n^{2^k − 1}`, in the engine's form; and per prime and piece `k = 0 … K − 1`
/// (plain): `α_k = ψ_k^{M_k}` (`α₀ = 1`) and `(2α_k)⁻¹`.
pub(super) struct Twists {
    pub(super) fwd: Vec<Vec<Vec<u64>>>,
    pub(super) inv: Vec<Vec<Vec<u64>>>,
    pub(super) alpha: Vec<[u64; TRUNC_MAX_PIECES as usize]>,
    pub(super) half_alpha_inv: Vec<[u64; TRUNC_MAX_PIECES as usize]>,
}

/// The [`Twists`] of engine `e` for length `n`, built once and shared.
pub(super) fn twists(e: Engine, n: usize) -> Arc<Twists> {
    type Cache = Mutex<Vec<((usize, usize), Arc<Twists>)>>;
    static CACHE: Cache = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, t)) = cache.iter().find(|(key, _)| *key == (e.index(), n)) {
        return t.clone();
    }
    let mut t =
        Twists { fwd: Vec::new(), inv: Vec::new(), alpha: Vec::new(), half_alpha_inv: Vec::new() };
    for &f in e.fields() {
        let (mut fk, mut ik) = (Vec::new(), Vec::new());
        let mut alpha = [1u64; TRUNC_MAX_PIECES as usize];
        let mut half_alpha_inv = [0u64; TRUNC_MAX_PIECES as usize];
        for k in 0..TRUNC_MAX_PIECES {
            let m = n >> (k + 1);
            // ψ_k = w_n^{2^k − 1}.
            let psi = pow_mod(f.root(n as u64), (1 << k) - 1, f.p);
            alpha[k as usize] = pow_mod(psi, m as u64, f.p);
            half_alpha_inv[k as usize] = pow_mod(2 * alpha[k as usize] % f.p, f.p - 2, f.p);
            if k == 0 {
                continue;
            }
            let psi_inv = pow_mod(psi, f.p - 2, f.p);
            let (step, step_inv) = (f.to_mont(psi), f.to_mont(psi_inv));
            // The inverse transform leaves `M_k` times the piece: `2^k = M₀/M_k` puts every
            // piece at `M₀` times, which the unloading divides out.
            let (mut w, mut v) = (1u64, 1u64 << k);
            let (mut a, mut b) = (Vec::with_capacity(m), Vec::with_capacity(m));
            for _ in 0..m {
                a.push(e.twiddle(f, w));
                b.push(e.twiddle(f, v));
                w = f.mul(w, step);
                v = f.mul(v, step_inv);
            }
            fk.push(a);
            ik.push(b);
        }
        t.fwd.push(fk);
        t.inv.push(ik);
        t.alpha.push(alpha);
        t.half_alpha_inv.push(half_alpha_inv);
    }
    let t = Arc::new(t);
    cache.push(((e.index(), n), t.clone()));
    t
}

/// The coefficients of `a·b` (`b = None`: `a²`) modulo each prime, for a product of
/// `L = a.len() + b.len() − 1` coefficients with `N/2 < L ≤ N − N/2^K` (`N` the padded
/// transform length, `K = pieces`), from `K` transforms of lengths `N/2, N/4, …, N/2^K`
/// instead of one of `N` (a truncated transform, as van der Hoeven's, cut at whole
/// sub-transforms). The length-`N` DIF transform's first stage splits `c mod x^N − 1` into
/// `c mod x^{N/2} − 1` (piece 0, a cyclic convolution) and `c mod x^{N/2} + 1`, and each
/// later stage splits the part mod `x^{2M} − α²` into the parts mod `x^M ∓ α`; piece `k` is
/// `c mod x^{M_k} − α_k` (`M_k = N/2^{k+1}`, `α_k = ψ_k^{M_k}`, `ψ_k = w_N^{2^k − 1}`): the
/// operands folded (`Σ α^c·a_{j+cM}`) and twisted (`·ψ^j`), a cyclic convolution of length
/// `M_k`, untwisted. The recombination runs the inverse butterflies on what the pieces and
/// the zero top coefficients (`c_j = 0` for `j ≥ L`) determine: at level `k`,
/// `P = lo + x^M·hi` with `A = lo + α·hi` (the piece) and `B = lo − α·hi` (the next level's
/// polynomial), `hi` known from `t_k = L − N/2 − M_1 − … − M_k` on, so `B = A − 2α·hi`
/// there, and once `B` is known `hi = (A − B)/(2α)` and `lo = (A + B)/2`. Every step is
/// exact modulo each prime (the FMA kernels' bounds hold: see `arch::ntt::fmacore::comb`),
/// so the coefficients, and the CRT bound, are those of the padded product.
pub(super) fn truncated(e: Engine, a: &[u64], b: Option<&[u64]>, pieces: u32) -> Vec<Vec<u64>> {
    let Engine::Fma(tk, _) = e else { unreachable!("truncated products are the FMA engine's") };
    let b_len = b.map_or(a.len(), <[u64]>::len);
    let count = a.len() + b_len - 1;
    let n = transform_len(a.len(), b_len);
    let pieces = pieces as usize;
    debug_assert!(count > n / 2 && count <= n - (n >> pieces) && pieces >= 2);
    debug_assert!(a.len() <= n / 2 && b_len <= n / 2);
    let tabs = tables(e, n / 2);
    let tw = twists(e, n);
    // Piece l at `off(l)` of `parts`, B_l at `off(l)` of `bs` (lengths n/2, n/4, …).
    let off = |l: usize| n - (n >> l);
    let (mut parts, mut bs) = (scratch::take(n), scratch::take(n));
    let mut x = scratch::take(n / 2);
    let mut y = if b.is_some() { scratch::take(n / 2) } else { Vec::new() };
    // The zero-padded levels `t_l` below which `hi_l` is unknown (> 0 below the last).
    let mut t = vec![(count - n / 2) as isize];
    for l in 1..pieces {
        t.push(t[l - 1] - (n >> (l + 1)) as isize);
    }
    let residues = e
        .fields()
        .iter()
        .enumerate()
        .map(|(k, &f)| {
            let (alpha, half_alpha_inv) = (tw.alpha[k], tw.half_alpha_inv[k]);
            let p = f.p;
            let neg = |v: u64| (p - v) % p;
            // Every value read below is written first: no zeroing.
            parts.resize(n, 0);
            bs.resize(n, 0);
            // The operands loaded once (`a mod x^{N/2} ± 1` is `a`).
            e.load_into(f, a, &mut x, n / 2);
            if let Some(b) = b {
                e.load_into(f, b, &mut y, n / 2);
            }
            // The pieces A_l = c mod x^{M_l} − α_l (f64 bits, |·| < 2p, times M₀), l ≥ 1:
            // each operand's D_{l−1} = (its value mod x^{2M_l} − α_l²) split into
            // (D_lo + α_l·D_hi)·ψ_l^j (the piece's operand, twisted) and D_lo − α_l·D_hi
            // (D_l), the D of `a` kept in `bs[..N/4]`, of `b` in `bs[N/4..N/2]` (free until
            // the recombination).
            let one = 1.0;
            let (da, rest) = bs.split_at_mut(n / 4);
            let db = &mut rest[..n / 4];
            for l in 1..pieces {
                let m = n >> (l + 1);
                let (piece, tail) = parts[off(l)..].split_at_mut(m);
                let other = &mut tail[..m];
                let w = &tw.fwd[k][l - 1];
                let more = l + 1 < pieces;
                let fold = |src: &[u64], d: &mut [u64], out: &mut [u64]| {
                    if l == 1 {
                        let (lo, hi) = src.split_at(m);
                        e.fold(f, out, more.then_some(d), Some(lo), hi, alpha[l], w);
                    } else {
                        let (lo, hi) = d[..2 * m].split_at_mut(m);
                        if more {
                            e.fold(f, out, Some(lo), None, hi, alpha[l], w);
                        } else {
                            e.fold(f, out, None, Some(lo), hi, alpha[l], w);
                        }
                    }
                    forward(e, f, out, tabs.fwd(k));
                };
                fold(&x, da, piece);
                match b {
                    Some(_) => {
                        // `b`'s piece in the next piece's slot (free until then).
                        fold(&y, db, other);
                        e.pointwise(f, piece, Some(other));
                    }
                    None => e.pointwise(f, piece, None),
                }
                inverse(e, f, piece, &tabs.inv[k]);
                e.pointwise(f, piece, Some(&tw.inv[k][l - 1]));
            }
            // Piece 0 (in `x`): the cyclic convolution of length N/2.
            forward(e, f, &mut x, tabs.fwd(k));
            match b {
                Some(_) => {
                    forward(e, f, &mut y, tabs.fwd(k));
                    e.pointwise(f, &mut x, Some(&y));
                }
                None => e.pointwise(f, &mut x, None),
            }
            inverse(e, f, &mut x, &tabs.inv[k]);
            let part = |l: usize| {
                if l == 0 { &x[..] } else { &parts[off(l)..off(l) + (n >> (l + 1))] }
            };
            // Down: B_l (length M_l) where the pieces determine it, for 0 < l < K − 1 (B₀ is
            // A₀ from t₀ on, where hi₀ = 0: read from piece 0, not copied).
            for l in 1..pieces - 1 {
                let m = n >> (l + 1);
                let tl = t[l] as usize; // > 0 below the last level
                let (done, rest) = bs.split_at_mut(off(l));
                // hi_l[j] = B_{l−1}[M_l + j]; B_l = A_l − 2α_l·hi_l.
                let prev = if l == 1 {
                    &x[m + tl..2 * m]
                } else {
                    &done[off(l - 1) + m + tl..off(l - 1) + 2 * m]
                };
                let two_alpha = neg(2 * alpha[l] % p);
                e.comb(f, &mut rest[tl..m], Some(&part(l)[tl..]), Some(prev), two_alpha, one);
            }
            // The last level: P = B_{K−2} = lo + x^M·hi, hi all known: lo = A − α·hi.
            {
                let l = pieces - 1;
                let m = n >> (l + 1);
                let prev = &mut bs[off(l - 1)..off(l - 1) + 2 * m];
                let (lo, hi) = prev.split_at_mut(m);
                let hi = if l == 1 { &x[m..2 * m] } else { &*hi };
                e.comb(f, lo, Some(part(l)), Some(hi), neg(alpha[l]), one);
            }
            // Up: hi = (A − B)/(2α) below t_l, lo = (A + B)/2, into B_{l−1} (or c); at level
            // 0, lo = A₀ from t₀ on (B₀ = A₀ there).
            let bal = |v: u64| f64::from_bits(e.twiddle(f, v));
            let half = bal(p.div_ceil(2)); // 2⁻¹
            let mut c = scratch::take(n);
            c.truncate(count);
            c.resize(count, 0);
            for l in (0..pieces - 1).rev() {
                let m = n >> (l + 1);
                let tl = t[l] as usize;
                let (head, rest) = bs.split_at_mut(off(l));
                let target: &mut [u64] =
                    if l == 0 { &mut c } else { &mut head[off(l - 1)..off(l - 1) + 2 * m] };
                let (lo, hi) = target.split_at_mut(m);
                let s = bal(half_alpha_inv[l]);
                e.comb(f, &mut hi[..tl], Some(&part(l)[..tl]), Some(&rest[..tl]), p - 1, s);
                if l == 0 {
                    e.comb(f, &mut lo[..tl], Some(&rest[..tl]), Some(&x[..tl]), 1, half);
                    lo[tl..].copy_from_slice(&x[tl..]);
                } else {
                    e.comb(f, lo, Some(&rest[..m]), Some(part(l)), 1, half);
                }
            }
            // Plain residues in [0, p), divided by M₀.
            let m0_inv = p - (p - 1) / (n / 2) as u64;
            let m4 = count & !3;
            tk.unload(&mut c[..m4], f64::from_bits(e.twiddle(f, m0_inv)), p as f64);
            for v in &mut c[m4..] {
                let w = f64_decode(f, *v);
                *v = ((u128::from(w) * u128::from(m0_inv)) % u128::from(p)) as u64;
            }
            c
        })
        .collect();
    scratch::give_all(vec![parts, bs, x, y]);
    residues
}
