//! The FMA engine's transform, generic over the vector width: the arithmetic on IEEE doubles
//! of FLINT 3's `fft_small` design (written anew here), once, for every register type that
//! implements [`Lanes`]: `__m256d` (four lanes, AVX2 + FMA, `fma`), `__m512d`
//! (eight, AVX-512F, `fma512`) and `float64x2_t` (two, aarch64 NEON,
//! `neon`).
//!
//! Residues are integers held exactly in `f64` (the `u64` slices of the NTT hold their bit
//! patterns), reduced lazily: a transform's values are in `(−2p, 2p)`, the twiddles balanced
//! (`|w| ≤ p/2`). Per lane, with `p < 2⁵⁰`, `u = 2⁻⁵³` and `pinv = fl(1/p)`:
//! - `mulmod(a, b)` for `|a·b| < c·p²`, `c ≤ 4`: `h = fl(a·b)`, `l = a·b − h` exactly (one
//!   FMA), `q = round(h·pinv)`, `r = h − q·p` (one FMA), result `r + l`. `h·pinv` is within
//!   three roundings (relative `3u`, plus `O(u²)`) of `a·b/p`, and `|a·b/p| < c·p < c·2⁵⁰`, so
//!   within `0.375c` of it, and `q` within `0.5 + 0.375c`: `|a·b − q·p| < (0.5 + 0.375c)·p`
//!   (strictly, as `p < 2⁵⁰`). `|l| ≤ ulp(h)/2 ≤ c·2⁴⁷`, and `h` is an integer (`|h| ≥ 2⁵³`
//!   or `h = a·b`), so `h − q·p` is an integer below `(0.5 + 0.375c)·2⁵⁰ + c·2⁴⁷ ≤ 2⁵³`: the
//!   FMA computes it exactly, and `r + l = a·b − q·p` is exact too. The result is `a·b mod p`
//!   in `(−(0.5 + 0.375c)p, (0.5 + 0.375c)p)`: `(−0.875p, 0.875p)` for `c = 1`,
//!   `(−1.25p, 1.25p)` for `c = 2`, `(−2p, 2p)` for `c = 4`.
//! - `reduce(s)` for `|s| < 8p` (`< 2⁵³`): `s − round(s·pinv)·p` (one FMA, exact), in
//!   `[−p/2, p/2]` give or take one (the quotient estimate is off by far less than `1/2`).
//! - Forward (DIF) butterfly, `a, b ∈ (−2p, 2p)`: `(reduce(a + b), mulmod(a − b, w))`
//!   (`|(a − b)·w| < 2p²`: `(−1.25p, 1.25p)`). The radix-4 pass leaves its first stage's sums
//!   `a + b` unreduced, in `(−4p, 4p)`: the second stage reduces `s₀ + s₁` (`|·| < 8p`) and
//!   multiplies `s₀ − s₁` (`|(s₀ − s₁)·w| < 4p²`: `(−2p, 2p)`). So a forward transform keeps
//!   its values in `(−2p, 2p)`, and so do the pointwise products of two transforms
//!   (`|x·y| < 4p²`).
//! - Inverse (DIT) butterfly, `a, b ∈ (−2p, 2p)`: `t = mulmod(b, w)` (`|b·w| < p²`: `|t| <
//!   0.875p`), `(reduce(a + t), reduce(a − t))`. In the radix-4 DIT pass the first stage
//!   leaves `a ± t` unreduced (`|·| < 2.875p`); the second stage reduces its `a` instead of
//!   its outputs (`reduce(a) ± t`, one reduction where two were): `|reduce(a)| ≤ p/2` (give
//!   or take one), `|b·w| < 1.44p²` so `|t| < 1.04p`, and the outputs are in
//!   `(−1.54p, 1.54p)`. So an inverse transform too keeps its values in `(−2p, 2p)`; its
//!   radix-4 passes other than the last may instead reduce one input of four (`LAZY`, see
//!   [`stage2`]), their outputs in `(−2.71p, 2.71p)`, which the DIT passes take too.
//! - Loading reduces a limb to `[0, p)`, and unloading multiplies an inverse transform's
//!   output (`|x| < 2p`) by the scale, balanced (`|s| ≤ p/2`, so `|x·s| < p²`: `(−0.875p,
//!   0.875p)`), and corrects `(−p, p)` to `[0, p)`, so the rest of `ntt` sees residues
//!   in `[0, p)`.
//!
//! Every operation is exact or correctly rounded in IEEE double precision, so all widths
//! compute the same values. The kernels here are `#[inline(always)]` and generic; each width's
//! module instantiates them inside its own `#[target_feature]` entry points, so they compile
//! to that width's instructions with no call in the loop. The stages whose half-length is
//! shorter than a vector (`h < Lanes::N`) regroup lanes with permutes, which are each
//! width's own code.
//!
//! # Adding a width
//!
//! A width is a module with a token type (whose value proves the CPU support), one
//! [`lanes!`] invocation (its intrinsics for [`Lanes`]; the x86 widths share one table in
//! `fma`) and one [`fma_entry_points!`] invocation listing the kernels it runs: the macro
//! writes each `#[target_feature]` forwarder and each safe method with its contract's
//! assertions, which live only there. Then the engine (`ntt::engine`) learns the token, and
//! `tests` in `ntt` runs it.

/// Rounds `p`'s width of `f64` lanes, as the transform needs them. Every method is a
/// register operation (or one unaligned load/store) on exact integer values.
///
/// # Safety
/// An implementation's methods may use the instructions of its extension: callers must run
/// them (inlined) only where the CPU has them, which each width's token proves. The loads
/// and stores take `Self::N` values at the pointer.
pub(crate) unsafe trait Lanes: Copy {
    /// The number of `f64` lanes.
    const N: usize;
    /// Every lane `x`.
    unsafe fn splat(x: f64) -> Self;
    /// `N` values at `p` (unaligned).
    unsafe fn load(p: *const f64) -> Self;
    /// Stores the `N` lanes at `p` (unaligned).
    unsafe fn store(p: *mut f64, v: Self);
    /// `a + b`.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// `a − b`.
    unsafe fn sub(a: Self, b: Self) -> Self;
    /// `a·b`.
    unsafe fn mul(a: Self, b: Self) -> Self;
    /// `a·b − c`, fused (one rounding).
    unsafe fn fmsub(a: Self, b: Self, c: Self) -> Self;
    /// `c − a·b`, fused (one rounding).
    unsafe fn fnmadd(a: Self, b: Self, c: Self) -> Self;
    /// Rounds to the nearest integer (ties to even).
    unsafe fn round(a: Self) -> Self;
    /// `r + p` in the lanes where `r < 0`: `(−p, p)` to `[0, p)`.
    unsafe fn correct(r: Self, p: Self) -> Self;
    /// `N` integers below `2⁵²` at `p` as exact doubles.
    unsafe fn load_u52(p: *const u64) -> Self;
    /// The `N` integer lanes of `v`, in `[0, 2⁵²)`, stored as `u64` at `p`.
    unsafe fn store_u52(p: *mut u64, v: Self);
    /// `N` limbs at `p` as their high and low 32-bit halves, exact doubles.
    unsafe fn load_halves(p: *const u64) -> (Self, Self);
    /// Adjacent pairs split across two vectors: in each two-lane block, the first result
    /// takes the first value of `x`'s block then of `y`'s, the second result their second
    /// values (x86 `unpacklo`/`unpackhi`, NEON `zip1`/`zip2`). Its own inverse:
    /// `unpack(unpack(x, y))` is `(x, y)`.
    unsafe fn unpack(x: Self, y: Self) -> (Self, Self);
}

/// `a·b mod p` in `(−(0.5 + 0.375c)p, (0.5 + 0.375c)p)` for `|a·b| < c·p²`, `c ≤ 4` (see the
/// module docs).
#[inline(always)]
pub(crate) unsafe fn mulmod<V: Lanes>(a: V, b: V, p: V, pinv: V) -> V {
    // SAFETY: register operations of `V`, whose extension the caller has (all of them).
    unsafe {
        let h = V::mul(a, b);
        let l = V::fmsub(a, b, h);
        let q = V::round(V::mul(h, pinv));
        V::add(V::fnmadd(q, p, h), l)
    }
}

/// [`mulmod`] by a constant `b` whose quotient `bq = fl(b·fl(1/p))` is computed once: the
/// quotient estimate `round(fl(a·bq))` is within three roundings of `a·b/p` as `mulmod`'s
/// is (so the bounds are the same), and it does not wait for `h = fl(a·b)`: a dependency
/// chain shorter by one product.
#[inline(always)]
pub(crate) unsafe fn mulmod_q<V: Lanes>(a: V, b: V, bq: V, p: V) -> V {
    // SAFETY: register operations of `V` (see `mulmod`).
    unsafe {
        let h = V::mul(a, b);
        let l = V::fmsub(a, b, h);
        let q = V::round(V::mul(a, bq));
        V::add(V::fnmadd(q, p, h), l)
    }
}

