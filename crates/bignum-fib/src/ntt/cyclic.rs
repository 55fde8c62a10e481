//! Products with one limb per coefficient: cyclic convolutions modulo each prime of the
//! engine, an operand transformed once for several products ([`Transformed`]), and the
//! split plan ([`coefficients`]) that leaves a product just above a power of two unpadded.

use super::crt::crt_into;
use super::engine::Engine;
use super::plan::PAR_MIN_LEN;
use super::plan::{MAX_LOG_LEN, splits, transform_len};
use super::tables::tables;
use super::transform::{forward, inverse};
use crate::par;
use crate::scratch;

pub(super) fn convolve(e: Engine, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    debug_assert!(!a.is_empty() && b_len >= 1 && r.len() == a.len() + b_len);
    let residues = coefficients(e, a, b);
    let carry = crt_into(e, r, &residues);
    debug_assert_eq!(carry, [0; 3], "NTT product wider than its destination");
    scratch::give_all(residues);
}

/// An operand transformed once (modulo each prime, length `n`) for several products with
/// other operands: the divisors of the decimal conversion and their reciprocals, each used
/// by every division of its level.
pub(crate) struct Transformed {
    pub(super) engine: Engine,
    pub(super) n: usize,
    pub(super) len: usize,
    pub(super) hat: Vec<Vec<u64>>,
}

pub(super) fn transform_with(e: Engine, x: &[u64], n: usize) -> Transformed {
    assert!(n.is_power_of_two() && n >= x.len().max(2) && n.trailing_zeros() <= MAX_LOG_LEN);
    let tabs = tables(e, n);
    let fields = e.fields();
    let hat = (0..fields.len())
        .map(|k| {
            let f = fields[k];
            let mut v = Vec::with_capacity(n);
            e.load_into(f, x, &mut v, n);
            forward(e, f, &mut v, tabs.fwd(k));
            v
        })
        .collect();
    Transformed { engine: e, n, len: x.len(), hat }
}

/// The cyclic convolution of length `n` (a power of two) of `a` and `b` (`None`: `a` with
/// itself; `Some(Err(t))`: an operand already transformed to length `n`), zero-padded:
/// `n` plain residues per prime.
pub(super) fn cyclic(
    e: Engine,
    a: &[u64],
    b: Option<Result<&[u64], &Transformed>>,
    n: usize,
) -> Vec<Vec<u64>> {
    assert!(a.len() <= n, "operand of {} limbs longer than the transform ({n})", a.len());
    let tabs = tables(e, n);
    let fields = e.fields();
    let mut other = if matches!(b, Some(Ok(_))) { scratch::take(n) } else { Vec::new() };
    let y = (0..fields.len())
        .map(|k| {
            let f = fields[k];
            let load = |x: &[u64], buf: &mut Vec<u64>| e.load_into(f, x, buf, n);
            let mut x = scratch::take(n);
            let operand = |v: &[u64], buf: &mut Vec<u64>| {
                load(v, buf);
                forward(e, f, buf, tabs.fwd(k));
            };
            let y = match b {
                Some(Ok(b)) => {
                    // The two operands' transforms are independent: on two threads when asked.
                    par::join(n, PAR_MIN_LEN, || operand(a, &mut x), || operand(b, &mut other));
                    Some(&other[..])
                }
                Some(Err(t)) => {
                    debug_assert!(t.n == n && t.engine.index() == e.index());
                    operand(a, &mut x);
                    Some(&t.hat[k][..])
                }
                None => {
                    operand(a, &mut x);
                    None
                }
            };
            pointwise(e, f, &mut x, y);
            inverse(e, f, &mut x, &tabs.inv[k]);
            // In halves of at least 64 values (the vector kernels' multiples), when asked.
            let halves = x.chunks_mut(n.div_ceil(2).max(64)).collect();
            par::each(halves, n, PAR_MIN_LEN, &|h: &mut [u64]| e.finish(f, h, n));
            x
        })
        .collect();
    scratch::give(other);
    y
}

/// [`Engine::pointwise`] in two halves, on two threads when asked (`par`).
fn pointwise(e: Engine, f: super::field::Field, x: &mut [u64], y: Option<&[u64]>) {
    let n = x.len();
    let half = n.div_ceil(2);
    let parts: Vec<(&mut [u64], Option<&[u64]>)> = match y {
        Some(y) => x.chunks_mut(half).zip(y.chunks(half)).map(|(x, y)| (x, Some(y))).collect(),
        None => x.chunks_mut(half).map(|x| (x, None)).collect(),
    };
    par::each(parts, n, PAR_MIN_LEN, &|(x, y): (&mut [u64], Option<&[u64]>)| e.pointwise(f, x, y));
}

/// The `a.len() + b.len() − 1` coefficients of `a·b` (`b = None`: `a²`) modulo each prime.
///
/// A product of `m = N + e` coefficients (`N` a power of two, `0 < e < N`) may be left
/// unpadded to `2N`: the cyclic convolution of length `N` gives `c_j + c_{j+N}` for `j < e`,
/// and `c_N … c_{m−1}` are the top coefficients of the product of the top `e` limbs of the
/// operands (every term of those coefficients comes from there), computed recursively (and
/// split again where that pays). [`splits`] takes this plan where it costs fewer butterflies
/// than the padded one: at F(10⁸), whose products sit just above powers of two, it halves
/// the work; at F(10⁶) (66 % of a power of two: `N/2 + N/4 + …` instead of `N`) it saves
/// about a sixth.
pub(super) fn coefficients(e: Engine, a: &[u64], b: Option<&[u64]>) -> Vec<Vec<u64>> {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(..) = e
        && let Some(k) = super::plan::truncates(a.len(), b_len)
    {
        return super::truncated::truncated(e, a, b, k);
    }
    let count = a.len() + b_len - 1;
    let n = transform_len(a.len(), b_len);
    let half = n / 2;
    let extra = count.saturating_sub(half);
    if !splits(a.len(), b_len) {
        let mut y = cyclic(e, a, b.map(Ok), n);
        for v in &mut y {
            v.truncate(count);
        }
        return y;
    }
    let mut y = cyclic(e, a, b.map(Ok), half);
    // The top `extra` limbs of each operand (`a.len() − extra = half + 1 − b_len ≥ 1`).
    let top_a = &a[a.len() - extra..];
    let top_b = b.map(|b| &b[b.len() - extra..]);
    let z = coefficients(e, top_a, top_b);
    // z has 2·extra − 1 coefficients; c_{N+j} = z[extra − 1 + j] for j < extra.
    for ((f, y), z) in e.fields().iter().zip(&mut y).zip(&z) {
        let wrapped = &z[extra - 1..];
        for (y, &w) in y.iter_mut().zip(wrapped) {
            *y = f.sub(*y, w);
        }
        y.extend_from_slice(wrapped);
    }
    scratch::give_all(z);
    y
}
