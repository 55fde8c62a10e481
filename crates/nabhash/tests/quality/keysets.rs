//! SMHasher's key-set checks (rurban/smhasher `KeysetTest.h`, `main.cpp`): generate a set of
//! structured keys, hash them all (seed 0 unless the key set is about seeds), and count
//! collisions with [`analyze`].

use super::rng::SplitMix64;
use super::stats::{Verdict, analyze};
use super::{HashFn, Report, Scale};

/// Hashes every key of `keys` (as bytes) with seed 0.
fn hash_all<K: AsRef<[u8]>>(f: &HashFn<'_>, keys: impl Iterator<Item = K>) -> Vec<u128> {
    keys.map(|k| f(k.as_ref(), 0)).collect()
}

// ---------------------------------------------------------------------------------------
// Sanity

/// Sanity (SMHasher `SanityTest`, `AppendedZeroesTest`): the hash is deterministic and
/// depends neither on the key's address nor on the bytes around it; flipping any single bit
/// of a random key changes the hash; appending 1..32 zero bytes changes the hash; and for a
/// seeded hash, flipping any seed bit changes the hash. Fails on any exception (the first five
/// are reported).
pub fn sanity(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    let mut lengths: Vec<usize> = (0..=scale.pick(64, 32)).collect();
    lengths.extend(scale.pick(&[65, 127, 128, 129, 255, 256, 1000, 4097][..], &[65, 128, 129]));
    let report = Report::run("Sanity", "bit flips, alignment, appended zeroes", || {
        let mut rng = SplitMix64::new(0x5a11_7e57);
        let mut problems = Vec::new();
        let mut hashes = 0usize;
        for &len in &lengths {
            let mut key = vec![0u8; len];
            rng.fill(&mut key);
            let seed = if seeded { rng.next_u64() } else { 0 };
            let h = f(&key, seed);
            // The same bytes at every alignment, twice.
            let mut buf = vec![0xa5u8; len + 16];
            for offset in 0..8 {
                buf[offset..offset + len].copy_from_slice(&key);
                if f(&buf[offset..offset + len], seed) != h || f(&key, seed) != h {
                    problems.push(format!("len {len}: differs at offset {offset}"));
                }
                hashes += 2;
            }
            // Every single-bit flip changes the hash.
            for bit in 0..len * 8 {
                key[bit / 8] ^= 1 << (bit % 8);
                if f(&key, seed) == h {
                    problems.push(format!("len {len}: flipping bit {bit} keeps the hash"));
                }
                key[bit / 8] ^= 1 << (bit % 8);
            }
            hashes += len * 8;
            // Appended zero bytes change the hash (and each other).
            if len <= 64 {
                let mut seen = vec![h];
                let mut longer = key.clone();
                for zeros in 1..=32 {
                    longer.push(0);
                    let h2 = f(&longer, seed);
                    if seen.contains(&h2) {
                        problems.push(format!("len {len}: {zeros} appended zero bytes collide"));
                    }
                    seen.push(h2);
                }
                hashes += 32;
            }
            // Every seed bit matters.
            if seeded {
                for bit in 0..64 {
                    if f(&key, seed ^ (1 << bit)) == h {
                        problems.push(format!("len {len}: flipping seed bit {bit} keeps the hash"));
                    }
                }
                hashes += 64;
            }
        }
        problems.truncate(5);
        Verdict {
            passed: problems.is_empty(),
            details: if problems.is_empty() {
                format!("{} lengths, {hashes} hashes", lengths.len())
            } else {
                format!("FAIL: {}", problems.join("; "))
            },
        }
    });
    vec![report]
}

// ---------------------------------------------------------------------------------------
// Sparse

