//! NABHash v2, written once over the [`AesLane`] operations (STYLE.md: the algorithm once,
//! a tiny vector trait per ISA). Each backend instantiates these functions inside its own
//! `#[target_feature]` entry points; everything here is `#[inline(always)]`.

use super::state::{CHUNK, CONSTANTS, LANES, MID, V2State, pad};

/// A 16-byte AES lane and the four operations v2 needs on it.
pub(crate) trait AesLane: Copy {
    fn load(bytes: &[u8; 16]) -> Self;
    fn store(self, bytes: &mut [u8; 16]);
    /// `MixColumns(ShiftRows(SubBytes(self))) ^ key`, as the x86 `AESENC`.
    fn aesenc(self, key: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    /// Two independent wrapping additions of the little-endian `u64` halves.
    fn add64(self, other: Self) -> Self;
    /// The 16 bytes as a little-endian `u128` (returned in two general registers, not
    /// through memory as `[u8; 16]` is).
    #[inline(always)]
    fn to_u128(self) -> u128 {
        let mut out = [0u8; 16];
        self.store(&mut out);
        u128::from_le_bytes(out)
    }
}

/// Step 2 for one chunk: `A[i] = AESENC(A[i] ^ chunk, K[i]); B[i] += chunk`.
#[inline(always)]
pub(crate) fn absorb_chunk<V: AesLane>(st: &mut V2State, lane: usize, chunk: &[u8; 16]) {
    let c = V::load(chunk);
    let a = V::load(&st.a[lane]).xor(c).aesenc(V::load(&st.k[lane]));
    let b = V::load(&st.b[lane]).add64(c);
    a.store(&mut st.a[lane]);
    b.store(&mut st.b[lane]);
}

/// Step 2 for whole 128-byte blocks, lane by lane (the 8 lanes are independent chains).
///
/// `A' = AESENC(A ^ c, K) = R(A ^ c) ^ K`, so with `M = A ^ c` the next block is
/// `M' = R(M) ^ (K ^ c') = AESENC(M, K ^ c')` and the last `A = AESENC(M, K)`: the data XOR
/// leaves the dependency chain, which is one AES latency per block and lane. Same result.
#[inline(always)]
pub(crate) fn absorb_blocks<V: AesLane>(st: &mut V2State, blocks: &[u8]) {
    let mut blocks = blocks.chunks_exact(CHUNK * LANES);
    let Some(first) = blocks.next() else { return };
    let chunk = |block: &[u8], i: usize| {
        V::load(block[CHUNK * i..CHUNK * (i + 1)].try_into().expect("16 bytes"))
    };
    let k: [V; LANES] = core::array::from_fn(|i| V::load(&st.k[i]));
    let mut m: [V; LANES] = core::array::from_fn(|i| V::load(&st.a[i]).xor(chunk(first, i)));
    let mut b: [V; LANES] = core::array::from_fn(|i| V::load(&st.b[i]).add64(chunk(first, i)));
    for block in blocks {
        for i in 0..LANES {
            let c = chunk(block, i);
            m[i] = m[i].aesenc(k[i].xor(c));
            b[i] = b[i].add64(c);
        }
    }
    for i in 0..LANES {
        m[i].aesenc(k[i]).store(&mut st.a[i]);
        b[i].store(&mut st.b[i]);
    }
}

/// Step 2 for `data` that starts at lane 0: whole blocks, then the remaining chunks (the last
/// one zero-padded) into lanes 0, 1, ...
#[inline(always)]
pub(crate) fn absorb<V: AesLane>(st: &mut V2State, data: &[u8]) {
    let whole = data.len() - data.len() % (CHUNK * LANES);
    absorb_blocks::<V>(st, &data[..whole]);
    absorb_tail::<V>(st, &data[whole..]);
}

/// The chunks of a last partial block (fewer than 128 bytes) into lanes 0, 1, ...
#[inline(always)]
pub(crate) fn absorb_tail<V: AesLane>(st: &mut V2State, tail: &[u8]) {
    for (lane, chunk) in tail.chunks(CHUNK).enumerate() {
        absorb_chunk::<V>(st, lane, &pad(chunk));
    }
}

/// Step 3: length, two rounds per lane, the lanes XORed together, three closing rounds.
#[inline(always)]
pub(crate) fn finish<V: AesLane>(st: &V2State, len: u64) -> [u8; 16] {
    let l = V::load(&len_lane(len));
    let mut x = V::load(&[0; 16]);
    for i in 0..LANES {
        let k = V::load(&st.k[i]);
        let f = V::load(&st.a[i]).xor(V::load(&st.b[i])).xor(l).aesenc(k);
        x = x.xor(f.aesenc(k));
    }
    let mut out = [0u8; 16];
    let [c2, c1, c0] = closing_keys(&st.k[0]);
    x.aesenc(V::load(&c2)).aesenc(V::load(&c1)).aesenc(V::load(&c0)).store(&mut out);
    out
}

/// The closing rounds' keys `K ^ C[2]`, `K ^ C[1]`, `K ^ C[0]`, from lane key
/// `K[0] = K ^ C[3]`.
#[inline(always)]
pub(crate) fn closing_keys(k0: &[u8; 16]) -> [[u8; 16]; 3] {
    let c = &CONSTANTS;
    [2, 1, 0].map(|j| core::array::from_fn(|i| k0[i] ^ c[3][i] ^ c[j][i]))
}

/// The whole hash of an input of at most 16 bytes (`x` is it, zero-padded), for seed key `key`.
#[inline(always)]
pub(crate) fn short<V: AesLane>(key: &[u8; 16], x: &[u8; 16], len: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    short_lane::<V>(V::load(key), V::load(x), len).store(&mut out);
    out
}

/// [`short`] with the key in a lane and the digest left in one.
#[inline(always)]
fn short_lane<V: AesLane>(key: V, x: V, len: u64) -> V {
    let k = |i: usize| key.xor(V::load(&CONSTANTS[3 + i]));
    // The length after the first and after the second round: `AESENC(y, K[i]) ^ L` is
    // `AESENC(y, K[i] ^ L)`, off the dependency chain.
    let l = V::load(&len_lane(len));
    let h = x.xor(k(0)).aesenc(k(1).xor(l)).aesenc(k(2).xor(l));
    h.aesenc(k(3)).aesenc(k(4))
}

/// The seed's key: `K = AESENC(S ^ C[0], C[1])`.
#[inline(always)]
pub(crate) fn key<V: AesLane>(seed: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    key_lane::<V>(seed).store(&mut out);
    out
}

/// [`key`] left in a lane.
#[inline(always)]
pub(crate) fn key_lane<V: AesLane>(seed: u64) -> V {
    let c = &CONSTANTS;
    V::load(&seed_lane(seed)).xor(V::load(&c[0])).aesenc(V::load(&c[1]))
}

/// `le(len) || 0^64`.
#[inline(always)]
pub(crate) fn len_lane(len: u64) -> [u8; 16] {
    let mut l = [0u8; 16];
    l[..8].copy_from_slice(&len.to_le_bytes());
    l
}

/// `S = le(seed) || le(seed)`.
#[inline(always)]
fn seed_lane(seed: u64) -> [u8; 16] {
    let mut s = [0u8; 16];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8..].copy_from_slice(&seed.to_le_bytes());
    s
}

