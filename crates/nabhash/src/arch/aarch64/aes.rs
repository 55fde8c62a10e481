//! NABHash v1 with the Armv8 AES instructions.
//!
//! `AESE(x, k) = SubBytes(ShiftRows(x ^ k))` xors its key *before* the S-box, so one v1
//! round `AESENC(s, k) = MixColumns(ShiftRows(SubBytes(s))) ^ k` is `AESMC(AESE(s, 0)) ^ k`.
//! In the block loop the xor of block `n` folds into the `AESE` of block `n + 1`:
//! with `t = AESMC(AESE(s, 0))`, each further block is `t = AESMC(AESE(t, k))`, and the state
//! after the last block is `t ^ k_last`. That is one fused `AESE`+`AESMC` pair per lane and
//! block, no `EOR`.

use core::arch::aarch64::{
    uint8x16_t, vaddq_u64, vaeseq_u8, vaesmcq_u8, vdupq_n_u8, veorq_u8, vld1q_u8,
    vreinterpretq_u8_u64, vreinterpretq_u64_u8, vst1q_u8,
};

use crate::kernels::{Kernels, V2Fn, V2KeyedFn};
use crate::v1::state::State;
use crate::v2::generic::{self, AesLane};
use crate::v2::state::V2State;

nab_isa::token! {
    /// Proof that the Armv8 AES (and PMULL) instructions may be used: `AT_HWCAP` on Linux,
    /// cached, under `NAB_MAX_ISA` (only `portable` caps aarch64); none at all when `aes` is
    /// enabled at compile time. Only `Aes::new` makes one.
    pub(crate) struct Aes = AES;
}

impl Kernels for Aes {
    #[inline]
    fn v1_compress(self, state: &mut State, blocks: &[u8]) {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { compress_aes(state, blocks) }
    }
    #[inline]
    fn v1_finish(self, state: &State, len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { finish_aes(state, len) }
    }
    #[inline]
    fn v2_key(self, seed: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { v2_key_aes(seed) }
    }
    #[inline]
    fn v2_short(self, key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { v2_short_aes(key, x, len) }
    }
    #[inline]
    fn v2_mid(self, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { v2_mid_aes(key, data) }
    }
    #[inline]
    fn v2_absorb(self, st: &mut V2State, data: &[u8]) {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { v2_absorb_aes(st, data) }
    }
    #[inline]
    fn v2_finish(self, st: &V2State, len: u64) -> [u8; 16] {
        // SAFETY: `self` exists only if `Aes::new` saw AES on this CPU.
        unsafe { v2_finish_aes(st, len) }
    }
    #[inline]
    fn v2_upto_mid_fn(self) -> V2Fn {
        v2_upto_mid_aes
    }
    #[inline]
    fn v2_keyed_upto_mid_fn(self) -> V2KeyedFn {
        v2_keyed_upto_mid_aes
    }
    #[inline]
    fn v2_long_fn(self) -> V2Fn {
        |data, seed| {
            // SAFETY: a `V2Fn` is called only on a CPU that has its backend's features
            // (AES here), as its contract says.
            let t = unsafe { Aes::new_unchecked() };
            u128::from_le_bytes(t.v2_hash_seeded(seed, data))
        }
    }
}

/// One x86-style AES round, `MixColumns(ShiftRows(SubBytes(s))) ^ k`. A function with the
/// `aes` feature of its own (not the intrinsics called straight from [`ArmLane::aesenc`],
/// which has no target features: rustc would not inline them there); it inlines into the
/// `aes` functions that use the lanes.
///
/// # Safety
/// The CPU must have AES.
#[inline]
#[target_feature(enable = "aes")]
unsafe fn aesenc(s: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    veorq_u8(vaesmcq_u8(vaeseq_u8(s, vdupq_n_u8(0))), k)
}

/// A v2 lane in a NEON register. Private to this module and used only inside its
/// `#[target_feature(enable = "aes")]` functions, which only an [`Aes`] token reaches.
#[derive(Clone, Copy)]
struct ArmLane(uint8x16_t);

