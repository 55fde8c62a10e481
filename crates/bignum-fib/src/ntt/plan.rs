//! The plan of a product, from the operand lengths alone: the transform length and the
//! limits that the CRT bounds put on it, and the cost model that picks a strategy (padded,
//! split, truncated, wide).
//!
//! Costs are butterflies, `N·log₂N` per prime for a transform of length `N` (a power of
//! two). A strategy with extra passes (the truncated products' folds, the wide products'
//! wider loads and CRT) must undercut the plain one by a margin; the margins and the
//! minimum lengths below which a strategy is not tried were measured at their crossovers
//! (each constant says how). The CRT bounds: a cyclic convolution of length `N` of `b`-bit
//! coefficients has coefficients below `N·2^(2b)`, which the primes' product must exceed.
//!
//! Also the sizes at which every engine's transforms recurse ([`BLOCK`]) and split between
//! threads ([`PAR_MIN_LEN`]).

/// Transforms of at most this many coefficients run stage by stage (32 KiB: L1-resident);
/// longer ones recurse on their halves after their top stage.
pub(super) const BLOCK: usize = 1 << 12;

/// Transforms of at least this many coefficients run their quarters on two threads or more
/// when asked (`par`). Measured with `cargo run --release -p bignum-fib --example tune
/// threads` (`amd-zen5`, AVX-512 FMA engine, fastest of 15 batches): starting and joining a
/// scoped thread 23 µs; a square of 16 384 limbs (ten transforms of `2¹⁵` points over five
/// primes, with loads and CRT) 334 µs, so about 30 µs a transform of `2¹⁵`. From `2¹⁸`
/// points (about 280 µs) each side of the split takes about six times the thread's cost.
pub(super) const PAR_MIN_LEN: usize = 1 << 18;

/// The largest transform: the primes are `≡ 1 (mod 2⁴⁰)`, and the CRT bound needs
/// `N·2¹²⁸ < p₁p₂p₃`.
pub(super) const MAX_LOG_LEN: u32 = 40;

/// The largest transform of the 50-bit engines over three primes: their product is
/// `2^149.9997`, and a cyclic convolution of length `N` has coefficients below `N·2¹²⁸`.
/// Longer transforms add the fourth prime (product `2^199.9993`).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
pub(super) const NARROW_MAX_LOG_LEN: u32 = 21;

/// The largest transform of the 50-bit engines: their primes are `≡ 1 (mod 2³²)`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
#[cfg_attr(bignum_fib_backend = "portable", allow(dead_code))] // tests only
pub(super) const MAX_LOG_LEN52: u32 = 32;

/// The transform length for a product of `a_len + b_len` limbs (a power of two at or above
/// the `a_len + b_len − 1` coefficients, at least 2).
pub(super) fn transform_len(a_len: usize, b_len: usize) -> usize {
    let n = (a_len + b_len - 1).next_power_of_two().max(2);
    assert!(n.trailing_zeros() <= MAX_LOG_LEN, "NTT product of {n} coefficients is too long");
    n
}

/// `N·log₂N`, the butterflies (times two) of a transform of length `N`, a power of two.
pub(super) fn butterflies(n: usize) -> usize {
    n * n.trailing_zeros() as usize
}

/// Products whose cyclic part has at least this many points are split as described at
/// `coefficients` when that takes fewer butterflies.
pub(super) const SPLIT_MIN: usize = 1 << 10;

/// Whether `coefficients` splits the product of `a_len` by `b_len` limbs: where the split
/// plan's butterflies ([`narrow_cost`]) are fewer than the padded transform's.
pub(super) fn splits(a_len: usize, b_len: usize) -> bool {
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

/// The butterflies (in units of [`butterflies`], per prime) of `coefficients`' plan for
/// a product of `a_len` by `b_len` limbs, split (recursively) or padded.
pub(super) fn narrow_cost(a_len: usize, b_len: usize) -> usize {
    let n = transform_len(a_len, b_len);
    if splits(a_len, b_len) {
        let extra = a_len + b_len - 1 - n / 2;
        butterflies(n / 2) + narrow_cost(extra, extra)
    } else {
        butterflies(n)
    }
}

/// The FMA engine's truncated plan (`truncated`) applies to products whose transform has
/// at least this many points.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) const TRUNC_MIN: usize = 1 << 10;

/// The most pieces of `truncated`: lengths `N/2, N/4, N/8`, products up to `7N/8`
/// coefficients. A fourth piece (to `15N/16`) measured slower than the padded transform:
/// squares of F(2.72·10⁶) (90 % of `2¹⁶`), 1.38–1.40 against 1.35 ms at `x86-64-v3`, where
/// three pieces save 5–9 % (F(2.3·10⁶), 76 %: 1.24–1.26 against 1.38 ms) and two 22 %
/// (F(2.25·10⁶), 74 %: 1.06 against 1.35 ms); thread CPU time, min of 31.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) const TRUNC_MAX_PIECES: u32 = 3;

/// The percentage by which `truncated`'s butterflies must undercut the other plans'.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) const TRUNC_MARGIN: usize = 5;

/// The number of pieces `K` of `truncated` for a product of `a_len` by `b_len` limbs (both
/// at most `N/2`, `N` the padded transform length): the fewest with `N − N/2^K` at or above
/// the product's coefficients; `None` when even [`TRUNC_MAX_PIECES`] do not cover them.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn truncated_pieces(a_len: usize, b_len: usize) -> Option<u32> {
    let n = transform_len(a_len, b_len);
    let count = a_len + b_len - 1;
    if n < TRUNC_MIN || a_len > n / 2 || b_len > n / 2 {
        return None;
    }
    (2..=TRUNC_MAX_PIECES).find(|&k| count <= n - (n >> k))
}