/// The whole hash of an input of 17 to [`MID`] bytes for seed key `key`: two
/// lanes (up to 32 bytes: the first and the last 16 bytes) or four (the first 32 and the
/// last 32, overlapping under 64), loaded in place; three rounds per lane, the length in the
/// first two round keys; the lanes XORed; the three closing rounds.
#[inline(always)]
pub(crate) fn mid<V: AesLane>(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    mid_lane::<V>(V::load(key), data).store(&mut out);
    out
}

/// [`mid`] with the key in a lane and the digest left in one.
#[inline(always)]
fn mid_lane<V: AesLane>(kk: V, data: &[u8]) -> V {
    let n = data.len();
    debug_assert!(n > CHUNK && n <= MID);
    let c = &CONSTANTS;
    let l = V::load(&len_lane(n as u64));
    let at = |i: usize| V::load(data[i..i + CHUNK].try_into().expect("16 bytes"));
    // `P ^ A[i]`, then `AESENC` with `K[i] ^ L`, `K[i] ^ L`, `K[i]`.
    let lane = |i: usize, p: V| {
        let k = kk.xor(V::load(&c[3 + i]));
        let kl = k.xor(l);
        p.xor(kk.xor(V::load(&c[11 + i]))).aesenc(kl).aesenc(kl).aesenc(k)
    };
    let x = if n <= 2 * CHUNK {
        lane(0, at(0)).xor(lane(1, at(n - CHUNK)))
    } else {
        let x01 = lane(0, at(0)).xor(lane(1, at(CHUNK)));
        x01.xor(lane(2, at(n - 2 * CHUNK)).xor(lane(3, at(n - CHUNK))))
    };
    let closing = |j: usize| kk.xor(V::load(&c[j]));
    x.aesenc(closing(2)).aesenc(closing(1)).aesenc(closing(0))
}