/// `s mod p` in `[−p/2, p/2]` (give or take one) for `|s| < 8p`.
#[inline(always)]
pub(crate) unsafe fn reduce<V: Lanes>(s: V, p: V, pinv: V) -> V {
    // SAFETY: register operations of `V` (see `mulmod`).
    unsafe { V::fnmadd(V::round(V::mul(s, pinv)), p, s) }
}

/// The butterfly on vectors: DIF `(a + b, (a − b)·w)` or DIT `(a + b·w, a − b·w)`, with the
/// bounds of the module docs; `LAZY`: the sum `a + b` (DIF) or both outputs (DIT) unreduced.
#[inline(always)]
pub(crate) unsafe fn butterfly<V: Lanes, const DIT: bool, const LAZY: bool>(
    a: V,
    b: V,
    w: V,
    p: V,
    pinv: V,
) -> (V, V) {
    // SAFETY: register operations of `V` (see `mulmod`).
    unsafe {
        if DIT {
            let t = mulmod(b, w, p, pinv);
            let (s, d) = (V::add(a, t), V::sub(a, t));
            if LAZY { (s, d) } else { (reduce(s, p, pinv), reduce(d, p, pinv)) }
        } else {
            let s = if LAZY { V::add(a, b) } else { reduce(V::add(a, b), p, pinv) };
            (s, mulmod(V::sub(a, b), w, p, pinv))
        }
    }
}

/// The DIT butterfly that reduces its input `a` instead of its two outputs:
/// `(reduce(a) + b·w, reduce(a) − b·w)`, for the radix-4 pass's second stage (see the module
/// docs: outputs in `(−1.54p, 1.54p)`).
#[inline(always)]
pub(crate) unsafe fn dit_reduce_a<V: Lanes>(a: V, b: V, w: V, p: V, pinv: V) -> (V, V) {
    // SAFETY: register operations of `V` (see `mulmod`).
    unsafe {
        let (a, t) = (reduce(a, p, pinv), mulmod(b, w, p, pinv));
        (V::add(a, t), V::sub(a, t))
    }
}

/// One stage on blocks of `2h`: decimation in frequency, `(a, b) → (a + b, (a − b)·w^i)`,
/// or with `DIT` decimation in time, `(a, b) → (a + b·w^i, a − b·w^i)`; `w` the `h`
/// twiddles (plain residues as `f64` bits).
///
/// The DIT stage takes inputs in `(−2.71p, 2.71p)` (the `LAZY` radix-4 passes' outputs, see
/// [`stage2`]) and reduces its input `a` instead of its two outputs ([`dit_reduce_a`]: two
/// reductions per butterfly where three were): `|reduce(a)| ≤ p/2` give or take one,
/// `|b·w| < 2.71p·p/2 < 1.36p²` so `|b·w mod p| < (0.5 + 0.375·1.36)p = 1.01p`, and the
/// outputs are in `(−1.52p, 1.52p)`, within the module docs' `(−2p, 2p)`.
///
/// # Safety
/// `V`'s extension available; `h ≥ V::N` a power of two, `x.len()` a multiple of `2h`,
/// `w.len() >= h`.
#[inline(always)]
pub(crate) unsafe fn stage<V: Lanes, const DIT: bool>(x: &mut [u64], h: usize, w: &[u64], p: f64) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv) = unsafe { (V::splat(p), V::splat(1.0 / p)) };
    let base = x.as_mut_ptr().cast::<f64>();
    let wp = w.as_ptr().cast::<f64>();
    let n = x.len();
    let mut j = 0;
    while j < n {
        let mut i = 0;
        while i < h {
            // SAFETY: `j + 2h <= n` and `i + N <= h` (`h` is a power of two `≥ N`, and `N`
            // is one): both `N`-lane accesses lie in `x`; `i + N <= h <= w.len()`. `u64` and
            // `f64` have the same size.
            unsafe {
                let pa = base.add(j + i);
                let pb = base.add(j + h + i);
                let (a, b, wv) = (V::load(pa), V::load(pb), V::load(wp.add(i)));
                let (s, d) = if DIT {
                    dit_reduce_a(a, b, wv, pv, piv)
                } else {
                    butterfly::<V, false, false>(a, b, wv, pv, piv)
                };
                V::store(pa, s);
                V::store(pb, d);
            }
            i += V::N;
        }
        j += 2 * h;
    }
}

/// The outputs of the DIF radix-4 butterfly on `(a₀, a₁, a₂, a₃)` from `b₀ = a₀ + a₂`,
/// `b₁ = a₁ + a₃`, `u = a₀ − a₂` (lazy, `(−4p, 4p)`) and `v = J·(a₁ − a₃)` (a `mulmod`,
/// `(−1.25p, 1.25p)`), with the twiddles `[W^i, W^2i, W^3i]`: `(b₀ + b₁, W^2i·(b₀ − b₁),
/// W^i·(u + v), W^3i·(u − v))`, the values of the two radix-2 stages (the second pair's
/// outer twiddle `W^(i+h)` is `J·W^i`, and the inner one times `W^i` is `W^3i`), with one
/// reduction and four products where those took two and four. Bounds (see the module
/// docs): `|b₀ + b₁| < 8p` for `reduce`; `|(b₀ − b₁)·W^2i| < 4p²`: `(−2p, 2p)`;
/// `|(u ± v)·w| < 5.25p·p/2 < 2.7p²`: `(−1.5p, 1.5p)`.
#[inline(always)]
pub(crate) unsafe fn dif4<V: Lanes>(
    b0: V,
    b1: V,
    u: V,
    v: V,
    [w1, w2, w3]: [V; 3],
    p: V,
    pinv: V,
) -> (V, V, V, V) {
    // SAFETY: register operations of `V` (see `mulmod`).
    unsafe {
        (
            reduce(V::add(b0, b1), p, pinv),
            mulmod(V::sub(b0, b1), w2, p, pinv),
            mulmod(V::add(u, v), w1, p, pinv),
            mulmod(V::sub(u, v), w3, p, pinv),
        )
    }
}

/// Two stages in one pass over blocks of `4h` (radix 4): DIF the stage of half-length `2h`
/// with the `2h` twiddles `outer` (`W^i`, `W` of order `4h`), then the stage `h` with the
/// `h` twiddles `inner` (`W^2i`); with `DIT` the stage `h` then `2h`. The DIF pass takes
/// `cube` (`W^3i`, `i < h`) too, for the radix-4 butterfly's form with one product by the
/// fourth root of unity `J = W^h = outer[h]` (see [`dif4`]), or if `cube` is empty (the
/// longest transforms' top passes, whose tables would take the memory), the two radix-2
/// stages one after the other (`outer[h + i] = J·W^i`); the DIT pass does not read it.
///
/// The DIT pass takes inputs in `(−2.71p, 2.71p)` (every value of the module docs' bounds is,
/// and a `LAZY` pass's outputs). It reduces the first stage's `a₀` (`[−p/2, p/2]` give or
/// take one) and keeps `a₂ ± t` lazy, then multiplies those by the outer twiddles
/// ([`dit_reduce_a`] without its reduction): for inputs below `B·p` the products `t` by the
/// inner twiddles are below `(0.5 + 0.1875B)p`, the lazy sums below `(B + 0.5 + 0.1875B)p`,
/// their products below `(0.5 + 0.1875(1.1875B + 0.5))p`, and the outputs below `(1.5 +
/// 0.1875B + 0.1875(1.1875B + 0.5))p`: `2.71p` for `B = 2.71` (a fixed point; every sum
/// below `8p`, every product below `4p²`). Without `LAZY` (the transform's last pass) it
/// reduces both `a₀ ± t` ([`dit_reduce_a`]): from inputs below `2.71p` the lazy sums are
/// below `3.72p`, their products by `|w| ≤ p/2` below `1.2p`, the outputs in `(−1.7p,
/// 1.7p)`, within the module docs' `(−2p, 2p)`.
///
/// # Safety
/// `V`'s extension available; `h ≥ V::N` a power of two, `x.len()` a multiple of `4h`,
/// `outer.len() >= 2h`, `inner.len() >= h`, and `cube` empty or `cube.len() >= h`.
#[inline(always)]
pub(crate) unsafe fn stage2<V: Lanes, const DIT: bool, const LAZY: bool>(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    let b = x.as_mut_ptr().cast::<f64>();
    // SAFETY: the caller's contract: the blocks of `4h` tile `x`, whose quarters start at
    // `b + kh` (in bounds: `x.len() >= 4h`).
    unsafe {
        let q = [b, b.add(h), b.add(2 * h), b.add(3 * h)];
        stage2_at::<V, DIT, LAZY>(q, x.len() / (4 * h), h, h, 0, outer, inner, cube, p)
    }
}

