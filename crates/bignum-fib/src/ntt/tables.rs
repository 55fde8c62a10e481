//! Twiddle tables, built once per engine and shared by every later product up to their
//! length (a shorter table is a prefix of a longer one, so growing one keeps its levels).

use core::ops::{Index, Range};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};

use super::engine::{ENGINES, Engine, PRIME_SLOTS};
use super::field::Field;
use super::field::pow_mod;
use super::plan::PAR_MIN_LEN;
use crate::par;

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
    #[cfg(test)]
    pub(super) fn new(e: Engine, len: usize, old: Option<&Tables>) -> Tables {
        let primes = e.fields().iter().enumerate().map(|(k, &f)| {
            let old = old.filter(|o| o.len >= 2 && k < o.fwd.len()).map(|o| PrimeTables {
                len: o.len,
                fwd: o.fwd[k].clone(),
                inv: o.inv[k].clone(),
                cube: o.cube[k].clone(),
            });
            PrimeTables::new(e, f, len, old.as_ref())
        });
        Tables::from_primes(len, primes)
    }

    /// The tables of the primes' tables, in order (each at least `len` long).
    fn from_primes(len: usize, primes: impl Iterator<Item = impl AsRef<PrimeTables>>) -> Tables {
        let (mut fwd, mut inv, mut cube) = (Vec::new(), Vec::new(), Vec::new());
        for p in primes {
            let p = p.as_ref();
            debug_assert!(p.len >= len);
            fwd.push(p.fwd.clone());
            inv.push(p.inv.clone());
            cube.push(p.cube.clone());
        }
        Tables { len, fwd, inv, cube }
    }

    /// The forward twiddles for prime `k`.
    pub(super) fn fwd(&self, k: usize) -> Fwd<'_> {
        Fwd { tw: &self.fwd[k], cube: &self.cube[k] }
    }
}

/// One prime's twiddles in one engine's form ([`Tables`] holds one per prime of its engine):
/// cached per prime, so that engines over the same primes share them (the FMA engine's
/// three-, four- and five-prime products, the portable and wide ones), and a product over
/// three primes builds three.
pub(super) struct PrimeTables {
    len: usize,
    fwd: Levels,
    inv: Levels,
    cube: Levels,
}

impl AsRef<PrimeTables> for PrimeTables {
    fn as_ref(&self) -> &PrimeTables {
        self
    }
}

impl PrimeTables {
    /// The twiddles of `f` in `e`'s form for `len` coefficients, sharing the levels of `old`.
    fn new(e: Engine, f: Field, len: usize, old: Option<&PrimeTables>) -> PrimeTables {
        let (mut t, mut u, mut c) = match old {
            Some(o) if o.len >= 2 => (o.fwd.clone(), o.inv.clone(), o.cube.clone()),
            _ => {
                let one = e.twiddle_level(f, [1].into_iter());
                (Levels(vec![one.clone()]), Levels(vec![one]), Levels::default())
            }
        };
        let with_cube = e.has_radix4_cube();
        let mut level = Vec::new();
        // The cube's level `q` (`q` values) is made with the level `h = 2q`.
        let mut h = t.len();
        while h < len {
            plain_level(f, h, &mut level);
            t.0.push(e.twiddle_level(f, level.iter().copied()));
            // w_{2h}^{−i} = w_{2h}^{2h−i} = −w_{2h}^{h−i} (w_{2h}^h = −1).
            let inv_level = core::iter::once(1).chain(level[1..].iter().rev().map(|&x| f.p - x));
            u.0.push(e.twiddle_level(f, inv_level));
            if with_cube && h < CUBE_MAX_LEN {
                // w_{4q}^{3i} = w_{2h}^{3i} for q = h/2, i < q: `level[3i]`, or past `h`
                // −`level[3i − h]` (w_{2h}^h = −1).
                let (low, high) = (h.div_ceil(3).min(h / 2), h / 2);
                let cubes = (0..low)
                    .map(|i| level[3 * i])
                    .chain((low..high).map(|i| f.p - level[3 * i - h]));
                c.0.push(e.twiddle_level(f, cubes));
            }
            h *= 2;
        }
        PrimeTables { len: len.max(old.map_or(0, |o| o.len)), fwd: t, inv: u, cube: c }
    }
}

