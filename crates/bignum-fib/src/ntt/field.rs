//! Arithmetic modulo an NTT prime, and the primes of every engine.
//!
//! [`Field`] holds a prime `p` with its Montgomery constants. The portable engine works in
//! Montgomery form with `R = 2⁶⁴` (`p < 2⁶²`), values fully reduced in `[0, p)` by
//! branch-free corrections; the IFMA engine's 52-bit form (`R = 2⁵²`, `p < 2⁵⁰`) has its
//! scalar product here too, for the transforms too short for its vectors. The primes are
//! `c·2⁴⁰ + 1` below `2⁶²` (portable) and `c·2³² + 1` below `2⁵⁰` (the 50-bit engines),
//! with the largest `c`; the unit tests check that each is prime with the generator given.

/// `2⁵² − 1`.
pub(super) const LOW52: u64 = (1 << 52) - 1;

/// Arithmetic modulo an odd prime `p < 2⁶²` in Montgomery form (`R = 2⁶⁴`), and the 52-bit
/// Montgomery product of the IFMA engine (`R = 2⁵²`, for `p < 2⁵⁰`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Field {
    pub(super) p: u64,
    /// `p⁻¹ mod 2⁶⁴`.
    pub(super) pinv: u64,
    /// `−p⁻¹ mod 2⁵²`.
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
    pub(super) pinv52: u64,
    /// `2¹²⁸ mod p`: `redc(x · r2) = x·R mod p`.
    pub(super) r2: u64,
    /// `2⁶² − p`: reduces any 64-bit value with one multiplication (for `p > 2⁶¹`).
    pub(super) delta: u64,
    /// A generator of the multiplicative group.
    pub(super) generator: u64,
}

pub(super) const fn pow_mod(b: u64, mut e: u64, p: u64) -> u64 {
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
    pub(super) const fn new(p: u64, generator: u64) -> Field {
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
    pub(super) fn redc(self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.pinv);
        let mp = u128::from(m) * u128::from(self.p);
        // `t − m·p` is divisible by 2⁶⁴ (the low halves are equal), and lies in (−p·2⁶⁴, p·2⁶⁴).
        self.fix((t >> 64) as u64, (mp >> 64) as u64)
    }

    /// `a · b · R⁻¹ mod p` for any `a` and `b < p` (so `b` is usually a constant in
    /// Montgomery form and the result `a·(b/R)`).
    #[inline(always)]
    pub(super) fn mul(self, a: u64, b: u64) -> u64 {
        self.redc(u128::from(a) * u128::from(b))
    }

    /// `a · b · 2⁻⁵² mod p` for `a < 2⁵²`, `b < p < 2⁵⁰`: what `arch::ntt::ifma` computes
    /// per lane, for the transforms too short for its vectors.
    #[inline(always)]
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
    pub(super) fn mul52(self, a: u64, b: u64) -> u64 {
        let t = u128::from(a) * u128::from(b);
        let m = (t as u64 & LOW52).wrapping_mul(self.pinv52) & LOW52;
        let s = ((t + u128::from(m) * u128::from(self.p)) >> 52) as u64; // < 2p
        self.fix(s, self.p)
    }

    /// `a − b mod p` for `a, b < 2⁶²` with `a − b ∈ (−p, p)`, without a branch: the sign bit
    /// of the difference selects the correction (a comparison would let the compiler emit a
    /// branch, which the NTT's random data mispredicts half the time).
    #[inline(always)]
    pub(super) fn fix(self, a: u64, b: u64) -> u64 {
        let d = a.wrapping_sub(b);
        let negative = ((d as i64) >> 63) as u64;
        d.wrapping_add(self.p & negative)
    }

    #[inline(always)]
    pub(super) fn add(self, a: u64, b: u64) -> u64 {
        self.fix(a + b, self.p) // both < p < 2⁶²
    }

    #[inline(always)]
    pub(super) fn sub(self, a: u64, b: u64) -> u64 {
        self.fix(a, b)
    }

    /// Any 64-bit value mod `p > 2⁶¹`: `x = h·2⁶² + l ≡ h·δ + l`, which is below `2p`.
    #[inline(always)]
    pub(super) fn reduce(self, x: u64) -> u64 {
        let t = (x >> 62) * self.delta + (x & ((1 << 62) - 1));
        self.fix(t, self.p) // t < 2⁶² + 3δ < 2p
    }

    /// Shoup's companion of `w < p`, `⌊w·2⁶⁴/p⌋`, without a division: `w·2⁶⁴ − r` for
    /// `r = w·2⁶⁴ mod p` (Montgomery's form of `w`) is `p` times it, an exact division by the
    /// odd `p`, which is a product by `p⁻¹ mod 2⁶⁴`, and `w·2⁶⁴ ≡ 0 mod 2⁶⁴`.
    pub(super) fn shoup(self, w: u64) -> u64 {
        self.to_mont(w).wrapping_neg().wrapping_mul(self.pinv)
    }

    /// Shoup's pair `[w, ⌊w·2⁶⁴/p⌋]` of `w < p`, for [`Field::mul_shoup`].
    pub(super) fn shoup_pair(self, w: u64) -> [u64; 2] {
        [w, self.shoup(w)]
    }

    /// `a·w mod p`, in `[0, 2p)`, for any `a < 2⁶⁴` and Shoup's pair `[w, w′ = ⌊w·2⁶⁴/p⌋]`,
    /// `w < p < 2⁶³`: with `q = ⌊a·w′/2⁶⁴⌋`, `a·w − q·p ∈ [0, 2p)` (Shoup's bound), so its
    /// low 64 bits are the value. One high product and two low ones.
    #[inline(always)]
    pub(super) fn mul_shoup(self, a: u64, [w, wq]: [u64; 2]) -> u64 {
        let q = ((u128::from(a) * u128::from(wq)) >> 64) as u64;
        a.wrapping_mul(w).wrapping_sub(q.wrapping_mul(self.p))
    }

    /// `x · R mod p`.
    pub(super) fn to_mont(self, x: u64) -> u64 {
        self.mul(x, self.r2)
    }

    /// A primitive `n`-th root of unity (`n` a power of two dividing `p − 1`), plain form.
    pub(super) fn root(self, n: u64) -> u64 {
        pow_mod(self.generator, (self.p - 1) / n, self.p)
    }
}