/// [`stage2`]'s butterflies `i` in `[a, a + m)` of one block of `4h`, its four quarters'
/// parts given apart (`q[k]` is quarter `k`'s `[a, a + m)`): the parts of one pass can run
/// on different threads.
///
/// # Safety
/// As [`stage2`]'s, for the block whose quarters' parts `q` are: every `q[k].len() == m`, a
/// multiple of `N`, `a + m <= h`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[inline(always)]
pub(crate) unsafe fn stage2_part<V: Lanes, const DIT: bool, const LAZY: bool>(
    q: [&mut [u64]; 4],
    h: usize,
    a: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    let m = q[0].len();
    let q = q.map(|s| s.as_mut_ptr().cast::<f64>());
    // SAFETY: the caller's contract: one block, whose quarters' parts are `q`.
    unsafe { stage2_at::<V, DIT, LAZY>(q, 1, h, m, a, outer, inner, cube, p) }
}

/// [`stage2`] on `blocks` blocks whose quarters' parts start at `q[k] + j·4h` (the block
/// `j`), `m` butterflies each, from butterfly `a`: the form chosen once for them all.
///
/// # Safety
/// As [`stage2`]'s for those parts: each `q[k] + j·4h` valid for `m` values, `a + m <= h`,
/// `m` a multiple of `N`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[inline(always)]
unsafe fn stage2_at<V: Lanes, const DIT: bool, const LAZY: bool>(
    q: [*mut f64; 4],
    blocks: usize,
    h: usize,
    m: usize,
    a: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    let run = (q, blocks, h, m, a);
    // SAFETY: the caller's contract, passed on (with `cube.len() >= h` for the cube form).
    unsafe {
        if DIT && LAZY {
            stage2_form::<V, true, true>(run, outer, inner, cube, p)
        } else if DIT || cube.is_empty() {
            stage2_form::<V, DIT, false>(run, outer, inner, cube, p)
        } else {
            stage2_form::<V, DIT, true>(run, outer, inner, cube, p)
        }
    }
}

/// [`stage2`] in one form: `CUBE` the radix-4 butterfly with `cube` (DIF) or the `LAZY`
/// pass (DIT), else the two radix-2 stages (DIF) or the last pass (DIT).
///
/// # Safety
/// As [`stage2`]'s, with `cube.len() >= h` if `CUBE`.
#[inline(always)]
unsafe fn stage2_form<V: Lanes, const DIT: bool, const CUBE: bool>(
    (q, blocks, h, m, a): ([*mut f64; 4], usize, usize, usize, usize),
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: register set-up (the caller has `V`'s extension); `outer[h]` is in bounds
    // (`outer.len() >= 2h`).
    let (pv, piv, jv) =
        unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(f64::from_bits(outer[h]))) };
    // SAFETY: register operation (`J`'s quotient for `mulmod_q`).
    let jq = unsafe { V::mul(jv, piv) };
    // The twiddles of butterfly `a + i` at `i`.
    // SAFETY: `a + m <= h`: in bounds of `outer`, `inner` and (if read) `cube`.
    let (wo, wi) = unsafe { (outer.as_ptr().add(a).cast::<f64>(), inner.as_ptr().add(a)) };
    let (wi, wc) = (wi.cast::<f64>(), cube.as_ptr().wrapping_add(a).cast::<f64>());
    for j in 0..blocks {
        let mut i = 0;
        while i < m {
            // SAFETY: `i + N <= m`: the four `N`-lane accesses lie in the block's parts
            // (the caller's contract); `a + h + i + N <= 2h <= outer.len()`, `a + i + N <=
            // h <= inner.len()`, and with `CUBE` (DIF) `a + i + N <= h <= cube.len()`.
            unsafe {
                let p0 = q[0].add(4 * h * j + i);
                let (p1, p2, p3) =
                    (q[1].add(4 * h * j + i), q[2].add(4 * h * j + i), q[3].add(4 * h * j + i));
                let (a0, a1, a2, a3) = (V::load(p0), V::load(p1), V::load(p2), V::load(p3));
                let (o0, w) = (V::load(wo.add(i)), V::load(wi.add(i)));
                let (a0, a1, a2, a3) = if DIT && CUBE {
                    let o1 = V::load(wo.add(h + i));
                    let r0 = reduce(a0, pv, piv);
                    let (b0, b1) = butterfly::<V, true, true>(r0, a1, w, pv, piv);
                    let (b2, b3) = butterfly::<V, true, true>(a2, a3, w, pv, piv);
                    let (t0, t1) = (mulmod(b2, o0, pv, piv), mulmod(b3, o1, pv, piv));
                    (V::add(b0, t0), V::add(b1, t1), V::sub(b0, t0), V::sub(b1, t1))
                } else if DIT {
                    let o1 = V::load(wo.add(h + i));
                    let (a0, a1) = butterfly::<V, true, true>(a0, a1, w, pv, piv);
                    let (a2, a3) = butterfly::<V, true, true>(a2, a3, w, pv, piv);
                    let (a0, a2) = dit_reduce_a::<V>(a0, a2, o0, pv, piv);
                    let (a1, a3) = dit_reduce_a::<V>(a1, a3, o1, pv, piv);
                    (a0, a1, a2, a3)
                } else if CUBE {
                    let w3 = V::load(wc.add(i));
                    let (b0, b1) = (V::add(a0, a2), V::add(a1, a3));
                    let u = V::sub(a0, a2);
                    let v = mulmod_q(V::sub(a1, a3), jv, jq, pv);
                    dif4(b0, b1, u, v, [o0, w, w3], pv, piv)
                } else {
                    let o1 = V::load(wo.add(h + i));
                    let (a0, a2) = butterfly::<V, false, true>(a0, a2, o0, pv, piv);
                    let (a1, a3) = butterfly::<V, false, true>(a1, a3, o1, pv, piv);
                    let (a0, a1) = butterfly::<V, false, false>(a0, a1, w, pv, piv);
                    let (a2, a3) = butterfly::<V, false, false>(a2, a3, w, pv, piv);
                    (a0, a1, a2, a3)
                };
                V::store(p0, a0);
                V::store(p1, a1);
                V::store(p2, a2);
                V::store(p3, a3);
            }
            i += V::N;
        }
    }
}

/// The forward [`stage2`] of one block of `4h` whose upper half is zero (not read: the
/// caller need not have written it): with `a₂ = a₃ = 0` the radix-4 butterfly ([`dif4`])
/// takes `b₀ = u = a₀`, `b₁ = a₁`, `v = J·a₁`, so it loads the lower half only and writes
/// all four quarters. Its values are within the bounds of [`stage2`]'s (`a` unreduced in
/// `(−2p, 2p)`, `|a₁·J| < p²`).
///
/// # Safety
/// `V`'s extension available; `h ≥ V::N` a power of two, `x.len() == 4h`, `outer.len() >=
/// 2h`, `inner.len() >= h`, `cube.len() >= h`.
#[inline(always)]
pub(crate) unsafe fn stage2_lower_half<V: Lanes>(
    x: &mut [u64],
    h: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    let b = x.as_mut_ptr().cast::<f64>();
    // SAFETY: the caller's contract: `x.len() == 4h`, whose quarters start at `b + kh`.
    unsafe {
        let q = [b, b.add(h), b.add(2 * h), b.add(3 * h)];
        stage2_lower_half_at::<V>(q, h, h, 0, outer, inner, cube, p)
    }
}

/// [`stage2_lower_half`]'s butterflies `i` in `[a, a + m)`, the four quarters' parts given
/// apart as for [`stage2_part`] (`q[2]` and `q[3]` are written only).
///
/// # Safety
/// As [`stage2_lower_half`]'s for the block whose quarters' parts `q` are: every
/// `q[k].len() == m`, a multiple of `N`, `a + m <= h`.
#[inline(always)]
pub(crate) unsafe fn stage2_lower_half_part<V: Lanes>(
    q: [&mut [u64]; 4],
    h: usize,
    a: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    let m = q[0].len();
    let q = q.map(|s| s.as_mut_ptr().cast::<f64>());
    // SAFETY: the caller's contract: one block, whose quarters' parts are `q`.
    unsafe { stage2_lower_half_at::<V>(q, h, m, a, outer, inner, cube, p) }
}

