//! Helpers shared by the test files.
#![allow(dead_code)]

use bignum_fib::Nat;

/// True under qemu-user (xtask sets it): shrink the expensive loops.
pub fn emulated() -> bool {
    std::env::var_os("XTASK_EMULATED").is_some()
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `n` limbs, with runs of all-ones and zeros mixed in to exercise carries.
    pub fn limbs(&mut self, n: usize) -> Vec<u64> {
        let style = self.below(4);
        (0..n)
            .map(|_| match style {
                0 => u64::MAX,
                1 if self.below(2) == 0 => 0,
                1 => u64::MAX,
                _ => self.next_u64(),
            })
            .collect()
    }

    /// A `Nat` of exactly `n` limbs (top limb non-zero) when `n > 0`.
    pub fn nat(&mut self, n: usize) -> Nat {
        let mut v = self.limbs(n);
        if let Some(top) = v.last_mut() {
            *top |= 1 << self.below(64);
        }
        Nat::from_limbs(v)
    }
}

/// `x` as a `num_bigint::BigUint`, through its limbs.
pub fn to_big(x: &Nat) -> num_bigint::BigUint {
    let digits: Vec<u32> = x.limbs().iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect();
    num_bigint::BigUint::new(digits)
}

/// `F(n)` with num-bigint by the textbook doubling (an independent oracle).
pub fn fib_num_bigint(n: u64) -> num_bigint::BigUint {
    use num_bigint::BigUint;
    // (F(k), F(k+1)) from the top bit down.
    let mut a = BigUint::from(0u32);
    let mut b = BigUint::from(1u32);
    for i in (0..64 - n.leading_zeros()).rev() {
        let two_b = &b << 1u32;
        let c = &a * (&two_b - &a); // F(2k)
        let d = &a * &a + &b * &b; // F(2k+1)
        if (n >> i) & 1 == 1 {
            a = d.clone();
            b = c + d;
        } else {
            a = c;
            b = d;
        }
    }
    a
}