impl AesLane for ArmLane {
    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> Self {
        ArmLane(load(bytes))
    }
    #[inline(always)]
    fn store(self, bytes: &mut [u8; 16]) {
        store(bytes, self.0)
    }
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        // SAFETY: `ArmLane` only exists inside this module's AES functions (see the type),
        // which run only on CPUs with AES.
        ArmLane(unsafe { aesenc(self.0, key.0) })
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is part of the aarch64 baseline.
        ArmLane(unsafe { veorq_u8(self.0, other.0) })
    }
    #[inline(always)]
    fn add64(self, other: Self) -> Self {
        // SAFETY: NEON is part of the aarch64 baseline.
        ArmLane(unsafe {
            vreinterpretq_u8_u64(vaddq_u64(
                vreinterpretq_u64_u8(self.0),
                vreinterpretq_u64_u8(other.0),
            ))
        })
    }
}

#[target_feature(enable = "aes")]
fn v2_key_aes(seed: u64) -> [u8; 16] {
    generic::key::<ArmLane>(seed)
}

#[target_feature(enable = "aes")]
fn v2_short_aes(key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
    generic::short::<ArmLane>(key, x, len)
}

#[target_feature(enable = "aes")]
fn v2_mid_aes(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    generic::mid::<ArmLane>(key, data)
}

/// v2 of at most 64 bytes with the seed: key and rounds in one call, the digest in registers.
#[target_feature(enable = "aes")]
fn v2_upto_mid_aes(data: &[u8], seed: u64) -> u128 {
    generic::upto_mid::<ArmLane>(seed, data)
}

/// v2 of at most 64 bytes for a derived key: the rounds alone, the digest in registers.
#[target_feature(enable = "aes")]
fn v2_keyed_upto_mid_aes(data: &[u8], key: &[u8; 16]) -> u128 {
    generic::upto_mid_keyed::<ArmLane>(key, data)
}

#[target_feature(enable = "aes")]
fn v2_absorb_aes(st: &mut V2State, data: &[u8]) {
    generic::absorb::<ArmLane>(st, data)
}

#[target_feature(enable = "aes")]
fn v2_finish_aes(st: &V2State, len: u64) -> [u8; 16] {
    generic::finish::<ArmLane>(st, len)
}

#[inline(always)]
fn load(bytes: &[u8]) -> uint8x16_t {
    assert!(bytes.len() >= 16);
    // SAFETY: at least 16 readable bytes (checked above); `vld1q_u8` has no alignment needs.
    unsafe { vld1q_u8(bytes.as_ptr()) }
}

#[inline(always)]
fn store(bytes: &mut [u8; 16], v: uint8x16_t) {
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(bytes.as_mut_ptr(), v) }
}

#[target_feature(enable = "aes")]
fn compress_aes(state: &mut State, blocks: &[u8]) {
    let mut iter = blocks.chunks_exact(64);
    let Some(last) = iter.next_back() else { return };
    let zero = vdupq_n_u8(0);
    let mut t = [zero; 4];
    for i in 0..4 {
        t[i] = vaesmcq_u8(vaeseq_u8(load(&state[i]), zero));
    }
    for block in iter {
        for i in 0..4 {
            t[i] = vaesmcq_u8(vaeseq_u8(t[i], load(&block[16 * i..])));
        }
    }
    for i in 0..4 {
        store(&mut state[i], veorq_u8(t[i], load(&last[16 * i..])));
    }
}

#[target_feature(enable = "aes")]
fn finish_aes(state: &State, len: u64) -> [u8; 16] {
    let zero = vdupq_n_u8(0);
    let aesenc = |s: uint8x16_t, k: uint8x16_t| veorq_u8(vaesmcq_u8(vaeseq_u8(s, zero)), k);
    let mut len_lane = [0u8; 16];
    len_lane[..8].copy_from_slice(&len.to_le_bytes());
    let len_lane = load(&len_lane);
    let l: [uint8x16_t; 4] = [
        veorq_u8(load(&state[0]), len_lane),
        veorq_u8(load(&state[1]), len_lane),
        veorq_u8(load(&state[2]), len_lane),
        veorq_u8(load(&state[3]), len_lane),
    ];
    let mut a = aesenc(l[0], l[1]);
    let b = aesenc(l[2], l[3]);
    a = aesenc(a, b);
    for _ in 0..3 {
        a = aesenc(a, a);
    }
    let mut out = [0u8; 16];
    store(&mut out, a);
    out
}