/// `level` = `w_{2h}^i` for `i < h` (plain values), in eight interleaved chains (no long
/// dependency), the chains' values kept in registers.
fn plain_level(f: Field, h: usize, level: &mut Vec<u64>) {
    let w = f.root(2 * h as u64);
    let wm = f.to_mont(w);
    level.clear();
    level.resize(h, 0);
    let mut acc = [1u64; 8];
    for i in 1..8 {
        acc[i] = f.mul(acc[i - 1], wm);
    }
    let (head, rest) = level.split_at_mut(h.min(8));
    head.copy_from_slice(&acc[..head.len()]);
    let w8 = f.to_mont(pow_mod(w, 8, f.p));
    for chunk in rest.chunks_exact_mut(8) {
        for (a, x) in acc.iter_mut().zip(chunk) {
            *a = f.mul(*a, w8);
            *x = *a;
        }
    }
}

/// The cache of each prime's tables ([`Engine::prime_slot`]).
static PRIMES: [Mutex<Option<Arc<PrimeTables>>>; PRIME_SLOTS] =
    [const { Mutex::new(None) }; PRIME_SLOTS];

/// The tables of prime `k` of `e` for at least `len` coefficients, shared with every other
/// product over that prime in that form; `None` if `wait` is false and another thread is
/// building them.
fn prime_tables(e: Engine, k: usize, len: usize, wait: bool) -> Option<Arc<PrimeTables>> {
    let slot = &PRIMES[e.prime_slot(k)];
    let mut cache = if wait {
        slot.lock().unwrap_or_else(PoisonError::into_inner)
    } else {
        match slot.try_lock() {
            Ok(c) => c,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        }
    };
    Some(match &*cache {
        Some(t) if t.len >= len => t.clone(),
        old => {
            let t = Arc::new(PrimeTables::new(e, e.fields()[k], len, old.as_deref()));
            *cache = Some(t.clone());
            t
        }
    })
}

/// Tables for at least `len` coefficients: the primes' tables ([`PrimeTables`], shared by
/// every engine in the same form over the same primes), gathered per engine.
///
/// Threads that need the same new tables at once (the two squarings of a Fibonacci step on
/// two threads) share the work: each builds the primes no other thread is building, then
/// waits for the others. With a budget of several threads (`par`), from the transform
/// length where a transform splits, the primes are built on them.
pub(super) fn tables(e: Engine, len: usize) -> Arc<Tables> {
    static CACHE: [Mutex<Option<Arc<Tables>>>; ENGINES] = [const { Mutex::new(None) }; ENGINES];
    let cache = &CACHE[e.index()];
    if let Some(t) = &*cache.lock().unwrap_or_else(PoisonError::into_inner)
        && t.len >= len
    {
        return t.clone();
    }
    let mut primes = vec![None; e.fields().len()];
    let build = |(k, slot): (usize, &mut Option<Arc<PrimeTables>>)| {
        *slot = prime_tables(e, k, len, false);
    };
    par::each(primes.iter_mut().enumerate().collect(), len, PAR_MIN_LEN, &build);
    for (k, slot) in primes.iter_mut().enumerate() {
        if slot.is_none() {
            *slot = prime_tables(e, k, len, true);
        }
    }
    let t = Arc::new(Tables::from_primes(len, primes.into_iter().flatten()));
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.as_ref().is_none_or(|c| c.len < len) {
        *cache = Some(t.clone());
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Engines over the same primes in the same form share each prime's twiddles (one
    /// build, one copy in memory: the same levels), and engines in other forms do not.
    #[test]
    fn engines_over_the_same_primes_share_their_twiddles() {
        let mut engines = vec![Engine::Portable, Engine::Wide];
        for e in crate::ntt_engines() {
            engines.extend([Engine::with_primes(e, false), Engine::with_primes(e, true)]);
        }
        let len = 1 << 6;
        for &a in &engines {
            for &b in &engines {
                let (ta, tb) = (tables(a, len), tables(b, len));
                for k in 0..a.fields().len().min(b.fields().len()) {
                    let same = |x: &Levels, y: &Levels| {
                        x.0.iter().zip(&y.0).take(6).all(|(u, v)| Arc::ptr_eq(u, v))
                    };
                    let shared = same(&ta.fwd[k], &tb.fwd[k]) && same(&ta.inv[k], &tb.inv[k]);
                    let want = a.prime_slot(k) == b.prime_slot(k);
                    assert_eq!(shared, want, "{a:?} and {b:?}, prime {k}");
                    if want {
                        // The same prime, the same form.
                        let (f, g) = (a.fields()[k], b.fields()[k]);
                        assert_eq!(f.p, g.p, "{a:?} and {b:?}, prime {k}");
                        let form = |e: Engine| e.twiddle_level(f, [3, f.p - 2].into_iter());
                        assert_eq!(form(a), form(b), "{a:?} and {b:?}, prime {k}");
                    }
                }
            }
        }
    }
}
