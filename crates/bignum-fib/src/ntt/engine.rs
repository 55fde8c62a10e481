//! The NTT engines: which primes and butterflies a product uses, the choice of engine for
//! this CPU, and each engine's operations on one prime's values (loading limbs, the
//! butterfly stages, pointwise products, unloading the coefficients).
//!
//! The portable engine is scalar Montgomery arithmetic (`field`). The vector engines are
//! tokens from `arch::ntt`, whose existence proves the CPU support: the FMA engine (AVX2 +
//! FMA, AVX-512F, NEON; values are `f64` bits of integers in `(−2p, 2p)`, twiddles balanced)
//! and the AVX-512 IFMA engine (52-bit Montgomery form), which dispatch no longer picks but
//! the tests run. Every engine computes the same residues; the short transforms the vectors
//! cannot cover run the scalar stages here on the same representation.
//!
//! The engine is chosen per CPU in `dispatch` ([`NttEngine`], one `nab_isa::backends!`
//! list, whose kind [`EngineKind`] the multiplication ladder keys its thresholds on) and per
//! transform length here ([`Engine::for_len`]): the 50-bit engines need a fourth prime above
//! `2²¹` points (`plan::NARROW_MAX_LOG_LEN`).

#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::fma::Fma;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::ifma::Ifma;
#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::ntt::neon::Fma;
use std::sync::Arc;

use crate::dispatch::{EngineKind, NttEngine};

#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
use super::field::FIELDS52;
use super::field::{FIELDS, Field, WIDE_FIELDS};

/// Which primes and butterflies a product uses (the same for all its parts).
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
#[derive(Clone, Copy, Debug)]
pub(super) enum Engine {
    Portable,
    /// The portable arithmetic over four primes (the three of `Portable` and `FIELD4`),
    /// for the 112-bit coefficients of `wide_product`.
    Wide,
    /// AVX-512 IFMA (`arch::ntt::ifma`), the 50-bit primes in Montgomery form; `true`:
    /// four primes (transforms longer than `2²¹`), `false`: three.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Ifma(Ifma, bool),
    /// FMA on doubles (`arch::ntt::fma`, `arch::ntt::neon`), the 50-bit primes: residues are
    /// held as the bits of an `f64`, twiddles plain; over the first three, four (transforms
    /// longer than `2²¹`, as for `Ifma`) or five (`fma_wide_product`) of [`FIELDS52`].
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    Fma(Fma, u8),
}

impl Engine {
    /// The engine for transforms of up to `n` coefficients on this CPU.
    pub(super) fn for_len(n: usize) -> Engine {
        Engine::for_len_on(NttEngine::detect(), n)
    }

    /// The engine for transforms of up to `n` coefficients on `e`: the portable one beyond
    /// the 50-bit primes' longest transform, four of them above `2²¹` points.
    pub(super) fn for_len_on(e: NttEngine, n: usize) -> Engine {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if n.trailing_zeros() <= super::plan::MAX_LOG_LEN52 {
            return Engine::with_primes(e, n.trailing_zeros() > super::plan::NARROW_MAX_LOG_LEN);
        }
        let _ = (e, n); // only the 50-bit engines depend on them
        Engine::Portable
    }