/// The butterflies (in units of [`butterflies`], per prime) of `truncated` with `pieces`
/// pieces of a transform of length `n`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn truncated_cost(n: usize, pieces: u32) -> usize {
    (1..=pieces).map(|k| butterflies(n >> k)).sum()
}

/// The FMA engine's plan for a narrow (one limb per coefficient) product: `Some(K)`, the
/// pieces of `truncated`, where they take fewer butterflies than `coefficients`' split
/// or padded plan, with a margin of [`TRUNC_MARGIN`] percent for their folds and
/// recombination; `None` otherwise.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn truncates(a_len: usize, b_len: usize) -> Option<u32> {
    let k = truncated_pieces(a_len, b_len)?;
    let cost = truncated_cost(transform_len(a_len, b_len), k) * (100 + TRUNC_MARGIN);
    (cost < narrow_cost(a_len, b_len) * 100).then_some(k)
}

/// A plan of `wide_product`: how many of `WIDE_FIELDS` and how many bits per
/// coefficient. A cyclic convolution of length `N` of `b`-bit coefficients has coefficients
/// below `N·2^(2b)`, which the primes' product must exceed; both plans stop at
/// [`WIDE_MAX_LOG_LEN`] (checked exactly by the unit tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Wide {
    pub(super) primes: usize,
    pub(super) bits: usize,
}

/// Four primes (product `2^247.9998`), 112-bit coefficients: `2·112 + 23 = 247`.
pub(super) const WIDE4: Wide = Wide { primes: 4, bits: 112 };
/// Five primes (product `2^309.9998`), 140-bit coefficients: `2·140 + 23 = 303`.
pub(super) const WIDE5: Wide = Wide { primes: 5, bits: 140 };

/// The longest transform of `wide_product` (both plans).
pub(super) const WIDE_MAX_LOG_LEN: u32 = 23;

impl Wide {
    /// The number of coefficients of `len` limbs.
    pub(super) fn len(self, len: usize) -> usize {
        (len * 64).div_ceil(self.bits)
    }

    /// The transform length of a product of `a_len` by `b_len` limbs.
    pub(super) fn transform_len(self, a_len: usize, b_len: usize) -> usize {
        (self.len(a_len) + self.len(b_len) - 1).next_power_of_two().max(2)
    }

    /// The coefficient of `x` from bit `bits·i` (zeros past its end), as three 64-bit
    /// words, low first.
    #[inline(always)]
    pub(super) fn coefficient(self, x: &[u64], i: usize) -> [u64; 3] {
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
/// three primes with one limb per coefficient (`coefficients`, which splits products where
/// that takes fewer butterflies), or [`WIDE4`] or [`WIDE5`], whichever takes the fewest butterflies
/// (`primes·N·log₂N`, the wide plans with a 10 % margin for their wider loads and CRT). The
/// lengths are powers of two, so the choice depends on where the product sits between
/// them: F(10⁷)'s squarings (82 % of `2¹⁷` coefficients) take `4·2¹⁶` points instead of
/// `3·2¹⁷`; F(10⁸)'s (52 % of `2²¹`, split: `3·2²⁰` and `3·2¹⁶`) `5·2¹⁹`.
pub(super) fn wide_plan(a_len: usize, b_len: usize) -> Option<Wide> {
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

/// The FMA engine's wide products (`fma_wide_product`): all five of `FIELDS52` (product
/// `2^249.9991`) with 116-bit coefficients, for transforms up to [`FMA_WIDE_MAX_LOG_LEN`]:
/// `2·116 + 17 = 249` (checked exactly by the unit tests).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) const FMA_WIDE: Wide = Wide { primes: 5, bits: 116 };

/// The longest transform of `fma_wide_product`.
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) const FMA_WIDE_MAX_LOG_LEN: u32 = 17;

/// The shortest three-prime transform that [`fma_wide_plan`] replaces: `2¹⁰`, the shortest
/// of the FMA engine's products (from 350 limbs, `mul`). Measured with the
/// recombination of `fma_wide_recombine` (thread CPU time, min of 60-400, alternated,
/// `NAB_MAX_ISA=x86-64-v3`), three primes / five: squares of F(k),
/// k = 2.5·10⁶ (`2¹⁶` / `5·2¹⁵` points) 1.325 / 1.281 ms; 1.25·10⁶ 0.645 / 0.609 ms;
/// 6.25·10⁵ 0.308 / 0.293 ms; 3.125·10⁵ 0.146 / 0.140 ms; 7.8125·10⁴ (`2¹¹`) 0.034 / 0.030
/// ms; products F(k)·F(k − 1), k = 6·10⁴ (`2¹¹`) 0.041 / 0.038 ms, 39 062 (`2¹⁰`) 0.022 /
/// 0.021 ms. (With the earlier column-sum recombination the five primes were 2-4 % slower
/// below `2¹⁷`.)
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) const FMA_WIDE_MIN_LEN: usize = 1 << 10;

/// Whether the FMA engine's product of `a_len` by `b_len` limbs takes `fma_wide_product`:
/// from [`FMA_WIDE_MIN_LEN`], where the three primes' transform (split, truncated with its
/// margin ([`truncates`]) or neither, see `coefficients`) takes more butterflies
/// (`primes·N·log₂N`) than the five primes' over
/// `116/64` as few coefficients. As for the portable engine's [`wide_plan`], that depends
/// on where the product sits between powers of two: F(10⁷)'s last product (82 % of `2¹⁷`
/// coefficients) takes `5·2¹⁶` points instead of `3·2¹⁷`.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
pub(super) fn fma_wide_plan(a_len: usize, b_len: usize) -> bool {
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
