//! Multiplication of large numbers by number-theoretic transforms (NTT) over three primes.
//!
//! Each 64-bit limb is one coefficient. The cyclic convolution of the two limb vectors is
//! computed modulo three primes `p₁, p₂, p₃ ∈ (2⁶¹, 2⁶²)`, each `c·2⁴⁰ + 1`, whose product
//! (≈2¹⁸⁶) exceeds every coefficient of the product (`< N·2¹²⁸`, `N ≤ 2⁴⁰`), so the Chinese
//! remainder theorem (Garner's form) gives each coefficient exactly; the coefficients are
//! then added with carries at their limb offsets.
//!
//! - Arithmetic mod `p`: Montgomery multiplication with `R = 2⁶⁴` (one 64×64→128 product
//!   and two 64-bit multiplications), values fully reduced in `[0, p)`. Twiddle factors are
//!   stored as `w·R mod p`, so `redc(x · wR) = x·w` needs no conversion.
//! - Forward transform: decimation in frequency, natural order in, bit-reversed order out;
//!   inverse: decimation in time, bit-reversed in, natural out. The pointwise product does
//!   not care about the order, so no bit-reversal pass is made. Both recurse on halves above
//!   [`BLOCK`] coefficients (so that all stages of a block run in cache) and loop stage by
//!   stage below it.
//! - Squaring transforms its operand once per prime instead of twice.
//! - The twiddle tables (`w_{2h}^i` at `h + i` for every half-length `h`, independent of the
//!   transform length) are built once and shared by all later products up to that length.
//! - The transforms' buffers are kept per thread for the next product (`scratch`: at most 8,
//!   of at most `2²¹` values): fresh ones cost page faults and the kernel's zeroing.
//!
//! - Three engines ([`Engine`]): the portable one above; on x86_64 CPUs with AVX2 + FMA
//!   (x86-64-v3) one over primes below `2⁵⁰` held in doubles, four at a time in
//!   `crate::arch::fma` and eight with AVX-512F (`crate::arch::fma512`), and on aarch64 two
//!   with NEON (`crate::arch::neon`), all one generic transform (`crate::arch::fmacore`):
//!   FLINT 3's `fft_small` design, the quotient and remainder of `a·b` by `p` from FMAs,
//!   lazy reduction (the error bound is at `crate::arch::fmacore`); and on CPUs with AVX-512 IFMA one
//!   over the same primes in 52-bit Montgomery form (`crate::arch::ifma`, `R = 2⁵²`), which
//!   dispatch no longer picks (the eight-lane FMA engine measures faster) but the tests
//!   still run. The CRT is the same scalar code for all (`R = 2⁶⁴`), with the engine's
//!   primes and constants.
//! - The 50-bit engines' prime count, from the CRT bound: a cyclic convolution of length `N`
//!   of 64-bit limbs has coefficients below `N·2¹²⁸`; three primes (product `2^149.9997`)
//!   cover `N ≤ 2²¹`, so longer transforms add a fourth (product `2^199.9993`, enough for
//!   every length the primes `≡ 1 mod 2³²` allow). 64-bit coefficients keep the limb layout
//!   (the split products and the `B^n − 1` products of the decimal conversion need it); the
//!   fourth prime costs a third more per point than three, no more than smaller coefficients
//!   would (48-bit ones: `4/3` as many points over three primes). F(10⁹) needs `2²⁴`.
//!
//! Lengths are powers of two; a product of `m` limbs takes a transform of the next power of
//! two at or above `m − 1` coefficients (or is split, see [`coefficients`]).
//!
//! - The FMA engine's truncated products ([`truncated`]): a product of `L` coefficients with
//!   `N/2 < L ≤ N − N/2^K` (`K ≤ 3`) takes `K` transforms of lengths `N/2, N/4, …, N/2^K`
//!   (the residues mod `x^{N/2} − 1` and mod `x^{N/2^{k+1}} − α_k`, twisted cyclic
//!   convolutions) instead of one of `N`, recombined modulo each prime from the zero top
//!   coefficients: F(10⁶)'s products (66 % of their power of two, `K = 2`) take 32 % fewer
//!   butterflies, F(10⁷)'s squarings (83 %, `K = 3`) 21 %. The coefficients, and so the CRT
//!   bound, are those of the padded product: nothing changes in the coefficient size.
//!
//! - The FMA engine's wide products ([`fma_wide_product`]): all five 50-bit primes (product
//!   `2^249.9991`) with 116-bit coefficients (`2·116 + 17 = 249`: transforms up to `2¹⁷`),
//!   where that halves a transform of `2¹⁰` points or more ([`fma_wide_plan`]): F(10⁷)'s
//!   last product takes `5·2¹⁶` points instead of `3·2¹⁷`, its squarings before `5·2¹⁵`
//!   instead of `3·2¹⁶`, and so on down.
//!
//! - The portable engine's wide products ([`wide_product`]): four primes (a fourth and a
//!   fifth `c·2⁴⁰ + 1`) with coefficients of 112 bits (`7/4` limbs), or five with 140-bit
//!   coefficients (`35/16` limbs), both `2.29` prime-points per limb against three, take a
//!   transform of half the length where a product's coefficients fill little of their
//!   power of two, when that takes fewer butterflies ([`wide_plan`]): F(10⁷)'s squarings
//!   take `4·2¹⁶` points instead of `3·2¹⁷`, F(10⁸)'s `5·2¹⁹` instead of `3·2²⁰ + 3·2¹⁶`
//!   (split). The bounds: a length-`N` convolution of `b`-bit coefficients is below
//!   `N·2^(2b)`; the four primes' product is `2^247.9998` (`2·112 + 23`: `N ≤ 2²³`), the
//!   five's `2^309.9998` (`2·140 + 23 = 303`); the unit tests check both exactly and square
//!   `B^m − 1` at `2²³` (four primes) and `2²²` (five).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::fma::Fma;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::ifma::Ifma;
#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::ntt::neon::Fma;

/// Transforms of at most this many coefficients run stage by stage (32 KiB: L1-resident);
/// longer ones recurse on their halves after their top stage.
const BLOCK: usize = 1 << 12;

/// The largest transform: the primes are `≡ 1 (mod 2⁴⁰)`, and the CRT bound needs
/// `N·2¹²⁸ < p₁p₂p₃`.
const MAX_LOG_LEN: u32 = 40;

/// The largest transform of the 50-bit engines over three primes: their product is
/// `2^149.9997`, and a cyclic convolution of length `N` has coefficients below `N·2¹²⁸`.
/// Longer transforms add the fourth prime (product `2^199.9993`).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
const NARROW_MAX_LOG_LEN: u32 = 21;

/// The largest transform of the 50-bit engines: their primes are `≡ 1 (mod 2³²)`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
const MAX_LOG_LEN52: u32 = 32;

/// `2⁵² − 1`.
const LOW52: u64 = (1 << 52) - 1;

/// Arithmetic modulo an odd prime `p < 2⁶²` in Montgomery form (`R = 2⁶⁴`), and the 52-bit
/// Montgomery product of the IFMA engine (`R = 2⁵²`, for `p < 2⁵⁰`).
#[derive(Clone, Copy, Debug)]
struct Field {
    p: u64,
    /// `p⁻¹ mod 2⁶⁴`.
    pinv: u64,
    /// `−p⁻¹ mod 2⁵²`.
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
    pinv52: u64,
    /// `2¹²⁸ mod p`: `redc(x · r2) = x·R mod p`.
    r2: u64,
    /// `2⁶² − p`: reduces any 64-bit value with one multiplication (for `p > 2⁶¹`).
    delta: u64,
    /// A generator of the multiplicative group.
    generator: u64,
}

const fn pow_mod(b: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1u128;
    let mut bb = b as u128 % p as u128;
    while e > 0 {
        if e & 1 == 1 {
            r = r * bb % p as u128;
        }
        bb = bb * bb % p as u128;
        e >>= 1;
    }
    r as u64
}

impl Field {
    const fn new(p: u64, generator: u64) -> Field {
        // Newton's iteration for the inverse mod 2⁶⁴: each step doubles the correct bits.
        let mut inv = p;
        let mut i = 0;
        while i < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
            i += 1;
        }
        let r = ((1u128 << 64) % p as u128) as u64;
        let r2 = ((r as u128 * r as u128) % p as u128) as u64;
        let delta = (1u64 << 62).saturating_sub(p);
        Field { p, pinv: inv, pinv52: inv.wrapping_neg() & LOW52, r2, delta, generator }
    }

    /// `t · R⁻¹ mod p` for `t < p·2⁶⁴`, fully reduced.
    #[inline(always)]
    fn redc(self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.pinv);
        let mp = u128::from(m) * u128::from(self.p);
        // `t − m·p` is divisible by 2⁶⁴ (the low halves are equal), and lies in (−p·2⁶⁴, p·2⁶⁴).
        self.fix((t >> 64) as u64, (mp >> 64) as u64)
    }

    /// `a · b · R⁻¹ mod p` for any `a` and `b < p` (so `b` is usually a constant in
    /// Montgomery form and the result `a·(b/R)`).
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        self.redc(u128::from(a) * u128::from(b))
    }

    /// `a · b · 2⁻⁵² mod p` for `a < 2⁵²`, `b < p < 2⁵⁰`: what `crate::arch::ifma` computes
    /// per lane, for the transforms too short for its vectors.
    #[inline(always)]
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
    fn mul52(self, a: u64, b: u64) -> u64 {
        let t = u128::from(a) * u128::from(b);
        let m = (t as u64 & LOW52).wrapping_mul(self.pinv52) & LOW52;
        let s = ((t + u128::from(m) * u128::from(self.p)) >> 52) as u64; // < 2p
        self.fix(s, self.p)
    }

    /// `a − b mod p` for `a, b < 2⁶²` with `a − b ∈ (−p, p)`, without a branch: the sign bit
    /// of the difference selects the correction (a comparison would let the compiler emit a
    /// branch, which the NTT's random data mispredicts half the time).
    #[inline(always)]
    fn fix(self, a: u64, b: u64) -> u64 {
        let d = a.wrapping_sub(b);
        let negative = ((d as i64) >> 63) as u64;
        d.wrapping_add(self.p & negative)
    }

    #[inline(always)]
    fn add(self, a: u64, b: u64) -> u64 {
        self.fix(a + b, self.p) // both < p < 2⁶²
    }

    #[inline(always)]
    fn sub(self, a: u64, b: u64) -> u64 {
        self.fix(a, b)
    }

    /// Any 64-bit value mod `p > 2⁶¹`: `x = h·2⁶² + l ≡ h·δ + l`, which is below `2p`.
    #[inline(always)]
    fn reduce(self, x: u64) -> u64 {
        let t = (x >> 62) * self.delta + (x & ((1 << 62) - 1));
        self.fix(t, self.p) // t < 2⁶² + 3δ < 2p
    }

    /// `x · R mod p`.
    fn to_mont(self, x: u64) -> u64 {
        self.mul(x, self.r2)
    }

    /// A primitive `n`-th root of unity (`n` a power of two dividing `p − 1`), plain form.
    fn root(self, n: u64) -> u64 {
        pow_mod(self.generator, (self.p - 1) / n, self.p)
    }
}

/// The portable engine's primes: the three `c·2⁴⁰ + 1` below `2⁶²` with the largest `c`,
/// and their least generators (checked by the unit tests).
const FIELDS: [Field; 3] = [
    Field::new(0x3fff_c000_0000_0001, 11),
    Field::new(0x3fff_be00_0000_0001, 3),
    Field::new(0x3fff_8400_0000_0001, 19),
];

/// The fourth prime of the portable engine's wide products ([`wide_product`]): the next
/// `c·2⁴⁰ + 1` below the three of [`FIELDS`], and its least generator.
const FIELD4: Field = Field::new(0x3fff_8100_0000_0001, 5);

/// The fifth prime of the wide products ([`WIDE5`]).
const FIELD5: Field = Field::new(0x3fff_6d00_0000_0001, 3);

/// The primes of [`Engine::Wide`]: the first four's product is `2^247.9998`, the five's
/// `2^309.9998`.
const WIDE_FIELDS: [Field; 5] = [FIELDS[0], FIELDS[1], FIELDS[2], FIELD4, FIELD5];

/// The 50-bit engines' primes: the five `c·2³² + 1` below `2⁵⁰` with the largest `c`;
/// transforms up to `2²¹` use the first three, longer ones four, and the FMA engine's wide
/// products ([`fma_wide_product`]) all five.
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
const FIELDS52: [Field; 5] = [
    Field::new(0x0003_fff3_0000_0001, 5),
    Field::new(0x0003_ffed_0000_0001, 7),
    Field::new(0x0003_ffeb_0000_0001, 3),
    Field::new(0x0003_ffc1_0000_0001, 3),
    // The fifth, for the FMA engine's wide products ([`fma_wide_product`]) only.
    Field::new(0x0003_ffc0_0000_0001, 11),
];

/// Which primes and butterflies a product uses (the same for all its parts).
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
#[derive(Clone, Copy, Debug)]
enum Engine {
    Portable,
    /// The portable arithmetic over four primes (the three of `Portable` and [`FIELD4`]),
    /// for the 112-bit coefficients of [`wide_product`].
    Wide,
    /// AVX-512 IFMA ([`crate::arch::ifma`]), the 50-bit primes in Montgomery form; `true`:
    /// four primes (transforms longer than `2²¹`), `false`: three.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Ifma(Ifma, bool),
    /// FMA on doubles (`crate::arch::fma`, `crate::arch::neon`), the 50-bit primes: residues are held as
    /// the bits of an `f64`, twiddles plain; over the first three, four (transforms longer
    /// than `2²¹`, as for `Ifma`) or five ([`fma_wide_product`]) of [`FIELDS52`].
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    Fma(Fma, u8),
}