/// The whole of v2 for `data` of at most [`MID`] bytes and `seed`, as a
/// little-endian `u128`: the key (kept in a lane), then [`short`] or [`mid`]. What the
/// short call path of [`crate::v2::hash`] runs.
#[inline(always)]
pub(crate) fn upto_mid<V: AesLane>(seed: u64, data: &[u8]) -> u128 {
    upto_mid_loaded::<V>(seed, data, |d| V::load(&pad(d)))
}

/// [`upto_mid`] with inputs of at most 16 bytes read, zero-padded, by `load_short` (a
/// backend with masked loads reads them in one instruction, without `pad`'s length branches).
#[inline(always)]
pub(crate) fn upto_mid_loaded<V: AesLane>(
    seed: u64,
    data: &[u8],
    load_short: impl FnOnce(&[u8]) -> V,
) -> u128 {
    upto_mid_keyed_loaded::<V>(key_lane::<V>(seed), data, load_short)
}

/// [`upto_mid`] for the derived key `key` (in a lane): one round chain, no key round.
#[inline(always)]
pub(crate) fn upto_mid_keyed<V: AesLane>(key: &[u8; 16], data: &[u8]) -> u128 {
    upto_mid_keyed_loaded::<V>(V::load(key), data, |d| V::load(&pad(d)))
}

/// [`upto_mid_loaded`] for the derived key `key`.
#[inline(always)]
pub(crate) fn upto_mid_keyed_loaded<V: AesLane>(
    key: V,
    data: &[u8],
    load_short: impl FnOnce(&[u8]) -> V,
) -> u128 {
    debug_assert!(data.len() <= MID);
    let h = if data.len() <= CHUNK {
        short_lane::<V>(key, load_short(data), data.len() as u64)
    } else {
        mid_lane::<V>(key, data)
    };
    h.to_u128()
}

