//! Multiplication of large numbers by number-theoretic transforms (NTT) over three primes.
//!
//! Each 64-bit limb is one coefficient. The cyclic convolution of the two limb vectors is
//! computed modulo three primes `p₁, p₂, p₃ ∈ (2⁶¹, 2⁶²)`, each `c·2⁴⁰ + 1`, whose product
//! (≈2¹⁸⁶) exceeds every coefficient of the product (`< N·2¹²⁸`, `N ≤ 2⁴⁰`), so the Chinese
//! remainder theorem (Garner's form) gives each coefficient exactly; the coefficients are
//! then added with carries at their limb offsets.
//!
//! - Arithmetic mod `p`: the transforms multiply by Shoup's pairs (`w` and `⌊w·2⁶⁴/p⌋`,
//!   one high 64×64 product and two low ones) and keep their values lazily reduced, in
//!   `[0, 2p)` forward and `[0, 4p)` inverse (Harvey's butterflies, `lazy`), two stages per
//!   pass; the pointwise products and the CRT use Montgomery multiplication with `R = 2⁶⁴`
//!   (`field`). The transforms' outputs are fully reduced.
//! - Forward transform: decimation in frequency, natural order in, bit-reversed order out;
//!   inverse: decimation in time, bit-reversed in, natural out. The pointwise product does
//!   not care about the order, so no bit-reversal pass is made. Both recurse on halves above
//!   `plan::BLOCK` coefficients (so that all stages of a block run in cache) and loop stage by
//!   stage below it.
//! - Squaring transforms its operand once per prime instead of twice.
//! - The twiddle tables (`w_{2h}^i` at `h + i` for every half-length `h`, independent of the
//!   transform length) are built once and shared by all later products up to that length,
//!   level by level: a longer table shares the shorter one's levels instead of copying them,
//!   and they are kept per prime and form, so that the engines over the same primes share
//!   them (the FMA engine's three-, four- and five-prime products; the portable and wide
//!   ones): each level of each prime is built and touched once per process.
//! - The transforms' buffers are kept per thread for the next product (the crate's `scratch`,
//!   which `par` lends to its worker threads: at most 8,
//!   of at most `2²¹` values): fresh ones cost page faults and the kernel's zeroing.
//!
//! - Three engines (`engine::Engine`): the portable one above; on x86_64 CPUs with AVX2 + FMA
//!   (x86-64-v3) one over primes below `2⁵⁰` held in doubles, four at a time in
//!   `arch::ntt::fma` and eight with AVX-512F (`arch::ntt::fma512`), and on aarch64 two
//!   with NEON (`arch::ntt::neon`), all one generic transform (`arch::ntt::fmacore`):
//!   FLINT 3's `fft_small` design, the quotient and remainder of `a·b` by `p` from FMAs,
//!   lazy reduction (the error bound is at `arch::ntt::fmacore`); and on CPUs with AVX-512 IFMA one
//!   over the same primes in 52-bit Montgomery form (`arch::ntt::ifma`, `R = 2⁵²`), which
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
//! two at or above `m − 1` coefficients (or is split, see `cyclic::coefficients`).
//!
//! - The FMA engine's truncated products (`truncated`): a product of `L` coefficients with
//!   `N/2 < L ≤ N − N/2^K` (`K ≤ 3`) takes `K` transforms of lengths `N/2, N/4, …, N/2^K`
//!   (the residues mod `x^{N/2} − 1` and mod `x^{N/2^{k+1}} − α_k`, twisted cyclic
//!   convolutions) instead of one of `N`, recombined modulo each prime from the zero top
//!   coefficients: F(10⁶)'s products (66 % of their power of two, `K = 2`) take 32 % fewer
//!   butterflies, F(10⁷)'s squarings (83 %, `K = 3`) 21 %. The coefficients, and so the CRT
//!   bound, are those of the padded product: nothing changes in the coefficient size.
//!
//! - The FMA engine's wide products (`fma_wide`): all five 50-bit primes (product
//!   `2^249.9991`) with 116-bit coefficients (`2·116 + 17 = 249`: transforms up to `2¹⁷`),
//!   where that halves a transform of `2¹⁰` points or more (`plan::fma_wide_plan`): F(10⁷)'s
//!   last product takes `5·2¹⁶` points instead of `3·2¹⁷`, its squarings before `5·2¹⁵`
//!   instead of `3·2¹⁶`, and so on down.
//!
//! - The portable engine's wide products (`wide`): four primes (a fourth and a
//!   fifth `c·2⁴⁰ + 1`) with coefficients of 112 bits (`7/4` limbs), or five with 140-bit
//!   coefficients (`35/16` limbs), both `2.29` prime-points per limb against three, take a
//!   transform of half the length where a product's coefficients fill little of their
//!   power of two, when that takes fewer butterflies (`plan::wide_plan`): F(10⁷)'s squarings
//!   take `4·2¹⁶` points instead of `3·2¹⁷`, F(10⁸)'s `5·2¹⁹` instead of `3·2²⁰ + 3·2¹⁶`
//!   (split). The bounds: a length-`N` convolution of `b`-bit coefficients is below
//!   `N·2^(2b)`; the four primes' product is `2^247.9998` (`2·112 + 23`: `N ≤ 2²³`), the
//!   five's `2^309.9998` (`2·140 + 23 = 303`); the unit tests check both exactly and square
//!   `B^m − 1` at `2²³` (four primes) and `2²²` (five).
//!
//! # Layout
//!
//! One concern per file; the arrows run one way, from this module's entry points down to
//! the leaves (`field`, `plan`), and nothing below imports this file:
//!
//! - `field`: arithmetic modulo one prime (Montgomery form) and the primes of every engine.
//! - `plan`: the transform lengths and the cost model that picks a product's plan (split,
//!   truncated, wide), with the limits that come from the CRT bounds. Pure functions of the
//!   operand lengths.
//! - `engine`: the engine enum, which engine runs for a length ([`NttEngine`] says which
//!   runs on this CPU), and each engine's
//!   butterflies, loading, unloading and pointwise products over the vector kernels of
//!   `arch::ntt`.
//! - `tables`: the twiddle tables, built once per engine and shared.
//! - `transform` splits its quarters between threads when asked (the crate's `par`).
//! - `transform`: the forward and inverse transforms (recursive above `BLOCK`); the portable
//!   engines' are `lazy`'s.
//! - `crt`: Garner's reconstruction for three, four and five primes, and the carries.
//! - `cyclic`: cyclic convolutions, operands transformed once, and the split plan.
//! - `truncated`, `wide`, `fma_wide`: the other product strategies.
//!
//! # Where the thresholds come from
//!
//! The limits in `plan` (longest transforms, prime counts) follow from the CRT bounds stated
//! above and are checked exactly by the unit tests. The plan choices compare butterfly
//! counts (`N·log₂N` per prime) with a margin where a strategy has extra passes; the margins
//! and minimum lengths were set by timing the products on both sides of the crossover with
//! `cargo run --release -p bignum-fib --example tune ntt` (each constant says which
//! products). When to use the NTT at all is `mul`'s `Thresholds`.