/// [`stage2_lower_half`] on the quarters' parts at `q`, `m` butterflies from `a`.
///
/// # Safety
/// As [`stage2_lower_half`]'s for those parts: each `q[k]` valid for `m` values, `a + m <=
/// h`, `m` a multiple of `N`.
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[inline(always)]
unsafe fn stage2_lower_half_at<V: Lanes>(
    q: [*mut f64; 4],
    h: usize,
    m: usize,
    a: usize,
    outer: &[u64],
    inner: &[u64],
    cube: &[u64],
    p: f64,
) {
    // SAFETY: register set-up (the caller has `V`'s extension); `outer[h]` is in bounds.
    let (pv, piv, jv) =
        unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(f64::from_bits(outer[h]))) };
    // SAFETY: register operation (`J`'s quotient for `mulmod_q`).
    let jq = unsafe { V::mul(jv, piv) };
    // SAFETY: `a + m <= h <= outer.len(), inner.len(), cube.len()`.
    let (wo, wi, wc) =
        unsafe { (outer.as_ptr().add(a), inner.as_ptr().add(a), cube.as_ptr().add(a)) };
    let (wo, wi, wc) = (wo.cast::<f64>(), wi.cast::<f64>(), wc.cast::<f64>());
    let mut i = 0;
    while i < m {
        // SAFETY: `i + N <= m`: the four `N`-lane accesses lie in the parts (the caller's
        // contract); `a + i + N <= h <= outer.len(), inner.len(), cube.len()`.
        unsafe {
            let (p0, p1, p2, p3) = (q[0].add(i), q[1].add(i), q[2].add(i), q[3].add(i));
            let (a0, a1) = (V::load(p0), V::load(p1));
            let tw = [V::load(wo.add(i)), V::load(wi.add(i)), V::load(wc.add(i))];
            let v = mulmod_q(a1, jv, jq, pv);
            let (a0, a1, a2, a3) = dif4(a0, a1, a0, v, tw, pv, piv);
            V::store(p0, a0);
            V::store(p1, a1);
            V::store(p2, a2);
            V::store(p3, a3);
        }
        i += V::N;
    }
}