/// Sparse (SMHasher `SparseKeyTest`): every `bits`-bit key with at most `k` bits set
/// (inclusive, so also the all-zero key). SMHasher's default list for a 128-bit hash is 16/9,
/// 24/8, 32/7, 40/6, 48/6, 56/5, 64/5, 72/5, 96/4, 160/4, 256/3 (85 million keys); `--extra`
/// adds 128/4, 512/3, 1024/2, 2048/2 and more. Full scale runs 16/9, 24/8, 32/6, 40/6, 48/5,
/// 56/5, 64/5, 96/4, 128/4, 160/4, 256/3, 512/2, 1024/2, 2048/2 (69 million keys; 512/3 alone
/// would add 22 million). Reduced scale keeps 160-, 512- and 2048-bit keys, where NABHash v1
/// collides, with fewer bits set.
pub fn sparse(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let sets: &[(usize, usize)] = scale.pick(
        &[
            (16, 9),
            (24, 8),
            (32, 6),
            (40, 6),
            (48, 5),
            (56, 5),
            (64, 5),
            (96, 4),
            (128, 4),
            (160, 4),
            (256, 3),
            (512, 2),
            (1024, 2),
            (2048, 2),
        ],
        &[(16, 4), (32, 3), (64, 3), (128, 2), (160, 3), (256, 2), (512, 2), (2048, 1)],
    );
    sets.iter()
        .map(|&(bits, k)| {
            Report::run("Sparse", &format!("{bits}-bit keys, <={k} bits set"), || {
                let mut key = vec![0u8; bits / 8];
                let count = (0..=k).map(|i| choose(bits, i)).sum();
                let mut hashes = Vec::with_capacity(count);
                hashes.push(f(&key, 0));
                sparse_recurse(f, &mut key, 0, k, &mut hashes);
                analyze(hashes, true)
            })
        })
        .collect()
}

/// The binomial coefficient `C(n, k)`.
fn choose(n: usize, k: usize) -> usize {
    (0..k).fold(1, |c, i| c * (n - i) / (i + 1))
}

/// SMHasher's `SparseKeygenRecurse`: set each bit from `start` on, hash, recurse for the
/// remaining `bits_left - 1` bits above it, clear the bit.
fn sparse_recurse(
    f: &HashFn<'_>,
    key: &mut [u8],
    start: usize,
    bits_left: usize,
    out: &mut Vec<u128>,
) {
    for bit in start..key.len() * 8 {
        key[bit / 8] ^= 1 << (bit % 8);
        out.push(f(key, 0));
        if bits_left > 1 {
            sparse_recurse(f, key, bit + 1, bits_left - 1, out);
        }
        key[bit / 8] ^= 1 << (bit % 8);
    }
}

// ---------------------------------------------------------------------------------------
// Permutation (SMHasher's "Combination" key sets)

/// One Permutation key set: its SMHasher name, its blocks, and the longest sequence of
/// blocks at full and at reduced scale.
struct Combination {
    name: &'static str,
    blocks: Vec<Vec<u8>>,
    max_full: usize,
    max_reduced: usize,
}

