//! The forward transform (decimation in frequency, natural order in, bit-reversed out) and
//! the inverse (decimation in time, bit-reversed in, natural out, without the `1/N`), for
//! every engine. Both run stage by stage (two stages per pass where the engine has a
//! radix-4 kernel) up to [`BLOCK`] coefficients, which stay in cache, and recurse on
//! halves or quarters above it.

#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::fma::Fma;
#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::ntt::neon::Fma;

use crate::par;

use super::engine::Engine;
use super::field::Field;
use super::lazy;
use super::plan::{BLOCK, PAR_MIN_LEN};
use super::tables::{Fwd, Levels};

/// Forward transform (natural order in, bit-reversed out) of `x.len()`, a power of two.
pub(super) fn forward(e: Engine, f: Field, x: &mut [u64], tab: Fwd<'_>) {
    if matches!(e, Engine::Portable | Engine::Wide) {
        return lazy::forward(f, x, tab.tw);
    }
    let tw = tab.tw;
    let n = x.len();
    if n <= BLOCK {
        let mut h = n / 2;
        while h > 1 {
            if h >= 8 {
                e.stage2::<false, false>(
                    f,
                    x,
                    h / 2,
                    &tw[h..2 * h],
                    &tw[h / 2..h],
                    tab.cube(h / 2),
                );
                h /= 4;
            } else if h == 2 && e.tail4::<false>(f, x, &tw[2..4]) {
                h = 0; // with `h = 1`
            } else {
                e.stage::<false>(f, x, h, &tw[h..2 * h]);
                h /= 2;
            }
        }
        if n >= 2 && h == 1 {
            e.radix2(f, x);
        }
    } else if n / 4 >= BLOCK {
        // The top two stages in one pass, then the quarters.
        let h = n / 4;
        top_pass::<false, false>(e, f, x, h, &tw[2 * h..n], &tw[h..2 * h], tab.cube(h));
        par::each(x.chunks_exact_mut(h).collect(), n, PAR_MIN_LEN, &|q| forward(e, f, q, tab));
    } else {
        let h = n / 2;
        e.stage::<false>(f, x, h, &tw[h..n]);
        let (lo, hi) = x.split_at_mut(h);
        forward(e, f, lo, tab);
        forward(e, f, hi, tab);
    }
}

/// Inverse transform without the `1/N` (bit-reversed in, natural order out).
pub(super) fn inverse(e: Engine, f: Field, x: &mut [u64], tab: &Levels) {
    if matches!(e, Engine::Portable | Engine::Wide) {
        return lazy::inverse(f, x, tab);
    }
    inverse_lazy(e, f, x, tab, false);
}

/// [`inverse`]; with `lazy` the FMA engine's outputs may be in `(−2.71p, 2.71p)` instead of
/// `(−2p, 2p)` (its radix-4 passes other than the last reduce one input of four instead of
/// two; see `fmacore::stage2`), for the inner calls of the recursion, whose outputs only
/// further passes read.
pub(super) fn inverse_lazy(e: Engine, f: Field, x: &mut [u64], tab: &Levels, lazy: bool) {
    let n = x.len();
    if n <= BLOCK {
        let mut h = 2;
        if n >= 4 && e.tail4::<true>(f, x, &tab[2..4]) {
            h = 4; // `h = 1` and `h = 2` in one pass
        } else if n >= 2 {
            e.radix2(f, x);
        }
        while h < n {
            if h >= 4 && 4 * h <= n {
                let (o, i) = (&tab[2 * h..4 * h], &tab[h..2 * h]);
                if lazy || 4 * h < n {
                    e.stage2::<true, true>(f, x, h, o, i, &[]);
                } else {
                    e.stage2::<true, false>(f, x, h, o, i, &[]);
                }
                h *= 4;
            } else {
                e.stage::<true>(f, x, h, &tab[h..2 * h]);
                h *= 2;
            }
        }
    } else if n / 4 >= BLOCK {
        let h = n / 4;
        let quarter = |q: &mut [u64]| inverse_lazy(e, f, q, tab, true);
        par::each(x.chunks_exact_mut(h).collect(), n, PAR_MIN_LEN, &quarter);
        let (o, i) = (&tab[2 * h..n], &tab[h..2 * h]);
        if lazy {
            top_pass::<true, true>(e, f, x, h, o, i, &[]);
        } else {
            top_pass::<true, false>(e, f, x, h, o, i, &[]);
        }
    } else {
        let h = n / 2;
        let (lo, hi) = x.split_at_mut(h);
        inverse_lazy(e, f, lo, tab, true);
        inverse_lazy(e, f, hi, tab, true);
        e.stage::<true>(f, x, h, &tab[h..n]);
    }
}