/// The whole of v2 for an input of more than 16 bytes with seed key `key`, one-shot: the
/// eight lanes, their keys and the additive lanes stay in registers from the first block to
/// the digest (no [`V2State`] in memory); the last partial block feeds only the lanes its
/// chunks reach. The same digest as
/// [`absorb`] then [`finish`].
// Only the x86_64 AES-NI backend (and VAES through it) runs the one-shot form so far.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn one_shot<V: AesLane>(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    debug_assert!(data.len() > CHUNK);
    let kk = V::load(key);
    let (k, mut a) = long_lanes::<V>(kk);
    let mut b = [V::load(&[0; 16]); LANES];
    let chunk = |block: &[u8], i: usize| {
        V::load(block[CHUNK * i..CHUNK * (i + 1)].try_into().expect("16 bytes"))
    };
    let whole = data.len() - data.len() % (CHUNK * LANES);
    let mut blocks = data[..whole].chunks_exact(CHUNK * LANES);
    if let Some(first) = blocks.next() {
        // The data XOR of the next block joins the round key, off the dependency chain.
        let mut m: [V; LANES] = core::array::from_fn(|i| a[i].xor(chunk(first, i)));
        b = core::array::from_fn(|i| chunk(first, i));
        for block in blocks {
            for i in 0..LANES {
                let ci = chunk(block, i);
                m[i] = m[i].aesenc(k[i].xor(ci));
                b[i] = b[i].add64(ci);
            }
        }
        a = core::array::from_fn(|i| m[i].aesenc(k[i]));
    }
    let mut out = [0u8; 16];
    one_shot_end::<V>(kk, &k, a, b, data).store(&mut out);
    out
}

/// Step 1 of the long path for the key `kk` in a lane: the lane keys `K[i]` and the initial
/// lanes `A[i]`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn long_lanes<V: AesLane>(kk: V) -> ([V; LANES], [V; LANES]) {
    let c = &CONSTANTS;
    (
        core::array::from_fn(|i| kk.xor(V::load(&c[3 + i]))),
        core::array::from_fn(|i| kk.xor(V::load(&c[11 + i]))),
    )
}

/// The end of [`one_shot`], for lanes `a`, `b` that have absorbed every whole block of
/// `data` (more than 16 bytes): the chunks of the last partial block, then step 3. The
/// digest is left in a lane.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn one_shot_end<V: AesLane>(
    kk: V,
    k: &[V; LANES],
    mut a: [V; LANES],
    mut b: [V; LANES],
    data: &[u8],
) -> V {
    debug_assert!(data.len() > CHUNK);
    let c = &CONSTANTS;
    let tail = &data[data.len() - data.len() % (CHUNK * LANES)..];
    if !tail.is_empty() {
        // The whole chunks straight from the input; the partial one from the input's last 16
        // bytes (there are more than 16), shifted down: no byte copy into a buffer, whose
        // 16-byte reloads would miss store forwarding.
        let full = tail.len() / CHUNK;
        let rest = tail.len() % CHUNK;
        let last16 = u128::from_le_bytes(data[data.len() - CHUNK..].try_into().expect("16 bytes"));
        let partial = V::load(&(last16 >> (8 * (CHUNK - rest) % 128)).to_le_bytes());
        for i in 0..LANES {
            if i < full {
                let ci = V::load(tail[CHUNK * i..CHUNK * (i + 1)].try_into().expect("16 bytes"));
                a[i] = a[i].xor(ci).aesenc(k[i]);
                b[i] = b[i].add64(ci);
            } else if i == full && rest != 0 {
                a[i] = a[i].xor(partial).aesenc(k[i]);
                b[i] = b[i].add64(partial);
            }
        }
    }
    let l = V::load(&len_lane(data.len() as u64));
    let mut x = V::load(&[0; 16]);
    for i in 0..LANES {
        x = x.xor(a[i].xor(b[i]).xor(l).aesenc(k[i]).aesenc(k[i]));
    }
    let closing = |j: usize| kk.xor(V::load(&c[j]));
    x.aesenc(closing(2)).aesenc(closing(1)).aesenc(closing(0))
}

/// The whole of v2 for `data` and `seed`, one-shot: the key, then [`short`], [`mid`] or
/// [`one_shot`].
// Only the x86_64 AES-NI backend (and VAES through it) runs the one-shot form so far.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn seeded<V: AesLane>(seed: u64, data: &[u8]) -> [u8; 16] {
    let key = key::<V>(seed);
    if data.len() <= CHUNK {
        short::<V>(&key, &pad(data), data.len() as u64)
    } else if data.len() <= MID {
        mid::<V>(&key, data)
    } else {
        one_shot::<V>(&key, data)
    }
}