/// The 15 'Permutation' key sets of rurban/smhasher `main.cpp` ("Combination Lowbits",
/// "Highbits", "Hi-Lo", "0x8000000", "0x0000001", "0x800000000000000", "0x000000000000001",
/// and 16/32/64/128-byte blocks "[0-1]" and "[0-last]"), with SMHasher's lengths for a hash
/// wider than 64 bits at full scale (7, 7, 6, then 17 blocks: up to 12 million keys per set).
/// Reduced scale uses 4, 4, 3, 14 blocks (10 for 64- and 128-byte blocks): NABHash v1's
/// collisions on 8- to 32-byte blocks need keys longer than one 64-byte v1 block, which
/// 13 and 14 blocks of 8 bytes or more reach.
fn combinations() -> Vec<Combination> {
    let words32 = |v: &[u32]| v.iter().map(|x| x.to_le_bytes().to_vec()).collect();
    let words64 = |v: &[u64]| v.iter().map(|x| x.to_le_bytes().to_vec()).collect();
    // SMHasher's blockN sets: {first byte 1 | last byte 0x80, all zero}.
    let wide = |n: usize, last: bool| {
        let mut b = vec![0u8; n];
        if last {
            b[n - 1] = 0x80;
        } else {
            b[0] = 1;
        }
        vec![b, vec![0u8; n]]
    };
    let c =
        |name, blocks, max_full, max_reduced| Combination { name, blocks, max_full, max_reduced };
    vec![
        c("Lowbits", words32(&[0, 1, 2, 3, 4, 5, 6, 7]), 7, 4),
        c(
            "Highbits",
            words32(&[
                0,
                0x2000_0000,
                0x4000_0000,
                0x6000_0000,
                0x8000_0000,
                0xa000_0000,
                0xc000_0000,
                0xe000_0000,
            ]),
            7,
            4,
        ),
        c(
            "Hi-Lo",
            words32(&[
                0,
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                0x8000_0000,
                0x4000_0000,
                0xc000_0000,
                0x2000_0000,
                0xa000_0000,
                0x6000_0000,
                0xe000_0000,
            ]),
            6,
            3,
        ),
        c("0x8000000", words32(&[0, 0x8000_0000]), 17, 14),
        c("0x0000001", words32(&[0, 1]), 17, 14),
        c("0x800000000000000", words64(&[0, 1 << 63]), 17, 14),
        c("0x000000000000001", words64(&[0, 1]), 17, 14),
        c("16-bytes [0-1]", wide(16, false), 17, 14),
        c("16-bytes [0-last]", wide(16, true), 17, 14),
        c("32-bytes [0-1]", wide(32, false), 17, 14),
        c("32-bytes [0-last]", wide(32, true), 17, 14),
        c("64-bytes [0-1]", wide(64, false), 17, 10),
        c("64-bytes [0-last]", wide(64, true), 17, 10),
        c("128-bytes [0-1]", wide(128, false), 17, 10),
        c("128-bytes [0-last]", wide(128, true), 17, 10),
    ]
}

/// Permutation (SMHasher `CombinationKeyTest`): all sequences of 1..=max blocks drawn from a
/// small block set (see [`combinations`]).
pub fn permutation(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    combinations()
        .into_iter()
        .map(|c| {
            let max = scale.pick(c.max_full, c.max_reduced);
            Report::run("Permutation", &format!("{} (<={max} blocks)", c.name), || {
                let count = (1..=max as u32).map(|i| c.blocks.len().pow(i)).sum();
                let mut hashes = Vec::with_capacity(count);
                combination_recurse(f, &c.blocks, max, &mut Vec::new(), &mut hashes);
                analyze(hashes, true)
            })
        })
        .collect()
}

/// SMHasher's `CombinationKeygenRecurse`: append each block, hash, recurse, remove it.
fn combination_recurse(
    f: &HashFn<'_>,
    blocks: &[Vec<u8>],
    left: usize,
    key: &mut Vec<u8>,
    out: &mut Vec<u128>,
) {
    if left == 0 {
        return;
    }
    for block in blocks {
        let len = key.len();
        key.extend_from_slice(block);
        out.push(f(key, 0));
        combination_recurse(f, blocks, left - 1, key, out);
        key.truncate(len);
    }
}

// ---------------------------------------------------------------------------------------
// Window

