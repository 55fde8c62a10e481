//! Twiddle tables, built once per engine and shared by every later product up to their
//! length (a shorter table is a prefix of a longer one, so growing one keeps its levels).

use core::ops::{Index, Range};
use std::sync::{Arc, Mutex, PoisonError};

use super::engine::{ENGINES, Engine};
#[cfg(test)]
use super::field::Field;
use super::field::pow_mod;

/// One prime's twiddles of one kind, level by level: level `j` holds the `2^j` values of
/// half-length `h = 2^j` (`[h, 2h)` of the flat layout `t[h + i]`, which indexing by
/// `h..2h` still reads; twice as many for the portable engines, Shoup's pairs, see
/// `Engine::twiddle_level`). A longer table shares the levels of the shorter one it grew
/// from (`Arc`): growing copies nothing and touches only the new levels' memory, which
/// matters on a process's first large product, where fresh pages are most of the cost.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub(super) struct Levels(Vec<Arc<[u64]>>);

impl Levels {
    /// Level `h..2h` (`h` a power of two), or `None` past the last.
    pub(super) fn get(&self, r: Range<usize>) -> Option<&[u64]> {
        debug_assert!(r.start.is_power_of_two() && r.end == 2 * r.start, "not a level: {r:?}");
        self.0.get(r.start.trailing_zeros() as usize).map(|l| &l[..])
    }

    /// The length of the flat layout (`2^levels`; 0 when empty).
    pub(super) fn len(&self) -> usize {
        if self.0.is_empty() { 0 } else { 1 << self.0.len() }
    }

    /// Whether there is no level.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The flat layout (`t[h + i]`, `t[0] = 0`), for the tests.
    #[cfg(test)]
    pub(super) fn flat(&self) -> Vec<u64> {
        let mut v = vec![0];
        self.0.iter().for_each(|l| v.extend_from_slice(l));
        v
    }

    /// From the flat layout of plain values, in the engine `e`'s form
    /// ([`Engine::twiddle_level`]), for the tests.
    #[cfg(test)]
    pub(super) fn from_plain(e: Engine, f: Field, t: &[u64]) -> Levels {
        let mut h = 1;
        let mut levels = Vec::new();
        while 2 * h <= t.len() {
            levels.push(e.twiddle_level(f, t[h..2 * h].iter().copied()));
            h *= 2;
        }
        Levels(levels)
    }
}

impl Index<Range<usize>> for Levels {
    type Output = [u64];
    fn index(&self, r: Range<usize>) -> &[u64] {
        let (start, end) = (r.start, r.end);
        self.get(r).unwrap_or_else(|| panic!("no twiddle level {start}..{end}"))
    }
}

impl Index<usize> for Levels {
    type Output = u64;
    /// Value `i` of the flat layout (`i >= 1`).
    fn index(&self, i: usize) -> &u64 {
        let j = i.ilog2();
        &self.0[j as usize][i - (1 << j)]
    }
}

/// Twiddle tables for transforms up to `len` coefficients: `fwd[k][h + i] = w_{2h}^i` and
/// `inv[k][h + i] = w_{2h}^{−i}` modulo prime `k`, in the engine's form, for
/// `h = 1, 2, 4, …, len/2`; for the FMA engine's forward radix-4 passes also
/// `cube[k][h + i] = w_{4h}^{3i}` for `h = 1, 2, …, min(len, CUBE_MAX_LEN)/4`
/// (`fmacore::stage2`; empty for the other engines). Each is [`Levels`].
pub(super) struct Tables {
    pub(super) len: usize,
    pub(super) fwd: Vec<Levels>,
    pub(super) inv: Vec<Levels>,
    pub(super) cube: Vec<Levels>,
}

/// The longest transform whose forward radix-4 passes all have the `cube` twiddles of
/// [`Tables`] (`fmacore::stage2`): every transform of `fma_wide_product` (`2¹⁷`), for
/// `2¹⁶` values per prime (512 KiB); the top passes of longer ones take the radix-2 form,
/// and their tables (four primes at F(10⁹)'s `2²⁴` points) no more memory.
pub(super) const CUBE_MAX_LEN: usize = 1 << 17;

/// A forward transform's twiddles, as [`Tables`] holds them for one prime: `tw[h + i] =
/// w_{2h}^i` and `cube[h + i] = w_{4h}^{3i}` (empty where the engine has no use for it).
#[derive(Clone, Copy)]
pub(super) struct Fwd<'a> {
    pub(super) tw: &'a Levels,
    pub(super) cube: &'a Levels,
}