/// The portable engine's primes: the three `c·2⁴⁰ + 1` below `2⁶²` with the largest `c`,
/// and their least generators (checked by the unit tests).
pub(super) const FIELDS: [Field; 3] = [
    Field::new(0x3fff_c000_0000_0001, 11),
    Field::new(0x3fff_be00_0000_0001, 3),
    Field::new(0x3fff_8400_0000_0001, 19),
];

/// The fourth prime of the portable engine's wide products (`wide_product`): the next
/// `c·2⁴⁰ + 1` below the three of [`FIELDS`], and its least generator.
pub(super) const FIELD4: Field = Field::new(0x3fff_8100_0000_0001, 5);

/// The fifth prime of the wide products (`WIDE5`).
pub(super) const FIELD5: Field = Field::new(0x3fff_6d00_0000_0001, 3);

/// The primes of `Engine::Wide`: the first four's product is `2^247.9998`, the five's
/// `2^309.9998`.
pub(super) const WIDE_FIELDS: [Field; 5] = [FIELDS[0], FIELDS[1], FIELDS[2], FIELD4, FIELD5];

/// The 50-bit engines' primes: the five `c·2³² + 1` below `2⁵⁰` with the largest `c`;
/// transforms up to `2²¹` use the first three, longer ones four, and the FMA engine's wide
/// products (`fma_wide_product`) all five.
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) const FIELDS52: [Field; 5] = [
    Field::new(0x0003_fff3_0000_0001, 5),
    Field::new(0x0003_ffed_0000_0001, 7),
    Field::new(0x0003_ffeb_0000_0001, 3),
    Field::new(0x0003_ffc1_0000_0001, 3),
    // The fifth, for the FMA engine's wide products ([`fma_wide_product`]) only.
    Field::new(0x0003_ffc0_0000_0001, 11),
];