/// Window (SMHasher `WindowedKeyTest`): 32-bit keys whose only non-zero bits are a window of
/// `w` bits, at each of the 33 rotations (SMHasher: 32-bit keys for hashes of 64 bits or
/// more, 2^25 keys per rotation for a 128-bit hash, full width only). Ours: 2^18 keys per
/// rotation at full scale, 2^10 at 9 rotations reduced, and the truncations counted too (at
/// 2^18 keys the 32-bit truncations expect 8 collisions, which is where a 128-bit hash can
/// show a defect).
pub fn window(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let bits = scale.pick(18, 10);
    let step = scale.pick(1, 4);
    let report = Report::run("Window", &format!("32-bit keys, {bits}-bit window"), || {
        let mut failures = Vec::new();
        let mut rotations = 0;
        for rot in (0..=32).step_by(step) {
            let hashes = hash_all(f, (0..1u32 << bits).map(|i| i.rotate_left(rot).to_le_bytes()));
            let v = analyze(hashes, true);
            rotations += 1;
            if !v.passed {
                failures.push((rot, v.details));
            }
        }
        let mut details = format!("{rotations} rotations x {} keys", 1u32 << bits);
        if let Some((rot, first)) = failures.first() {
            let at: Vec<u32> = failures.iter().map(|&(r, _)| r).collect();
            details += &format!("; FAIL at rotations {at:?}; rotation {rot}: {first}");
        }
        Verdict { passed: failures.is_empty(), details }
    });
    vec![report]
}

// ---------------------------------------------------------------------------------------
// Cyclic

/// SMHasher's `f3mix` (the MurmurHash3 finaliser), used to make each cyclic key unique.
fn f3mix(mut k: u32) -> u32 {
    k ^= k >> 16;
    k = k.wrapping_mul(0x85eb_ca6b);
    k ^= k >> 13;
    k = k.wrapping_mul(0xc2b2_ae35);
    k ^ (k >> 16)
}