    /// `e`'s engine with three primes, or four if `wide` (the portable engine has three).
    #[cfg_attr(
        not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
        allow(dead_code) // only the tests call it where there is no 50-bit engine
    )]
    pub(super) fn with_primes(e: NttEngine, wide: bool) -> Engine {
        let _ = wide; // only the 50-bit engines have a fourth prime
        match e.kind() {
            EngineKind::Portable(_) => Engine::Portable,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            EngineKind::Avx512Ifma(t) => Engine::Ifma(t, wide),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            EngineKind::Avx512fFma(t) | EngineKind::Avx2Fma(t) => {
                Engine::Fma(t, 3 + u8::from(wide))
            }
            #[cfg(all(target_arch = "aarch64", not(miri)))]
            EngineKind::NeonFma(t) => Engine::Fma(t, 3 + u8::from(wide)),
        }
    }

    /// The primes of the engine (three or four).
    pub(super) fn fields(self) -> &'static [Field] {
        match self {
            Engine::Portable => &FIELDS,
            Engine::Wide => &WIDE_FIELDS,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(_, wide) => &FIELDS52[..3 + usize::from(wide)],
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(_, primes) => &FIELDS52[..usize::from(primes)],
        }
    }

    /// Whether the engine's forward radix-4 passes take the `cube` twiddles (`Tables`).
    pub(super) fn has_radix4_cube(self) -> bool {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if let Engine::Fma(..) = self {
            return true;
        }
        false
    }

    /// The slot of the engine's prime `k` in the cache of each prime's twiddle tables
    /// (below [`PRIME_SLOTS`]): one per prime and twiddle form, so that the engines over
    /// the same primes in the same form share them (the portable and wide engines; the FMA
    /// engine over three, four and five primes; IFMA over three and four).
    pub(super) fn prime_slot(self, k: usize) -> usize {
        debug_assert!(k < self.fields().len());
        match self {
            Engine::Portable | Engine::Wide => k,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => WIDE_FIELDS.len() + k,
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => WIDE_FIELDS.len() + 4 + k,
        }
    }

    /// The engine's slot in the caches of twiddle tables (below [`ENGINES`]).
    pub(super) fn index(self) -> usize {
        match self {
            Engine::Portable => 0,
            Engine::Wide => 5,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(_, wide) => 1 + usize::from(wide),
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(_, primes) => [3, 4, 6][usize::from(primes) - 3],
        }
    }

    /// A limb as a residue: exact for the portable engine and (as `f64` bits) for the FMA
    /// engine, times `2⁻⁶⁴` for IFMA (whose primes are too small for [`Field::reduce`]);
    /// [`Engine::scale`] accounts for it.
    #[inline(always)]
    pub(super) fn load(self, f: Field, x: u64) -> u64 {
        match self {
            Engine::Portable | Engine::Wide => f.reduce(x),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => f.redc(u128::from(x)),
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => (f.mul(f.redc(u128::from(x)), f.r2) as f64).to_bits(),
        }
    }

    /// `dst` = the limbs of `src` loaded ([`Engine::load`]), zero-padded to `n`.
    /// `dst`'s old values (a kept buffer's, see `scratch`) are all overwritten.
    pub(super) fn load_into(self, f: Field, src: &[u64], dst: &mut Vec<u64>, n: usize) {
        debug_assert!(src.len() <= n);
        dst.truncate(n);
        dst.resize(n, 0);
        let (head, pad) = dst.split_at_mut(src.len());
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) => {
                let m = src.len() & !3;
                t.load(&mut head[..m], &src[..m], f.p as f64);
                for (d, &l) in head[m..].iter_mut().zip(&src[m..]) {
                    *d = self.load(f, l);
                }
            }
            _ => {
                for (d, &l) in head.iter_mut().zip(src) {
                    *d = self.load(f, l);
                }
            }
        }
        pad.fill(0);
    }

    /// The inverse transform's output of a length-`n` product turned into the coefficients
    /// (plain residues), by [`Engine::scale`].
    pub(super) fn finish(self, f: Field, x: &mut [u64], n: usize) {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) if n.is_multiple_of(4) => {
                let s = f.redc(u128::from(self.scale(f, n))); // plain
                // Balanced: the inverse transform's values are in (−2p, 2p), and the product
                // must stay below p² in magnitude (see `arch::ntt::fmacore`).
                let s = if s > f.p / 2 { s as f64 - f.p as f64 } else { s as f64 };
                t.unload(x, s, f.p as f64);
            }
            _ => {
                let scale = self.scale(f, n);
                for x in x.iter_mut() {
                    *x = f.mul(self.unload(f, *x), scale);
                }
            }
        }
    }

    /// A plain residue as the transforms hold it (the inverse of [`Engine::unload`]).
    #[cfg(test)]
    pub(super) fn encode(self, x: u64) -> u64 {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => (x as f64).to_bits(),
            _ => x,
        }
    }

    /// A level of twiddle factors (plain values) as the transforms read them: for the
    /// portable engines Shoup's pairs `(w, ⌊w·2⁶⁴/p⌋)` one after the other (`ntt::lazy`),
    /// else one value each, [`Engine::twiddle`].
    pub(super) fn twiddle_level(self, f: Field, plain: impl Iterator<Item = u64>) -> Arc<[u64]> {
        if matches!(self, Engine::Portable | Engine::Wide) {
            plain.flat_map(|w| f.shoup_pair(w)).collect()
        } else {
            plain.map(|w| self.twiddle(f, w)).collect()
        }
    }

    /// A twiddle factor `w` (plain) as the butterflies take it: `w` (the portable engines'
    /// first of Shoup's pair, [`Engine::twiddle_level`]), `w·2⁵² mod p` (IFMA) or balanced
    /// `f64` bits (FMA).
    pub(super) fn twiddle(self, f: Field, w: u64) -> u64 {
        match self {
            Engine::Portable | Engine::Wide => {
                let _ = f; // only the vector engines' forms depend on the prime
                w
            }
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => f.mul(f.to_mont(w), (1 << 52) % f.p),
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            // Balanced, |w| ≤ p/2: the lazy products need |a·w| < p² for |a| < 2p.
            Engine::Fma(..) => {
                let high = i64::from(w > f.p / 2); // no branch: the values are random
                (w as i64 - high * f.p as i64) as f64
            }
            .to_bits(),
        }
    }

    /// The constant `s` for which `f.mul(x, s)` turns the inverse transform's output of a
    /// length-`n` product into the coefficient: the inverse leaves `n·c` times the loading
    /// factors of both operands and the pointwise product's `R⁻¹`.
    pub(super) fn scale(self, f: Field, n: usize) -> u64 {
        let inv_n = f.p - (f.p - 1) / n as u64; // n | p − 1
        match self {
            // n·c·2⁻⁶⁴ → c: s = n⁻¹·2¹²⁸.
            Engine::Portable | Engine::Wide => f.to_mont(f.to_mont(inv_n)),
            // n·c·2⁻⁶⁴·2⁻⁶⁴·2⁻⁵² → c: s = n⁻¹·2²⁴⁴.
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => {
                let two = super::field::pow_mod(2, 244, f.p);
                ((u128::from(two) * u128::from(inv_n)) % u128::from(f.p)) as u64
            }
            // n·c (plain loads and pointwise products) → c: s = n⁻¹·2⁶⁴.
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => f.to_mont(inv_n),
        }
    }

    /// `x[i] = x[i]·y[i]` (`y = None`: `x[i]²`), in the engine's Montgomery form.
    pub(super) fn pointwise(self, f: Field, x: &mut [u64], y: Option<&[u64]>) {
        match self {
            Engine::Portable | Engine::Wide => match y {
                Some(y) => x.iter_mut().zip(y).for_each(|(x, &y)| *x = f.mul(*x, y)),
                None => x.iter_mut().for_each(|x| *x = f.mul(*x, *x)),
            },
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(t, _) => {
                if x.len().is_multiple_of(8) {
                    t.pointwise(x, y, f.p, f.pinv52);
                } else {
                    match y {
                        Some(y) => x.iter_mut().zip(y).for_each(|(x, &y)| *x = f.mul52(*x, y)),
                        None => x.iter_mut().for_each(|x| *x = f.mul52(*x, *x)),
                    }
                }
            }
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) => {
                if x.len().is_multiple_of(4) {
                    t.pointwise(x, y, f.p as f64);
                } else {
                    let m = |a: u64, b: u64| (f64_mulmod(f, f64_decode(f, a), b) as f64).to_bits();
                    match y {
                        Some(y) => x.iter_mut().zip(y).for_each(|(x, &y)| *x = m(*x, y)),
                        None => x.iter_mut().for_each(|x| *x = m(*x, *x)),
                    }
                }
            }
        }
    }

    /// Two stages in one pass over blocks of `4h`: DIF the stage of half-length `2h`
    /// (twiddles `outer`) then `h` (`inner`); DIT `h` then `2h`. The FMA engine's DIF
    /// pass takes `cube` too (`Tables`; the others do not read it), and its DIT pass with
    /// `LAZY` reduces one input of four, for outputs in `(−2.71p, 2.71p)` that only further
    /// DIT passes read (`fmacore::stage2`).
    #[inline(always)]
    pub(super) fn stage2<const DIT: bool, const LAZY: bool>(
        self,
        f: Field,
        x: &mut [u64],
        h: usize,
        outer: &[u64],
        inner: &[u64],
        cube: &[u64],
    ) {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) if h >= 4 => {
                t.stage2::<DIT, LAZY>(x, h, outer, inner, cube, f.p as f64)
            }
            _ => {
                let _ = cube;
                if DIT {
                    self.stage::<true>(f, x, h, inner);
                    self.stage::<true>(f, x, 2 * h, outer);
                } else {
                    self.stage::<false>(f, x, 2 * h, outer);
                    self.stage::<false>(f, x, h, inner);
                }
            }
        }
    }

    /// The stages `h = 2` (twiddles `w`) and `h = 1` in one pass, where the engine has such
    /// a kernel (returns whether it ran): forward (DIF) `h = 2` then `h = 1`, inverse
    /// (`DIT`) `h = 1` then `h = 2`, the same values as [`Engine::stage`] and
    /// [`Engine::radix2`].
    #[inline(always)]
    pub(super) fn tail4<const DIT: bool>(self, f: Field, x: &mut [u64], w: &[u64]) -> bool {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) if x.len().is_multiple_of(16) => {
                t.tail4::<DIT>(x, w, f.p as f64);
                true
            }
            _ => {
                let _ = (f, x, w);
                false
            }
        }
    }

    /// The twiddle-free stage `h = 1` (the last of the forward transform, the first of the
    /// inverse).
    #[inline(always)]
    pub(super) fn radix2(self, f: Field, x: &mut [u64]) {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) => {
                if x.len().is_multiple_of(8) {
                    t.radix2(x, f.p as f64);
                } else {
                    f64_scalar(f, x, |x| radix2_stage(f, x));
                }
            }
            _ => radix2_stage(f, x),
        }
    }

    /// `out[i] = s·(a[i] + t·y[i]) mod p` (`a = None`: `out[i]` in place; `y = None`:
    /// `s·a[i]`) on the FMA engine's values (`f64` bits, `|·| < 2p`; results in
    /// `(−1.25p, 1.25p)`, see `arch::ntt::fmacore::comb`), `t` plain, `s` balanced.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    pub(super) fn comb(
        self,
        f: Field,
        out: &mut [u64],
        a: Option<&[u64]>,
        y: Option<&[u64]>,
        t: u64,
        s: f64,
    ) {
        let Engine::Fma(tk, _) = self else { unreachable!("comb is the FMA engine's") };
        let tb = f64::from_bits(self.twiddle(f, t));
        let done = tk.comb(out, a, y, tb, s, f.p as f64);
        let m = |a: u64, b: u64| ((u128::from(a) * u128::from(b)) % u128::from(f.p)) as u64;
        for i in done..out.len() {
            let v = f64_decode(f, a.map_or(out[i], |a| a[i]));
            let v = y.map_or(v, |y| f.add(v, m(f64_decode(f, y[i]), t)));
            let si = (s as i64).rem_euclid(f.p as i64) as u64;
            out[i] = (m(v, si) as f64).to_bits();
        }
    }

    /// The truncated products' fold (see `arch::ntt::fmacore::fold`): `out[i] = (lo[i] +
    /// α·hi[i])·w[i]` and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `d` in place),
    /// `α` plain, `w` a table in the engine's form.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    #[allow(clippy::too_many_arguments)] // the kernel's operands
    pub(super) fn fold(
        self,
        f: Field,
        out: &mut [u64],
        mut d: Option<&mut [u64]>,
        lo: Option<&[u64]>,
        hi: &[u64],
        alpha: u64,
        w: &[u64],
    ) {
        let Engine::Fma(tk, _) = self else { unreachable!("fold is the FMA engine's") };
        let ab = f64::from_bits(self.twiddle(f, alpha));
        let done = tk.fold(out, d.as_deref_mut(), lo, hi, ab, w, f.p as f64);
        let m = |a: u64, b: u64| ((u128::from(a) * u128::from(b)) % u128::from(f.p)) as u64;
        for i in done..out.len() {
            let l = f64_decode(f, lo.map_or_else(|| d.as_ref().map_or(0, |d| d[i]), |lo| lo[i]));
            let h = m(f64_decode(f, hi[i]), alpha);
            out[i] = (m(f.add(l, h), f64_decode(f, w[i])) as f64).to_bits();
            if let Some(d) = d.as_deref_mut() {
                d[i] = (f.sub(l, h) as f64).to_bits();
            }
        }
    }

    /// A transform's output as plain residues (the FMA engine's are `f64` bits).
    #[inline(always)]
    pub(super) fn unload(self, f: Field, x: u64) -> u64 {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => f64_decode(f, x),
            _ => {
                let _ = f; // only the FMA engine needs the modulus
                x
            }
        }
    }

    /// One stage on blocks of `2h`: decimation in frequency, `(a, b) → (a + b, (a − b)·w^i)`,
    /// or with `DIT` decimation in time, `(a, b) → (a + b·w^i, a − b·w^i)`. The portable
    /// engines' stage is the fully reduced reference the tests compare with (twiddles
    /// `w·2⁶⁴ mod p`, Montgomery's product); their transforms are `ntt::lazy`'s.
    #[inline(always)]
    pub(super) fn stage<const DIT: bool>(self, f: Field, x: &mut [u64], h: usize, w: &[u64]) {
        match self {
            Engine::Portable | Engine::Wide => scalar_stage::<DIT>(f, x, h, w, Field::mul),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(t, _) => {
                if x.len() >= 16 {
                    t.stage::<DIT>(x, h, w, f.p, f.pinv52);
                } else {
                    scalar_stage::<DIT>(f, x, h, w, Field::mul52);
                }
            }
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) => {
                if x.len() >= 8 {
                    t.stage::<DIT>(x, h, w, f.p as f64);
                } else {
                    f64_scalar(f, x, |x| scalar_stage::<DIT>(f, x, h, w, f64_mulmod));
                }
            }
        }
    }
}