mod crt;
mod cyclic;
mod engine;
mod field;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
mod fma_wide;
mod lazy;
mod plan;
mod recombine;
mod tables;
mod transform;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
mod truncated;
mod wide;

#[cfg(test)]
mod tests;

pub(crate) use cyclic::Transformed;

use crate::dispatch::NttEngine;
use crate::scratch;
use crt::crt_into;
use cyclic::{convolve, cyclic};
use engine::Engine;
use plan::{transform_len, wide_plan};

/// The engine that products use here, by name (see [`NttEngine::name`]).
pub(crate) fn engine_name() -> &'static str {
    NttEngine::detect().name()
}

/// Frees the transforms' buffers kept by this thread (see [`crate::release_thread_buffers`]).
pub(crate) fn release_thread_buffers() -> usize {
    scratch::release()
}

/// `r = a · b` (`r.len() == a.len() + b.len()`, both operands non-empty).
pub(crate) fn mul(r: &mut [u64], a: &[u64], b: &[u64]) {
    product(r, a, Some(b));
}

/// `r = a²` (`r.len() == 2·a.len()`, `a` non-empty): one forward transform per prime.
pub(crate) fn sqr(r: &mut [u64], a: &[u64]) {
    product(r, a, None);
}

/// `r = a · b` (`b = None`: `a²`) by the plan that takes the fewest butterflies on the
/// engine that runs this length: the wide products where `plan` picks them, else one limb
/// per coefficient (split or truncated where that pays, see `cyclic::coefficients`).
fn product(r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    product_on(NttEngine::detect(), r, a, b);
}

/// [`product`] on the engine `engine`.
fn product_on(engine: NttEngine, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
    let b_len = b.map_or(a.len(), <[u64]>::len);
    let e = Engine::for_len_on(engine, transform_len(a.len(), b_len));
    if matches!(e, Engine::Portable)
        && let Some(w) = wide_plan(a.len(), b_len)
    {
        return wide::wide_product(w, r, a, b);
    }
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    if let Engine::Fma(t, _) = e
        && plan::fma_wide_plan(a.len(), b_len)
    {
        return fma_wide::fma_wide_product(t, r, a, b);
    }
    convolve(e, r, a, b);
}

impl NttEngine {
    /// `a · b` (`a.len() + b.len()` limbs) by this engine's NTT product, whatever the
    /// lengths (the ladder's thresholds are not consulted): for the tests and benches, which
    /// run every engine of [`crate::ntt_engines`].
    pub fn mul(self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut r = vec![0; a.len() + b.len()];
        if !a.is_empty() && !b.is_empty() {
            product_on(self, &mut r, a, Some(b));
        }
        r
    }

    /// `a²` (`2·a.len()` limbs) by this engine's NTT product, as [`NttEngine::mul`].
    pub fn sqr(self, a: &[u64]) -> Vec<u64> {
        let mut r = vec![0; 2 * a.len()];
        if !a.is_empty() {
            product_on(self, &mut r, a, None);
        }
        r
    }
}

/// `x` transformed for products of transform length `n` (a power of two `>= x.len()`).
pub(crate) fn transform(x: &[u64], n: usize) -> Transformed {
    cyclic::transform_with(Engine::for_len(n), x, n)
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