/// Cyclic (SMHasher `CyclicKeyTest`): keys made of a random block of 16, 17, 18, 19, 20 or 24
/// bytes (hash size + 0, 1, 2, 3, 4, 8) repeated 8 times, the block's first 4 bytes being
/// `f3mix(i ^ 0x746a94f1)` so that keys are distinct. SMHasher: 1,000,000 keys per length;
/// ours 400,000 (full) or 4,000 (reduced).
pub fn cyclic(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let count = scale.pick(400_000, 4_000);
    [16, 17, 18, 19, 20, 24]
        .into_iter()
        .map(|cycle| {
            Report::run("Cyclic", &format!("8 cycles of {cycle} bytes"), || {
                let mut rng = SplitMix64::new(483_723);
                let mut block = vec![0u8; cycle];
                let mut key = vec![0u8; cycle * 8];
                let hashes = (0..count as u32)
                    .map(|i| {
                        rng.fill(&mut block);
                        block[..4].copy_from_slice(&f3mix(i ^ 0x746a_94f1).to_le_bytes());
                        for chunk in key.chunks_mut(cycle) {
                            chunk.copy_from_slice(&block);
                        }
                        f(&key, 0)
                    })
                    .collect();
                analyze(hashes, true)
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// TwoBytes

/// TwoBytes (SMHasher `TwoBytesKeygen`/`TwoBytesTest2`): every key of 2..=max bytes with one
/// or two non-zero bytes. SMHasher runs max = 4, 8, 12 for a 128-bit hash (18.6 million keys
/// at 12); full scale runs 4 and 8 (5.5 million keys). Reduced scale takes the byte values
/// from every fourth value (1, 5, ..., 253: 64 of 255) with max = 4.
pub fn two_bytes(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let (lengths, value_step): (&[usize], usize) = scale.pick((&[4, 8], 1), (&[4], 4));
    lengths
        .iter()
        .map(|&max| {
            let values: Vec<u8> = (1..=255).step_by(value_step).collect();
            let name = if value_step == 1 {
                format!("keys up to {max} bytes")
            } else {
                format!("keys up to {max} bytes, {} byte values", values.len())
            };
            Report::run("TwoBytes", &name, || {
                let mut hashes = Vec::new();
                let mut key = [0u8; 256];
                for len in 2..=max {
                    for a in 0..len {
                        for &va in &values {
                            key[a] = va;
                            hashes.push(f(&key[..len], 0));
                        }
                        key[a] = 0;
                    }
                }
                for len in 2..=max {
                    for a in 0..len - 1 {
                        for b in a + 1..len {
                            for &va in &values {
                                key[a] = va;
                                for &vb in &values {
                                    key[b] = vb;
                                    hashes.push(f(&key[..len], 0));
                                }
                                key[b] = 0;
                            }
                            key[a] = 0;
                        }
                    }
                }
                analyze(hashes, true)
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Text

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const PASSWORD: &[u8] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,!?:;-+=()<>/|\"'@#$%&*_^";

/// Text (SMHasher `TextKeyTest`, `WordsKeyTest`): `prefix + core + suffix` for every core of
/// `n` alphanumeric characters ("FooXXXXBar", "FooBarXXXX", "XXXXFooBar"), and distinct
/// random words of 6..16 characters from the alphanumeric and the password alphabets.
/// SMHasher: 4-character cores (14.8 million keys each) and 4 million words of each kind;
/// ours: 4-character cores for the first pattern and 3 for the others, 1 million words each
/// (full), or 2-character cores and 10,000 words (reduced).
pub fn text(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let (core_first, core_rest, words) = scale.pick((4, 3, 1_000_000), (2, 2, 10_000));
    let mut reports = Vec::new();
    for (prefix, core, suffix) in
        [("Foo", core_first, "Bar"), ("FooBar", core_rest, ""), ("", core_rest, "FooBar")]
    {
        let pattern = format!("{prefix}{}{suffix}", "X".repeat(core));
        reports.push(Report::run("Text", &format!("\"{pattern}\""), || {
            let count = ALNUM.len().pow(core as u32);
            let mut key: Vec<u8> = format!("{prefix}{}{suffix}", " ".repeat(core)).into_bytes();
            let hashes = (0..count)
                .map(|i| {
                    let mut t = i;
                    for j in 0..core {
                        key[prefix.len() + j] = ALNUM[t % ALNUM.len()];
                        t /= ALNUM.len();
                    }
                    f(&key, 0)
                })
                .collect();
            analyze(hashes, true)
        }));
    }
    for (alphabet, name) in [(ALNUM, "alnum"), (PASSWORD, "password")] {
        reports.push(Report::run("Text", &format!("{words} random {name} words"), || {
            let mut rng = SplitMix64::new(483_723);
            let mut list: Vec<Vec<u8>> = Vec::with_capacity(words + words / 8);
            while list.len() < words {
                while list.len() < words + words / 16 {
                    let len = 6 + rng.below(10);
                    list.push((0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect());
                }
                // SMHasher keeps words unique, so equal keys are not counted as collisions.
                list.sort_unstable();
                list.dedup();
            }
            list.truncate(words);
            analyze(hash_all(f, list.iter()), true)
        }));
    }
    reports
}

// ---------------------------------------------------------------------------------------
// Zeroes

/// Zeroes (SMHasher `ZeroKeyTest`): all-zero keys of every length 0..n. SMHasher: n =
/// 204,800 (21 GB hashed); ours 65,536 (2.1 GB, full) or 4,096 (reduced).
pub fn zeroes(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let n = scale.pick(65_536, 4_096);
    vec![Report::run("Zeroes", &format!("lengths 0..{n}"), || {
        let zeros = vec![0u8; n];
        analyze(hash_all(f, (0..n).map(|len| &zeros[..len])), true)
    })]
}

// ---------------------------------------------------------------------------------------
// Seeds

/// Seed (SMHasher `SeedTest`): "The quick brown fox jumps over the lazy dog" under seeds
/// 0..n. SMHasher: 5 million seeds; ours 2 million (full) or 20,000 (reduced).
pub fn seed(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    if !seeded {
        return vec![Report::not_applicable("Seed", "unkeyed hash: the seed is ignored")];
    }
    let n = scale.pick(2_000_000u64, 20_000);
    let text = b"The quick brown fox jumps over the lazy dog";
    vec![Report::run("Seed", &format!("one text, seeds 0..{n}"), || {
        analyze((0..n).map(|s| f(text, s)).collect(), true)
    })]
}

/// PerlinNoise (SMHasher `PerlinNoise`): key = x as 2 little-endian bytes for x < 2^b, seed =
/// y for y < 2^b (SMHasher: b = 12, 16.7 million hashes; ours b = 10 full, 7 reduced). It
/// needs the seed to separate the keys, so it does not apply to an unkeyed hash.
pub fn perlin_noise(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    if !seeded {
        return vec![Report::not_applicable("PerlinNoise", "unkeyed hash: the seed is ignored")];
    }
    let b = scale.pick(10, 7);
    vec![Report::run("PerlinNoise", &format!("{b}-bit x in key, {b}-bit y in seed"), || {
        let mut hashes = Vec::with_capacity(1 << (2 * b));
        for x in 0..1u16 << b {
            for y in 0..1u64 << b {
                hashes.push(f(&x.to_le_bytes(), y));
            }
        }
        analyze(hashes, true)
    })]
}

/// BadSeeds (SMHasher `BadSeedsTest`/`TestSecret`): for each listed seed, the keys of 1, 2, 4,
/// 8, 12, 16, 32, 64 and 128 copies of one byte c (c in 0, 32, '0', 127, 128, 255) must not
/// collide within a length, and the all-zero key must not hash to 0. Then a scan of the first
/// and the last n seeds (SMHasher `TestSecretRangeThread`, 2^32 seeds each with `--extra`;
/// ours n = 32,768 full, 256 reduced) with the 16-byte keys of bytes 0, 32, 127, 255.
pub fn bad_seeds(f: &HashFn<'_>, seeded: bool, scale: Scale) -> Vec<Report> {
    if !seeded {
        return vec![Report::not_applicable("BadSeeds", "unkeyed hash: there are no seeds")];
    }
    let n = scale.pick(32_768u64, 256);
    let listed: [u64; 12] = [
        0,
        1,
        2,
        0xffff_ffff,
        1 << 32,
        1 << 63,
        u64::MAX,
        u64::MAX - 1,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        0x9e37_79b9_7f4a_7c15,
        0x0123_4567_89ab_cdef,
    ];
    vec![Report::run("BadSeeds", &format!("12 listed + 2x{n} scanned seeds"), || {
        let mut bad = Vec::new();
        for &seed in &listed {
            for len in [1, 2, 4, 8, 12, 16, 32, 64, 128] {
                let hashes: Vec<u128> = [0u8, 32, b'0', 127, 128, 255]
                    .iter()
                    .map(|&c| f(&vec![c; len], seed))
                    .collect();
                if has_duplicate(&hashes) || hashes[0] == 0 {
                    bad.push(format!("{seed:#x} (len {len})"));
                }
            }
        }
        for seed in (0..n).chain(u64::MAX - (n - 1)..=u64::MAX) {
            let hashes: Vec<u128> =
                [0u8, 32, 127, 255].iter().map(|&c| f(&[c; 16], seed)).collect();
            if has_duplicate(&hashes) || hashes[0] == 0 {
                bad.push(format!("{seed:#x}"));
            }
        }
        Verdict {
            passed: bad.is_empty(),
            details: if bad.is_empty() {
                format!("{} seeds, none bad", listed.len() as u64 + 2 * n)
            } else {
                format!(
                    "FAIL: {} bad: {}",
                    bad.len(),
                    bad.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                )
            },
        }
    })]
}

fn has_duplicate(v: &[u128]) -> bool {
    v.iter().enumerate().any(|(i, x)| v[..i].contains(x))
}

// ---------------------------------------------------------------------------------------
// Prng

/// Prng (SMHasher `PrngTest`): start from 16 zero bytes and hash the previous 16-byte digest
/// again and again; collisions among the outputs mean a short cycle. SMHasher: 32 Mi
/// outputs; ours 2 Mi (full) or 16 Ki (reduced).
pub fn prng(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let n = scale.pick(2usize << 20, 16 << 10);
    vec![Report::run("Prng", &format!("{n} chained outputs"), || {
        let mut state = [0u8; 16];
        let hashes = (0..n)
            .map(|_| {
                let h = f(&state, 0);
                state = h.to_le_bytes();
                h
            })
            .collect();
        analyze(hashes, true)
    })]
}

// ---------------------------------------------------------------------------------------
// SMHasher3's key sets that NABHash v2 failed

/// The key sets of SMHasher3 (fwojcik/smhasher3, `SparseKeysetTest.cpp`,
/// `PermutationKeysetTest.cpp`, `TwoBytesKeysetTest.cpp`) on which the first NABHash v2 failed
/// there (excess low-32-bit collisions), at SMHasher3's sizes where they fit a test's time
/// budget: Sparse 384-bit (48-byte) keys with at most 3 bits set (9.4 million keys; SMHasher3
/// also fails v2 on 64- and 96-byte keys, 22 and 75 million); Permutation of the 4-byte blocks
/// `[0, low bit; LE]` and the 8-byte blocks `[0, high bit; LE]` (SMHasher3: up to 23 blocks,
/// 16.8 million keys; here 22, 8.4 million) and `[3 low bits; LE]` (7 blocks, as SMHasher3);
/// TwoBytes: all 20-byte keys with at most two non-zero bytes (12.4 million). Reduced scale
/// keeps each set at about a tenth of the keys.
pub fn smhasher3_failed_sets(f: &HashFn<'_>, scale: Scale) -> Vec<Report> {
    let mut reports = Vec::new();
    let (bits, k) = scale.pick((384, 3), (384, 2));
    reports.push(Report::run("Sparse", &format!("{bits}-bit keys, <={k} bits set"), || {
        let mut key = vec![0u8; bits / 8];
        let count = (0..=k).map(|i| choose(bits, i)).sum();
        let mut hashes = Vec::with_capacity(count);
        hashes.push(f(&key, 0));
        sparse_recurse(f, &mut key, 0, k, &mut hashes);
        analyze(hashes, true)
    }));
    let low4 = vec![vec![0u8; 4], vec![1, 0, 0, 0]];
    let mut high8 = vec![0u8; 8];
    high8[7] = 0x80;
    let high8 = vec![vec![0u8; 8], high8];
    let low3: Vec<Vec<u8>> = (0u32..8).map(|x| x.to_le_bytes().to_vec()).collect();
    for (name, blocks, max) in [
        ("4-bytes [0, low bit; LE]", low4, scale.pick(22, 19)),
        ("8-bytes [0, high bit; LE]", high8, scale.pick(22, 19)),
        ("4-bytes [3 low bits; LE]", low3, scale.pick(7, 6)),
    ] {
        reports.push(Report::run("Permutation", &format!("{name} (<={max} blocks)"), || {
            let count = (1..=max as u32).map(|i| blocks.len().pow(i)).sum();
            let mut hashes = Vec::with_capacity(count);
            combination_recurse(f, &blocks, max, &mut Vec::new(), &mut hashes);
            analyze(hashes, true)
        }));
    }
    let step = scale.pick(1, 3);
    reports.push(Report::run(
        "TwoBytes",
        &format!("20-byte keys, byte values step {step}"),
        || {
            let values: Vec<u8> = (1..=255).step_by(step).collect();
            let mut key = [0u8; 20];
            let mut hashes = vec![f(&key, 0)];
            for a in 0..20 {
                for &va in &values {
                    key[a] = va;
                    hashes.push(f(&key, 0));
                    for b in a + 1..20 {
                        for &vb in &values {
                            key[b] = vb;
                            hashes.push(f(&key, 0));
                        }
                        key[b] = 0;
                    }
                }
                key[a] = 0;
            }
            analyze(hashes, true)
        },
    ));
    reports
}