impl Engine {
    /// The engine for transforms of up to `n` coefficients on this CPU.
    fn for_len(n: usize) -> Engine {
        #[cfg(all(target_arch = "aarch64", not(miri), not(bignum_fib_backend = "portable")))]
        if n.trailing_zeros() <= MAX_LOG_LEN52 {
            let wide = n.trailing_zeros() > NARROW_MAX_LOG_LEN;
            if let Some(t) = Fma::new() {
                return Engine::Fma(t, 3 + u8::from(wide));
            }
        }
        #[cfg(all(target_arch = "x86_64", not(miri), not(bignum_fib_backend = "portable")))]
        if n.trailing_zeros() <= MAX_LOG_LEN52 {
            // Eight lanes of doubles measure faster than IFMA's eight 52-bit Montgomery
            // lanes (F(10⁸): 0.25 against 0.29 s of CPU to compute, 1.63 against 1.98 s with
            // the decimal conversion), and every IFMA CPU has AVX-512F: IFMA only where
            // FMA is not allowed (never, today).
            let wide = n.trailing_zeros() > NARROW_MAX_LOG_LEN;
            match (Fma::new(), ifma()) {
                (Some(t), _) => return Engine::Fma(t, 3 + u8::from(wide)),
                (None, Some(t)) => return Engine::Ifma(t, wide),
                (None, None) => {}
            }
        }
        let _ = n;
        Engine::Portable
    }