/// [`forward`] of `x` (length `n`, `n/4 ≥ BLOCK`) for the FMA engine when its upper half
/// is zero: not read, so it need not be written (see [`Fma::stage2_lower_half`]); the top
/// radix-4 pass reads the lower half only, then the quarters transform as in [`forward`].
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn forward_lower_half(t: Fma, f: Field, x: &mut [u64], tab: Fwd<'_>) {
    let n = x.len();
    debug_assert!(n.is_power_of_two() && n / 4 >= BLOCK);
    let h = n / 4;
    let (outer, inner, cube, p) = (&tab.tw[2 * h..n], &tab.tw[h..2 * h], tab.cube(h), f.p as f64);
    if par::would_split(n, PAR_MIN_LEN) {
        let (lo, hi) = halves_of_quarters(x, h);
        par::join(
            n,
            PAR_MIN_LEN,
            || t.stage2_lower_half_part(lo, h, 0, outer, inner, cube, p),
            || t.stage2_lower_half_part(hi, h, h / 2, outer, inner, cube, p),
        );
    } else {
        t.stage2_lower_half(x, h, outer, inner, cube, p);
    }
    let quarter = |q: &mut [u64]| forward(Engine::Fma(t, 5), f, q, tab);
    par::each(x.chunks_exact_mut(h).collect(), n, PAR_MIN_LEN, &quarter);
}

/// The top radix-4 pass of a transform of `x.len() = 4h` values ([`Engine::stage2`]): for
/// the FMA engine in two parts on two threads when the budget has two and `x` reaches
/// [`PAR_MIN_LEN`] (each thread takes half of the butterflies, which read and write the same
/// half of each quarter: [`halves_of_quarters`]), so that no pass of a long transform runs on
/// one thread while the other waits.
fn top_pass<const DIT: bool, const LAZY: bool>(
    e: Engine,
    f: Field,
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
) {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(t, _) = e
        && par::would_split(x.len(), PAR_MIN_LEN)
    {
        let (n, p) = (x.len(), f.p as f64);
        let (lo, hi) = halves_of_quarters(x, h);
        par::join(
            n,
            PAR_MIN_LEN,
            || t.stage2_part::<DIT, LAZY>(lo, h, 0, outer, inner, cube, p),
            || t.stage2_part::<DIT, LAZY>(hi, h, h / 2, outer, inner, cube, p),
        );
        return;
    }
    e.stage2::<DIT, LAZY>(f, x, h, outer, inner, cube);
}

/// The four quarters of `x` (`4h` values), each cut in half: their lower halves and their
/// upper halves, the parts of the radix-4 butterflies `0..h/2` and `h/2..h`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn halves_of_quarters(x: &mut [u64], h: usize) -> ([&mut [u64]; 4], [&mut [u64]; 4]) {
    debug_assert_eq!(x.len(), 4 * h);
    let [(l0, h0), (l1, h1), (l2, h2), (l3, h3)] =
        lazy::quarters(x, h).map(|q| q.split_at_mut(h / 2));
    ([l0, l1, l2, l3], [h0, h1, h2, h3])
}
