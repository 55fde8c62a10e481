//! v2's long-input state and what every backend shares with it: the lane and block sizes,
//! the constants `C[0..19]`, the state `V2State` (step 1) and the zero padding of a short
//! input. A leaf: the kernels (`generic`, `portable`, `arch/`) and the API (`v2/mod.rs`)
//! import it, and it imports nothing of the crate.

/// Lanes of the long-input state.
pub(crate) const LANES: usize = 8;
/// The longest input of the medium path ([`mid`](super::generic::mid)).
pub(crate) const MID: usize = 64;
/// Bytes per chunk (one AES lane).
pub(crate) const CHUNK: usize = 16;
/// Bytes per block: one chunk for each lane.
pub(crate) const BLOCK: usize = LANES * CHUNK;

/// `C[0..19]`: SplitMix64 outputs from state 0, two per constant (see the module docs).
pub(crate) const CONSTANTS: [[u8; 16]; 19] = {
    let mut c = [[0u8; 16]; 19];
    let mut state: u64 = 0;
    let mut j = 0;
    while j < 19 {
        let mut half = 0;
        while half < 2 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let bytes = z.to_le_bytes();
            let mut b = 0;
            while b < 8 {
                c[j][8 * half + b] = bytes[b];
                b += 1;
            }
            half += 1;
        }
        j += 1;
    }
    c
};

/// `a ^ b` on 16 bytes.
#[inline(always)]
pub(crate) fn xor16(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The long-input state: lane keys, the AES lanes and the additive lanes.
#[derive(Clone, Debug)]
pub(crate) struct V2State {
    pub(crate) k: [[u8; 16]; LANES],
    pub(crate) a: [[u8; 16]; LANES],
    pub(crate) b: [[u8; 16]; LANES],
}

impl V2State {
    /// Step 1 for the seed key `key`.
    #[inline]
    pub(crate) fn new(key: &[u8; 16]) -> Self {
        V2State {
            k: core::array::from_fn(|i| xor16(key, &CONSTANTS[3 + i])),
            a: core::array::from_fn(|i| xor16(key, &CONSTANTS[11 + i])),
            b: [[0; 16]; LANES],
        }
    }
}

/// Zero-pads `data` (at most 16 bytes) to one chunk.
///
/// By overlapping loads from both ends (the NabHasher way), not a byte copy: a copy of
/// `n` bytes is several small stores, and the 16-byte load of the chunk that follows cannot
/// take its bytes from them (a store-forwarding miss, about 15 cycles on x86).
#[inline(always)]
pub(crate) fn pad(data: &[u8]) -> [u8; 16] {
    let n = data.len();
    debug_assert!(n <= 16);
    let le64 = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"));
    let le32 = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes"));
    let x: u128 = if n >= 8 {
        // Bytes 8..n are the top n - 8 bytes of the last 8.
        let top = if n > 8 { le64(n - 8) >> (8 * (16 - n)) } else { 0 };
        u128::from(le64(0)) | u128::from(top) << 64
    } else if n >= 4 {
        let top = if n > 4 { le32(n - 4) >> (8 * (8 - n)) } else { 0 };
        u128::from(le32(0)) | u128::from(top) << 32
    } else {
        data.iter().rev().fold(0u128, |x, &b| x << 8 | u128::from(b))
    };
    x.to_le_bytes()
}

#[cfg(test)]
mod tests {
    /// `pad` against a byte copy, at every length and with every byte distinct.
    #[test]
    fn pad_is_a_zero_padded_copy() {
        let data: [u8; 16] = core::array::from_fn(|i| 0xa0 + i as u8);
        for n in 0..=16 {
            let mut want = [0u8; 16];
            want[..n].copy_from_slice(&data[..n]);
            assert_eq!(super::pad(&data[..n]), want, "length {n}");
        }
    }
}