    fn name(self) -> &'static str {
        match self {
            Engine::Portable | Engine::Wide => "portable",
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => "avx512ifma",
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) => t.name(),
        }
    }

    /// The primes of the engine (three or four).
    fn fields(self) -> &'static [Field] {
        match self {
            Engine::Portable => &FIELDS,
            Engine::Wide => &WIDE_FIELDS,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(_, wide) => &FIELDS52[..3 + usize::from(wide)],
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(_, primes) => &FIELDS52[..usize::from(primes)],
        }
    }

    /// Whether the engine's forward radix-4 passes take the `cube` twiddles ([`Tables`]).
    fn has_radix4_cube(self) -> bool {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if let Engine::Fma(..) = self {
            return true;
        }
        false
    }

    /// The engine's slot in the caches of twiddle tables (below [`ENGINES`]).
    fn index(self) -> usize {
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
    fn load(self, f: Field, x: u64) -> u64 {
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
    fn load_into(self, f: Field, src: &[u64], dst: &mut Vec<u64>, n: usize) {
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
    fn finish(self, f: Field, x: &mut [u64], n: usize) {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(t, _) if n.is_multiple_of(4) => {
                let s = f.redc(u128::from(self.scale(f, n))); // plain
                // Balanced: the inverse transform's values are in (−2p, 2p), and the product
                // must stay below p² in magnitude (see `crate::arch::fmacore`).
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
    fn encode(self, x: u64) -> u64 {
        match self {
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => (x as f64).to_bits(),
            _ => x,
        }
    }

    /// A twiddle factor `w` (plain) as the butterflies take it: `w·2⁶⁴` or `w·2⁵² mod p`.
    fn twiddle(self, f: Field, w: u64) -> u64 {
        match self {
            Engine::Portable | Engine::Wide => f.to_mont(w),
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
    fn scale(self, f: Field, n: usize) -> u64 {
        let inv_n = f.p - (f.p - 1) / n as u64; // n | p − 1
        match self {
            // n·c·2⁻⁶⁴ → c: s = n⁻¹·2¹²⁸.
            Engine::Portable | Engine::Wide => f.to_mont(f.to_mont(inv_n)),
            // n·c·2⁻⁶⁴·2⁻⁶⁴·2⁻⁵² → c: s = n⁻¹·2²⁴⁴.
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Engine::Ifma(..) => {
                let two = pow_mod(2, 244, f.p);
                ((u128::from(two) * u128::from(inv_n)) % u128::from(f.p)) as u64
            }
            // n·c (plain loads and pointwise products) → c: s = n⁻¹·2⁶⁴.
            #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            Engine::Fma(..) => f.to_mont(inv_n),
        }
    }

    /// `x[i] = x[i]·y[i]` (`y = None`: `x[i]²`), in the engine's Montgomery form.
    fn pointwise(self, f: Field, x: &mut [u64], y: Option<&[u64]>) {
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
    /// pass takes `cube` too ([`Tables`]; the others do not read it), and its DIT pass with
    /// `LAZY` reduces one input of four, for outputs in `(−2.71p, 2.71p)` that only further
    /// DIT passes read (`fmacore::stage2`).
    #[inline(always)]
    fn stage2<const DIT: bool, const LAZY: bool>(
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
    fn tail4<const DIT: bool>(self, f: Field, x: &mut [u64], w: &[u64]) -> bool {
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
    fn radix2(self, f: Field, x: &mut [u64]) {
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
    /// `(−1.25p, 1.25p)`, see `crate::arch::ntt::fmacore::comb`), `t` plain, `s` balanced.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    fn comb(self, f: Field, out: &mut [u64], a: Option<&[u64]>, y: Option<&[u64]>, t: u64, s: f64) {
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

    /// The truncated products' fold (see `crate::arch::ntt::fmacore::fold`): `out[i] = (lo[i] +
    /// α·hi[i])·w[i]` and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `d` in place),
    /// `α` plain, `w` a table in the engine's form.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    #[allow(clippy::too_many_arguments)] // the kernel's operands
    fn fold(
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
    fn unload(self, f: Field, x: u64) -> u64 {
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
    /// or with `DIT` decimation in time, `(a, b) → (a + b·w^i, a − b·w^i)`.
    #[inline(always)]
    fn stage<const DIT: bool>(self, f: Field, x: &mut [u64], h: usize, w: &[u64]) {
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

/// The FMA engine's residue (`f64` bits of an integer in `(−2p, 2p)`) as a plain one.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn f64_decode(f: Field, v: u64) -> u64 {
    (f64::from_bits(v) as i64).rem_euclid(f.p as i64) as u64
}

/// `a·b mod p` for a plain residue `a` and a residue `b` held as `f64` bits (the FMA
/// engine's twiddles and transforms), plain.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn f64_mulmod(f: Field, a: u64, b: u64) -> u64 {
    let b = f64_decode(f, b);
    ((u128::from(a) * u128::from(b)) % u128::from(f.p)) as u64
}

/// Runs the scalar `stage` on `x` (residues as `f64` bits) as plain integers: the FMA
/// engine's transforms too short for its vectors.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn f64_scalar(f: Field, x: &mut [u64], stage: impl FnOnce(&mut [u64])) {
    x.iter_mut().for_each(|v| *v = f64_decode(f, *v));
    stage(x);
    x.iter_mut().for_each(|v| *v = (*v as f64).to_bits());
}

/// The IFMA token (detected once per process, in `nab-isa`, under `NAB_MAX_ISA`).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
fn ifma() -> Option<Ifma> {
    Ifma::new()
}

/// The number of engine slots in the caches ([`Engine::index`]).
const ENGINES: usize = 7;

/// The engine that products use here: `avx512ifma`, `avx2-fma` or `portable` (for every
/// length: the 50-bit engines add a fourth prime above `2²¹` coefficients).
pub(crate) fn engine_name() -> &'static str {
    Engine::for_len(1 << 20).name()
}

/// Twiddle tables for transforms up to `len` coefficients: `fwd[k][h + i] = w_{2h}^i` and
/// `inv[k][h + i] = w_{2h}^{−i}` modulo prime `k`, in the engine's form, for
/// `h = 1, 2, 4, …, len/2`; for the FMA engine's forward radix-4 passes also
/// `cube[k][h + i] = w_{4h}^{3i}` for `h = 1, 2, …, min(len, CUBE_MAX_LEN)/4`
/// (`fmacore::stage2`; empty for the other engines).
struct Tables {
    len: usize,
    fwd: Vec<Vec<u64>>,
    inv: Vec<Vec<u64>>,
    cube: Vec<Vec<u64>>,
}

/// The longest transform whose forward radix-4 passes all have the `cube` twiddles of
/// [`Tables`] (`fmacore::stage2`): every transform of [`fma_wide_product`] (`2¹⁷`), for
/// `2¹⁶` values per prime (512 KiB); the top passes of longer ones take the radix-2 form,
/// and their tables (four primes at F(10⁹)'s `2²⁴` points) no more memory.
const CUBE_MAX_LEN: usize = 1 << 17;

/// A forward transform's twiddles, as [`Tables`] holds them for one prime: `tw[h + i] =
/// w_{2h}^i` and `cube[h + i] = w_{4h}^{3i}` (empty where the engine has no use for it).
#[derive(Clone, Copy)]
struct Fwd<'a> {
    tw: &'a [u64],
    cube: &'a [u64],
}

impl<'a> Fwd<'a> {
    /// The `cube` twiddles of the radix-4 pass on blocks of `4h`, `w_{4h}^{3i}` for `i < h`
    /// (empty if the table has none: another engine's, or `4h` above [`CUBE_MAX_LEN`]).
    fn cube(self, h: usize) -> &'a [u64] {
        self.cube.get(h..2 * h).unwrap_or(&[])
    }
}

impl Tables {
    /// The tables for `len`, reusing the levels of `old` (the layout does not depend on the
    /// length: a shorter table is a prefix of a longer one).
    fn new(e: Engine, len: usize, old: Option<&Tables>) -> Tables {
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
    fn fwd(&self, k: usize) -> Fwd<'_> {
        Fwd { tw: &self.fwd[k], cube: &self.cube[k] }
    }
}

/// Tables for at least `len` coefficients, shared with every other product of the engine.
fn tables(e: Engine, len: usize) -> Arc<Tables> {
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

/// Frees the transforms' buffers kept by this thread (see [`crate::release_thread_buffers`]).
pub(crate) fn release_thread_buffers() -> usize {
    scratch::release()
}

/// Buffers of the transforms, kept per thread for the next product: a product's fresh
/// buffers of a few hundred KiB come from `mmap` (or a trimmed heap), and faulting their pages
/// in (zeroed by the kernel) and unmapping them took a tenth of F(10⁷)'s time.
mod scratch {
    use std::cell::RefCell;

    /// At most this many buffers are kept ...
    const KEPT: usize = 8;
    /// ... each of at most this many values (16 MiB: transforms up to `2²¹`, F(10⁸)'s;
    /// longer ones are rare enough to allocate).
    const MAX_LEN: usize = 1 << 21;

    thread_local! {
        static POOL: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
    }

    /// A vector with room for `n` values, of any length and contents: a kept one if one is
    /// large enough.
    pub(super) fn take(n: usize) -> Vec<u64> {
        let kept = POOL.with(|p| {
            let mut p = p.borrow_mut();
            // The smallest kept buffer that fits.
            let best =
                (0..p.len()).filter(|&i| p[i].capacity() >= n).min_by_key(|&i| p[i].capacity())?;
            Some(p.swap_remove(best))
        });
        // Zeroed by the allocator (fresh pages need no pass over memory), so that a user
        // that needs `n` values does not zero them itself.
        kept.unwrap_or_else(|| vec![0; n])
    }

    /// Keeps `v` for [`take`] (or frees it: too large, or enough are kept; the
    /// smallest kept one makes room for a larger one).
    pub(super) fn give(v: Vec<u64>) {
        if v.capacity() > MAX_LEN || v.capacity() == 0 {
            return;
        }
        // Not cleared: its next user overwrites the values (`Engine::load_into`), and
        // zeroing them would be a pass over memory for nothing.
        POOL.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < KEPT {
                p.push(v);
            } else if let Some(i) = (0..p.len()).min_by_key(|&i| p[i].capacity())
                && p[i].capacity() < v.capacity()
            {
                p[i] = v;
            }
        });
    }

    /// Frees every buffer kept by this thread; returns how many bytes they held.
    pub(super) fn release() -> usize {
        POOL.with(|p| {
            let kept = std::mem::take(&mut *p.borrow_mut());
            kept.iter().map(|v| v.capacity() * size_of::<u64>()).sum()
        })
    }

    /// Keeps every vector of `vs` (see [`give`]).
    pub(super) fn give_all(vs: Vec<Vec<u64>>) {
        vs.into_iter().for_each(give);
    }
}

/// A stage of scalar butterflies (DIF, or DIT when `DIT`) with the product `mul`.
#[inline(always)]
fn scalar_stage<const DIT: bool>(
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
fn radix2_stage(f: Field, x: &mut [u64]) {
    for pair in x.chunks_exact_mut(2) {
        let (a, b) = (pair[0], pair[1]);
        pair[0] = f.add(a, b);
        pair[1] = f.sub(a, b);
    }
}

/// Forward transform (natural order in, bit-reversed out) of `x.len()`, a power of two.
fn forward(e: Engine, f: Field, x: &mut [u64], tab: Fwd<'_>) {
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
        e.stage2::<false, false>(f, x, h, &tw[2 * h..n], &tw[h..2 * h], tab.cube(h));
        for q in x.chunks_exact_mut(h) {
            forward(e, f, q, tab);
        }
    } else {
        let h = n / 2;
        e.stage::<false>(f, x, h, &tw[h..n]);
        let (lo, hi) = x.split_at_mut(h);
        forward(e, f, lo, tab);
        forward(e, f, hi, tab);
    }
}

/// Inverse transform without the `1/N` (bit-reversed in, natural order out).
fn inverse(e: Engine, f: Field, x: &mut [u64], tab: &[u64]) {
    inverse_lazy(e, f, x, tab, false);
}

/// [`inverse`]; with `lazy` the FMA engine's outputs may be in `(−2.71p, 2.71p)` instead of
/// `(−2p, 2p)` (its radix-4 passes other than the last reduce one input of four instead of
/// two; see `fmacore::stage2`), for the inner calls of the recursion, whose outputs only
/// further passes read.
fn inverse_lazy(e: Engine, f: Field, x: &mut [u64], tab: &[u64], lazy: bool) {
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
        for q in x.chunks_exact_mut(h) {
            inverse_lazy(e, f, q, tab, true);
        }
        let (o, i) = (&tab[2 * h..n], &tab[h..2 * h]);
        if lazy {
            e.stage2::<true, true>(f, x, h, o, i, &[]);
        } else {
            e.stage2::<true, false>(f, x, h, o, i, &[]);
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
fn forward_lower_half(t: Fma, f: Field, x: &mut [u64], tab: Fwd<'_>) {
    let n = x.len();
    debug_assert!(n.is_power_of_two() && n / 4 >= BLOCK);
    let h = n / 4;
    t.stage2_lower_half(x, h, &tab.tw[2 * h..n], &tab.tw[h..2 * h], tab.cube(h), f.p as f64);
    for q in x.chunks_exact_mut(h) {
        forward(Engine::Fma(t, 5), f, q, tab);
    }
}

/// The transform length for a product of `a_len + b_len` limbs (a power of two at or above
/// the `a_len + b_len − 1` coefficients, at least 2).
fn transform_len(a_len: usize, b_len: usize) -> usize {
    let n = (a_len + b_len - 1).next_power_of_two().max(2);
    assert!(n.trailing_zeros() <= MAX_LOG_LEN, "NTT product of {n} coefficients is too long");
    n
}

/// `r = a · b` (`r.len() == a.len() + b.len()`, both operands non-empty).
pub(crate) fn mul(r: &mut [u64], a: &[u64], b: &[u64]) {
    let e = Engine::for_len(transform_len(a.len(), b.len()));
    if matches!(e, Engine::Portable)
        && let Some(w) = wide_plan(a.len(), b.len())
    {
        return wide_product(w, r, a, Some(b));
    }
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(t, _) = e
        && fma_wide_plan(a.len(), b.len())
    {
        return fma_wide_product(t, r, a, Some(b));
    }
    convolve(e, r, a, Some(b));
}

/// `r = a²` (`r.len() == 2·a.len()`, `a` non-empty): one forward transform per prime.
pub(crate) fn sqr(r: &mut [u64], a: &[u64]) {
    let e = Engine::for_len(transform_len(a.len(), a.len()));
    if matches!(e, Engine::Portable)
        && let Some(w) = wide_plan(a.len(), a.len())
    {
        return wide_product(w, r, a, None);
    }
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(t, _) = e
        && fma_wide_plan(a.len(), a.len())
    {
        return fma_wide_product(t, r, a, None);
    }
    convolve(e, r, a, None);
}

fn convolve(e: Engine, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
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
    engine: Engine,
    n: usize,
    len: usize,
    hat: Vec<Vec<u64>>,
}

/// `x` transformed for products of transform length `n` (a power of two `>= x.len()`).
pub(crate) fn transform(x: &[u64], n: usize) -> Transformed {
    transform_with(Engine::for_len(n), x, n)
}

fn transform_with(e: Engine, x: &[u64], n: usize) -> Transformed {
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
fn cyclic(
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
            load(a, &mut x);
            forward(e, f, &mut x, tabs.fwd(k));
            match b {
                Some(Ok(b)) => {
                    load(b, &mut other);
                    forward(e, f, &mut other, tabs.fwd(k));
                    e.pointwise(f, &mut x, Some(&other));
                }
                Some(Err(t)) => {
                    debug_assert!(t.n == n && t.engine.index() == e.index());
                    e.pointwise(f, &mut x, Some(&t.hat[k]));
                }
                None => e.pointwise(f, &mut x, None),
            }
            inverse(e, f, &mut x, &tabs.inv[k]);
            e.finish(f, &mut x, n);
            x
        })
        .collect();
    scratch::give(other);
    y
}

/// `r = a · b` for a transformed `b`, when the product's coefficients fit the transform
/// (`a.len() + b.len − 1 <= b.n`); `r.len() == a.len() + b.len`.
pub(crate) fn mul_transformed(r: &mut [u64], a: &[u64], b: &Transformed) {
    assert!(!a.is_empty() && a.len() + b.len - 1 <= b.n && r.len() == a.len() + b.len);
    let mut residues = cyclic(b.engine, a, Some(Err(b)), b.n);
    for v in &mut residues {
        v.truncate(a.len() + b.len - 1);
    }
    let carry = crt_into(b.engine, r, &residues);
    debug_assert_eq!(carry, [0; 3], "NTT product wider than its destination");
    scratch::give_all(residues);
}

/// `r = a · b mod (B^n − 1)` (`B = 2⁶⁴`, `n = b.n = r.len() >= 4`, `a.len() <= n`): the
/// cyclic convolution is that product, once the carries out of the top limb are added at
/// the bottom. The result is in `[0, B^n − 1]` (`B^n − 1` also stands for zero).
pub(crate) fn mul_mod_bnm1(r: &mut [u64], a: &[u64], b: &Transformed) {
    assert!(r.len() == b.n && b.n >= 4);
    let residues = cyclic(b.engine, a, Some(Err(b)), b.n);
    let carry = crt_into(b.engine, r, &residues);
    scratch::give_all(residues);
    // B^n ≡ 1: what left the top comes back in at the bottom.
    add_mod_bnm1(r, &carry);
}

/// `r += x mod (B^n − 1)` for `n = r.len() >= x.len()`: a carry out of the top limb comes
/// back in at the bottom (`B^n ≡ 1`). The result is in `[0, B^n − 1]`.
pub(crate) fn add_mod_bnm1(r: &mut [u64], x: &[u64]) {
    debug_assert!(r.len() >= x.len());
    let mut carry = false;
    for (i, limb) in r.iter_mut().enumerate() {
        let Some(&y) = x.get(i) else {
            if !carry {
                return;
            }
            let (s, c) = limb.overflowing_add(1);
            *limb = s;
            carry = c;
            continue;
        };
        let (s, c1) = limb.overflowing_add(y);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        *limb = s;
        carry = c1 || c2;
    }
    // Round the top: at most twice (the second only when `r` was all ones, now zero).
    if carry && crate::limbs::incr(r) {
        crate::limbs::incr(r);
    }
}

/// Products whose cyclic part has at least this many points are split as described at
/// [`coefficients`] when that takes fewer butterflies.
const SPLIT_MIN: usize = 1 << 10;

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
fn coefficients(e: Engine, a: &[u64], b: Option<&[u64]>) -> Vec<Vec<u64>> {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(..) = e
        && let Some(k) = truncates(a.len(), b_len)
    {
        return truncated(e, a, b, k);
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

/// Whether [`coefficients`] splits the product of `a_len` by `b_len` limbs: where the split
/// plan's butterflies ([`narrow_cost`]) are fewer than the padded transform's.
fn splits(a_len: usize, b_len: usize) -> bool {
    let count = a_len + b_len - 1;
    let n = transform_len(a_len, b_len);
    let half = n / 2;
    let extra = count.saturating_sub(half);
    half >= SPLIT_MIN
        && a_len <= half
        && b_len <= half
        && extra >= 1
        && butterflies(half) + narrow_cost(extra, extra) < butterflies(n)
}

/// `N·log₂N`, the butterflies (times two) of a transform of length `N`, a power of two.
fn butterflies(n: usize) -> usize {
    n * n.trailing_zeros() as usize
}

/// The butterflies (in units of [`butterflies`], per prime) of [`coefficients`]' plan for
/// a product of `a_len` by `b_len` limbs, split (recursively) or padded.
fn narrow_cost(a_len: usize, b_len: usize) -> usize {
    let n = transform_len(a_len, b_len);
    if splits(a_len, b_len) {
        let extra = a_len + b_len - 1 - n / 2;
        butterflies(n / 2) + narrow_cost(extra, extra)
    } else {
        butterflies(n)
    }
}

/// The FMA engine's truncated plan ([`truncated`]) applies to products whose transform has
/// at least this many points.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
const TRUNC_MIN: usize = 1 << 10;

/// The most pieces of [`truncated`]: lengths `N/2, N/4, N/8`, products up to `7N/8`
/// coefficients. A fourth piece (to `15N/16`) measured slower than the padded transform:
/// squares of F(2.72·10⁶) (90 % of `2¹⁶`), 1.38–1.40 against 1.35 ms at `x86-64-v3`, where
/// three pieces save 5–9 % (F(2.3·10⁶), 76 %: 1.24–1.26 against 1.38 ms) and two 22 %
/// (F(2.25·10⁶), 74 %: 1.06 against 1.35 ms); thread CPU time, min of 31, load 9–12.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
const TRUNC_MAX_PIECES: u32 = 3;

/// The number of pieces `K` of [`truncated`] for a product of `a_len` by `b_len` limbs (both
/// at most `N/2`, `N` the padded transform length): the fewest with `N − N/2^K` at or above
/// the product's coefficients; `None` when even [`TRUNC_MAX_PIECES`] do not cover them.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncated_pieces(a_len: usize, b_len: usize) -> Option<u32> {
    let n = transform_len(a_len, b_len);
    let count = a_len + b_len - 1;
    if n < TRUNC_MIN || a_len > n / 2 || b_len > n / 2 {
        return None;
    }
    (2..=TRUNC_MAX_PIECES).find(|&k| count <= n - (n >> k))
}

/// The butterflies (in units of [`butterflies`], per prime) of [`truncated`] with `pieces`
/// pieces of a transform of length `n`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncated_cost(n: usize, pieces: u32) -> usize {
    (1..=pieces).map(|k| butterflies(n >> k)).sum()
}

/// The FMA engine's plan for a narrow (one limb per coefficient) product: `Some(K)`, the
/// pieces of [`truncated`], where they take fewer butterflies than [`coefficients`]' split
/// or padded plan, with a margin of [`TRUNC_MARGIN`] percent for their folds and
/// recombination; `None` otherwise.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncates(a_len: usize, b_len: usize) -> Option<u32> {
    let k = truncated_pieces(a_len, b_len)?;
    let cost = truncated_cost(transform_len(a_len, b_len), k) * (100 + TRUNC_MARGIN);
    (cost < narrow_cost(a_len, b_len) * 100).then_some(k)
}

/// The percentage by which [`truncated`]'s butterflies must undercut the other plans'.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
const TRUNC_MARGIN: usize = 5;

/// The twists of [`truncated`] for transforms of length `n`, per prime and per piece
/// `k = 1 … K − 1` (index `k − 1`): `ψ_k^j` and `2^k·ψ_k^{−j}` for `j < M_k = n/2^{k+1}`,
/// `ψ_k = w_n^{2^k − 1}`, in the engine's form; and per prime and piece `k = 0 … K − 1`
/// (plain): `α_k = ψ_k^{M_k}` (`α₀ = 1`) and `(2α_k)⁻¹`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
struct Twists {
    fwd: Vec<Vec<Vec<u64>>>,
    inv: Vec<Vec<Vec<u64>>>,
    alpha: Vec<[u64; TRUNC_MAX_PIECES as usize]>,
    half_alpha_inv: Vec<[u64; TRUNC_MAX_PIECES as usize]>,
}

/// The [`Twists`] of engine `e` for length `n`, built once and shared.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn twists(e: Engine, n: usize) -> Arc<Twists> {
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
/// exact modulo each prime (the FMA kernels' bounds hold: see `crate::arch::ntt::fmacore::comb`),
/// so the coefficients, and the CRT bound, are those of the padded product.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn truncated(e: Engine, a: &[u64], b: Option<&[u64]>, pieces: u32) -> Vec<Vec<u64>> {
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

/// A plan of [`wide_product`]: how many of [`WIDE_FIELDS`] and how many bits per
/// coefficient. A cyclic convolution of length `N` of `b`-bit coefficients has coefficients
/// below `N·2^(2b)`, which the primes' product must exceed; both plans stop at
/// [`WIDE_MAX_LOG_LEN`] (checked exactly by the unit tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wide {
    primes: usize,
    bits: usize,
}

/// Four primes (product `2^247.9998`), 112-bit coefficients: `2·112 + 23 = 247`.
const WIDE4: Wide = Wide { primes: 4, bits: 112 };
/// Five primes (product `2^309.9998`), 140-bit coefficients: `2·140 + 23 = 303`.
const WIDE5: Wide = Wide { primes: 5, bits: 140 };

/// The longest transform of [`wide_product`] (both plans).
const WIDE_MAX_LOG_LEN: u32 = 23;

impl Wide {
    /// The number of coefficients of `len` limbs.
    fn len(self, len: usize) -> usize {
        (len * 64).div_ceil(self.bits)
    }

    /// The transform length of a product of `a_len` by `b_len` limbs.
    fn transform_len(self, a_len: usize, b_len: usize) -> usize {
        (self.len(a_len) + self.len(b_len) - 1).next_power_of_two().max(2)
    }

    /// The coefficient of `x` from bit `bits·i` (zeros past its end), as three 64-bit
    /// words, low first.
    #[inline(always)]
    fn coefficient(self, x: &[u64], i: usize) -> [u64; 3] {
        let bit = self.bits * i;
        let (q, off) = (bit / 64, (bit % 64) as u32);
        let limb = |j: usize| x.get(j).copied().unwrap_or(0);
        let mut w = [0u64; 3];
        for (j, w) in w.iter_mut().enumerate() {
            *w = if off == 0 {
                limb(q + j)
            } else {
                limb(q + j) >> off | limb(q + j + 1) << (64 - off)
            };
        }
        let mask = |b: usize| if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
        w[1] &= mask(self.bits.saturating_sub(64));
        w[2] &= mask(self.bits.saturating_sub(128));
        w
    }
}

/// Which plan the portable engine's product of `a_len` by `b_len` limbs takes: `None`,
/// three primes with one limb per coefficient ([`coefficients`], which splits products where
/// that takes fewer butterflies), or [`WIDE4`] or [`WIDE5`], whichever takes the fewest butterflies
/// (`primes·N·log₂N`, the wide plans with a 10 % margin for their wider loads and CRT). The
/// lengths are powers of two, so the choice depends on where the product sits between
/// them: F(10⁷)'s squarings (82 % of `2¹⁷` coefficients) take `4·2¹⁶` points instead of
/// `3·2¹⁷`; F(10⁸)'s (52 % of `2²¹`, split: `3·2²⁰` and `3·2¹⁶`) `5·2¹⁹`.
fn wide_plan(a_len: usize, b_len: usize) -> Option<Wide> {
    let n3 = transform_len(a_len, b_len);
    if n3 < SPLIT_MIN {
        return None;
    }
    let cost = |primes: usize, n: usize| primes * butterflies(n);
    let three = 3 * narrow_cost(a_len, b_len);
    [WIDE4, WIDE5]
        .into_iter()
        .map(|w| (w, w.transform_len(a_len, b_len)))
        .filter(|&(_, n)| n.trailing_zeros() <= WIDE_MAX_LOG_LEN)
        .map(|(w, n)| (w, cost(w.primes, n) * 10))
        .filter(|&(_, c)| c < three * 9)
        .min_by_key(|&(_, c)| c)
        .map(|(w, _)| w)
}

/// `r = a · b` (`b = None`: `a²`; `r.len() == a.len() + b.len()`) by the portable
/// engine's transforms over the first `w.primes` of [`WIDE_FIELDS`] ([`Engine::Wide`]) with
/// coefficients of `w.bits` bits (see [`Wide`] for the bound); Garner's mixed-radix digits
/// give each coefficient (below `2^(62·primes)`), added with carries at bit `bits·i`.
fn wide_product(w: Wide, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
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
    let load = |f: Field, x: &[[u64; 3]], dst: &mut Vec<u64>| {
        // w₀ + w₁·2⁶⁴ + w₂·2¹²⁸ mod p: `f.mul(v, c)` is `v·c·2⁻⁶⁴`.
        let r3 = pow_mod(2, 192, f.p);
        dst.clear();
        dst.extend(
            x.iter()
                .map(|&[w0, w1, w2]| f.add(f.add(f.reduce(w0), f.mul(w1, f.r2)), f.mul(w2, r3))),
        );
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

/// The FMA engine's wide products ([`fma_wide_product`]): all five of [`FIELDS52`] (product
/// `2^249.9991`) with 116-bit coefficients, for transforms up to [`FMA_WIDE_MAX_LOG_LEN`]:
/// `2·116 + 17 = 249` (checked exactly by the unit tests).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
const FMA_WIDE: Wide = Wide { primes: 5, bits: 116 };

/// The longest transform of [`fma_wide_product`].
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
const FMA_WIDE_MAX_LOG_LEN: u32 = 17;

/// Whether the FMA engine's product of `a_len` by `b_len` limbs takes [`fma_wide_product`]:
/// from [`FMA_WIDE_MIN_LEN`], where the three primes' transform (split, truncated with its
/// margin ([`truncates`]) or neither, see [`coefficients`]) takes more butterflies
/// (`primes·N·log₂N`) than the five primes' over
/// `116/64` as few coefficients. As for the portable engine's [`wide_plan`], that depends
/// on where the product sits between powers of two: F(10⁷)'s last product (82 % of `2¹⁷`
/// coefficients) takes `5·2¹⁶` points instead of `3·2¹⁷`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn fma_wide_plan(a_len: usize, b_len: usize) -> bool {
    let n3 = transform_len(a_len, b_len);
    let n5 = FMA_WIDE.transform_len(a_len, b_len);
    if n3 < FMA_WIDE_MIN_LEN || n5.trailing_zeros() > FMA_WIDE_MAX_LOG_LEN {
        return false;
    }
    let cost = |primes: usize, n: usize| primes * butterflies(n);
    let primes3 = if n3.trailing_zeros() > NARROW_MAX_LOG_LEN { 4 } else { 3 };
    let mut three = if splits(a_len, b_len) {
        let extra = a_len + b_len - 1 - n3 / 2;
        cost(primes3, n3 / 2) + 3 * narrow_cost(extra, extra)
    } else {
        cost(primes3, n3)
    };
    // The three primes' truncated plan, where [`coefficients`] would take it (with its margin).
    if let Some(k) = truncates(a_len, b_len) {
        three = three.min(primes3 * truncated_cost(n3, k) * (100 + TRUNC_MARGIN) / 100);
    }
    cost(5, n5) < three
}

/// The shortest three-prime transform that [`fma_wide_plan`] replaces: `2¹⁰`, the shortest
/// of the FMA engine's products (from 350 limbs, [`crate::mul`]). Measured with the
/// recombination of [`fma_wide_recombine`] (thread CPU time, min of 60-400, alternated,
/// `NAB_MAX_ISA=x86-64-v3`, load 6-15 on the 2 cores), three primes / five: squares of F(k),
/// k = 2.5·10⁶ (`2¹⁶` / `5·2¹⁵` points) 1.325 / 1.281 ms; 1.25·10⁶ 0.645 / 0.609 ms;
/// 6.25·10⁵ 0.308 / 0.293 ms; 3.125·10⁵ 0.146 / 0.140 ms; 7.8125·10⁴ (`2¹¹`) 0.034 / 0.030
/// ms; products F(k)·F(k − 1), k = 6·10⁴ (`2¹¹`) 0.041 / 0.038 ms, 39 062 (`2¹⁰`) 0.022 /
/// 0.021 ms. (With the earlier column-sum recombination the five primes were 2-4 % slower
/// below `2¹⁷`.)
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
const FMA_WIDE_MIN_LEN: usize = 1 << 10;

/// Garner's constants of [`fma_wide_product`] for the vector kernels.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn fma_wide_constants() -> &'static crate::arch::ntt::fmacore::Garner5 {
    static C: OnceLock<crate::arch::ntt::fmacore::Garner5> = OnceLock::new();
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
        crate::arch::ntt::fmacore::Garner5 { p, pinv, scale: [0.0; 5], inv }
    })
}

/// `r = a · b` (`b = None`: `a²`; `r.len() == a.len() + b.len()`) by the FMA engine's
/// transforms over all five of [`FIELDS52`] with 116-bit coefficients ([`FMA_WIDE`]):
/// each coefficient loaded from its low 64 and high 52 bits, the inverse transforms'
/// outputs scaled and turned into Garner's digits in vectors ([`Fma::garner5`]), and the
/// coefficients (below `2²⁵⁰`) summed at bit `116·i` in Horner's form
/// ([`fma_wide_recombine`]).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
fn fma_wide_product(t: Fma, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
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

/// `w = t₄ + p₄t₅` (below `2¹⁰⁰`) as `[w mod 2⁵², ⌊w/2⁵²⌋]`, the last two of the rows that
/// [`fma_wide_recombine`] takes (as [`Fma::garner5`] writes them).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
fn wide_w(t4: u64, t5: u64) -> [u64; 2] {
    let w = u128::from(t4) + u128::from(FIELDS52[3].p) * u128::from(t5);
    [w as u64 & LOW52, (w >> 52) as u64]
}

/// Where the values of [`fma_wide_recombine`]'s rows sit in their 116-bit slots: bit offset
/// and width. The digits `t₁`, `t₂`, `t₃` (below `2⁵⁰`) at the slot's start, `w = t₄ + p₄t₅`
/// as its low 52 bits at the start and its high 48 bits from bit 52 (so the two rows' limbs
/// add without carries).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
const WIDE_ROWS: [(usize, usize); 5] = [(0, 50), (0, 50), (0, 50), (0, 52), (52, 48)];

/// `r = Σᵢ xᵢ·2^(116·i)` for the wide FMA products' coefficients `xᵢ = t₁ + p₁t₂ + p₁p₂t₃ +
/// p₁p₂p₃t₄ + p₁…p₄t₅` (below `2²⁵⁰`), from their Garner digits `t_j < p_j` ([`FIELDS52`])
/// given as the rows `t[0..3] = t₁, t₂, t₃` and `t[3..5]` = [`wide_w`]`(t₄, t₅)`; `r` is
/// overwritten and must hold the sum (`r.len()` limbs).
///
/// In Horner's form over whole numbers, one pass over `r`: with `T_j = Σᵢ t[j][i]·2^(116·i)`
/// and `W = Σᵢ wᵢ·2^(116·i)` (the values packed 116 bits apart: each limb holds bits of at
/// most one value of a row, as a value's at most 52 bits are followed by a gap of at least
/// 64), `r = T₁ + p₁(T₂ + p₂(T₃ + p₃W))`. The three products by a prime run limb by limb,
/// each with its own carry ([`WideHorner`]), so a limb of `r` costs three `64×64` products
/// (the fourth, `p₄t₅`, is [`Fma::garner5`]'s, in vectors), where the coefficients' column
/// sums took ten per coefficient (1.8 limbs) and a shift. Every partial sum (`T₃ + p₃W`, …)
/// is at most `r`, so all fit in `r.len()` limbs and no carry leaves the last. The rows'
/// layout repeats every 16 values (`16·116 = 29·64` bits): whole blocks of 29 limbs take
/// their values' shifts as constants ([`wide_row_limb`]), the rest a general loop.
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
fn fma_wide_recombine(r: &mut [u64], t: [&[u64]; 5]) {
    let count = t[0].len();
    debug_assert!(t.iter().all(|s| s.len() == count), "five rows of one length");
    let mut h = WideHorner::default();
    // Limb `l` of the four numbers from the rows `t` (from their value 0).
    #[inline(always)]
    fn limbs(t: [&[u64]; 5], l: usize) -> [u64; 4] {
        let limb = |j: usize| wide_row_limb(t[j], l, WIDE_ROWS[j]);
        [limb(0), limb(1), limb(2), limb(3) | limb(4)]
    }
    // Whole blocks: 16 values, 29 limbs.
    let blocks = (count / 16).min(r.len() / 29);
    let chunks = t.map(|s| s.as_chunks::<16>().0);
    let (whole, rest) = r.split_at_mut(29 * blocks);
    for (b, out) in whole.as_chunks_mut::<29>().0.iter_mut().enumerate() {
        let blk = chunks.map(|c| &c[b][..]);
        macro_rules! limbs {
            ($($l:literal)*) => {$(
                out[$l] = h.step(limbs(blk, $l));
            )*};
        }
        limbs!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28);
    }
    // The rest (the limbs past the rows' values are zero).
    let tail = t.map(|s| &s[16 * blocks..]);
    for (l, out) in rest.iter_mut().enumerate() {
        *out = h.step(limbs(tail, l));
    }
    // No carry out of `r`, and no value's bit past it.
    let end = 64 * r.len();
    debug_assert!(
        h.c == [0; 3]
            && t.iter().zip(WIDE_ROWS).all(|(s, (off, _))| {
                (0..count).all(|k| {
                    let skip = end.saturating_sub(116 * k + off);
                    skip >= 64 || s[k] >> skip == 0
                })
            }),
        "wide FMA product overflow"
    );
}

/// Limb `l` of `Σₖ row[k]·2^(116k + off)` (values of at most `width` bits, at most 52:
/// a limb holds bits of one value at most, see [`fma_wide_recombine`]); constant shifts
/// once inlined with constant `l`, `off` and `width`.
#[inline(always)]
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
fn wide_row_limb(row: &[u64], l: usize, (off, width): (usize, usize)) -> u64 {
    // The value with the last start at or below the limb's last bit (an earlier one ends
    // below the limb).
    let Some(k) = (64 * l + 63).checked_sub(off).map(|b| b / 116) else { return 0 };
    let Some(&v) = row.get(k) else { return 0 };
    let start = 116 * k + off;
    if start >= 64 * l {
        v << (start - 64 * l) // its head (the rest in the next limb)
    } else if 64 * l - start < width {
        v >> (64 * l - start) // its tail
    } else {
        0
    }
}

/// Coefficient `K` (of 16) of [`fma_wide_product`]'s operand cut, from a block of 29 limbs
/// and the next: its low 64 bits and its high 52 (116 bits from bit `116K`); `K` a
/// constant, so are the shifts.
#[inline(always)]
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
fn wide_block_cut<const K: usize>(x: &[u64; 30]) -> (u64, u64) {
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

/// The three Horner passes of [`fma_wide_recombine`] (`·p₃ + T₃`, `·p₂ + T₂`, `·p₁ + T₁`),
/// limb by limb: a step runs the three on one limb, each pass's product the last one's
/// limb. Their only state is the three carries, so it stays in registers; the passes'
/// products chain within a step, but the next limb's do not wait for them (only the
/// carries chain from limb to limb), so the processor overlaps the steps.
#[derive(Default)]
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
struct WideHorner {
    /// The passes' carries (below `2⁵¹`).
    c: [u64; 3],
}

#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
impl WideHorner {
    /// One limb of `T₁`, `T₂`, `T₃` and `W`; returns that limb of `r`.
    #[inline(always)]
    fn step(&mut self, [d1, d2, d3, w]: [u64; 4]) -> u64 {
        let [p1, p2, p3, _, _] = FIELDS52.map(|f| u128::from(f.p));
        let [c0, c1, c2] = self.c.map(u128::from);
        let sb = u128::from(d3) + p3 * u128::from(w) + c0;
        let se = u128::from(d2) + p2 * u128::from(sb as u64) + c1;
        let sx = u128::from(d1) + p1 * u128::from(se as u64) + c2;
        self.c = [sb, se, sx].map(|s| (s >> 64) as u64);
        sx as u64
    }
}

/// `p_i⁻¹ mod p_j` (`i < j`) for [`WIDE_FIELDS`], Montgomery form mod `p_j`.
fn wide_inverses() -> &'static [[u64; 5]; 5] {
    static INV: OnceLock<[[u64; 5]; 5]> = OnceLock::new();
    INV.get_or_init(|| {
        let mut inv = [[0u64; 5]; 5];
        for (i, row) in inv.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate().skip(i + 1) {
                let (fi, fj) = (WIDE_FIELDS[i], WIDE_FIELDS[j]);
                *v = fj.to_mont(pow_mod(fi.p % fj.p, fj.p - 2, fj.p));
            }
        }
        inv
    })
}

/// `r` = the sum of the coefficients `x_i` (from their residues modulo the first `P` of
/// [`WIDE_FIELDS`]) times `2^(bits·i)`; `r` is overwritten.
#[allow(clippy::needless_range_loop)] // `i` indexes every prime's residues and the bits
fn wide_crt_into<const P: usize>(bits: usize, r: &mut [u64], residues: &[Vec<u64>]) {
    let inv = wide_inverses();
    let fields = &WIDE_FIELDS[..P];
    r.fill(0);
    for i in 0..residues[0].len() {
        // Garner's digits: t_j = (…((y_j − t₁)/p₁ − t₂)/p₂ … − t_{j−1})/p_{j−1} mod p_j, as in
        // `crt4_into` (the primes are within a factor 2 of each other).
        let mut t = [0u64; P];
        for (j, &fj) in fields.iter().enumerate() {
            let mut v = residues[j][i];
            for k in 0..j {
                v = fj.mul(fj.sub(v, fj.fix(t[k], fj.p)), inv[k][j]);
            }
            t[j] = v;
        }
        // x = t₁ + p₁(t₂ + p₂(… + p_{P−1}·t_P)), Horner from the inside out: below
        // 2^(62·P) (at most five limbs), and the sixth limb for the shift below.
        let mut x = [0u64; 7];
        x[0] = t[P - 1];
        for k in (0..P - 1).rev() {
            let mut carry = u128::from(t[k]);
            for l in x.iter_mut().take(P) {
                let v = u128::from(*l) * u128::from(fields[k].p) + carry;
                *l = v as u64;
                carry = v >> 64;
            }
            debug_assert_eq!(carry, 0);
        }
        // Shifted to its bit offset within the limb.
        let bit = bits * i;
        let (q, off) = (bit / 64, (bit % 64) as u32);
        if off != 0 {
            for j in (1..=P).rev() {
                x[j] = x[j] << off | x[j - 1] >> (64 - off);
            }
            x[0] <<= off;
        }
        let mut carry = false;
        let mut j = 0;
        while q + j < r.len() && (j <= P || carry) {
            let add = if j <= P { x[j] } else { 0 };
            let (s, c1) = r[q + j].overflowing_add(add);
            let (s, c2) = s.overflowing_add(u64::from(carry));
            r[q + j] = s;
            carry = c1 | c2;
            j += 1;
        }
        debug_assert!(!carry && x[j.min(7)..].iter().all(|&l| l == 0), "wide product overflow");
    }
}

/// Garner's constants for four fields (the mixed-radix form
/// `x = t₁ + p₁(t₂ + p₂(t₃ + p₃t₄))`), each `p_i⁻¹ mod p_j` in Montgomery form mod `p_j`.
struct Crt4 {
    inv_p1_mod_p2: u64,
    inv_p1_mod_p3: u64,
    inv_p2_mod_p3: u64,
    inv_p1_mod_p4: u64,
    inv_p2_mod_p4: u64,
    inv_p3_mod_p4: u64,
}

impl Crt4 {
    fn new([f1, f2, f3, f4]: [Field; 4]) -> Crt4 {
        let inv = |x: u64, f: Field| f.to_mont(pow_mod(x % f.p, f.p - 2, f.p));
        Crt4 {
            inv_p1_mod_p2: inv(f1.p, f2),
            inv_p1_mod_p3: inv(f1.p, f3),
            inv_p2_mod_p3: inv(f2.p, f3),
            inv_p1_mod_p4: inv(f1.p, f4),
            inv_p2_mod_p4: inv(f2.p, f4),
            inv_p3_mod_p4: inv(f3.p, f4),
        }
    }
}

/// [`crt_into`] for four primes below `2⁵⁰`, each below twice any other (so one
/// [`Field::fix`] reduces a residue of one modulo another). The coefficients are below
/// `N·2¹²⁸ ≤ 2¹⁶⁰` (`N ≤ 2³²`), so the running sum still fits 192 bits.
fn crt4_into(
    r: &mut [u64],
    residues: &[Vec<u64>],
    [f1, f2, f3, f4]: [Field; 4],
    c: &Crt4,
) -> [u64; 3] {
    let count = residues[0].len();
    debug_assert!(count <= r.len() && residues.iter().all(|v| v.len() == count));
    let (head, tail) = r.split_at_mut(count);
    let (mut acc0, mut acc1, mut acc2) = (0u64, 0u64, 0u64);
    let ys = residues[0].iter().zip(&residues[1]).zip(&residues[2]).zip(&residues[3]);
    for (limb, (((&y1, &y2), &y3), &y4)) in head.iter_mut().zip(ys) {
        // Mixed-radix digits: t₁ = y₁; t₂ = (y₂ − t₁)/p₁ mod p₂;
        // t₃ = ((y₃ − t₁)/p₁ − t₂)/p₂ mod p₃; t₄ = (((y₄ − t₁)/p₁ − t₂)/p₂ − t₃)/p₃ mod p₄.
        let t2 = f2.mul(f2.sub(y2, f2.fix(y1, f2.p)), c.inv_p1_mod_p2);
        let u = f3.mul(f3.sub(y3, f3.fix(y1, f3.p)), c.inv_p1_mod_p3);
        let t3 = f3.mul(f3.sub(u, f3.fix(t2, f3.p)), c.inv_p2_mod_p3);
        let v = f4.mul(f4.sub(y4, f4.fix(y1, f4.p)), c.inv_p1_mod_p4);
        let v = f4.mul(f4.sub(v, f4.fix(t2, f4.p)), c.inv_p2_mod_p4);
        let t4 = f4.mul(f4.sub(v, f4.fix(t3, f4.p)), c.inv_p3_mod_p4);
        // x = t₁ + p₁(t₂ + p₂(t₃ + p₃t₄)), from the inside out (100, 150, 200 bits).
        let v = u128::from(t4) * u128::from(f3.p) + u128::from(t3);
        let lo = u128::from(v as u64) * u128::from(f2.p) + u128::from(t2);
        let hi = (v >> 64) * u128::from(f2.p) + (lo >> 64);
        let (w0, w1, w2) = (lo as u64, hi as u64, (hi >> 64) as u64);
        let m0 = u128::from(w0) * u128::from(f1.p) + u128::from(y1);
        let m1 = u128::from(w1) * u128::from(f1.p) + (m0 >> 64);
        let m2 = u128::from(w2) * u128::from(f1.p) + (m1 >> 64);
        debug_assert!(m2 >> 64 == 0, "NTT coefficient above 192 bits");
        let s0 = u128::from(acc0) + (m0 as u64 as u128);
        let s1 = u128::from(acc1) + (m1 as u64 as u128) + (s0 >> 64);
        let s2 = u128::from(acc2) + (m2 as u64 as u128) + (s1 >> 64);
        debug_assert!(s2 >> 64 == 0, "NTT coefficient sum overflows 192 bits");
        *limb = s0 as u64;
        (acc0, acc1) = (s1 as u64, s2 as u64);
        acc2 = 0;
    }
    for limb in tail {
        *limb = acc0;
        (acc0, acc1, acc2) = (acc1, acc2, 0);
    }
    [acc0, acc1, acc2]
}

/// Garner's constants for three fields.
struct Crt {
    /// `p₁⁻¹ mod p₂`, Montgomery form.
    inv_p1_mod_p2: u64,
    /// `p₁ mod p₃`, Montgomery form.
    p1_mod_p3: u64,
    /// `(p₁p₂)⁻¹ mod p₃`, Montgomery form.
    inv_p1p2_mod_p3: u64,
    /// `p₁p₂`.
    p1p2: u128,
}

impl Crt {
    fn new([f1, f2, f3]: [Field; 3]) -> Crt {
        let inv = |x: u64, f: Field| f.to_mont(pow_mod(x % f.p, f.p - 2, f.p));
        let p1p2_mod_p3 = ((u128::from(f1.p) * u128::from(f2.p)) % u128::from(f3.p)) as u64;
        Crt {
            inv_p1_mod_p2: inv(f1.p, f2),
            p1_mod_p3: f3.to_mont(f1.p % f3.p),
            inv_p1p2_mod_p3: inv(p1p2_mod_p3, f3),
            p1p2: u128::from(f1.p) * u128::from(f2.p),
        }
    }
}

/// Reconstructs the coefficients from their residues and adds them with carries into `r`
/// (coefficient `i` at limb `i`); limbs past the last coefficient get the carries. Returns
/// what is carried out of `r` (192 bits, low limb first).
fn crt_into(e: Engine, r: &mut [u64], residues: &[Vec<u64>]) -> [u64; 3] {
    static CRT: [OnceLock<Crt>; ENGINES] = [const { OnceLock::new() }; ENGINES];
    static CRT4: OnceLock<Crt4> = OnceLock::new();
    match *e.fields() {
        [f1, f2, f3] => {
            let c = CRT[e.index()].get_or_init(|| Crt::new([f1, f2, f3]));
            crt3_into(e, r, residues, [f1, f2, f3], c)
        }
        [f1, f2, f3, f4] => {
            let c = CRT4.get_or_init(|| Crt4::new([f1, f2, f3, f4]));
            crt4_into(r, residues, [f1, f2, f3, f4], c)
        }
        _ => unreachable!("an engine has three or four primes"),
    }
}

/// [`crt_into`] for three primes; the FMA engine computes Garner's digits in vectors.
fn crt3_into(
    e: Engine,
    r: &mut [u64],
    residues: &[Vec<u64>],
    [f1, f2, f3]: [Field; 3],
    c: &Crt,
) -> [u64; 3] {
    /// Coefficients per batch of digits (on the stack).
    const CHUNK: usize = 256;
    let count = residues[0].len();
    debug_assert!(count <= r.len() && residues.iter().all(|v| v.len() == count));
    let (head, tail) = r.split_at_mut(count);
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    let vector = match e {
        Engine::Fma(t, _) => {
            let balanced = |f: Field, m: u64| {
                let x = f.redc(u128::from(m)); // plain
                if x > f.p / 2 { x as f64 - f.p as f64 } else { x as f64 }
            };
            let k = crate::arch::ntt::fmacore::Garner3 {
                p2: f2.p as f64,
                p3: f3.p as f64,
                inv_p1_mod_p2: balanced(f2, c.inv_p1_mod_p2),
                p1_mod_p3: balanced(f3, c.p1_mod_p3),
                inv_p1p2_mod_p3: balanced(f3, c.inv_p1p2_mod_p3),
            };
            Some((t, k))
        }
        _ => None,
    };
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    let _ = e;
    // The running sum of the coefficients that reach the current limb: 192 bits.
    let (mut acc0, mut acc1, mut acc2) = (0u64, 0u64, 0u64);
    let (mut t2s, mut t3s) = ([0u64; CHUNK], [0u64; CHUNK]);
    for (start, out) in (0..count).step_by(CHUNK).zip(head.chunks_mut(CHUNK)) {
        let ys = [0, 1, 2].map(|k| &residues[k][start..start + out.len()]);
        #[allow(unused_mut)]
        let mut done = 0;
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if let Some((t, k)) = &vector {
            done = t.garner3(ys, &mut t2s[..out.len()], &mut t3s[..out.len()], k);
        }
        for i in done..out.len() {
            // x = y1 + p₁·t2 + p₁p₂·t3 with t2 < p₂ and t3 < p₃.
            let (y1, y2, y3) = (ys[0][i], ys[1][i], ys[2][i]);
            let y1_2 = f2.fix(y1, f2.p); // y1 mod p₂, as p₁ < 2·p₂
            let t2 = f2.mul(f2.sub(y2, y1_2), c.inv_p1_mod_p2);
            let y1_3 = f3.fix(y1, f3.p);
            let u = f3.add(y1_3, f3.mul(t2, c.p1_mod_p3));
            t2s[i] = t2;
            t3s[i] = f3.mul(f3.sub(y3, u), c.inv_p1p2_mod_p3);
        }
        for (i, limb) in out.iter_mut().enumerate() {
            let (y1, t2, t3) = (ys[0][i], t2s[i], t3s[i]);
            debug_assert!(t2 < f2.p && t3 < f3.p);
            // Sum the three terms into the accumulator.
            let lo = u128::from(y1) + u128::from(t2) * u128::from(f1.p); // < 2¹²⁵
            let hi_lo = u128::from(t3) * (c.p1p2 as u64 as u128);
            let hi_hi = u128::from(t3) * (c.p1p2 >> 64);
            // x = lo + hi_lo + hi_hi·2⁶⁴, added limb by limb with the carries.
            let s0 = u128::from(acc0) + (lo as u64 as u128) + (hi_lo as u64 as u128);
            let s1 =
                u128::from(acc1) + (lo >> 64) + (hi_lo >> 64) + (hi_hi as u64 as u128) + (s0 >> 64);
            let s2 = u128::from(acc2) + (hi_hi >> 64) + (s1 >> 64);
            debug_assert!(s2 >> 64 == 0, "NTT coefficient sum overflows 192 bits");
            *limb = s0 as u64;
            (acc0, acc1, acc2) = (s1 as u64, s2 as u64, 0);
        }
    }
    for limb in tail {
        *limb = acc0;
        (acc0, acc1, acc2) = (acc1, acc2, 0);
    }
    [acc0, acc1, acc2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engines this CPU runs.
    #[cfg_attr(
        not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
        allow(unused_mut)
    )]
    fn engines() -> Vec<Engine> {
        let mut v = vec![Engine::Portable];
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if let Some(t) = ifma() {
            v.extend([Engine::Ifma(t, false), Engine::Ifma(t, true)]);
        }
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if let Some(t) = Fma::new() {
            v.extend([Engine::Fma(t, 3), Engine::Fma(t, 4)]);
            if t.name() != t.narrow().name() {
                v.extend([Engine::Fma(t.narrow(), 3), Engine::Fma(t.narrow(), 4)]);
            }
        }
        v
    }

    /// Under qemu-user (`cargo xtask test`'s cross matrix sets `XTASK_EMULATED`).
    fn emulated() -> bool {
        std::env::var_os("XTASK_EMULATED").is_some()
    }

    fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "a 4096-limb product is too slow under Miri")]
    fn products_keep_their_buffers_until_released() {
        // 4096-limb operands: an NTT product on every engine (and small enough for qemu).
        let mut next = xorshift(7);
        let a: Vec<u64> = (0..4096).map(|_| next()).collect();
        let b: Vec<u64> = (0..4096).map(|_| next()).collect();
        let mut r = vec![0u64; 8192];
        release_thread_buffers();
        mul(&mut r, &a, &b);
        let held = release_thread_buffers();
        assert!(held > 0, "a product past the NTT threshold keeps its buffers");
        assert_eq!(release_thread_buffers(), 0, "released buffers are gone");
        // And the next product still works without kept buffers.
        let mut r2 = vec![0u64; 8192];
        mul(&mut r2, &a, &b);
        assert_eq!(r, r2);
    }

    #[test]
    fn fields_are_ntt_primes_with_the_given_generators() {
        for (fields, two_adicity) in
            [(&FIELDS[..], MAX_LOG_LEN), (&WIDE_FIELDS[..], MAX_LOG_LEN), (&FIELDS52[..], 32)]
        {
            for &f in fields {
                assert_eq!((f.p - 1) % (1 << two_adicity), 0);
                assert_eq!(f.p.wrapping_mul(f.pinv), 1);
                assert_eq!(f.p.wrapping_mul(f.pinv52) & LOW52, LOW52, "−p⁻¹ mod 2⁵²");
                // p − 1 = c·2^k: a generator has order p − 1, i.e. no g^((p−1)/q) is 1 for
                // a prime q | p − 1.
                let mut c = (f.p - 1) >> two_adicity;
                let mut primes = vec![2];
                let mut q = 2;
                while q * q <= c {
                    if c.is_multiple_of(q) {
                        primes.push(q);
                        while c.is_multiple_of(q) {
                            c /= q;
                        }
                    }
                    q += 1;
                }
                if c > 1 {
                    primes.push(c);
                }
                // A Fermat check with several bases (the primes are also checked by the
                // product tests: a composite modulus would break them).
                for base in [2, 3, 5, 7, 11, 13] {
                    assert_eq!(pow_mod(base, f.p - 1, f.p), 1, "{} is not prime", f.p);
                }
                for q in primes {
                    assert_ne!(pow_mod(f.generator, (f.p - 1) / q, f.p), 1, "{} {q}", f.p);
                }
            }
            // Garner's single corrections need every prime below twice every other.
            assert!(fields.windows(2).all(|w| w[0].p > w[1].p));
            assert!(fields[0].p < 2 * fields[fields.len() - 1].p);
        }
        for f in WIDE_FIELDS {
            assert!(f.p > 1 << 61 && f.p < 1 << 62);
        }
        // The wide products' CRT bounds, exactly: the primes' product is at least
        // 2^(2·bits + WIDE_MAX_LOG_LEN) (a sum of N products of two coefficients of `bits`
        // bits is below N·2^(2·bits)).
        for w in [WIDE4, WIDE5] {
            let p = WIDE_FIELDS[..w.primes].iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
            let top = 2 * w.bits + WIDE_MAX_LOG_LEN as usize;
            assert!(p[top / 64 + 1..].iter().any(|&l| l != 0) || p[top / 64] >> (top % 64) != 0);
        }
        // And the four primes' bound is tight: below 2^(224 + WIDE_MAX_LOG_LEN + 1).
        let p = WIDE_FIELDS[..4].iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
        let top = 224 + WIDE_MAX_LOG_LEN as usize;
        let below = |l: &[u64]| l.iter().all(|&l| l == 0);
        assert!(p[top / 64] >> (top % 64) == 1 && below(&p[top / 64 + 1..]), "{p:x?}");
        // The CRT bounds of the 50-bit engines: p₁p₂p₃ > 2^(128 + NARROW_MAX_LOG_LEN) and
        // p₁p₂p₃p₄ > 2^(128 + MAX_LOG_LEN52) (a sum of N products of two limbs).
        let bits = |k: usize| FIELDS52[..k].iter().map(|f| (f.p as f64).log2()).sum::<f64>();
        assert!(FIELDS52.iter().all(|f| f.p < 1 << 50));
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        {
            assert!(bits(3) > f64::from(128 + NARROW_MAX_LOG_LEN) + 0.5, "{}", bits(3));
            assert!(bits(4) > f64::from(128 + MAX_LOG_LEN52) + 0.5, "{}", bits(4));
        }
        assert!(bits(3) > 149.5 && bits(4) > 199.5);
        // The FMA engine's wide products: p₁…p₅ > 2^(2·116 + FMA_WIDE_MAX_LOG_LEN), exactly.
        let p = FIELDS52.iter().fold(vec![1u64], |a, f| schoolbook(&a, &[f.p]));
        let top = 2 * FMA_WIDE.bits + FMA_WIDE_MAX_LOG_LEN as usize;
        assert!(p[top / 64 + 1..].iter().any(|&l| l != 0) || p[top / 64] >> (top % 64) != 0);
        assert_eq!(FMA_WIDE.primes, FIELDS52.len());
    }

    /// The FMA engine's wide products at their longest transform (`2¹⁷`) with all-ones
    /// operands, the largest coefficients the CRT bound must cover: `(B^m − 1)²`.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fma_wide_products_at_their_longest_transform() {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        for e in engines() {
            let Engine::Fma(t, 3) = e else { continue };
            let w = FMA_WIDE;
            let log = if emulated() { 8 } else { FMA_WIDE_MAX_LOG_LEN };
            // `m` limbs: 2·w.len(m) − 1 > 2^(log − 1) coefficients: a transform of 2^log.
            let m = ((1usize << (log - 2)) + 1) * w.bits / 64 + 1;
            assert_eq!(w.transform_len(m, m), 1 << log);
            let a = vec![u64::MAX; m];
            for b in [None, Some(&a[..])] {
                let mut got = vec![0u64; 2 * m];
                fma_wide_product(t, &mut got, &a, b);
                let ok = got[0] == 1
                    && got[1..m].iter().all(|&l| l == 0)
                    && got[m] == u64::MAX - 1
                    && got[m + 1..].iter().all(|&l| l == u64::MAX);
                assert!(ok, "(B^{m} − 1)² is wrong over 2^{log} points with {e:?}");
            }
        }
    }

    /// The wide FMA products whose operands fill the lower half of the transform exactly
    /// (the forward transform that skips the zero upper half, [`forward_lower_half`]) or
    /// one coefficient more (the full one), at its shortest transform (`2¹⁴`, `n/4 =
    /// BLOCK`), with all-ones operands: `(B^x − 1)(B^y − 1) = B^(x+y) − B^x − B^y + 1`.
    /// In this order, on one thread, each product takes the buffers that the last one kept
    /// (their old values in place, and from the last case on longer than the transform),
    /// so the zero padding is checked where each load reads it.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fma_wide_products_around_the_half_filled_transform() {
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        for e in engines() {
            let Engine::Fma(t, 3) = e else { continue };
            let w = FMA_WIDE;
            let n = 4 * BLOCK;
            // Limbs for `c` coefficients of 116 bits (`16` coefficients in 29 limbs).
            let limbs = |c: usize| c / 16 * 29 + (c % 16 * w.bits).div_ceil(64);
            let half = limbs(n / 2);
            assert_eq!((w.len(half), w.len(half + 1)), (n / 2, n / 2 + 1));
            let shorter = limbs(n / 2 - 1);
            for (x, y) in [(half, half), (half + 1, shorter), (shorter, half + 1), (half, 1)] {
                let (a, b) = (vec![u64::MAX; x], vec![u64::MAX; y]);
                assert_eq!(w.transform_len(x, y), if y == 1 { n / 2 } else { n });
                // B^(x+y) − B^y is all ones above limb y; less B^x − 1.
                let mut want = vec![0u64; x + y];
                want[y..].fill(u64::MAX);
                let mut borrow = false;
                for (i, v) in want.iter_mut().enumerate() {
                    let s = if i < x { u64::MAX } else { 0 };
                    let (d, b1) = v.overflowing_sub(s);
                    let (d, b2) = d.overflowing_sub(u64::from(borrow));
                    (*v, borrow) = (d, b1 || b2);
                }
                assert!(!borrow);
                let ops: &[Option<&[u64]>] = if x == y { &[None, Some(&b)] } else { &[Some(&b)] };
                for &bo in ops {
                    let mut got = vec![0u64; x + y];
                    fma_wide_product(t, &mut got, &a, bo);
                    assert!(
                        got == want,
                        "all-ones {x} × {y} limbs ({bo:?}) with {e:?}",
                        bo = bo.is_some()
                    );
                }
            }
        }
    }

    /// The vector kernels' Garner digits ([`Fma::garner5`], every width) of residues made
    /// from chosen digits `t₁…t₅` (`x_j = Σ_m t_m·p₁…p_{m−1} mod p_j`, unscaled: scale 1),
    /// against the digits themselves and [`wide_w`]`(t₄, t₅)`: at their largest (`p_j − 1`,
    /// so `w` at its largest), zero, small `t₄` with large `t₅` (the low half of `p₄t₅`
    /// rounded up, so the carry into `w`'s high piece is taken back) and random, over 200
    /// indices (the 16- and 4-vector loops and the single vectors; the tail is the
    /// caller's).
    #[test]
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    fn fma_garner5_matches_the_chosen_digits() {
        let primes = FIELDS52.map(|f| f.p);
        let mut next = xorshift(5);
        for e in engines() {
            let Engine::Fma(t, 3) = e else { continue };
            for pattern in 0..4 {
                let digits: Vec<[u64; 5]> = (0..200)
                    .map(|i| match pattern {
                        0 => primes.map(|p| p - 1),
                        1 => [0; 5],
                        2 => primes.map(|p| [i as u64 % 3, p - 1 - i as u64][i % 2]),
                        _ => primes.map(|p| next() % p),
                    })
                    .collect();
                // x mod p_j from the digits, as an inverse transform's outputs (f64 bits).
                let mut rows: Vec<Vec<u64>> = (0..5)
                    .map(|j| {
                        let pj = u128::from(primes[j]);
                        digits
                            .iter()
                            .map(|t| {
                                let (mut x, mut prod) = (0u128, 1u128);
                                for m in 0..5 {
                                    x = (x + u128::from(t[m]) * prod) % pj;
                                    prod = prod * u128::from(primes[m]) % pj;
                                }
                                (x as f64).to_bits()
                            })
                            .collect()
                    })
                    .collect();
                let mut g = *fma_wide_constants();
                g.scale = [1.0; 5];
                let [y1, y2, y3, y4, y5] = &mut rows[..] else { unreachable!() };
                let done = t
                    .garner5([&mut y1[..], &mut y2[..], &mut y3[..], &mut y4[..], &mut y5[..]], &g);
                assert_eq!(done, 200, "{e:?}");
                for (i, d) in digits.iter().enumerate() {
                    let [lo, hi] = wide_w(d[3], d[4]);
                    let want = [d[0], d[1], d[2], lo, hi];
                    let got = [0, 1, 2, 3, 4].map(|j| rows[j][i]);
                    assert_eq!(got, want, "pattern {pattern}, index {i}, {e:?}");
                }
            }
        }
    }

    /// The wide FMA products' recombination ([`fma_wide_recombine`]) against the plain sum
    /// `Σᵢ (Σ_j t_j·p₁…p_{j−1})·2^(116·i)` in schoolbook arithmetic, with Garner's digits at
    /// their largest (`p_j − 1`: coefficients `p₁…p₅ − 1`, just below `2²⁵⁰`), zero, mixed
    /// and random, for digit counts around the 16-digit blocks (so whole blocks and their
    /// tail), into a destination of exactly the sum's length.
    #[test]
    #[cfg_attr(miri, ignore = "safe arithmetic only: the host and cross rows run it")]
    #[allow(clippy::needless_range_loop)] // `i` indexes the five digit rows and the bits
    fn fma_wide_recombination_matches_the_plain_sum() {
        let mut next = xorshift(2024);
        let primes = FIELDS52.map(|f| f.p);
        // p₁…p_j for j = 0…4, as limbs.
        let mut prods = vec![vec![1u64]];
        for &p in &primes[..4] {
            let v = schoolbook(prods.last().map_or(&[][..], |v| &v[..]), &[p]);
            prods.push(v);
        }
        // Around one, two and three blocks of 16, and five.
        for count in (1..=50).chain([63, 64, 65, 80]) {
            for pattern in 0..4 {
                let digits: Vec<Vec<u64>> = primes
                    .iter()
                    .map(|&p| {
                        (0..count)
                            .map(|i| match pattern {
                                0 => p - 1,
                                1 => 0,
                                2 => [p - 1, 0, 1, p - 2][(i + p as usize) % 4],
                                _ => next() % p,
                            })
                            .collect()
                    })
                    .collect();
                // The oracle: each coefficient's sum of products, added at bit 116·i.
                let bits = FMA_WIDE.bits;
                let mut want = vec![0u64; (bits * (count - 1) + 250).div_ceil(64) + 1];
                for i in 0..count {
                    for (j, pr) in prods.iter().enumerate() {
                        let v = schoolbook(pr, &[digits[j][i]]);
                        let (q, off) = ((bits * i) / 64, (bits * i) % 64);
                        let mut carry = 0u128;
                        for (k, w) in want[q..].iter_mut().enumerate() {
                            let lo = v.get(k).map_or(0, |&x| x << off);
                            let hi = match (off, k.checked_sub(1).and_then(|k| v.get(k))) {
                                (1.., Some(&x)) => x >> (64 - off),
                                _ => 0,
                            };
                            let t = u128::from(*w) + u128::from(lo | hi) + carry;
                            *w = t as u64;
                            carry = t >> 64;
                        }
                        assert_eq!(carry, 0);
                    }
                }
                while want.len() > 1 && want.last() == Some(&0) {
                    want.pop();
                }
                let mut got = vec![u64::MAX; want.len()]; // overwritten
                // The last two rows as the recombination takes them.
                let w: Vec<[u64; 2]> =
                    (0..count).map(|i| wide_w(digits[3][i], digits[4][i])).collect();
                let rows = [0, 1].map(|h| w.iter().map(|w| w[h]).collect::<Vec<u64>>());
                let t =
                    [&digits[0][..], &digits[1][..], &digits[2][..], &rows[0][..], &rows[1][..]];
                fma_wide_recombine(&mut got, t);
                assert_eq!(got, want, "{count} digits, pattern {pattern}");
            }
        }
    }

    /// Which of the FMA engine's products take the wide path: F(10⁷)'s (82 % of their power
    /// of two), not full powers of two, nor past the wide transform's longest.
    #[test]
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    fn fma_wide_products_where_they_save_butterflies() {
        assert!(fma_wide_plan(54_238, 54_238)); // F(10⁷)'s last product
        assert!(fma_wide_plan(108_476, 108_476)); // F(2·10⁷)'s
        assert!(fma_wide_plan(27_119, 27_119)); // F(10⁷)'s last squarings: 5·2¹⁵ for 3·2¹⁶
        assert!(fma_wide_plan(1_695, 1_695)); // F(1.5625·10⁵)'s: 5·2¹¹ for 3·2¹²
        assert!(fma_wide_plan(848, 848)); // F(7.8·10⁴)'s: 5·2¹⁰ for 3·2¹¹
        assert!(fma_wide_plan(424, 424)); // 5·2⁹ for 3·2¹⁰
        assert!(!fma_wide_plan(1 << 16, 1 << 16)); // a full power of two
        assert!(!fma_wide_plan(542_377, 542_377)); // F(10⁸)'s: past 2¹⁷
        assert!(!fma_wide_plan(200, 200)); // below the split products' minimum
    }

    /// Which of the FMA engine's narrow products are truncated: F(10⁶)'s and F(10⁷)'s
    /// squarings (66 % and 83 % of their power of two), not full powers of two, nor products
    /// just above one (split, see [`coefficients`]), nor short ones.
    #[test]
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    fn truncated_products_where_they_save_butterflies() {
        assert_eq!(truncates(5_424, 5_424), Some(2)); // F(10⁶)'s last product: 66 % of 2¹⁴
        assert_eq!(truncates(27_119, 27_119), Some(3)); // F(10⁷)'s last squarings: 83 % of 2¹⁶
        assert_eq!(truncates(1 << 15, 1 << 15), None); // a full power of two
        assert_eq!(truncates(1100, 1000), None); // just above 2¹¹: split
        assert_eq!(truncates(200, 200), None); // below `TRUNC_MIN`
        assert_eq!(truncates(7_400, 7_400), None); // 90 % of 2¹⁴: more than three pieces
    }

    /// The FMA engines' truncated products ([`truncated`]) at the edges of each piece count
    /// (the fewest coefficients, `N/2 + 1`, and the most, `N − N/2^K`), balanced and not,
    /// with random and all-ones operands (the largest coefficients), against schoolbook.
    #[test]
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    fn truncated_products_at_their_edges() {
        let mut next = xorshift(5);
        let n = TRUNC_MIN;
        let h = n / 2;
        // (a, b, pieces): count = a + b − 1.
        let cases = [
            (h / 2 + 1, h / 2 + 1, 2),                 // N/2 + 1
            (h, 2, 2),                                 // N/2 + 1, unbalanced
            (h / 2 + h / 4, h / 2 + h / 4 + 1, 2),     // 3N/4
            (h / 2 + h / 4 + 1, h / 2 + h / 4 + 1, 3), // 3N/4 + 1
            (h - h / 8, h - h / 8 + 1, 3),             // 7N/8
            (h, h - h / 4 + 1, 3),                     // 7N/8, unbalanced
            (h - 3, h / 2 + 44, 3),                    // between 3N/4 and 7N/8, unbalanced
        ];
        for e in engines() {
            if !matches!(e, Engine::Fma(..)) {
                continue;
            }
            for &(an, bn, k) in &cases {
                assert_eq!(transform_len(an, bn), n);
                assert_eq!(truncated_pieces(an, bn), Some(k), "{an}×{bn}");
                for ones in [false, true] {
                    let mut limb = || if ones { u64::MAX } else { next() };
                    let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                    let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                    // The square of `a` where it is truncated too (its own piece count).
                    let square = truncated_pieces(an, an).map(|k| (None, schoolbook(&a, &a), k));
                    for (b, want, k) in
                        [(Some(&b[..]), schoolbook(&a, &b), k)].into_iter().chain(square)
                    {
                        let residues = truncated(e, &a, b, k);
                        let mut got = vec![0u64; want.len()];
                        let carry = crt_into(e, &mut got, &residues);
                        assert_eq!(carry, [0; 3]);
                        assert_eq!(got, want, "{e:?} {an}×{bn} ({k} pieces, ones {ones})");
                    }
                }
            }
        }
    }

    #[test]
    fn field_arithmetic_matches_u128() {
        let mut next = xorshift(0x1234_5678_9abc_def0);
        let rounds = if cfg!(miri) { 20 } else { 1000 };
        for f in FIELDS {
            let m = u128::from(f.p);
            for _ in 0..rounds {
                let (x, b) = (next(), next() % f.p);
                let a = f.reduce(x);
                assert_eq!(u128::from(a), u128::from(x) % m);
                assert_eq!(u128::from(f.add(a, b)), (u128::from(a) + u128::from(b)) % m);
                assert_eq!(u128::from(f.sub(a, b)), (u128::from(a) + m - u128::from(b)) % m);
                let prod = f.mul(f.to_mont(a), b); // a·R·b·R⁻¹ = a·b
                assert_eq!(u128::from(prod), u128::from(a) * u128::from(b) % m);
            }
        }
        for f in FIELDS52 {
            let m = u128::from(f.p);
            let r52 = (1u128 << 52) % m;
            for _ in 0..rounds {
                let (a, b) = (next() & LOW52, next() % f.p);
                // mul52(a, b)·2⁵² ≡ a·b
                let prod = u128::from(f.mul52(a, b));
                assert!(prod < m);
                assert_eq!(prod * r52 % m, u128::from(a) * u128::from(b) % m);
                // redc of a limb: x·2⁻⁶⁴
                let x = next();
                let r64 = (1u128 << 64) % m;
                assert_eq!(u128::from(f.redc(u128::from(x))) * r64 % m, u128::from(x) % m);
            }
        }
    }

    /// The FMA engine's `cube` twiddles against powers of the root: `w_{4h}^{3i}` for every
    /// `h < len/2`, `i < h` (the other engines have none), up to [`CUBE_MAX_LEN`]; and its
    /// forward transforms without them (the radix-2 form of the passes past
    /// `CUBE_MAX_LEN`) against those with them (not under Miri: safe arithmetic, no vector
    /// engine there).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn cube_twiddles_are_cubes_of_the_roots() {
        for e in engines() {
            if e.has_radix4_cube() && !emulated() {
                let long = Tables::new(e, 2 * CUBE_MAX_LEN, None);
                assert!(long.cube.iter().all(|c| c.len() == CUBE_MAX_LEN / 2), "{e:?}");
            }
            let tabs = Tables::new(e, 1 << 10, None);
            let mut next = xorshift(7);
            for (k, &f) in e.fields().iter().enumerate().filter(|_| e.has_radix4_cube()) {
                // 2¹⁰ (stage by stage) and, natively, 2¹⁴ (recursing, a radix-4 top pass).
                for log in if emulated() { 10..=10 } else { 10..=14 } {
                    let tabs = Tables::new(e, 1 << log, None);
                    let x: Vec<u64> = (0..1u64 << log).map(|_| e.encode(next() % f.p)).collect();
                    let (mut with, mut without) = (x.clone(), x);
                    forward(e, f, &mut with, tabs.fwd(k));
                    forward(e, f, &mut without, Fwd { tw: &tabs.fwd[k], cube: &[] });
                    let plain = |v: &[u64]| v.iter().map(|&x| e.unload(f, x)).collect::<Vec<_>>();
                    assert_eq!(plain(&with), plain(&without), "{e:?} 2^{log}");
                }
            }
            for (k, &f) in e.fields().iter().enumerate() {
                let c = &tabs.cube[k];
                if !e.has_radix4_cube() {
                    assert!(c.is_empty(), "{e:?}");
                    continue;
                }
                assert_eq!(c.len(), 1 << 9, "{e:?}");
                let mut h = 1;
                while h < 1 << 9 {
                    let w = f.root(4 * h as u64);
                    for i in 0..h {
                        let want = pow_mod(w, 3 * i as u64, f.p);
                        assert_eq!(
                            e.unload(f, c[h + i]),
                            want,
                            "{e:?} prime {k}, h = {h}, i = {i}"
                        );
                    }
                    h *= 2;
                }
            }
        }
    }

    #[test]
    fn transforms_round_trip() {
        let logs: &[u32] = if cfg!(miri) { &[1, 2, 3, 5] } else { &[1, 2, 3, 4, 5, 8, 12, 13, 14] };
        for e in engines() {
            for &log in logs {
                let n = 1usize << log;
                let tabs = Tables::new(e, n, None);
                // Grown from a shorter table: the same.
                let grown = Tables::new(e, n, Some(&Tables::new(e, (n / 4).max(2), None)));
                assert!(grown.fwd == tabs.fwd && grown.inv == tabs.inv, "{e:?} 2^{log}");
                assert!(grown.cube == tabs.cube, "{e:?} 2^{log} cube");
                for (k, &f) in e.fields().iter().enumerate() {
                    let m = u128::from(f.p);
                    let x: Vec<u64> = (0..n as u64)
                        .map(|i| (u128::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % m) as u64)
                        .collect();
                    let mut y: Vec<u64> = x.iter().map(|&v| e.encode(v)).collect();
                    forward(e, f, &mut y, tabs.fwd(k));
                    inverse(e, f, &mut y, &tabs.inv[k]);
                    y.iter_mut().for_each(|v| *v = e.unload(f, *v));
                    for (a, b) in x.iter().zip(&y) {
                        assert_eq!(u128::from(*b), u128::from(*a) * n as u128 % m, "{e:?} 2^{log}");
                    }
                }
            }
        }
    }

    /// Schoolbook product, the tests' reference.
    fn schoolbook(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut want = vec![0u64; a.len() + b.len()];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &y) in b.iter().enumerate() {
                let t = u128::from(x) * u128::from(y) + u128::from(want[i + j]) + carry;
                want[i + j] = t as u64;
                carry = t >> 64;
            }
            want[i + b.len()] = carry as u64;
        }
        want
    }

    #[test]
    fn transformed_operands() {
        let mut next = xorshift(11);
        let cases: &[(usize, usize, usize)] =
            if cfg!(miri) { &[(3, 2, 8)] } else { &[(3, 2, 8), (40, 25, 64), (300, 200, 512)] };
        for e in engines() {
            for &(an, bn, n) in cases {
                for ones in [false, true] {
                    let mut limb = || if ones { u64::MAX } else { next() };
                    let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                    let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                    let want = schoolbook(&a, &b);
                    let mut got = vec![0u64; an + bn];
                    mul_transformed(&mut got, &a, &transform_with(e, &b, n));
                    assert_eq!(got, want, "{e:?} {an}x{bn}");
                    // mod B^h − 1 with h = n/2 < an + bn: against the folded full product.
                    let h = n / 2;
                    let a_short = &a[..an.min(h)];
                    let mut cyc = vec![0u64; h];
                    mul_mod_bnm1(&mut cyc, a_short, &transform_with(e, &b, h));
                    let mut folded = vec![0u64; h];
                    for chunk in schoolbook(a_short, &b).chunks(h) {
                        let mut carry = 0u128;
                        for (i, f) in folded.iter_mut().enumerate() {
                            let t = u128::from(*f)
                                + u128::from(chunk.get(i).copied().unwrap_or(0))
                                + carry;
                            *f = t as u64;
                            carry = t >> 64;
                        }
                        let mut i = 0;
                        while carry != 0 {
                            let t = u128::from(folded[i]) + carry;
                            folded[i] = t as u64;
                            carry = t >> 64;
                            i = (i + 1) % h;
                        }
                    }
                    let zero =
                        |v: &[u64]| v.iter().all(|&l| l == 0) || v.iter().all(|&l| l == u64::MAX);
                    assert!(cyc == folded || (zero(&cyc) && zero(&folded)), "{e:?} mod B^{h}−1");
                }
            }
        }
    }

    #[test]
    fn products_match_schoolbook() {
        let mut next = xorshift(7);
        let sizes: &[(usize, usize)] = if cfg!(miri) {
            &[(1, 1), (2, 1), (3, 3), (5, 2), (17, 16)]
        } else {
            // (1100, 1000) and (3000, 1100) sit just above a power of two: split products;
            // (1500, 1500) fills 73 % of 2¹² (split into 2¹¹ and a 2¹¹ that is not split);
            // (1300, 1300) 63 % (split twice: 2¹¹, 2¹⁰, 2⁸).
            &[
                (1, 1),
                (2, 1),
                (3, 3),
                (5, 2),
                (8, 8),
                (17, 16),
                (100, 37),
                (4097, 1000),
                (1100, 1000),
                (3000, 1100),
                (1500, 1500),
                (1300, 1300),
            ]
        };
        // The schoolbook references once for all engines (they dominate under qemu-user).
        for &(an, bn) in sizes {
            for pattern in 0..3 {
                let mut limb = || match pattern {
                    0 => next(),
                    1 => u64::MAX,
                    _ => next() & 0xff,
                };
                let a: Vec<u64> = (0..an).map(|_| limb()).collect();
                let b: Vec<u64> = (0..bn).map(|_| limb()).collect();
                let (want, want_sq) = (schoolbook(&a, &b), schoolbook(&a, &a));
                for e in engines() {
                    if emulated() && an * bn > 3 << 19 && !matches!(e, Engine::Portable) {
                        // Under qemu-user (softfloat FMAs) the NEON engine takes ~1 s per
                        // such product: it runs the split product (1100, 1000) and the rest
                        // (the split plans are the same code for every engine).
                        continue;
                    }
                    let mut got = vec![0u64; an + bn];
                    convolve(e, &mut got, &a, Some(&b));
                    assert_eq!(got, want, "{e:?} {an}×{bn} pattern {pattern}");
                    let mut sq = vec![0u64; 2 * an];
                    convolve(e, &mut sq, &a, None);
                    assert_eq!(sq, want_sq, "{e:?} {an}² pattern {pattern}");
                }
                // The portable engine's wide products (four primes, 112-bit coefficients): safe
                // arithmetic, no limb kernel, so not under Miri (it doubled this test's time).
                if cfg!(miri) {
                    continue;
                }
                for w in [WIDE4, WIDE5] {
                    let mut got = vec![u64::MAX; an + bn]; // overwritten
                    wide_product(w, &mut got, &a, Some(&b));
                    assert_eq!(got, want, "{w:?} {an}×{bn} pattern {pattern}");
                    let mut sq = vec![u64::MAX; 2 * an];
                    wide_product(w, &mut sq, &a, None);
                    assert_eq!(sq, want_sq, "{w:?} {an}² pattern {pattern}");
                }
                // The FMA engines' wide products (five primes, 116-bit coefficients).
                #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
                for e in engines() {
                    let Engine::Fma(t, 3) = e else { continue };
                    if emulated() && an * bn > 3 << 19 {
                        continue; // as above
                    }
                    let mut got = vec![u64::MAX; an + bn]; // overwritten
                    fma_wide_product(t, &mut got, &a, Some(&b));
                    assert_eq!(got, want, "wide {e:?} {an}×{bn} pattern {pattern}");
                    let mut sq = vec![u64::MAX; 2 * an];
                    fma_wide_product(t, &mut sq, &a, None);
                    assert_eq!(sq, want_sq, "wide {e:?} {an}² pattern {pattern}");
                }
            }
        }
    }

    /// The FMA engines' lazy bounds (`crate::arch::fmacore`): transforms accept values
    /// anywhere in `(−2p, 2p)`, and forward transforms and pointwise products keep them
    /// there; against the portable engine's transforms and `u128` products of the same
    /// residues, with inputs at the edges (`±(2p − 1)`, `±p`, and random).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fma_engines_accept_their_lazy_bounds() {
        let mut next = xorshift(99);
        // The FMA engines: the ones whose residues are `f64` bits.
        for e in engines().into_iter().filter(|e| e.encode(3) != 3) {
            let p = Engine::Portable;
            // 2¹³ and 2¹⁴ recurse above `BLOCK` (with a radix-2 and a radix-4 top pass).
            let logs: &[u32] = if emulated() { &[3, 4, 5, 8] } else { &[3, 4, 5, 8, 13, 14] };
            for &log in logs {
                let n = 1usize << log;
                let tabs = Tables::new(e, n, None);
                for (k, &f) in e.fields().iter().enumerate() {
                    let m = f.p as i64;
                    let edge = [2 * m - 1, -(2 * m - 1), m, -m, 2 * m - 2, -(2 * m - 2)];
                    let v: Vec<i64> = (0..n)
                        .map(|i| match next() % 4 {
                            0 | 1 => edge[i % edge.len()],
                            _ => (next() % (4 * m as u64 - 1)) as i64 - (2 * m - 1),
                        })
                        .collect();
                    let plain: Vec<u64> = v.iter().map(|&x| x.rem_euclid(m) as u64).collect();
                    let enc = |v: &[i64]| v.iter().map(|&x| (x as f64).to_bits()).collect();
                    let in_bound =
                        |x: &[u64]| x.iter().all(|&b| f64::from_bits(b).abs() < 2.0 * m as f64);
                    // The portable transforms over the same prime (Montgomery arithmetic
                    // with R = 2⁶⁴ takes any odd p), with the same twiddles in its form.
                    let mont = |t: &[u64]| t.iter().map(|&w| f.to_mont(e.unload(f, w))).collect();
                    let (wf, wi): (Vec<u64>, Vec<u64>) = (mont(&tabs.fwd[k]), mont(&tabs.inv[k]));
                    let mut want = plain.clone();
                    forward(p, f, &mut want, Fwd { tw: &wf, cube: &[] });
                    let mut got: Vec<u64> = enc(&v);
                    forward(e, f, &mut got, tabs.fwd(k));
                    assert!(in_bound(&got), "{e:?} 2^{log}: forward left (−2p, 2p)");
                    let got_plain: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                    assert_eq!(got_plain, want, "{e:?} 2^{log} forward");
                    // Pointwise squares of values at the edges.
                    let mut sq = enc(&v);
                    e.pointwise(f, &mut sq, None);
                    assert!(in_bound(&sq), "{e:?} 2^{log}: pointwise left (−2p, 2p)");
                    for (&s, &x) in sq.iter().zip(&plain) {
                        let want = (u128::from(x) * u128::from(x) % u128::from(f.p)) as u64;
                        assert_eq!(e.unload(f, s), want, "{e:?} {x}²");
                    }
                    // The inverse from values at the edges.
                    let mut want = plain.clone();
                    inverse(p, f, &mut want, &wi);
                    let mut got: Vec<u64> = enc(&v);
                    inverse(e, f, &mut got, &tabs.inv[k]);
                    assert!(in_bound(&got), "{e:?} 2^{log}: inverse left (−2p, 2p)");
                    // Unloading, scaled, to [0, p) from values at the edges.
                    let mut scaled = enc(&v);
                    e.finish(f, &mut scaled, n);
                    let s = u128::from(f.redc(u128::from(e.scale(f, n))));
                    for (&c, &x) in scaled.iter().zip(&plain) {
                        let want = u128::from(x) * s % u128::from(f.p);
                        assert_eq!(u128::from(c), want, "{e:?} 2^{log} unload of {x}");
                    }
                    let got_plain: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                    assert_eq!(got_plain, want, "{e:?} 2^{log} inverse");
                }
            }
        }
    }

    /// The FMA engines' DIT radix-4 passes at their input bound `(−2.71p, 2.71p)`
    /// (`fmacore::stage2`): the `LAZY` pass keeps its outputs within it and the last pass
    /// within `(−2p, 2p)`, both with the residues of the portable engine's two stages.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fma_dit_passes_accept_their_lazy_bounds() {
        let mut next = xorshift(2024);
        for e in engines().into_iter().filter(|e| e.has_radix4_cube()) {
            // h = 4 (four lanes), 8 and 16 (eight lanes, where AVX-512F may be used).
            for h in [4usize, 8, 16] {
                let n = 8 * h;
                let tabs = Tables::new(e, n, None);
                for (k, &f) in e.fields().iter().enumerate() {
                    let m = f.p as f64;
                    let top = (2.71 * m) as i64 - 1;
                    let edge = [top, -top, 2 * f.p as i64, -(2 * f.p as i64)];
                    let v: Vec<i64> = (0..n)
                        .map(|i| match next() % 3 {
                            0 => edge[i % edge.len()],
                            _ => (next() % (2 * top as u64 + 1)) as i64 - top,
                        })
                        .collect();
                    let plain: Vec<u64> =
                        v.iter().map(|&x| x.rem_euclid(f.p as i64) as u64).collect();
                    let mont = |t: &[u64]| -> Vec<u64> {
                        t.iter().map(|&w| f.to_mont(e.unload(f, w))).collect()
                    };
                    let wi = mont(&tabs.inv[k]);
                    let mut want = plain.clone();
                    Engine::Portable.stage::<true>(f, &mut want, h, &wi[h..2 * h]);
                    Engine::Portable.stage::<true>(f, &mut want, 2 * h, &wi[2 * h..4 * h]);
                    let (o, i) = (&tabs.inv[k][2 * h..4 * h], &tabs.inv[k][h..2 * h]);
                    for (lazy, bound) in [(true, 2.71), (false, 2.0)] {
                        let mut got: Vec<u64> = v.iter().map(|&x| (x as f64).to_bits()).collect();
                        if lazy {
                            e.stage2::<true, true>(f, &mut got, h, o, i, &[]);
                        } else {
                            e.stage2::<true, false>(f, &mut got, h, o, i, &[]);
                        }
                        let worst =
                            got.iter().map(|&b| f64::from_bits(b).abs() / m).fold(0.0, f64::max);
                        assert!(worst < bound, "{e:?} h = {h} lazy {lazy}: |x| = {worst}p");
                        let got: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                        assert_eq!(got, want, "{e:?} h = {h} lazy {lazy}");
                    }
                }
            }
        }
    }

    /// The FMA engines' DIT radix-2 stage at its input bound `(−2.71p, 2.71p)`
    /// (`fmacore::stage`, which reduces `a` instead of both outputs): outputs within
    /// `(−1.52p, 1.52p)`, with the residues of the portable engine's stage.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn fma_dit_stage_accepts_the_lazy_bound() {
        let mut next = xorshift(2411);
        for e in engines().into_iter().filter(|e| e.has_radix4_cube()) {
            // h = 4 (four lanes, two NEON vectors), 8 and 16 (eight lanes, AVX-512F).
            for h in [4usize, 8, 16] {
                let n = 4 * h;
                let tabs = Tables::new(e, 2 * h, None);
                for (k, &f) in e.fields().iter().enumerate() {
                    let m = f.p as f64;
                    let top = (2.71 * m) as i64 - 1;
                    let edge = [top, -top, 2 * f.p as i64, -(2 * f.p as i64), 0];
                    let v: Vec<i64> = (0..n)
                        .map(|i| match next() % 3 {
                            0 => edge[i % edge.len()],
                            _ => (next() % (2 * top as u64 + 1)) as i64 - top,
                        })
                        .collect();
                    let plain: Vec<u64> =
                        v.iter().map(|&x| x.rem_euclid(f.p as i64) as u64).collect();
                    let w = &tabs.inv[k][h..2 * h];
                    let wm: Vec<u64> = w.iter().map(|&t| f.to_mont(e.unload(f, t))).collect();
                    let mut want = plain.clone();
                    Engine::Portable.stage::<true>(f, &mut want, h, &wm);
                    let mut got: Vec<u64> = v.iter().map(|&x| (x as f64).to_bits()).collect();
                    e.stage::<true>(f, &mut got, h, w);
                    let worst =
                        got.iter().map(|&b| f64::from_bits(b).abs() / m).fold(0.0, f64::max);
                    assert!(worst < 1.52, "{e:?} h = {h}: |x| = {worst}p");
                    let got: Vec<u64> = got.iter().map(|&x| e.unload(f, x)).collect();
                    assert_eq!(got, want, "{e:?} h = {h}");
                }
            }
        }
    }

    /// The wide products at their longest transform (`2²³`, past F(10⁹)'s products), with
    /// all-ones operands, whose middle coefficients are the largest the CRT bound covers:
    /// `(B^m − 1)² = B^2m − 2B^m + 1` (`2⁸` points under qemu-user; not under Miri: safe
    /// arithmetic, no limb kernel).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn wide_products_at_their_longest_transform() {
        // The five primes' bound has seven bits to spare: 2²² for them (test time).
        for (w, log) in [(WIDE4, WIDE_MAX_LOG_LEN), (WIDE5, WIDE_MAX_LOG_LEN - 1)] {
            let log = if emulated() { 8 } else { log };
            // `m` limbs: 2·w.len(m) − 1 > 2^(log − 1) coefficients: a transform of 2^log.
            let m = ((1usize << (log - 2)) + 1) * w.bits / 64 + 1;
            assert_eq!(w.transform_len(m, m), 1 << log);
            let a = vec![u64::MAX; m];
            let mut got = vec![0u64; 2 * m];
            wide_product(w, &mut got, &a, None);
            let ok = got[0] == 1
                && got[1..m].iter().all(|&l| l == 0)
                && got[m] == u64::MAX - 1
                && got[m + 1..].iter().all(|&l| l == u64::MAX);
            assert!(ok, "(B^{m} − 1)² is wrong over 2^{log} points with {w:?}");
        }
    }

    /// Which products take the wide path: F(10⁷)'s squarings (54 000 limbs, 82 % of `2¹⁷`
    /// coefficients) do, full powers of two and split products do not.
    #[test]
    fn wide_products_where_they_save_butterflies() {
        assert_eq!(wide_plan(54_238, 54_238), Some(WIDE4)); // F(10⁷)'s last product
        assert_eq!(wide_plan(3_000, 3_000), Some(WIDE4));
        assert_eq!(wide_plan(542_377, 542_377), Some(WIDE5)); // F(10⁸)'s, split otherwise
        assert!(splits(542_377, 542_377));
        // Where the split plans take fewer butterflies than the padded transform: the
        // products of `products_match_schoolbook`, and F(10⁶)'s last (66 % of 2¹⁴).
        assert!(splits(1500, 1500) && !splits(951, 951));
        assert!(splits(1300, 1300) && splits(551, 551));
        assert!(splits(5424, 5424));
        // F(10⁷)'s (83 % of 2¹⁷): the sub-product would need the whole 2¹⁷ again.
        assert!(!splits(54_238, 54_238));
        // Below the split products' minimum: three primes.
        assert_eq!(wide_plan(200, 200), None);
        // Past the CRT bounds' length (2²⁵ and 2²⁴ points): never.
        assert_eq!(wide_plan(1 << 24, 1 << 24), None);
    }

    /// The 50-bit engines' largest transforms, with all-ones operands (the largest
    /// coefficients the CRT bound must cover): against the portable engine.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn vector_engines_at_their_longest_transform() {
        if engines().len() == 1 {
            return; // the portable engine alone: nothing to compare
        }
        // A product of 2·2²⁰ limbs: a transform of 2²¹. Under qemu-user (`XTASK_EMULATED`:
        // the cross matrix's aarch64 rows, where 2²¹ takes minutes) a product of 2·2¹⁴
        // limbs: the butterflies and the CRT are the same code at every length, and the
        // full-length bound is checked on the host (the same values: every lane's arithmetic
        // is exact or correctly rounded IEEE double).
        let n = if emulated() { 1usize << 14 } else { 1 << 20 };
        let a = vec![u64::MAX; n];
        let mut want = vec![0u64; 2 * n];
        convolve(Engine::Portable, &mut want, &a, None);
        // (B^n − 1)² = B^2n − 2B^n + 1
        assert_eq!(want[0], 1);
        assert_eq!(want[n], u64::MAX - 1);
        // Three primes (the four-prime variants: at 2²⁴ below).
        for e in engines().into_iter().skip(1).filter(|e| e.fields().len() == 3) {
            let mut got = vec![0u64; 2 * n];
            convolve(e, &mut got, &a, None);
            assert!(got == want, "(B^{n} − 1)² differs between {e:?} and the portable engine");
        }
    }

    /// The transform length F(10⁹) needs (its last squaring has 2²³·1.3 limbs: `2²⁴`
    /// coefficients), where three 50-bit primes no longer cover the coefficients (up to
    /// `2²³·2¹²⁸`), against the closed form `(B^n − 1)² = B^2n − 2B^n + 1`: the FMA engine
    /// where the CPU has it, else the dispatched one (the butterflies do not depend on the
    /// length: the other engines' are tested at `2²¹` above; this tests the twiddle tables
    /// and the four-prime CRT at full size, ~3 s of CPU).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn engines_at_the_transform_length_of_f_1e9() {
        let n = 1usize << 23;
        #[allow(unused_mut)]
        let mut e = Engine::for_len(2 * n);
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if let Some(t) = Fma::new() {
            e = Engine::Fma(t, 4);
        }
        if matches!(e, Engine::Portable) || emulated() {
            // No 50-bit engine here (the portable one covers 2⁴⁰ with three primes), or
            // under qemu-user (the cross matrix's aarch64 rows), where 2²⁴ would take many
            // minutes: NEON's lanes compute the values of the x86_64 engines tested here.
            return;
        }
        assert_eq!(e.fields().len(), 4, "{e:?} at 2^24");
        let engines = [e];
        let a = vec![u64::MAX; n];
        for e in engines {
            let mut got = vec![0u64; 2 * n];
            convolve(e, &mut got, &a, None);
            let ok = got[0] == 1
                && got[1..n].iter().all(|&l| l == 0)
                && got[n] == u64::MAX - 1
                && got[n + 1..].iter().all(|&l| l == u64::MAX);
            assert!(ok, "(B^{n} − 1)² is wrong with {e:?}");
        }
    }
}
