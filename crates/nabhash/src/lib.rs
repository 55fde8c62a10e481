//! NABHash: a fast keyed hasher for `HashMap`, and 128-bit checksums that spend one AES round
//! per 16 input bytes.
//!
//! - [`HashMap`], [`HashSet`], [`RandomState`], [`FixedState`], [`NabHasher`]: a keyed
//!   folded-multiply hasher for hash tables, with the same hashes on every architecture.
//! - [`v2::hash`] / [`v2::Digest`]: NABHash v2, a seeded 128-bit checksum at AES speed.
//! - [`hash`] / [`Digest`]: **NABHash v1**, bit-exactly as published, on every architecture
//!   and endianness, with the fastest AES instructions the CPU has (AES-NI and VAES on
//!   x86_64, the AES instructions of aarch64 and riscv64) and a portable implementation
//!   everywhere else.
//!
//! A hash table with the hasher (a random key per table, as std's `RandomState`):
//!
//! ```
//! use nabhash::{HashMap, HashMapExt};
//!
//! let mut ages: HashMap<&str, u32> = HashMap::new();
//! ages.insert("ada", 36);
//! ages.insert("alan", 41);
//! assert_eq!(ages.get("ada"), Some(&36));
//!
//! // A fixed key instead: the same hashes in every run and on every architecture.
//! use std::hash::BuildHasher;
//! let state = nabhash::FixedState::with_seed(42);
//! assert_eq!(state.hash_one("ada"), nabhash::FixedState::with_seed(42).hash_one("ada"));
//! let mut fixed = std::collections::HashMap::with_hasher(state);
//! fixed.insert(1u64, "one");
//! assert_eq!(fixed[&1], "one");
//! ```
//!
//! Checksums of data, in one call or streamed:
//!
//! ```
//! // NABHash v2 with seed 0: the checksum to pick for new data.
//! let v2 = nabhash::v2::hash(b"hello world", 0);
//! assert_eq!(v2.len(), 16);
//!
//! // NABHash v1, to match files hashed by other v1 tools.
//! let digest = nabhash::hash(b"hello world");
//!
//! // Streaming gives the same answer for any split of the input.
//! let mut d = nabhash::Digest::new();
//! d.update(b"hello ");
//! d.update(b"world");
//! assert_eq!(d.finalize(), digest);
//! ```
//!
//! # Which to use
//!
//! - [`HashMap`], [`HashSet`], [`RandomState`], [`FixedState`], [`NabHasher`]: a keyed
//!   hasher for hash tables (below). It is not v2: hash tables hash short keys, where one
//!   folded multiply beats four AES rounds and inlines into the caller in every build.
//! - [`hash`] / [`Digest`]: NABHash v1, to match checksums of files hashed by other v1 tools.
//! - [`v2::hash`] / [`v2::Digest`]: the recommended 128-bit checksum. It is seeded and runs
//!   at AES speed and passes SMHasher3's default test set (`Overall result: pass (188 / 188
//!   passed)`; see [`v2`] for the history of its digests).
//!
//! # Features
//!
//! - `std` (default): `io::Write` for the digests, [`RandomState`] and the [`HashMap`] /
//!   [`HashSet`] aliases. Without it the crate is `no_std` (hashes, digests, [`NabHasher`] and
//!   [`FixedState`] work).
//!
//! # v1 is a checksum, not a keyed or cryptographic hash
//!
//! v1 is **unkeyed and has constructible collisions**: the data enters each lane only as an
//! AES round *key* (XORed after the nonlinear step), and each lane sees one round per block,
//! so a difference in one block can be cancelled by a chosen difference in the next block of
//! the same lane. Use it to detect accidental corruption and to match files hashed by other
//! NABHash v1 tools, never where an adversary chooses the input.
//!
//! # Backends
//!
//! | arch | backend (most preferred first) |
//! | --- | --- |
//! | x86_64 | `vaes512`: the 64-byte state in one zmm (VAES + AVX-512F); `vaes256`: two ymm (VAES + AVX2); `aesni-avx512`: v2's long inputs with 32 registers, keys in xmm and sums in zmm (AES-NI + AVX-512 F/VL, no VAES: Skylake-SP to Cooper Lake); `aesni-avx2`: one xmm per lane, v2's long inputs loaded, summed and keyed in ymm pairs (AES-NI + AVX2); `aesni`: one xmm per lane |
//! | aarch64 | `aarch64-aes`: `AESE`/`AESMC`, the key xor folded into the next `AESE` |
//! | riscv64 built with `+zkne` | `zkne`: two `aes64esm` per lane and round, in `asm!` |
//! | everything, incl. big-endian mips64 | `portable`: table-based AES round, endian-correct |
//!
//! The choice is made once per process (riscv64's at compile time: Rust has no stable
//! run-time detection there). A CPU without AES instructions runs the portable backend,
//! never an illegal instruction. Building with `--cfg nabhash_backend="portable"` forces the
//! portable backend.
//!
//! # Adding a backend
//!
//! For contributors; the files to touch, in order (`arch/x86_64/aesni.rs` is the example):
//!
//! 1. `src/arch/<isa>/<name>.rs`: a zero-sized token that only a check makes, so holding one
//!    proves it (`nab_isa::token!` for features detected at run time, as `AesNi`; a struct
//!    in a module compiled only under the `target_feature`, as riscv64's `Zkne`), and
//!    `impl Kernels` for it. `src/kernels.rs` lists the methods and their contracts (the
//!    one-shot paths have defaults over the block functions; `v2_upto_mid_fn`/`v2_long_fn`
//!    return the kernels `dispatch` caches); the v2 rounds are written once over
//!    `v2::generic::AesLane`. `#[target_feature]` goes on thin entry functions, helpers are
//!    `#[inline(always)]`, and every `unsafe` block says why it is sound.
//! 2. `src/arch/<isa>/mod.rs`: declare the module.
//! 3. `src/dispatch.rs`: one line in the `nab_isa::backends!` list, in order of preference
//!    (variant, token, name, probe: `AesNi(AesNi) = "aesni" => AesNi::new();`). `Backend`'s
//!    surface, `backends()`, `each_backend!` and v2's cached pointers follow from it.
//! 4. Tests need nothing new: `tests/backends.rs` and `tests/vectors.rs` run every backend
//!    `backends()` lists against the portable one and the vectors of `tests/data/`. Add the
//!    backend to the table above and, for a new `NAB_MAX_ISA` tier, to the one below.
//!
//! # `NAB_MAX_ISA`
//!
//! The environment variable that caps run-time detection in every crate of the workspace
//! (see `nab-isa`), read once at the first dispatch:
//!
//! | `NAB_MAX_ISA` | x86_64 backend | aarch64 backend |
//! | --- | --- | --- |
//! | unset (or not a tier name: ignored) | the best the CPU has | `aarch64-aes` if the CPU has AES |
//! | `x86-64-v4` | `aesni-avx512` (no VAES in v4) | unchanged |
//! | `x86-64-v3` | `aesni-avx2` (no VAES in v3) | unchanged |
//! | `x86-64-v2` | `aesni` | unchanged |
//! | `portable` | `portable` | `portable` |
//!
//! Always at most what the CPU has. Features enabled at compile time win (a build with
//! `-C target-feature=+aes` keeps `aesni` under `portable`; riscv64's `zkne` is a compile-time
//! choice). Without `std` the cap applies when anything in the program enables
//! `nab-isa/std`; otherwise call `nab_isa::set_cap` before the first hash.
//!
//! # The v1 algorithm
//!
//! `AESENC(state, key)` is one full AES encryption round as the x86 instruction defines it:
//! `MixColumns(ShiftRows(SubBytes(state))) XOR key`.
//!
//! The state is 64 bytes, four 16-byte lanes `L0..L3`, each initialised to
//! `5a 82 79 99 6e d9 eb a1 8f 1b bc dc ca 62 c1 d6` (the SHA-1 round constants, big-endian).
//!
//! 1. Split the input into 64-byte blocks; zero-pad the last one to 64 bytes if the length
//!    is not a multiple of 64. An empty input has no blocks.
//! 2. For each block `B`, for each lane `i`: `Li = AESENC(Li, B[16i..16i+16])`.
//! 3. XOR the 8 little-endian bytes of the unpadded length (`u64`) into bytes `0..8` of every
//!    lane.
//! 4. Fold: `L0 = AESENC(L0, L1)`; `L1 = AESENC(L2, L3)`; `L0 = AESENC(L0, L1)`; then three
//!    times `L0 = AESENC(L0, L0)`.
//! 5. The digest is the 16 bytes of `L0` in memory order (hex output is those bytes in order).
//!
//! # The `NabHasher` algorithm (normative)
//!
//! `NabHasher` is a keyed folded-multiply hash of the foldhash / rapidhash / wyhash family,
//! shaped like foldhash's quality variant but portable: the definition below uses only
//! 64-bit and 128-bit integer arithmetic and little-endian loads, so [`FixedState`] gives the
//! same hashes on every architecture and endianness (`tests/data/nabhasher.txt`, checked on
//! every target of the cross matrix, mips64 big-endian included). It passes SMHasher3's
//! default test set as a 64-bit hash (one `write`, then `finish`).
//!
//! `fm(x, y)` (folded multiply) is the XOR of the low and the high 64 bits of the 128-bit
//! product `x * y`. `le64(b, i)` is the little-endian `u64` at bytes `i..i+8` of `b`, `le32`
//! likewise for 4 bytes, zero-extended. All additions wrap; `rotr` is a right rotation.
//!
//! **Keys** (computed once, by `FixedState::with_seed` (a `const fn`) or `RandomState::new`):
//! run SplitMix64 from state `seed ^ 0x6e61626861736821` (`"nabhash!"`; SplitMix64 as in the
//! v2 docs); its outputs 0..7 are `acc0, k0, k1, k2, k3, k4, k5`.
//!
//! **State**: `acc` (starts at `acc0`), a 128-bit `sponge` (starts at 0) holding `bits` bits
//! (starts at 0), and a flag `after_write` (starts false; every call below that does not set
//! it clears it). `fold() = fm(lo64(sponge) ^ acc, hi64(sponge) ^ k0)`.
//!
//! - `write_u8(x)` when `after_write` is set (the `0xff` that std's `str` hash appends to
//!   the bytes): `acc ^= x`, with no multiply.
//! - Otherwise `write_u8/u16/u32/u64(x)` and `write_usize(x)` (as a `u64` on every target),
//!   `w` the width in bits: if `bits + w > 128` then `acc = fold(); sponge = x; bits = w`,
//!   else `sponge |= x << bits; bits += w`.
//! - `write_u128(x)`: if `bits > 0` then `acc = fold(); sponge = 0; bits = 0`; then
//!   `acc = fm(lo64(x) ^ acc, hi64(x) ^ k0)`.
//! - `write(b)` with `n = b.len()` sets `after_write`; `a = rotr(acc, n mod 64)`, then
//!   - `n <= 16`: `(p, q)` is `(le64(b, 0), le64(b, n-8))` for `n >= 8`,
//!     `(le32(b, 0), le32(b, n-4))` for `4 <= n < 8`, `(b[0], b[n-1] << 8 | b[n/2])` for
//!     `1 <= n <= 3`, `(0, 0)` for `n = 0`; `acc = fm(a ^ p, k1 ^ q)`.
//!   - `n > 16`: lane offsets `l = [0, k1, k2, rotl(k1, 32), rotl(k2, 32),
//!     rotl(k1 ^ k2, 16)]`, lanes `s_i = a + l_i` (`s0`, `s1` always; `s2`, `s3` if
//!     `n > 128`; `s4`, `s5` if `n > 256`). If `n > 256`: while more than 256 bytes remain,
//!     `s_i = fm(le64(v, 8i) ^ s_i, le64(v, 48 + 8i) ^ k0)` for `i` in `0..6` and `v`
//!     advances 96 bytes; then `s0 ^= s4; s1 ^= s5`. If `n > 128`: while more than 128 bytes
//!     remain, `s_i = fm(le64(v, 8i) ^ s_i, le64(v, 32 + 8i) ^ k0)` for `i` in `0..4` and `v`
//!     advances 64 bytes; then `s0 ^= s2; s1 ^= s3`. With `m` (17 to 128) bytes `v` left, for
//!     `r` in `0..4` while `m >= 32r`:
//!     `s0 = fm(le64(v, 16r) ^ s0, le64(v, m-16-16r) ^ k0)`,
//!     `s1 = fm(le64(v, 16r+8) ^ s1, le64(v, m-8-16r) ^ k0)`. `acc = s0 ^ s1`.
//! - `finish()`: if `bits > 0`, `h = fold()` and the result is `fm(h, k2)` (integers get two
//!   dependent multiplies: one fails the integer avalanche check for a fixed key); if
//!   `bits = 0`, `h = acc` (already the output of a multiply) and the result is
//!   `fm(h ^ k2, rotl(h, 32) ^ k3)`. So a `u64` key and a `str` key both take two dependent
//!   multiplies. [`NabHasher::finish_u128`] is `finish()` in the low 64 bits and
//!   `fm(h ^ k4, rotl(h, 32) ^ k5)` in the high 64: 128 bits, but from the same 64-bit `h`,
//!   so it collides exactly when `finish` does. (Before this version `finish_u128` was the
//!   v2 digest; for a 128-bit digest use [`v2::hash`].)
//!
//! Each `write` is mixed as it comes: **different splits of the same bytes may hash
//! differently** (like foldhash, ahash and rapidhash; std's `Hash` impls are prefix-free, so
//! `Hash` needs nothing more). [`v2::Digest`] is the split-invariant streaming digest.
//!
//! # Design notes: why two multiplies
//!
//! A `u64` key and a `str` key of up to 16 bytes each take two
//! dependent folded multiplies, like foldhash's and rapidhash's quality variants; foldhash's
//! fast variant takes one for a `u64`. One is not enough for a hash table's fixed key: with a
//! fixed seed, flipping one input bit of `fm(x ^ a, k)` (foldhash-fast's `u64` path) leaves
//! output bits flipping with a bias far above SMHasher's 1% (14% averaged over random seeds),
//! while two pass (0.8%). Data times data does not rescue one multiply:
//! `fm(x ^ a, rotl(x, 32) ^ b)` has a 99.8% bias with a fixed seed, because flipping input
//! bit `i` changes the product by `2^i * v + 2^(i+32) * u` and both terms carry the same input
//! bits to the same product bits (true of any rotation); a byte swap instead of the rotation
//! 99.5%, `fm(x ^ a, x + b)` 94-99%, and each also fails the distribution checks of the bits
//! hashbrown uses. Nor does a cheap linear mix after one multiply `h = fm(x ^ a, k)`:
//! `h ^ (h >> 32)` leaves a 100% bias with a fixed seed, `h ^ rotl(h, 25) ^ rotl(h, 47)`
//! 65-71% (it passes with a fresh seed per sample, 0.8%: averaging over keys hides what a
//! fixed key shows). Thirty-odd one-multiply designs were checked (`tests/quality`,
//! `integers.rs`, fixed and random seeds); every one with one extra step or fewer after the
//! multiply fails. The one that passes, `xr(fm(x + a, bswap(x) + b))` with
//! `xr(h) = h ^ rotl(h, 21) ^ rotl(h, 43)`, has one multiply's latency but three
//! single-cycle steps and two register copies more than foldhash-fast (13 instructions
//! against 5 in a default build), and in the lookup benches it ties the two-multiply path, so
//! it is not used. So a `u64` costs the same instructions as foldhash-quality's (xor,
//! multiply, xor, multiply, xor), one multiply more than foldhash-fast. Everything else is on
//! the path foldhash takes: the hasher inlines into the map's lookup, the keys sit in the
//! `BuildHasher`, the long-key path is an out-of-line call with its keys in registers, and a
//! `str` key's `0xff` terminator joins the closing multiply's keys, off its dependency chain.
//! The comparison with foldhash and rapidhash: the `nabhash/hash_one-u64-chain` and
//! `nabhash/hashmap-*` groups of `benches/nabhash.rs`.
//!
//! How a `String` lookup inlines is up to LLVM: std's `Hasher::write_str` (the bytes, then
//! `0xff`) is an `#[inline]` default method, and its inline cost with this hasher is above
//! LLVM's default threshold (foldhash-fast's is below: its `FixedState` seeds are
//! compile-time constants). In the benches it inlines; in other callers of a default build
//! it may stay a call, with the hasher passed through memory.
//!
//! **Long keys do not use AES.** v2's one-shot has a fixed cost of seven serial AES rounds
//! (the key round, three lane rounds and three closing ones on the medium path), more than
//! the folded-multiply lanes spend on the key lengths hash tables see; AES would pay only
//! from about 128 bytes up. Moving keys above a measured length to v2's AES lanes would change
//! the hashes of those keys (and `tests/data/nabhasher.txt`) and needs a new SMHasher3 run.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod arch;
mod buffer;
mod dispatch;
mod hasher;
mod kernels;
mod portable;
mod v1;
pub mod v2;

pub use hasher::{FixedState, NabHasher};
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
pub use hasher::{HashMap, HashMapExt, HashSet, HashSetExt, RandomState};

#[doc(hidden)]
pub use dispatch::{Backend, backends};
#[doc(hidden)]
pub use v1::hash_with;
pub use v1::{Digest, hash};

/// One AES encryption round, `AESENC(state, key)`, computed by the portable backend. For
/// tests that check the documented algorithms step by step.
#[doc(hidden)]
pub fn aes_round(state: [u8; 16], key: [u8; 16]) -> [u8; 16] {
    portable::aesenc(state, key)
}

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
