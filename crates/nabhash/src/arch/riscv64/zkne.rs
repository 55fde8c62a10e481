//! NABHash v1 with the scalar crypto extension Zkne (`aes64esm`), in `asm!` because core's
//! RISC-V crypto intrinsics are unstable.
//!
//! A 128-bit AES state is two 64-bit registers `lo` (bytes 0..8) and `hi` (bytes 8..16).
//! `aes64esm rd, rs1, rs2` applies ShiftRows, SubBytes and MixColumns to the state
//! `rs2:rs1` and returns its low half; with the operands swapped it returns the high half.
//! So one v1 round is `(esm(lo, hi) ^ klo, esm(hi, lo) ^ khi)`.

use core::arch::asm;

use crate::kernels::{Kernels, V2Fn, V2KeyedFn};
use crate::v1::state::State;
use crate::v2::generic::{self, AesLane};
use crate::v2::state::V2State;

/// Proof that the build targets Zkne (this module exists only with `target_feature = "zkne"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Zkne(());

impl Zkne {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        Some(Zkne(()))
    }
}

impl Kernels for Zkne {
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        let mut lanes = state.map(split);
        for block in blocks.chunks_exact(64) {
            for (i, lane) in lanes.iter_mut().enumerate() {
                let key: &[u8; 16] = block[16 * i..16 * i + 16].try_into().expect("16-byte lane");
                *lane = aesenc(*lane, split(*key));
            }
        }
        for (bytes, lane) in state.iter_mut().zip(lanes) {
            *bytes = join(lane);
        }
    }

    fn v1_finish(self, state: &State, len: u64) -> [u8; 16] {
        let l = state.map(|bytes| {
            let (lo, hi) = split(bytes);
            (lo ^ len, hi)
        });
        let mut a = aesenc(l[0], l[1]);
        let b = aesenc(l[2], l[3]);
        a = aesenc(a, b);
        for _ in 0..3 {
            a = aesenc(a, a);
        }
        join(a)
    }

    fn v2_key(self, seed: u64) -> [u8; 16] {
        generic::key::<ZkLane>(seed)
    }
    fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
        generic::short::<ZkLane>(key, x, len)
    }
    fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        generic::mid::<ZkLane>(key, data)
    }
    fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        generic::absorb::<ZkLane>(st, data)
    }
    fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16] {
        generic::finish::<ZkLane>(st, len)
    }
    fn v2_upto_mid_fn(self) -> V2Fn {
        |data, seed| generic::upto_mid::<ZkLane>(seed, data)
    }
    fn v2_long_fn(self) -> V2Fn {
        |data, seed| u128::from_le_bytes(Zkne(()).v2_hash_seeded(seed, data))
    }
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn {
        |data, key| generic::upto_mid_keyed::<ZkLane>(key, data)
    }
}

/// A v2 lane as two 64-bit registers.
#[derive(Clone, Copy)]
struct ZkLane((u64, u64));

impl AesLane for ZkLane {
    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> Self {
        ZkLane(split(*bytes))
    }
    #[inline(always)]
    fn store(self, bytes: &mut [u8; 16]) {
        *bytes = join(self.0);
    }
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        ZkLane(aesenc(self.0, key.0))
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        ZkLane((self.0.0 ^ other.0.0, self.0.1 ^ other.0.1))
    }
    #[inline(always)]
    fn add64(self, other: Self) -> Self {
        ZkLane((self.0.0.wrapping_add(other.0.0), self.0.1.wrapping_add(other.0.1)))
    }
}

#[inline(always)]
fn split(bytes: [u8; 16]) -> (u64, u64) {
    let (lo, hi) = bytes.split_at(8);
    (
        u64::from_le_bytes(lo.try_into().expect("8 bytes")),
        u64::from_le_bytes(hi.try_into().expect("8 bytes")),
    )
}

#[inline(always)]
fn join((lo, hi): (u64, u64)) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&lo.to_le_bytes());
    out[8..].copy_from_slice(&hi.to_le_bytes());
    out
}

#[inline(always)]
fn esm(rs1: u64, rs2: u64) -> u64 {
    let rd: u64;
    // SAFETY: `aes64esm` reads two registers and writes one; no memory, stack or flags. The
    // build enables Zkne (this module is compiled only with `target_feature = "zkne"`).
    unsafe {
        asm!(
            "aes64esm {rd}, {rs1}, {rs2}",
            rd = lateout(reg) rd,
            rs1 = in(reg) rs1,
            rs2 = in(reg) rs2,
            options(pure, nomem, nostack),
        );
    }
    rd
}

/// One v1 round on a lane held as `(lo, hi)`.
#[inline(always)]
fn aesenc((lo, hi): (u64, u64), (klo, khi): (u64, u64)) -> (u64, u64) {
    (esm(lo, hi) ^ klo, esm(hi, lo) ^ khi)
}