/// The number of engine slots in the caches ([`Engine::index`]).
pub(super) const ENGINES: usize = 7;

/// The number of slots in the cache of each prime's twiddle tables ([`Engine::prime_slot`]):
/// the wide engine's five primes, IFMA's four, the FMA engine's five (`FIELDS52`).
pub(super) const PRIME_SLOTS: usize = WIDE_FIELDS.len() + 4 + 5;

/// The FMA engine's residue (`f64` bits of an integer in `(−2p, 2p)`) as a plain one.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn f64_decode(f: Field, v: u64) -> u64 {
    (f64::from_bits(v) as i64).rem_euclid(f.p as i64) as u64
}

/// `a·b mod p` for a plain residue `a` and a residue `b` held as `f64` bits (the FMA
/// engine's twiddles and transforms), plain.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn f64_mulmod(f: Field, a: u64, b: u64) -> u64 {
    let b = f64_decode(f, b);
    ((u128::from(a) * u128::from(b)) % u128::from(f.p)) as u64
}

/// Runs the scalar `stage` on `x` (residues as `f64` bits) as plain integers: the FMA
/// engine's transforms too short for its vectors.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn f64_scalar(f: Field, x: &mut [u64], stage: impl FnOnce(&mut [u64])) {
    x.iter_mut().for_each(|v| *v = f64_decode(f, *v));
    stage(x);
    x.iter_mut().for_each(|v| *v = (*v as f64).to_bits());
}

/// A stage of scalar butterflies (DIF, or DIT when `DIT`) with the product `mul`.
#[inline(always)]
pub(super) fn scalar_stage<const DIT: bool>(
    f: Field,
    x: &mut [u64],
    h: usize,
    w: &[u64],
    mul: impl Fn(Field, u64, u64) -> u64,
) {
    for block in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = block.split_at_mut(h);
        for ((a, b), &w) in lo.iter_mut().zip(hi.iter_mut()).zip(&w[..h]) {
            if DIT {
                let t = mul(f, *b, w);
                let (s, d) = (f.add(*a, t), f.sub(*a, t));
                *a = s;
                *b = d;
            } else {
                let (s, d) = (f.add(*a, *b), f.sub(*a, *b));
                *a = s;
                *b = mul(f, d, w);
            }
        }
    }
}

/// The last DIF (first DIT) stage, `h = 1`: the twiddle is 1.
#[inline(always)]
pub(super) fn radix2_stage(f: Field, x: &mut [u64]) {
    for pair in x.chunks_exact_mut(2) {
        let (a, b) = (pair[0], pair[1]);
        pair[0] = f.add(a, b);
        pair[1] = f.sub(a, b);
    }
}
