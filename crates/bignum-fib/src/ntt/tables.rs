//! Twiddle tables, built once per engine and shared by every later product up to their
//! length (a shorter table is a prefix of a longer one, so growing one keeps its levels).

use std::sync::{Arc, Mutex, PoisonError};

use super::engine::{ENGINES, Engine};
use super::field::pow_mod;

/// Twiddle tables for transforms up to `len` coefficients: `fwd[k][h + i] = w_{2h}^i` and
/// `inv[k][h + i] = w_{2h}^{−i}` modulo prime `k`, in the engine's form, for
/// `h = 1, 2, 4, …, len/2`; for the FMA engine's forward radix-4 passes also
/// `cube[k][h + i] = w_{4h}^{3i}` for `h = 1, 2, …, min(len, CUBE_MAX_LEN)/4`
/// (`fmacore::stage2`; empty for the other engines).
pub(super) struct Tables {
    pub(super) len: usize,
    pub(super) fwd: Vec<Vec<u64>>,
    pub(super) inv: Vec<Vec<u64>>,
    pub(super) cube: Vec<Vec<u64>>,
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
    pub(super) tw: &'a [u64],
    pub(super) cube: &'a [u64],
}

impl<'a> Fwd<'a> {
    /// The `cube` twiddles of the radix-4 pass on blocks of `4h`, `w_{4h}^{3i}` for `i < h`
    /// (empty if the table has none: another engine's, or `4h` above [`CUBE_MAX_LEN`]).
    pub(super) fn cube(self, h: usize) -> &'a [u64] {
        self.cube.get(h..2 * h).unwrap_or(&[])
    }
}

impl Tables {
    /// The tables for `len`, reusing the levels of `old` (the layout does not depend on the
    /// length: a shorter table is a prefix of a longer one).
    pub(super) fn new(e: Engine, len: usize, old: Option<&Tables>) -> Tables {
        let size = len.max(2);
        let mut fwd = Vec::with_capacity(e.fields().len());
        let mut inv = Vec::with_capacity(e.fields().len());
        let mut cubes = Vec::with_capacity(e.fields().len());
        let with_cube = e.has_radix4_cube();
        let mut level = Vec::new();
        for (k, &f) in e.fields().iter().enumerate() {
            let (mut t, mut u) = (Vec::with_capacity(size), Vec::with_capacity(size));
            let mut c = Vec::with_capacity(if with_cube { size.min(CUBE_MAX_LEN) / 2 } else { 0 });
            let mut h = match old {
                Some(o) if o.len >= 2 => {
                    t.extend_from_slice(&o.fwd[k][..o.len]);
                    u.extend_from_slice(&o.inv[k][..o.len]);
                    c.extend_from_slice(&o.cube[k][..o.cube[k].len().min(o.len / 2)]);
                    o.len
                }
                _ => {
                    let one = e.twiddle(f, 1);
                    t.extend([0, one]);
                    u.extend([0, one]);
                    if with_cube {
                        c.push(0);
                    }
                    2
                }
            };
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
                t.extend(level.iter().map(|&x| e.twiddle(f, x)));
                // w_{2h}^{−i} = w_{2h}^{2h−i} = −w_{2h}^{h−i} (w_{2h}^h = −1).
                u.push(e.twiddle(f, 1));
                u.extend(level[1..].iter().rev().map(|&x| e.twiddle(f, f.p - x)));
                if with_cube && h < CUBE_MAX_LEN {
                    // w_{4q}^{3i} = w_{2h}^{3i} for q = h/2, i < q: `level[3i]`, or past `h`
                    // −`level[3i − h]` (w_{2h}^h = −1).
                    c.extend((0..h / 2).map(|i| {
                        let x = if 3 * i < h { level[3 * i] } else { f.p - level[3 * i - h] };
                        e.twiddle(f, x)
                    }));
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
pub(super) fn tables(e: Engine, len: usize) -> Arc<Tables> {
    static CACHE: [Mutex<Option<Arc<Tables>>>; ENGINES] = [const { Mutex::new(None) }; ENGINES];
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