/// `x[i] = x[i]·y[i] mod p` (`y = None`: `x[i]²`).
///
/// # Safety
/// `V`'s extension available; `x.len()` a multiple of `V::N`; `y`, if any, as long as `x`.
#[inline(always)]
pub(crate) unsafe fn pointwise<V: Lanes>(x: &mut [u64], y: Option<&[u64]>, p: f64) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv) = unsafe { (V::splat(p), V::splat(1.0 / p)) };
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + N <= x.len()` (a multiple of `N`), and `y.len() == x.len()`.
        unsafe {
            let px = x.as_mut_ptr().add(i).cast::<f64>();
            let a = V::load(px);
            let b = match y {
                Some(y) => V::load(y.as_ptr().add(i).cast()),
                None => a,
            };
            V::store(px, mulmod(a, b, pv, piv));
        }
        i += V::N;
    }
}

/// The twiddle-free stage `h = 1`: `(a, b) → (a + b, a − b)` on adjacent pairs, both
/// reduced ([`reduce`]: inputs in `(−2p, 2p)`, outputs in `[−p/2, p/2]` give or take one).
///
/// # Safety
/// `V`'s extension available; `x.len()` a multiple of `2·V::N`.
#[inline(always)]
pub(crate) unsafe fn radix2<V: Lanes>(x: &mut [u64], p: f64) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv) = unsafe { (V::splat(p), V::splat(1.0 / p)) };
    let base = x.as_mut_ptr().cast::<f64>();
    let mut j = 0;
    while j < x.len() {
        // SAFETY: `j + 2N <= x.len()` (a multiple of `2N`). `unpack` puts each pair's first
        // value in `a` and its second in `b`; unpacking `(s, d)` restores the order.
        unsafe {
            let (p0, p1) = (base.add(j), base.add(j + V::N));
            let (a, b) = V::unpack(V::load(p0), V::load(p1));
            let s = reduce(V::add(a, b), pv, piv);
            let d = reduce(V::sub(a, b), pv, piv);
            let (v0, v1) = V::unpack(s, d);
            V::store(p0, v0);
            V::store(p1, v1);
        }
        j += 2 * V::N;
    }
}

/// `dst[i] = src[i] mod p` as `f64` bits.
///
/// # Safety
/// `V`'s extension available; `dst.len() == src.len()`, a multiple of `V::N`.
#[inline(always)]
pub(crate) unsafe fn load<V: Lanes>(dst: &mut [u64], src: &[u64], p: f64) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv, two32) = unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(4_294_967_296.0)) };
    let mut i = 0;
    while i < src.len() {
        // SAFETY: `i + N <= len` for both slices. x = hi·2³² + lo with hi, lo < 2³² exact as
        // doubles; hi·2³² mod p (2³² < p) is in `[0, p)` once corrected, plus lo below 2p:
        // one more correction.
        unsafe {
            let (hi, lo) = V::load_halves(src.as_ptr().add(i));
            let r = V::correct(mulmod(hi, two32, pv, piv), pv);
            let t = V::sub(V::add(r, lo), pv);
            V::store(dst.as_mut_ptr().add(i).cast(), V::correct(t, pv));
        }
        i += V::N;
    }
}

/// `x[i] = x[i]·s mod p` as a `u64` (from `f64` bits, `|x[i]| < 2p`; `|s| ≤ p/2`).
///
/// # Safety
/// `V`'s extension available; `x.len()` a multiple of `V::N`.
#[inline(always)]
pub(crate) unsafe fn unload<V: Lanes>(x: &mut [u64], s: f64, p: f64) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv, sv) = unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(s)) };
    let mut i = 0;
    while i < x.len() {
        // SAFETY: `i + N <= x.len()`. The product is corrected to `[0, p)`, below `2⁵²`.
        unsafe {
            let px = x.as_mut_ptr().add(i);
            let v = V::correct(mulmod(V::load(px.cast()), sv, pv, piv), pv);
            V::store_u52(px, v);
        }
        i += V::N;
    }
}

/// The constants of [`garner3`]: the primes `p₂`, `p₃` and, as balanced residues
/// (`|·| ≤ p/2`), `p₁⁻¹ mod p₂`, `p₁ mod p₃`, `(p₁p₂)⁻¹ mod p₃`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Garner3 {
    pub(crate) p2: f64,
    pub(crate) p3: f64,
    pub(crate) inv_p1_mod_p2: f64,
    pub(crate) p1_mod_p3: f64,
    pub(crate) inv_p1p2_mod_p3: f64,
}

/// Garner's mixed-radix digits of three residues `y_k < p_k` (plain `u64`; `p₁ < 2p₂`,
/// `p₁ < 2p₃`, `p₂ < 2p₃`): `t2 = (y₂ − y₁)/p₁ mod p₂`, `t3 = (y₃ − y₁ − p₁t₂)/(p₁p₂) mod p₃`,
/// both in `[0, p)`, for the first `n` indices.
///
/// # Safety
/// `V`'s extension available; `n` a multiple of `V::N`, every slice at least `n` long.
#[inline(always)]
pub(crate) unsafe fn garner3<V: Lanes>(
    n: usize,
    [y1, y2, y3]: [&[u64]; 3],
    t2: &mut [u64],
    t3: &mut [u64],
    k: &Garner3,
) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (p2, p3, pinv2, pinv3, inv12, p1m3, inv123) = unsafe {
        (
            V::splat(k.p2),
            V::splat(k.p3),
            V::splat(1.0 / k.p2),
            V::splat(1.0 / k.p3),
            V::splat(k.inv_p1_mod_p2),
            V::splat(k.p1_mod_p3),
            V::splat(k.inv_p1p2_mod_p3),
        )
    };
    let mut i = 0;
    while i < n {
        // SAFETY: `i + N <= n` for every slice. The bounds (see the module docs for
        // `mulmod`'s `|a·b| < p²` and `reduce`'s `|s| < 4p`): `y₂ − y₁ ∈ (−2p₂, p₂)` times
        // `|p₁⁻¹| ≤ p₂/2`; `t₂ < p₂ < 2p₃` times `|p₁ mod p₃| ≤ p₃/2`; `u = y₁ + (−p₃, p₃)`
        // and `y₃ − u ∈ (−3p₃, 2p₃)`, reduced before its product.
        unsafe {
            let a1 = V::load_u52(y1.as_ptr().add(i));
            let a2 = V::load_u52(y2.as_ptr().add(i));
            let a3 = V::load_u52(y3.as_ptr().add(i));
            let d2 = V::correct(mulmod(V::sub(a2, a1), inv12, p2, pinv2), p2);
            let u = V::add(a1, mulmod(d2, p1m3, p3, pinv3));
            let d3 = reduce(V::sub(a3, u), p3, pinv3);
            let d3 = V::correct(mulmod(d3, inv123, p3, pinv3), p3);
            V::store_u52(t2.as_mut_ptr().add(i), d2);
            V::store_u52(t3.as_mut_ptr().add(i), d3);
        }
        i += V::N;
    }
}

/// `dst[i] = lo[i] + hi[i]·2⁶⁴ mod p` as `f64` bits in `[−p/2, p/2]` (give or take one), for
/// the wide products' coefficients (`hi[i] < 2⁵²`); `k` is `2⁶⁴ mod p`, balanced (`|k| ≤ p/2`).
///
/// # Safety
/// `V`'s extension available; every slice at least `n` long, `n` a multiple of `V::N`.
#[inline(always)]
pub(crate) unsafe fn load_wide<V: Lanes>(
    n: usize,
    dst: &mut [u64],
    lo: &[u64],
    hi: &[u64],
    k: f64,
    p: f64,
) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv, kv, two32) =
        unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(k), V::splat(4_294_967_296.0)) };
    let mut i = 0;
    while i < n {
        // SAFETY: `i + N <= n` for every slice. As in `load`, `lo mod p` in `[0, p)`;
        // `|hi·k| < 2⁵²·p/2 < 2p²` (`p > 2⁴⁹`), so its `mulmod` is in `(−1.25p, 1.25p)`, the
        // sum in `(−1.25p, 2.25p)`, below `8p` for `reduce`.
        unsafe {
            let (h32, l32) = V::load_halves(lo.as_ptr().add(i));
            let r = V::correct(mulmod(h32, two32, pv, piv), pv);
            let r = V::correct(V::sub(V::add(r, l32), pv), pv);
            let t = mulmod(V::load_u52(hi.as_ptr().add(i)), kv, pv, piv);
            V::store(dst.as_mut_ptr().add(i).cast(), reduce(V::add(r, t), pv, piv));
        }
        i += V::N;
    }
}

/// The constants of [`garner5`]: the five primes, their inverses `fl(1/p)`, the inverse
/// transforms' scales `scale[j]` and `inv[k][j] = p_k⁻¹ mod p_j` for `k < j`, both balanced
/// (`|·| ≤ p/2`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Garner5 {
    pub(crate) p: [f64; 5],
    pub(crate) pinv: [f64; 5],
    pub(crate) scale: [f64; 5],
    pub(crate) inv: [[f64; 5]; 5],
}

/// Garner's mixed-radix digits of the five inverse transforms' outputs `x_j` (`f64` bits,
/// `|x_j| < 2p_j`; the primes within a factor 2 of each other), in place: with the residues
/// `y_j = x_j·scale[j] mod p_j` (the transforms' unloading, done here instead of in a pass of
/// its own), `t₁ = y₁`, `t_j = (…((y_j − t₁)/p₁ − t₂)/p₂ … − t_{j−1})/p_{j−1} mod p_j` in
/// `[0, p_j)` replaces `x_j` as a plain `u64` for `j ≤ 3`, and the last two are replaced by
/// `w = t₄ + p₄t₅` (below `2¹⁰⁰`) in two pieces: `x₄` by `w mod 2⁵²`, `x₅` by `⌊w/2⁵²⌋`, for
/// the first `n` indices.
///
/// # Safety
/// `V`'s extension available; `n` a multiple of `V::N`, every slice at least `n` long.
#[inline(always)]
pub(crate) unsafe fn garner5<V: Lanes>(n: usize, y: [&mut [u64]; 5], k: &Garner5) {
    let ptr = y.map(|s| s.as_mut_ptr());
    let mut i = 0;
    // Sixteen vectors at a time (then four, then one): each vector's digits are a chain of
    // dependent `mulmod`s (t₅ waits on t₄, t₄ on t₃, …), so one vector at a time runs at the
    // chain's latency. Measured (garner5's perf share of the square of F(5·10⁶), AVX2):
    // four vectors 10.4-10.9 %, eight 7.9-8.5 %, sixteen 6.6-7.1 %, thirty-two
    // 7.1-7.4 %.
    while i + 16 * V::N <= n {
        // SAFETY: `i + 16N <= n` for every slice (see `garner5_lanes`).
        unsafe { garner5_lanes::<V, 16>(ptr, i, k) };
        i += 16 * V::N;
    }
    while i + 4 * V::N <= n {
        // SAFETY: `i + 4N <= n` for every slice.
        unsafe { garner5_lanes::<V, 4>(ptr, i, k) };
        i += 4 * V::N;
    }
    while i < n {
        // SAFETY: `i + N <= n` for every slice (`n` is a multiple of `N`).
        unsafe { garner5_lanes::<V, 1>(ptr, i, k) };
        i += V::N;
    }
}

/// [`garner5`] on `U` vectors from index `i`, interleaved.
///
/// # Safety
/// `V`'s extension available; each of the five pointers valid for `i + U·N` values.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // `m`, `u` index the digits and the vectors together
unsafe fn garner5_lanes<V: Lanes, const U: usize>(ptr: [*mut u64; 5], i: usize, k: &Garner5) {
    // SAFETY: the accesses lie in the slices (the caller's contract). Bounds: `|x·scale| <
    // 2p·p/2 = p²`, so `y ∈ (−0.875p, 0.875p)` (`mulmod`, see the module docs); minus `d_m ∈
    // [0, p_m)` (`p_m < 2p_j`): `|v − d_m| < 3.25p_j` at most, also for the later `v ∈
    // (−1.25p_j, 1.25p_j)`; times `|inv| ≤ p_j/2`, below `2p_j²`: the `mulmod` is in
    // `(−1.25p_j, 1.25p_j)`; `reduce` and `correct` give `[0, p_j)`.
    unsafe {
        let mut d = [[V::splat(0.0); U]; 5];
        for j in 0..5 {
            let (pv, piv, sv) = (V::splat(k.p[j]), V::splat(k.pinv[j]), V::splat(k.scale[j]));
            let mut v = [V::splat(0.0); U];
            for (u, v) in v.iter_mut().enumerate() {
                *v = mulmod(V::load(ptr[j].add(i + u * V::N).cast()), sv, pv, piv);
            }
            for m in 0..j {
                let inv = V::splat(k.inv[m][j]);
                for u in 0..U {
                    v[u] = mulmod(V::sub(v[u], d[m][u]), inv, pv, piv);
                }
            }
            for u in 0..U {
                d[j][u] = V::correct(reduce(v[u], pv, piv), pv);
                if j < 3 {
                    V::store_u52(ptr[j].add(i + u * V::N), d[j][u]);
                }
            }
        }
        // `w = t₄ + p₄t₅ < p₄p₅ < 2¹⁰⁰` exactly, as `w_lo + w_hi·2⁵²` (`w_lo < 2⁵²`,
        // `w_hi < 2⁴⁸`): `h = p₄t₅` rounded to a multiple of `2⁵²` (below `2¹⁰¹`, by adding
        // and subtracting `1.5·2¹⁰⁴`, whose ulp is `2⁵²`), `l = p₄t₅ − h` (exact, `|l| ≤
        // 2⁵¹`), `t₄ + l ∈ [−2⁵¹, 2⁵¹ + 2⁵⁰)` carried into `[0, 2⁵²)`: all exact.
        const BIG: f64 = (3u128 << 103) as f64; // 1.5·2¹⁰⁴
        const TWO52: f64 = (1u64 << 52) as f64;
        let (p4, big, minus_big) = (V::splat(k.p[3]), V::splat(BIG), V::splat(-BIG));
        let (two52, inv52) = (V::splat(TWO52), V::splat(1.0 / TWO52));
        for u in 0..U {
            let h = V::sub(V::fmsub(p4, d[4][u], minus_big), big);
            let lo = V::add(V::fmsub(p4, d[4][u], h), d[3][u]);
            let lo_fixed = V::correct(lo, two52);
            let hi = V::fnmadd(V::sub(lo_fixed, lo), inv52, V::mul(h, inv52));
            V::store_u52(ptr[3].add(i + u * V::N), lo_fixed);
            V::store_u52(ptr[4].add(i + u * V::N), hi);
        }
    }
}

