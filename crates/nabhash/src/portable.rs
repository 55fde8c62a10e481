//! The portable backend: one AES encryption round in plain Rust, and NABHash v1 on top of it.
//!
//! This is the reference every other backend is tested against, and what runs on CPUs
//! without AES instructions (mips64, riscv64 without Zkne, x86_64 without AES-NI).
//! Bytes are converted with explicit `from_le_bytes`/`to_le_bytes`, so the result is the
//! same on big- and little-endian machines.

use crate::kernels::{Kernels, V2Fn, V2KeyedFn};
use crate::v1::state::State;
use crate::v2::generic::{self, AesLane};
use crate::v2::state::{self, V2State};

/// Multiplies by `x` (i.e. 2) in GF(2^8) modulo the AES polynomial x^8 + x^4 + x^3 + x + 1.
const fn xtime(x: u8) -> u8 {
    (x << 1) ^ (((x >> 7) & 1) * 0x1b)
}

/// The AES S-box (FIPS-197 §5.1.1), derived at compile time rather than typed in:
/// walk the multiplicative group with generator 3, pairing each `p = 3^k` with its
/// inverse `q = 3^-k`, and apply the affine map to `q`.
pub(crate) const SBOX: [u8; 256] = {
    let mut sbox = [0u8; 256];
    let mut p: u8 = 1;
    let mut q: u8 = 1;
    loop {
        // p *= 3
        p ^= xtime(p);
        // q /= 3 (multiply by 0xf6, the inverse of 3)
        q ^= q << 1;
        q ^= q << 2;
        q ^= q << 4;
        if q & 0x80 != 0 {
            q ^= 0x09;
        }
        let affine =
            q ^ q.rotate_left(1) ^ q.rotate_left(2) ^ q.rotate_left(3) ^ q.rotate_left(4) ^ 0x63;
        sbox[p as usize] = affine;
        if p == 1 {
            break;
        }
    }
    // 0 has no inverse; the affine map of 0 is 0x63.
    sbox[0] = 0x63;
    sbox
};

/// `TE0[x]` is the MixColumns column contributed by S(x) in row 0, packed little-endian:
/// bytes `(2·S(x), S(x), S(x), 3·S(x))`. Rows 1..3 use the same word rotated by 8·row bits.
const TE0: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = SBOX[i];
        let s2 = xtime(s);
        let s3 = s2 ^ s;
        t[i] = u32::from_le_bytes([s2, s, s, s3]);
        i += 1;
    }
    t
};

/// One AES encryption round, exactly the x86 `AESENC` instruction:
/// `MixColumns(ShiftRows(SubBytes(state))) ^ key`, on 16 bytes in memory order.
#[inline(always)]
pub(crate) fn aesenc(state: [u8; 16], key: [u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut c = 0;
    while c < 4 {
        // After ShiftRows, row r of column c holds the byte of row r from column (c + r) mod 4.
        let a0 = state[4 * c];
        let a1 = state[4 * ((c + 1) % 4) + 1];
        let a2 = state[4 * ((c + 2) % 4) + 2];
        let a3 = state[4 * ((c + 3) % 4) + 3];
        let column = TE0[a0 as usize]
            ^ TE0[a1 as usize].rotate_left(8)
            ^ TE0[a2 as usize].rotate_left(16)
            ^ TE0[a3 as usize].rotate_left(24);
        let k = u32::from_le_bytes([key[4 * c], key[4 * c + 1], key[4 * c + 2], key[4 * c + 3]]);
        out[4 * c..4 * c + 4].copy_from_slice(&(column ^ k).to_le_bytes());
        c += 1;
    }
    out
}

/// v1 step 2 for every whole 64-byte block of `blocks` (a trailing partial block is ignored;
/// callers pass whole blocks).
pub(crate) fn compress(state: &mut State, blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        for (i, lane) in state.iter_mut().enumerate() {
            let mut key = [0u8; 16];
            key.copy_from_slice(&block[16 * i..16 * i + 16]);
            *lane = aesenc(*lane, key);
        }
    }
}

