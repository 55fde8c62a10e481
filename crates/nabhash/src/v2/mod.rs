//! NABHash v2: a seeded 128-bit AES-round hash that keeps v1's speed and fixes its structure.
//!
//! ```
//! let a = nabhash::v2::hash(b"hello world", 42);
//! let mut d = nabhash::v2::Digest::with_seed(42);
//! d.update(b"hello ");
//! d.update(b"world");
//! assert_eq!(d.finalize(), a);
//! assert_ne!(nabhash::v2::hash(b"hello world", 43), a);
//! ```
//!
//! # What changes from v1, and why
//!
//! v1 uses each data block only as an AES round *key* (XORed after the S-box), with one round
//! per block and lane, so a difference in one block is cancelled by a chosen difference in the
//! next (it fails SMHasher's Sparse and Permutation tests). v2:
//!
//! - XORs data into the lane *before* the round, so it passes through the S-box;
//! - also adds each chunk into a second accumulator per lane (two 64-bit additions). To
//!   cancel a difference with the next chunk of the same lane, that chunk's difference would
//!   have to equal the round's output difference as an XOR and be its negation as an addition;
//! - has 8 independent lanes (two zmm registers), so the AES units set the pace, not one
//!   round's latency;
//! - derives the round keys from the seed through an AES round, so the seed is in every round
//!   key and in the initial state;
//! - finishes each lane with two more keyed rounds and only then XORs the 8 lanes together,
//!   followed by three closing keyed rounds (see "Why the finish is shaped this way" below).
//!
//! v2 is a fast, well-mixed hash with a seed. It is **not** a cryptographic MAC.
//!
//! **v2's digests changed** (issue 22), three times: the first v2 closed with one round after the
//! lane XOR and failed 15 of SMHasher3's 188 tests; it now closes with three (step 3 below).
//! Then short inputs took the length after their first round, and SMHasher3's TwoBytes set
//! (all keys of 2 to 20 bytes with one or two non-zero bytes, every length in one set) found
//! 20 full 128-bit collisions: keys of *different lengths* whose zero-padded blocks differ in
//! at most 4 bytes. After one AES round such a difference, when the 4 bytes sit on one
//! diagonal, can come out as a single byte (MixColumns has branch number 5: 4 active bytes in,
//! 1 out), and that byte is the length's difference `le(n) ^ le(n')`: the pair collides with
//! probability about 2^-32, and TwoBytes offers about 2^32 such pairs. (Not the additive lane:
//! a lane that absorbs one chunk `c` gives `AESENC(A ^ c, K) ^ c`, whose collisions need `c`
//! to differ in 5 or more bytes.) The length now joins after the first round *and again after
//! the second*: a pair that the first cancels differs by the length again after the second
//! round, so a collision needs a two-round trail from at most 4 active bytes to 1 (at least 5
//! active S-boxes). Among the TwoBytes keys of 11 to 16 bytes (33.5 million, seed 0) the full
//! collisions went from 15 to none, and all 86.5 million keys of 2 to 20 bytes have none.
//! Tried and dropped: the length only after the second round (no collisions, but SMHasher3's
//! Permutation failed on 4-byte blocks: two rounds after the length are too few), and the
//! length through one or two AES rounds of its own, `M(n)`, after the first (`M(n) ^ M(n')`
//! then has the very shape of a one-round difference: 3.9 million and 90 collisions).
//! The third change: inputs of 17 to 64 bytes have their own path (the "medium inputs" below):
//! the pieces go into two or four lanes in parallel, each through three rounds with the
//! length in the first two round keys (as short inputs take it), then the lane XOR and the same
//! three closing rounds as long inputs. The lanes meet after three rounds and the last data
//! passes six, as on the long path, but with no eight-lane setup, partial-chunk masking or
//! eight-lane fold, and (with a call of its own, without the long path's stack frame) the
//! one-shot of 17-32 bytes went from 9.3 to 5.2 ns and of 33-64 bytes from 9.3 to 6.3 ns
//! (harness, min of 300 alternated batches, default build, `vaes512` tier, load 7).
//! SMHasher3's default set on this design: `Overall result: pass (188 / 188 passed)`, no
//! test marked `!!!!!` (`../shared/tools/smhasher3/run libnabshim.a --ncpu=2 NABHash-v2`).
//! v2 is this crate's own and unpublished, so
//! `tests/data/nabhash-v2.txt` was regenerated; v1 is frozen and unchanged.
//!
//! # The v2 algorithm (normative)
//!
//! `AESENC(s, k)` is one AES encryption round as in v1. `le(x)` is the 8 little-endian bytes of
//! a `u64`. `+64` adds two 16-byte values as two little-endian `u64` halves, each wrapping.
//!
//! **Constants.** `C[j]` for `j` in `0..19` is `le(z(2j)) || le(z(2j+1))`, where `z(i)` is output
//! number `i` (from 0) of SplitMix64 started from state 0. SplitMix64 works like this:
//! `state += 0x9e3779b97f4a7c15; z = state; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//! z = (z ^ (z >> 27)) * 0x94d049bb133111eb; output z ^ (z >> 31)`, with every operation
//! wrapping.
//!
//! **Key.** `S = le(seed) || le(seed)`; `K = AESENC(S ^ C[0], C[1])`; lane keys
//! `K[i] = K ^ C[3 + i]` for `i` in `0..8`.
//!
//! **Short inputs (length `n <= 16`).** `x` is the input zero-padded to 16 bytes, and
//! `L = le(n) || 0^64`. The digest is
//! `AESENC(AESENC(AESENC(AESENC(x ^ K[0], K[1]) ^ L, K[2]) ^ L, K[3]), K[4])`: four rounds,
//! the length after the first and the second (after the first only, keys of different
//! lengths collided; see above).
//! With three rounds, 4-byte keys (one input column, so after round 1 each column depends on
//! one input byte) showed 3–9× too many collisions in the low 32 bits (the Window check).
//!
//! **Medium inputs (`16 < n <= 64`).** The input is read as 16-byte pieces loaded in place,
//! overlapping where `n` is not a multiple of 16: for `n <= 32`, `P[0]` = bytes `0..16` and
//! `P[1]` = bytes `n-16..n` (`m = 2`); for `n > 32`, `P[0]` = bytes `0..16`, `P[1]` = bytes
//! `16..32`, `P[2]` = bytes `n-32..n-16` and `P[3]` = bytes `n-16..n` (`m = 4`). With
//! `L = le(n) || 0^64` and `A[i] = K ^ C[11 + i]`, each piece takes three rounds in its own lane,
//! the length in the first two round keys:
//! `H[i] = AESENC(AESENC(AESENC(P[i] ^ A[i], K[i] ^ L), K[i] ^ L), K[i])`. Then
//! `X = H[0] ^ ... ^ H[m-1]` and the digest is
//! `AESENC(AESENC(AESENC(X, K ^ C[2]), K ^ C[1]), K ^ C[0])`, the three closing rounds of long
//! inputs.
//!
//! **Long inputs (`n > 64`).**
//! 1. State: `A[i] = K ^ C[11 + i]` and `B[i] = 0` (16 bytes each), for `i` in `0..8`.
//! 2. Cut the input into `m = ceil(n / 16)` chunks of 16 bytes, the last one zero-padded.
//!    Chunk `j` goes to lane `i = j mod 8`: `A[i] = AESENC(A[i] ^ chunk, K[i])`, then
//!    `B[i] = B[i] +64 chunk`. (Each 128-byte block feeds lanes 0..7 in order. A last partial
//!    block feeds only the lanes its chunks reach.)
//! 3. `L = le(n) || 0^64`; `F[i] = AESENC(A[i] ^ B[i] ^ L, K[i])`; `G[i] = AESENC(F[i], K[i])`;
//!    `X = G[0] ^ G[1] ^ ... ^ G[7]`; the digest is
//!    `AESENC(AESENC(AESENC(X, K ^ C[2]), K ^ C[1]), K ^ C[0])`: three closing rounds.
//!
//! The digest is the 16 bytes in memory order, as in v1. Vectors: `tests/data/nabhash-v2.txt`,
//! generated by the portable implementation (`cargo run --example v2_vectors`) and checked on
//! every architecture.
//!
//! # Why the finish is shaped this way
//!
//! - **Three rounds after the lane XOR.** With one, SMHasher3 failed the first v2 on Sparse
//!   (3 bits in 48-, 64- and 96-byte keys), Permutation (4- and 8-byte blocks) and TwoBytes
//!   (20-byte keys): low-32-bit collisions up to 1.33x the expected count, and a biased
//!   distribution of differences. The property they exploit: after one AES round each 4-byte
//!   column of the digest depends on only 4 bytes (one diagonal) of `X`, and
//!   `X = G[0] ^ ... ^ G[7]` is a sum of per-lane functions of disjoint chunks. So a
//!   32-bit partial collision of `G[0](a) ^ G[1](b)` repeats for every value of the other
//!   lanes' chunks, and collisions of the low 32 bits come in clusters instead of
//!   independently. Two rounds make every output byte depend on all 16 bytes of `X`; the
//!   third is margin (in the same SMHasher3 run, 48-byte Sparse keys went from 1.33x to
//!   1.007x the expected low-32-bit collisions). It costs two AES latencies per hash.
//! - **Six rounds after the last data.** A lane's last chunk passes its own round in step 2,
//!   then `F`, `G` and the three closing rounds. The additive lane `B` passes five. Short
//!   inputs take four rounds (three were not enough, see above); medium inputs (17 to 64
//!   bytes) six: three in their lane, three closing.
//! - **Lanes meet only after three rounds.** The lanes are combined by XOR, which is linear,
//!   so a difference in one lane could be cancelled by the same difference in another. After
//!   one round a one-byte difference spreads to one column: its value is set by one S-box
//!   difference, so two lanes agree with probability near 2^-7. After two rounds it is set by
//!   five S-box differences (about 2^-30). After three, by 21 (below 2^-90). `G` is that third
//!   round.
//! - **Why not a tree of `AESENC(x, y)`.** The earlier draft of v2 folded the lanes that way.
//!   The lane passed as `y` enters only by XOR at every level, so it needs the same rounds
//!   before and after the tree as here, and the tree adds three serial rounds where the XOR
//!   fold adds none. In one harness run (medians, 256-byte input, this machine's Zen 4): such
//!   a tree 5.68 ns, this shape 5.44 ns, gxhash128 5.07 ns.
//!
//! # The call path, and how fast it is
//!
//! [`hash`] is `#[inline]`: the caller checks the length and makes one indirect jump through
//! a cached function pointer, one for inputs of up to 64 bytes and one for longer inputs,
//! filled on the first call by `nab-isa`'s detection (under `NAB_MAX_ISA`); a build that
//! enables AES at compile time calls the kernel directly. The kernel derives the key, runs the
//! rounds and returns the digest in two general registers (a `[u8; 16]` return goes through
//! memory). No per-call detection, no backend `match`, and no VAES-to-AES-NI hop: on the
//! `vaes512` tier the short kernel reads up to 16 bytes with one 128-bit masked load (no
//! length branches, no zmm register), and a long input's last partial block of 64 bytes or
//! more fills lanes 0..4 with a plain load.
//!
//! Against xxh3-128 (issue 22), ns per call: the minimum of 300 alternated batches of 1000
//! independent calls through a `Box<dyn Fn>`, on a 2-core Zen 4 shared by five jobs (load
//! average 12). Default build (`vaes512` dispatched): 1-16 bytes 2.99 (xxh3-128: 2.99-3.54),
//! 17-32 bytes 3.27 (4.35), 33-64 bytes 4.50 (5.97), 65-96 bytes 7.4 (7.6-7.8), 100-127
//! bytes 7.4 (9.1), 128 bytes 6.5 (9.2), 256 bytes 7.9 (19.7), 1 KiB 14.4 (46.1). With
//! `-C target-cpu=native`: 1-16 bytes 2.72 (2.99-3.81), 17-64 bytes 3.26-4.48 (4.62-6.04),
//! 65-96 bytes 7.4-7.6 (7.36: 0.97-0.99x, a tie), 100 bytes and up 1.1-1.7x faster. The one
//! size where v2 loses is the empty input: 2.99 ns (native 2.72) against 2.44 (2.17). A call
//! through the same harness that loads 16 bytes and returns costs 2.19 ns, so xxh3-128 spends
//! about 0.25 ns on an empty input (it mixes two secret words); v2's floor is the seed's key
//! round and four dependent rounds after it, whatever the length.