/// `out[i] = s·(a[i] + t·y[i]) mod p` (`y = None`: `s·a[i]`), for the truncated products'
/// recombination (`ntt`): `|a[i]|, |y[i]| < 2p` (`f64` bits, as a transform holds
/// them), `|t|, |s| ≤ p/2` balanced. Bounds (see the module docs): `|t·y| < p²`, so
/// `mulmod` gives `(−0.875p, 0.875p)` and the sum is below `2.875p` (`t = ±1`: an addition,
/// below `4p`); times `|s| ≤ p/2`, below `2p²`: the result is in `(−1.25p, 1.25p)` (for
/// `s = 1` reduced instead: `[−p/2, p/2]` give or take one).
///
/// # Safety
/// `V`'s extension available; `n` a multiple of `V::N`; `out`, `a` and `y` (if any) valid
/// for `n` values (`out` may be `a`, and nothing else overlaps).
#[inline(always)]
pub(crate) unsafe fn comb<V: Lanes>(
    n: usize,
    out: *mut u64,
    a: *const u64,
    y: Option<*const u64>,
    t: f64,
    s: f64,
    p: f64,
) {
    // One loop per form, without a branch inside.
    // SAFETY: the caller's contract, passed on.
    unsafe {
        // `t = ±1`: an addition or subtraction instead of the product.
        let ty = match (y, t) {
            (None, _) => 0,
            (Some(_), 1.0) => 2,
            (Some(_), -1.0) => 3,
            (Some(_), _) => 1,
        };
        let y = y.unwrap_or(a);
        macro_rules! forms {
            ($($ty:literal),*) => {
                match ty {
                    $(
                        $ty if s == 1.0 => comb_loop::<V, $ty, true>(n, out, a, y, t, s, p),
                        $ty => comb_loop::<V, $ty, false>(n, out, a, y, t, s, p),
                    )*
                    _ => unreachable!("four forms of the term"),
                }
            };
        }
        forms!(0, 1, 2, 3)
    }
}

/// [`comb`]'s loop: `Y` 0: no term, 1: the term `t·y[i]`, 2: `+y[i]`, 3: `−y[i]`; `ONE`:
/// reduced instead of the product by `s = 1`.
///
/// # Safety
/// As [`comb`]'s; `y` (if `Y > 0`) valid for `n` values.
#[allow(clippy::too_many_arguments)] // the kernel's operands, passed on from `comb`
#[inline(always)]
unsafe fn comb_loop<V: Lanes, const Y: u8, const ONE: bool>(
    n: usize,
    out: *mut u64,
    a: *const u64,
    y: *const u64,
    t: f64,
    s: f64,
    p: f64,
) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv, tv, sv) = unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(t), V::splat(s)) };
    let mut i = 0;
    while i < n {
        // SAFETY: `i + N <= n` (a multiple of `N`): every access lies within the `n` values
        // the caller vouches for; `out` is written only at `i` after `a[i]` is read.
        unsafe {
            let mut v = V::load(a.add(i).cast());
            match Y {
                0 => {}
                1 => v = V::add(v, mulmod(V::load(y.add(i).cast()), tv, pv, piv)),
                2 => v = V::add(v, V::load(y.add(i).cast())),
                _ => v = V::sub(v, V::load(y.add(i).cast())),
            }
            let r = if ONE { reduce(v, pv, piv) } else { mulmod(v, sv, pv, piv) };
            V::store(out.add(i).cast(), r);
        }
        i += V::N;
    }
}

/// The truncated products' fold (`ntt`), one pass for both halves of a split:
/// `out[i] = (lo[i] + α·hi[i])·w[i]` and, with `D`, `d[i] = lo[i] − α·hi[i]`, for `|lo[i]|,
/// |hi[i]| < 2p` (`f64` bits), `|α|, |w[i]| ≤ p/2` balanced. Bounds (see the module docs):
/// `h = mulmod(hi, α)` is in `(−0.875p, 0.875p)` (`|hi·α| < p²`); `|lo + h| < 2.875p`, times
/// `|w| ≤ p/2` below `1.44p² < 2p²`: `out` in `(−1.25p, 1.25p)`; `d = reduce(lo − h)` in
/// `[−p/2, p/2]` give or take one.
///
/// # Safety
/// `V`'s extension available; `n` a multiple of `V::N`; every pointer valid for `n` values
/// (`d`, if `D`, for writing; `d` may be `lo`, nothing else overlaps).
#[allow(clippy::too_many_arguments)] // the kernel's operands
#[inline(always)]
pub(crate) unsafe fn fold<V: Lanes, const D: bool>(
    n: usize,
    out: *mut u64,
    d: *mut u64,
    lo: *const u64,
    hi: *const u64,
    alpha: f64,
    w: *const u64,
    p: f64,
) {
    // SAFETY: register set-up (the caller has `V`'s extension).
    let (pv, piv, av) = unsafe { (V::splat(p), V::splat(1.0 / p), V::splat(alpha)) };
    let mut i = 0;
    while i < n {
        // SAFETY: `i + N <= n`: every access lies within the `n` values the caller vouches
        // for; `d[i]` is written after `lo[i]` is read.
        unsafe {
            let l = V::load(lo.add(i).cast());
            let h = mulmod(V::load(hi.add(i).cast()), av, pv, piv);
            let o = mulmod(V::add(l, h), V::load(w.add(i).cast()), pv, piv);
            V::store(out.add(i).cast(), o);
            if D {
                V::store(d.add(i).cast(), reduce(V::sub(l, h), pv, piv));
            }
        }
        i += V::N;
    }
}