/// v1 steps 3–5: mix in the length and fold the four lanes into the digest.
pub(crate) fn finish(state: &State, len: u64) -> [u8; 16] {
    let mut lanes = *state;
    let len = len.to_le_bytes();
    for lane in &mut lanes {
        for (b, l) in lane.iter_mut().zip(len) {
            *b ^= l;
        }
    }
    let mut l0 = aesenc(lanes[0], lanes[1]);
    let l1 = aesenc(lanes[2], lanes[3]);
    l0 = aesenc(l0, l1);
    for _ in 0..3 {
        l0 = aesenc(l0, l0);
    }
    l0
}

/// The portable backend's token (always available).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Portable;

impl Kernels for Portable {
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        compress(state, blocks)
    }
    fn v1_finish(self, state: &State, len: u64) -> [u8; 16] {
        finish(state, len)
    }
    fn v2_key(self, seed: u64) -> [u8; 16] {
        generic::key::<Lane>(seed)
    }
    fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
        generic::short::<Lane>(key, x, len)
    }
    fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        generic::mid::<Lane>(key, data)
    }
    fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        generic::absorb::<Lane>(st, data)
    }
    fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16] {
        generic::finish::<Lane>(st, len)
    }
    fn v2_upto_mid_fn(self) -> V2Fn {
        |data, seed| generic::upto_mid::<Lane>(seed, data)
    }
    fn v2_long_fn(self) -> V2Fn {
        |data, seed| u128::from_le_bytes(Portable.v2_hash_seeded(seed, data))
    }
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn {
        |data, key| generic::upto_mid_keyed::<Lane>(key, data)
    }
}

/// A v2 lane in plain Rust.
#[derive(Clone, Copy)]
struct Lane([u8; 16]);

impl AesLane for Lane {
    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> Self {
        Lane(*bytes)
    }
    #[inline(always)]
    fn store(self, bytes: &mut [u8; 16]) {
        *bytes = self.0;
    }
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        Lane(aesenc(self.0, key.0))
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        Lane(state::xor16(&self.0, &other.0))
    }
    #[inline(always)]
    fn add64(self, other: Self) -> Self {
        let half = |b: &[u8; 16], i: usize| {
            u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        };
        let mut out = [0u8; 16];
        for i in 0..2 {
            let sum = half(&self.0, i).wrapping_add(half(&other.0, i));
            out[8 * i..8 * i + 8].copy_from_slice(&sum.to_le_bytes());
        }
        Lane(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }

    #[test]
    fn sbox_matches_fips197_figure7() {
        // FIPS-197 Figure 7 entries: S(00)=63, S(01)=7c, S(53)=ed, S(ff)=16, S(10)=ca.
        assert_eq!(SBOX[0x00], 0x63);
        assert_eq!(SBOX[0x01], 0x7c);
        assert_eq!(SBOX[0x53], 0xed);
        assert_eq!(SBOX[0xff], 0x16);
        assert_eq!(SBOX[0x10], 0xca);
        // A bijection.
        let mut seen = [false; 256];
        for s in SBOX {
            assert!(!seen[s as usize]);
            seen[s as usize] = true;
        }
    }

    #[test]
    fn round_matches_fips197_appendix_b() {
        // FIPS-197 Appendix B, round 1: start of round = 19 3d e3 be ..., round key 1 =
        // a0 fa fe 17 ..., start of round 2 = a4 9c 7f f2 ... (one full round with MixColumns).
        let state = unhex("193de3bea0f4e22b9ac68d2ae9f84808");
        let key = unhex("a0fafe1788542cb123a339392a6c7605");
        let want = unhex("a49c7ff2689f352b6b5bea43026a5049");
        assert_eq!(aesenc(state, key), want);
    }
}