impl<'a> Fwd<'a> {
    /// The `cube` twiddles of the radix-4 pass on blocks of `4h`, `w_{4h}^{3i}` for `i < h`
    /// (empty if the table has none: another engine's, or `4h` above [`CUBE_MAX_LEN`]).
    pub(super) fn cube(self, h: usize) -> &'a [u64] {
        self.cube.get(h..2 * h).unwrap_or(&[])
    }
}

impl Tables {
    /// The tables for `len`, sharing the levels of `old` (the layout does not depend on the
    /// length: a shorter table's levels are a longer one's first).
    pub(super) fn new(e: Engine, len: usize, old: Option<&Tables>) -> Tables {
        let mut fwd = Vec::with_capacity(e.fields().len());
        let mut inv = Vec::with_capacity(e.fields().len());
        let mut cubes = Vec::with_capacity(e.fields().len());
        let with_cube = e.has_radix4_cube();
        let mut level = Vec::new();
        for (k, &f) in e.fields().iter().enumerate() {
            let (mut t, mut u, mut c) = match old {
                Some(o) if o.len >= 2 && k < o.fwd.len() => {
                    (o.fwd[k].clone(), o.inv[k].clone(), o.cube[k].clone())
                }
                _ => {
                    let one = e.twiddle_level(f, [1].into_iter());
                    (Levels(vec![one.clone()]), Levels(vec![one]), Levels::default())
                }
            };
            // The cube's level `q` (`q` values) is made with the level `h = 2q`.
            let mut h = t.len();
            while h < len {
                // Plain w_{2h}^i, i < h, in eight interleaved chains (no long dependency).
                let w = f.root(2 * h as u64);
                let wm = f.to_mont(w);
                level.clear();
                level.push(1u64);
                for i in 1..h.min(8) {
                    level.push(f.mul(level[i - 1], wm));
                }
                let w8 = f.to_mont(pow_mod(w, 8, f.p));
                for i in 8..h {
                    level.push(f.mul(level[i - 8], w8));
                }
                t.0.push(e.twiddle_level(f, level.iter().copied()));
                // w_{2h}^{−i} = w_{2h}^{2h−i} = −w_{2h}^{h−i} (w_{2h}^h = −1).
                let inv_level =
                    core::iter::once(1).chain(level[1..].iter().rev().map(|&x| f.p - x));
                u.0.push(e.twiddle_level(f, inv_level));
                if with_cube && h < CUBE_MAX_LEN {
                    // w_{4q}^{3i} = w_{2h}^{3i} for q = h/2, i < q: `level[3i]`, or past `h`
                    // −`level[3i − h]` (w_{2h}^h = −1).
                    c.0.push(
                        (0..h / 2)
                            .map(|i| {
                                let x =
                                    if 3 * i < h { level[3 * i] } else { f.p - level[3 * i - h] };
                                e.twiddle(f, x)
                            })
                            .collect(),
                    );
                }
                h *= 2;
            }
            fwd.push(t);
            inv.push(u);
            cubes.push(c);
        }
        Tables { len, fwd, inv, cube: cubes }
    }

    /// The forward twiddles for prime `k`.
    pub(super) fn fwd(&self, k: usize) -> Fwd<'_> {
        Fwd { tw: &self.fwd[k], cube: &self.cube[k] }
    }
}

/// Tables for at least `len` coefficients, shared with every other product of the engine.
/// The FMA engine's products over three and four primes take the five-prime tables (the
/// same primes first) up to [`CUBE_MAX_LEN`], so that one table serves every product of
/// F(10⁷)'s size; longer transforms keep their own (the fifth prime's would be memory for
/// nothing at F(10⁹)'s `2²⁴` points).
pub(super) fn tables(e: Engine, len: usize) -> Arc<Tables> {
    static CACHE: [Mutex<Option<Arc<Tables>>>; ENGINES] = [const { Mutex::new(None) }; ENGINES];
    let e = e.tables_engine(len, CUBE_MAX_LEN);
    let mut cache = CACHE[e.index()].lock().unwrap_or_else(PoisonError::into_inner);
    match &*cache {
        Some(t) if t.len >= len => t.clone(),
        old => {
            let t = Arc::new(Tables::new(e, len, old.as_deref()));
            *cache = Some(t.clone());
            t
        }
    }
}