/// The `_part` kernels' contract on their operands, checked (panics otherwise), for the
/// entry points of every width: `N` lanes, `h >= N` a power of two, `outer` and `inner` at
/// least `2h` and `h` twiddles, the four parts of one length `m`, a multiple of `N`, with
/// `a + m <= h`.
pub(crate) fn check_parts(
    n: usize,
    q: &[&mut [u64]; 4],
    h: usize,
    a: usize,
    outer: &[u64],
    inner: &[u64],
) {
    let m = q[0].len();
    assert!(h >= n && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
    assert!(q.iter().all(|s| s.len() == m) && m.is_multiple_of(n) && a + m <= h);
}

/// One width's entry points to the kernels of this module, written once for every width.
///
/// `token` is the type whose value proves the CPU support, `lanes` the register type (its
/// [`Lanes::N`] sets every length contract), `feature` the `target_feature` string. For each
/// kernel in `generic`, a `#[target_feature]` forwarder (a free `unsafe fn` named after the
/// kernel) instantiates the generic kernel at `lanes`; the kernels in `own` are the width's
/// own code (permutes for the stages shorter than a vector), free `unsafe fn`s of the same
/// name and signature in the width's module. For both lists a safe method on `token` checks
/// the kernel's contract (the assertions below, the only copy) and calls the free function.
/// Kernels that cover a prefix (`comb`, `fold`, `garner3`, `load_wide`, `garner5`) return how
/// many values they did, a multiple of `N`; the tail is the caller's. `stage_min_h` is the
/// shortest half-length the width's `stage` takes (`N`, or less where `stage` is its own).
macro_rules! fma_entry_points {
    (
        token: $token:ty,
        lanes: $v:ty,
        feature: $feat:tt,
        stage_min_h: $min_h:expr,
        generic: [$($g:ident),* $(,)?],
        own: [$($o:ident),* $(,)?] $(,)?
    ) => {
        $( $crate::arch::ntt::fmacore::fma_entry_points!(@forward $g, $v, $feat); )*
        impl $token {
            $( $crate::arch::ntt::fmacore::fma_entry_points!(@safe $g, $v, $min_h); )*
            $( $crate::arch::ntt::fmacore::fma_entry_points!(@safe $o, $v, $min_h); )*
        }
    };

    // The forwarders: `fmacore::<kernel>::<lanes>` inside the width's `target_feature`, one
    // arm per kernel giving its generics, parameters and generic arguments to `@fwd`.
    (@forward stage, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, stage [const DIT: bool]
            (x: &mut [u64], h: usize, w: &[u64], p: f64) [DIT]);
    };
    (@forward stage2, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, stage2
            [const DIT: bool, const LAZY: bool]
            (x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], cube: &[u64], p: f64)
            [DIT, LAZY]);
    };
    (@forward stage2_part, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, stage2_part
            [const DIT: bool, const LAZY: bool]
            (q: [&mut [u64]; 4], h: usize, a: usize, outer: &[u64], inner: &[u64],
             cube: &[u64], p: f64)
            [DIT, LAZY]);
    };
    (@forward stage2_lower_half_part, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, stage2_lower_half_part []
            (q: [&mut [u64]; 4], h: usize, a: usize, outer: &[u64], inner: &[u64],
             cube: &[u64], p: f64) []);
    };
    (@forward stage2_lower_half, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, stage2_lower_half []
            (x: &mut [u64], h: usize, outer: &[u64], inner: &[u64], cube: &[u64], p: f64) []);
    };
    (@forward radix2, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, radix2 []
            (x: &mut [u64], p: f64) []);
    };
    (@forward pointwise, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, pointwise []
            (x: &mut [u64], y: Option<&[u64]>, p: f64) []);
    };
    (@forward load, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, load []
            (dst: &mut [u64], src: &[u64], p: f64) []);
    };
    (@forward unload, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, unload []
            (x: &mut [u64], s: f64, p: f64) []);
    };
    (@forward comb, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, comb []
            (n: usize, out: *mut u64, a: *const u64, y: Option<*const u64>, t: f64, s: f64, p: f64)
            []);
    };
    (@forward fold, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, fold [const D: bool]
            (n: usize, out: *mut u64, d: *mut u64, lo: *const u64, hi: *const u64, alpha: f64,
             w: *const u64, p: f64) [D]);
    };
    (@forward garner3, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, garner3 []
            (n: usize, y: [&[u64]; 3], t2: &mut [u64], t3: &mut [u64],
             k: &$crate::arch::ntt::fmacore::Garner3) []);
    };
    (@forward load_wide, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, load_wide []
            (n: usize, dst: &mut [u64], lo: &[u64], hi: &[u64], k: f64, p: f64) []);
    };
    (@forward garner5, $v:ty, $feat:tt) => {
        $crate::arch::ntt::fmacore::fma_entry_points!(@fwd $v, $feat, garner5 []
            (n: usize, y: [&mut [u64]; 5], k: &$crate::arch::ntt::fmacore::Garner5) []);
    };
    (@fwd $v:ty, $feat:tt, $name:ident [$($gen:tt)*] ($($arg:ident: $ty:ty),* $(,)?)
        [$($garg:ident),*]) => {
        /// # Safety
        /// The width's extension available; the contract of the generic kernel of the same
        /// name in `fmacore`, with `N` the width's lanes.
        #[allow(clippy::too_many_arguments)] // the kernel's operands
        #[target_feature(enable = $feat)]
        unsafe fn $name<$($gen)*>($($arg: $ty),*) {
            // SAFETY: the caller's contract.
            unsafe { $crate::arch::ntt::fmacore::$name::<$v, $($garg),*>($($arg),*) }
        }
    };

    // The safe methods: the contracts, checked once here for every width.
    (@safe stage, $v:ty, $min_h:expr) => {
        /// One stage on blocks of `2h` (`fmacore::stage`): decimation in frequency,
        /// `(a, b) → (a + b, (a − b)·w^i)`, or with `DIT` decimation in time,
        /// `(a, b) → (a + b·w^i, a − b·w^i)`; `w` the `h` twiddles (plain residues as `f64`
        /// bits). `h` a power of two from the width's shortest, `x.len()` a multiple of `2h`
        /// and of two vectors.
        pub(crate) fn stage<const DIT: bool>(self, x: &mut [u64], h: usize, w: &[u64], p: f64) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(h >= $min_h && h.is_power_of_two() && w.len() >= h);
            assert!(x.len().is_multiple_of(2 * h) && x.len().is_multiple_of(2 * N));
            // SAFETY: `self` proves the CPU support; the assertions are the kernel's contract.
            unsafe { stage::<DIT>(x, h, w, p) }
        }
    };
    (@safe stage2, $v:ty, $min_h:expr) => {
        /// Two stages in one pass over blocks of `4h` (`fmacore::stage2`, radix 4): DIF the
        /// stage `2h` with the `2h` twiddles `outer`, then `h` with the `h` twiddles `inner`
        /// (and the `h` twiddles `cube`, `W^3i`, if not empty); with `DIT` the stage `h`
        /// then `2h`. `h ≥ N` a power of two, `x.len()` a multiple of `4h`.
        pub(crate) fn stage2<const DIT: bool, const LAZY: bool>(
            self,
            x: &mut [u64],
            h: usize,
            outer: &[u64],
            inner: &[u64],
            cube: &[u64],
            p: f64,
        ) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(h >= N && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
            assert!(
                DIT || cube.is_empty() || cube.len() >= h,
                "stage2: {} cube twiddles, h = {h}",
                cube.len()
            );
            assert!(x.len().is_multiple_of(4 * h));
            // SAFETY: `self` proves the CPU support; the assertions are the kernel's contract.
            unsafe { stage2::<DIT, LAZY>(x, h, outer, inner, cube, p) }
        }
    };
    (@safe stage2_part, $v:ty, $min_h:expr) => {
        /// [`stage2`](Self::stage2)'s butterflies `a..a + m` of one block of `4h`, the four
        /// quarters' parts `[a, a + m)` given apart (`fmacore::stage2_part`), so that the
        /// parts of one pass can run on different threads: `m` a multiple of `N`.
        #[allow(clippy::too_many_arguments)] // the kernel's operands
        pub(crate) fn stage2_part<const DIT: bool, const LAZY: bool>(
            self,
            q: [&mut [u64]; 4],
            h: usize,
            a: usize,
            outer: &[u64],
            inner: &[u64],
            cube: &[u64],
            p: f64,
        ) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            $crate::arch::ntt::fmacore::check_parts(N, &q, h, a, outer, inner);
            assert!(
                DIT || cube.is_empty() || cube.len() >= h,
                "stage2_part: {} cube twiddles, h = {h}",
                cube.len()
            );
            // SAFETY: `self` proves the CPU support; the assertions are the kernel's contract.
            unsafe { stage2_part::<DIT, LAZY>(q, h, a, outer, inner, cube, p) }
        }
    };
    (@safe stage2_lower_half_part, $v:ty, $min_h:expr) => {
        /// [`stage2_lower_half`](Self::stage2_lower_half)'s butterflies `a..a + m`, the four
        /// quarters' parts given apart as for `stage2_part` (the upper two written only).
        #[allow(clippy::too_many_arguments)] // the kernel's operands
        pub(crate) fn stage2_lower_half_part(
            self,
            q: [&mut [u64]; 4],
            h: usize,
            a: usize,
            outer: &[u64],
            inner: &[u64],
            cube: &[u64],
            p: f64,
        ) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            $crate::arch::ntt::fmacore::check_parts(N, &q, h, a, outer, inner);
            assert!(cube.len() >= h, "stage2_lower_half_part: {} cube twiddles", cube.len());
            // SAFETY: `self` proves the CPU support; the assertions are the kernel's contract.
            unsafe { stage2_lower_half_part(q, h, a, outer, inner, cube, p) }
        }
    };
    (@safe stage2_lower_half, $v:ty, $min_h:expr) => {
        /// The forward two stages of one block whose upper half is zero (not read;
        /// `fmacore::stage2_lower_half`, with the `cube` twiddles of `fmacore::stage2`):
        /// `h ≥ N` a power of two, `x.len() == 4h`.
        pub(crate) fn stage2_lower_half(
            self,
            x: &mut [u64],
            h: usize,
            outer: &[u64],
            inner: &[u64],
            cube: &[u64],
            p: f64,
        ) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(h >= N && h.is_power_of_two() && outer.len() >= 2 * h && inner.len() >= h);
            assert!(cube.len() >= h, "stage2_lower_half: {} cube twiddles for h = {h}", cube.len());
            assert!(x.len() == 4 * h);
            // SAFETY: `self` proves the CPU support; the assertions are the kernel's contract.
            unsafe { stage2_lower_half(x, h, outer, inner, cube, p) }
        }
    };
    (@safe radix2, $v:ty, $min_h:expr) => {
        /// The twiddle-free stage `h = 1`: `(a, b) → (a + b, a − b)` on adjacent pairs, for
        /// `x.len()` a multiple of two vectors.
        pub(crate) fn radix2(self, x: &mut [u64], p: f64) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(x.len().is_multiple_of(2 * N));
            // SAFETY: `self` proves the CPU support; the length is the kernel's contract.
            unsafe { radix2(x, p) }
        }
    };
    (@safe pointwise, $v:ty, $min_h:expr) => {
        /// `x[i] = x[i]·y[i] mod p` (`y = None`: `x[i]²`; `fmacore::pointwise`), for
        /// `x.len()` a multiple of `N`.
        pub(crate) fn pointwise(self, x: &mut [u64], y: Option<&[u64]>, p: f64) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(x.len().is_multiple_of(N) && y.is_none_or(|y| y.len() == x.len()));
            // SAFETY: `self` proves the CPU support; the lengths are the kernel's contract.
            unsafe { pointwise(x, y, p) }
        }
    };
    (@safe load, $v:ty, $min_h:expr) => {
        /// `dst[i] = src[i] mod p` as `f64` bits (`fmacore::load`), for equal lengths,
        /// multiples of `N`.
        pub(crate) fn load(self, dst: &mut [u64], src: &[u64], p: f64) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(dst.len() == src.len() && src.len().is_multiple_of(N));
            // SAFETY: `self` proves the CPU support; the lengths are the kernel's contract.
            unsafe { load(dst, src, p) }
        }
    };
    (@safe unload, $v:ty, $min_h:expr) => {
        /// `x[i] = x[i]·s mod p` as a `u64` (from `f64` bits, `|x[i]| < 2p`; `|s| ≤ p/2`;
        /// `fmacore::unload`), for `x.len()` a multiple of `N`.
        pub(crate) fn unload(self, x: &mut [u64], s: f64, p: f64) {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            assert!(x.len().is_multiple_of(N));
            // SAFETY: `self` proves the CPU support; the length is the kernel's contract.
            unsafe { unload(x, s, p) }
        }
    };
    (@safe comb, $v:ty, $min_h:expr) => {
        /// `out[i] = s·(a[i] + t·y[i]) mod p` (`fmacore::comb`; `a = None`: in place,
        /// `out[i]` for `a[i]`) for the first `N⌊len/N⌋` values of `out` (returned; the tail
        /// is the caller's); `a` and `y` at least as long.
        pub(crate) fn comb(
            self,
            out: &mut [u64],
            a: Option<&[u64]>,
            y: Option<&[u64]>,
            t: f64,
            s: f64,
            p: f64,
        ) -> usize {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            let n = out.len() - out.len() % N;
            assert!(a.is_none_or(|a| a.len() >= n) && y.is_none_or(|y| y.len() >= n));
            let o = out.as_mut_ptr();
            let a = a.map_or(o.cast_const(), <[u64]>::as_ptr);
            // SAFETY: `self` proves the CPU support; `n` is a multiple of `N` within every
            // slice (checked above), and `out`, a `&mut`, overlaps nothing else (`a` is it or
            // another slice).
            unsafe { comb(n, o, a, y.map(<[u64]>::as_ptr), t, s, p) };
            n
        }
    };
    (@safe fold, $v:ty, $min_h:expr) => {
        /// The truncated products' fold (`fmacore::fold`): `out[i] = (lo[i] + α·hi[i])·w[i]`
        /// and, with `d`, `d[i] = lo[i] − α·hi[i]` (`lo = None`: `lo` is `d`, updated in
        /// place), for the first `N⌊len/N⌋` values of `out` (returned; the tail is the
        /// caller's); the other slices at least as long.
        #[allow(clippy::too_many_arguments)] // the kernel's operands
        pub(crate) fn fold(
            self,
            out: &mut [u64],
            d: Option<&mut [u64]>,
            lo: Option<&[u64]>,
            hi: &[u64],
            alpha: f64,
            w: &[u64],
            p: f64,
        ) -> usize {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            let n = out.len() - out.len() % N;
            assert!(hi.len() >= n && w.len() >= n);
            assert!(d.as_ref().is_none_or(|d| d.len() >= n) && lo.is_none_or(|l| l.len() >= n));
            let o = out.as_mut_ptr();
            let (dp, lp) = match (d, lo) {
                (Some(d), Some(lo)) => (d.as_mut_ptr(), lo.as_ptr()),
                (Some(d), None) => {
                    let dp = d.as_mut_ptr();
                    (dp, dp.cast_const()) // one pointer for both: `d` is read and written in place
                }
                (None, Some(lo)) => (core::ptr::null_mut(), lo.as_ptr()),
                (None, None) => unreachable!("a fold reads its lower half from `lo` or `d`"),
            };
            // SAFETY: `self` proves the CPU support; `n` is a multiple of `N` within every
            // slice (checked above); `out` and `d` are `&mut`s, so nothing overlaps but `d`
            // with itself as `lo`.
            unsafe {
                if dp.is_null() {
                    fold::<false>(n, o, dp, lp, hi.as_ptr(), alpha, w.as_ptr(), p)
                } else {
                    fold::<true>(n, o, dp, lp, hi.as_ptr(), alpha, w.as_ptr(), p)
                }
            };
            n
        }
    };
    (@safe garner3, $v:ty, $min_h:expr) => {
        /// Garner's mixed-radix digits (`fmacore::garner3`) for the first `N⌊len/N⌋` indices
        /// (returned); all slices at least as long as `y[0]`.
        pub(crate) fn garner3(
            self,
            y: [&[u64]; 3],
            t2: &mut [u64],
            t3: &mut [u64],
            k: &$crate::arch::ntt::fmacore::Garner3,
        ) -> usize {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            let n = y[0].len() - y[0].len() % N;
            assert!([y[1].len(), y[2].len(), t2.len(), t3.len()].iter().all(|&l| l >= n));
            // SAFETY: `self` proves the CPU support; every slice has at least `n` values.
            unsafe { garner3(n, y, t2, t3, k) };
            n
        }
    };
    (@safe load_wide, $v:ty, $min_h:expr) => {
        /// The wide products' loading (`fmacore::load_wide`) of the first `N⌊len/N⌋` values
        /// of `dst` (returned); `lo` and `hi` at least as long.
        pub(crate) fn load_wide(
            self,
            dst: &mut [u64],
            lo: &[u64],
            hi: &[u64],
            k: f64,
            p: f64,
        ) -> usize {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            let n = dst.len() - dst.len() % N;
            assert!(lo.len() >= n && hi.len() >= n);
            // SAFETY: `self` proves the CPU support; every slice has at least `n` values.
            unsafe { load_wide(n, dst, lo, hi, k, p) };
            n
        }
    };
    (@safe garner5, $v:ty, $min_h:expr) => {
        /// Garner's digits of five residues (`fmacore::garner5`), in place, for the first
        /// `N⌊len/N⌋` indices of `y[0]` (returned); every slice at least as long.
        pub(crate) fn garner5(
            self,
            y: [&mut [u64]; 5],
            k: &$crate::arch::ntt::fmacore::Garner5,
        ) -> usize {
            const N: usize = <$v as $crate::arch::ntt::fmacore::Lanes>::N;
            let n = y[0].len() - y[0].len() % N;
            assert!(y.iter().all(|s| s.len() >= n));
            // SAFETY: `self` proves the CPU support; every slice has at least `n` values.
            unsafe { garner5(n, y, k) };
            n
        }
    };
}
pub(crate) use fma_entry_points;