pub(crate) mod generic;
pub(crate) mod state;

use self::state::{BLOCK, CHUNK, MID, V2State, pad};
use crate::buffer::BlockBuffer;
use crate::dispatch::Backend;

/// The NABHash v2 digest of `data` with `seed`.
///
/// ```
/// assert_eq!(nabhash::v2::hash(b"", 0).len(), 16);
/// assert_ne!(nabhash::v2::hash(b"a", 0), nabhash::v2::hash(b"a\0", 0));
/// ```
#[inline]
pub fn hash(data: &[u8], seed: u64) -> [u8; 16] {
    // Up to 64 bytes: one cached function pointer (or, when the build enables AES, a direct
    // call that inlines) straight to the backend's short kernel, the digest back in registers;
    // no per-call detection and no backend match (see `dispatch::v2_upto_mid`).
    if data.len() <= MID {
        return crate::dispatch::v2_upto_mid(data, seed).to_le_bytes();
    }
    hash_long(data, seed)
}

/// [`hash`] of more than [`MID`] bytes (the cached long kernel), out of line so that `hash`
/// inlines small.
fn hash_long(data: &[u8], seed: u64) -> [u8; 16] {
    crate::dispatch::v2_long(data, seed).to_le_bytes()
}

/// [`hash`] computed by a given backend (for tests and benches).
#[doc(hidden)]
#[inline]
pub fn hash_with(backend: Backend, data: &[u8], seed: u64) -> [u8; 16] {
    backend.v2_hash_seeded(seed, data)
}

/// Streaming NABHash v2, with the same contract as [`crate::Digest`]: any split of the input
/// into [`update`](Digest::update) calls gives [`hash`] of the whole, and
/// [`finalize`](Digest::finalize) leaves the state as it was.
///
/// ```
/// use std::io::Write;
///
/// let mut d = nabhash::v2::Digest::new();
/// d.write_all(&[7u8; 1000])?;
/// assert_eq!(d.finalize(), nabhash::v2::hash(&[7u8; 1000], 0));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Digest {
    key: [u8; 16],
    /// The lanes, set up when the first whole block arrives (inputs shorter than a block are
    /// hashed from `buffer` by the one-shot kernel and never need them).
    st: Option<V2State>,
    /// The current partial block; it starts at lane 0.
    buffer: BlockBuffer<BLOCK>,
    len: u64,
    backend: Backend,
}

impl Digest {
    /// A digest with seed 0.
    pub fn new() -> Self {
        Self::with_seed(0)
    }

    /// A digest with `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Self::with_backend(Backend::detect(), seed)
    }

    /// A digest that uses `backend` (for tests and benches).
    #[doc(hidden)]
    pub fn with_backend(backend: Backend, seed: u64) -> Self {
        Self::keyed(backend, backend.v2_key(seed))
    }

    pub(crate) fn keyed(backend: Backend, key: [u8; 16]) -> Self {
        Digest { key, st: None, buffer: BlockBuffer::new(), len: 0, backend }
    }

    /// Appends `data` to the input.
    pub fn update(&mut self, data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        let (st, backend, key) = (&mut self.st, self.backend, &self.key);
        self.buffer.update(data, |blocks| {
            if !blocks.is_empty() {
                backend.v2_absorb(st.get_or_insert_with(|| V2State::new(key)), blocks);
            }
        });
    }

    /// The digest of everything passed to [`update`](Digest::update) so far.
    pub fn finalize(&self) -> [u8; 16] {
        let pending = self.buffer.pending();
        if self.len <= CHUNK as u64 {
            return self.backend.v2_short(&self.key, &pad(pending), self.len);
        }
        if self.len == pending.len() as u64 {
            // Under one block in all: nothing is absorbed yet, so the one-shot kernel can
            // hash the buffer (no copy of the state).
            return self.backend.v2_hash(&self.key, pending);
        }
        // Whole blocks were absorbed, so the lanes exist.
        let mut st = self.st.clone().unwrap_or_else(|| V2State::new(&self.key));
        self.backend.v2_absorb(&mut st, pending);
        self.backend.v2_finish(&st, self.len)
    }

    /// Forgets all input (the seed and backend are kept).
    pub fn reset(&mut self) {
        *self = Self::keyed(self.backend, self.key);
    }
}

impl Default for Digest {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Digest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