/// `unsafe impl Lanes for $v`: the operations that are one intrinsic each given by path
/// (the fused ones optional: NEON's take their operands in another order), the rest written
/// by the width (`$own`, associated items). The safety argument is the same for every width:
/// each method is an intrinsic of the width's extension (or a few), run only inlined into
/// the width's `#[target_feature]` entry points ([`fma_entry_points`]), which its token
/// guards; the loads and stores take `N` values at the pointer, as the trait requires.
macro_rules! lanes {
    (
        $v:ty, $n:literal,
        splat: $splat:path, load: $load:path, store: $store:path,
        add: $add:path, sub: $sub:path, mul: $mul:path,
        unpack_lo: $unpack_lo:path, unpack_hi: $unpack_hi:path,
        $(fmsub: $fmsub:path, fnmadd: $fnmadd:path,)?
        { $($own:tt)* }
    ) => {
        // SAFETY: see the macro's docs: the width's intrinsics, run under its token.
        unsafe impl $crate::arch::ntt::fmacore::Lanes for $v {
            const N: usize = $n;
            #[inline(always)]
            unsafe fn splat(x: f64) -> Self {
                // SAFETY: register-only operation of the width's extension.
                unsafe { $splat(x) }
            }
            #[inline(always)]
            unsafe fn load(p: *const f64) -> Self {
                // SAFETY: the caller gives `N` readable values at `p`.
                unsafe { $load(p) }
            }
            #[inline(always)]
            unsafe fn store(p: *mut f64, v: Self) {
                // SAFETY: the caller gives `N` writable values at `p`.
                unsafe { $store(p, v) }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: register-only operation of the width's extension.
                unsafe { $add(a, b) }
            }
            #[inline(always)]
            unsafe fn sub(a: Self, b: Self) -> Self {
                // SAFETY: register-only operation of the width's extension.
                unsafe { $sub(a, b) }
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                // SAFETY: register-only operation of the width's extension.
                unsafe { $mul(a, b) }
            }
            #[inline(always)]
            unsafe fn unpack(x: Self, y: Self) -> (Self, Self) {
                // SAFETY: register-only operations of the width's extension.
                unsafe { ($unpack_lo(x, y), $unpack_hi(x, y)) }
            }
            $(
                #[inline(always)]
                unsafe fn fmsub(a: Self, b: Self, c: Self) -> Self {
                    // SAFETY: register-only operation of the width's extension.
                    unsafe { $fmsub(a, b, c) }
                }
                #[inline(always)]
                unsafe fn fnmadd(a: Self, b: Self, c: Self) -> Self {
                    // SAFETY: register-only operation of the width's extension.
                    unsafe { $fnmadd(a, b, c) }
                }
            )?
            $($own)*
        }
    };
}
pub(crate) use lanes;
