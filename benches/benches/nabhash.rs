//! nabhash against the hashes a user would otherwise pick: throughput of independent calls per
//! input size; and for the `HashMap` hasher, a chained `hash_one(u64)`, `HashMap<u64, _>`
//! lookups (1000 keys in cache and 1M keys, independent and, in cache, each key from the last
//! result) and inserts, and `HashMap<String, _>` lookups for 8- to 100-byte keys (independent
//! and chained), with a "precomputed-floor" hasher for the cost of the table itself, and the
//! words of a real-text corpus (`benches/data/`) counted in a `HashMap<&str, u32>`. Inputs
//! below 16 bytes also run through `v2::Seeded` (keys derived once) against xxh3-128 with a
//! precomputed secret.
//!
//! `cargo xtask bench --crate nabhash` builds with `-C target-cpu=native` (gxhash does not
//! build without AES enabled at compile time); without it, gxhash is left out. The default
//! build (what users get) is `cargo bench -p benches --bench nabhash` with RUSTFLAGS unset.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [usize; 8] = [8, 16, 64, 256, 1024, 4096, 65536, 1 << 20];

/// A named one-shot hash of a byte slice (64-bit results widened).
type ByteHash = (&'static str, Box<dyn Fn(&[u8]) -> u128>);

fn byte_hashes() -> Vec<ByteHash> {
    let fold = foldhash::quality::FixedState::with_seed(0);
    let ahash = ahash::RandomState::with_seeds(1, 2, 3, 4);
    #[allow(unused_mut)]
    let mut v: Vec<ByteHash> = vec![
        ("nabhash-v1", Box::new(|d| u128::from_le_bytes(nabhash::hash(d)))),
        ("nabhash-v2", Box::new(|d| u128::from_le_bytes(nabhash::v2::hash(d, 0)))),
        ("xxh3-64", Box::new(|d| xxhash_rust::xxh3::xxh3_64(d) as u128)),
        ("xxh3-128", Box::new(xxhash_rust::xxh3::xxh3_128)),
        ("rapidhash-v3", Box::new(|d| rapidhash::v3::rapidhash_v3(d) as u128)),
        ("foldhash-quality", Box::new(move |d| fold.hash_one(d) as u128)),
        ("ahash", Box::new(move |d| ahash.hash_one(d) as u128)),
    ];
    #[cfg(all(target_arch = "x86_64", target_feature = "aes", target_feature = "sse2"))]
    v.push(("gxhash128", Box::new(|d| gxhash::gxhash128(d, 0))));
    v
}

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("nabhash/bytes");
    let hashes = byte_hashes();
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        group.throughput(Throughput::Bytes(size as u64));
        for (name, f) in &hashes {
            group.bench_with_input(BenchmarkId::new(*name, size), &data, |b, d| {
                b.iter(|| f(black_box(d)))
            });
        }
    }
    group.finish();
}

/// Inputs below 16 bytes under a seed whose keys are built once: `nabhash::v2::Seeded`
/// against xxh3-128 with a precomputed secret (its fastest keyed form), the plain one-shots
/// beside them. Latency-free: independent calls, as in `nabhash/bytes`.
fn keyed_short(c: &mut Criterion) {
    let mut group = c.benchmark_group("nabhash/keyed-short");
    let seeded = nabhash::v2::Seeded::new(0x5eed);
    // Any 192 bytes are a valid xxh3 secret; these come from SplitMix64 of the same seed.
    let mut state: u64 = 0x5eed;
    let secret: [u8; 192] = core::array::from_fn(|i| {
        if i % 8 == 0 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)).to_le_bytes()[i % 8]
    });
    let secret = xxhash_rust::xxh3::SecretInput::try_new(secret).expect("192 bytes");
    let hashes: Vec<ByteHash> = vec![
        ("nabhash-v2-seeded", Box::new(move |d| seeded.hash_u128(d))),
        ("nabhash-v2", Box::new(|d| u128::from_le_bytes(nabhash::v2::hash(d, 0x5eed)))),
        (
            "xxh3-128-secret",
            Box::new(move |d| xxhash_rust::xxh3::xxh3_128_with_secret_input(d, &secret)),
        ),
        ("xxh3-128", Box::new(xxhash_rust::xxh3::xxh3_128)),
    ];
    for size in benches::sizes(&[0, 1, 4, 8, 12, 15, 16]) {
        let data = benches::input(size);
        group.throughput(Throughput::Bytes(size.max(1) as u64));
        for (name, f) in &hashes {
            group.bench_with_input(BenchmarkId::new(*name, size), &data, |b, d| {
                b.iter(|| f(black_box(d)))
            });
        }
    }
    group.finish();
}

/// v1 per backend (every backend this CPU has), at the sizes of the acceptance table.
fn v1_backends(c: &mut Criterion) {
    let mut group = c.benchmark_group("nabhash/v1-backends");
    for size in [1024, 4096, 65536] {
        let data = benches::input(size);
        group.throughput(Throughput::Bytes(size as u64));
        for backend in nabhash::backends() {
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &data, |b, d| {
                b.iter(|| nabhash::hash_with(backend, black_box(d)))
            });
        }
    }
    group.finish();
}

/// `hash_one(u64)` in a dependent chain: each input is the last output (latency).
fn hash_one_u64<S: BuildHasher>(c: &mut Criterion, name: &str, state: S) {
    c.benchmark_group("nabhash/hash_one-u64-chain").bench_function(name, |b| {
        let mut x = 0u64;
        b.iter(|| {
            for _ in 0..100 {
                x = state.hash_one(black_box(x));
            }
            x
        })
    });
}

/// Lookups per iteration of the lookup benches.
const PROBES: usize = 1000;

/// `n` distinct, well-spread `u64` keys.
fn u64_keys(n: u64) -> Vec<u64> {
    (0..n).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555).collect()
}

/// A permutation of `0..n` that is one cycle (each lookup's result names the next key).
fn cycle(n: usize) -> Vec<usize> {
    // i -> i + step mod n with step coprime to n visits every index once.
    let step = (0..).map(|k| n / 2 + 1 + k).find(|s| gcd(*s, n) == 1).unwrap_or(1);
    (0..n).map(|i| (i + step) % n).collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn u64_lookups<S: BuildHasher + Clone>(c: &mut Criterion, name: &str, state: S) {
    for (label, n) in [("in-cache-1k", 1_000u64), ("1M", 1_000_000)] {
        let keys = u64_keys(n);
        let next = cycle(keys.len());
        // Each key maps to the next key of the cycle: independent lookups ignore the value,
        // the dependent chain follows it.
        let mut map = HashMap::with_capacity_and_hasher(keys.len(), state.clone());
        for (i, &k) in keys.iter().enumerate() {
            map.insert(k, keys[next[i]]);
        }
        let probe: Vec<u64> = (0..PROBES).map(|i| keys[(i * 7919) % keys.len()]).collect();
        let mut group = c.benchmark_group(format!("nabhash/hashmap-u64-lookup-{label}"));
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(name, |b| {
            b.iter(|| probe.iter().map(|k| map[black_box(k)]).fold(0u64, u64::wrapping_add))
        });
        group.finish();
        if n == 1_000 {
            let mut group = c.benchmark_group("nabhash/hashmap-u64-lookup-chain-1k");
            group.throughput(Throughput::Elements(PROBES as u64));
            group.bench_function(name, |b| {
                let mut k = keys[0];
                b.iter(|| {
                    for _ in 0..PROBES {
                        k = map[&k];
                    }
                    k
                })
            });
            group.finish();
        }
    }
    let mut group = c.benchmark_group("nabhash/hashmap-u64-insert-10k");
    group.throughput(Throughput::Elements(10_000));
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut map = HashMap::with_hasher(state.clone());
            for k in 0..10_000u64 {
                map.insert(black_box(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)), k);
            }
            map.len()
        })
    });
    group.finish();
}

/// String key lengths of the `HashMap<String, _>` benches.
const STR_LENS: [usize; 6] = [8, 16, 24, 32, 64, 100];

/// 1000 distinct strings of `len` bytes (printable, a counter in front).
fn str_keys(len: usize) -> Vec<String> {
    let fill = benches::input(len * 1000);
    (0..1000)
        .map(|i| {
            let mut s = format!("{i:04}");
            s.extend(fill[i * len..(i + 1) * len].iter().map(|b| (b'a' + b % 26) as char));
            s.truncate(len);
            s
        })
        .collect()
}

fn string_lookups<S: BuildHasher + Clone>(c: &mut Criterion, name: &str, state: S) {
    for len in STR_LENS {
        let keys = str_keys(len);
        let next = cycle(keys.len());
        let mut map = HashMap::with_capacity_and_hasher(keys.len(), state.clone());
        for (i, k) in keys.iter().enumerate() {
            map.insert(k.clone(), next[i]);
        }
        // Probes are separate allocations with equal contents, as in a real lookup.
        let probe: Vec<String> =
            (0..PROBES).map(|i| keys[(i * 7919) % keys.len()].clone()).collect();
        let mut group = c.benchmark_group("nabhash/hashmap-str-lookup");
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(BenchmarkId::new(name, len), |b| {
            b.iter(|| probe.iter().map(|k| map[black_box(k)]).fold(0usize, usize::wrapping_add))
        });
        group.finish();
        let mut group = c.benchmark_group("nabhash/hashmap-str-lookup-chain");
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(BenchmarkId::new(name, len), |b| {
            let mut i = 0usize;
            b.iter(|| {
                for _ in 0..PROBES {
                    i = map[&probe[i]];
                }
                i
            })
        });
        group.finish();
    }
}

/// The floor of a lookup: a hasher that returns a hash computed beforehand (the key itself
/// for the well-spread `u64` keys; a hash stored in the key for strings), so what remains is
/// the table's own work.
#[derive(Clone, Copy, Default)]
struct Precomputed;

#[derive(Default)]
struct PrecomputedHasher(u64);

impl std::hash::Hasher for PrecomputedHasher {
    fn write(&mut self, _: &[u8]) {
        unreachable!("the floor hasher takes only write_u64")
    }
    #[inline(always)]
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl BuildHasher for Precomputed {
    type Hasher = PrecomputedHasher;
    #[inline(always)]
    fn build_hasher(&self) -> PrecomputedHasher {
        PrecomputedHasher(0)
    }
}

/// A string key carrying its hash (computed once, outside the timed loop).
#[derive(Clone, PartialEq, Eq)]
struct PreKey(u64, String);

impl std::hash::Hash for PreKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.0);
    }
}

fn floor_string_lookups(c: &mut Criterion) {
    let fold = foldhash::quality::FixedState::with_seed(0);
    for len in STR_LENS {
        let keys: Vec<PreKey> =
            str_keys(len).into_iter().map(|s| PreKey(fold.hash_one(&s), s)).collect();
        let next = cycle(keys.len());
        let mut map = HashMap::with_capacity_and_hasher(keys.len(), Precomputed);
        for (i, k) in keys.iter().enumerate() {
            map.insert(k.clone(), next[i]);
        }
        let probe: Vec<PreKey> =
            (0..PROBES).map(|i| keys[(i * 7919) % keys.len()].clone()).collect();
        let mut group = c.benchmark_group("nabhash/hashmap-str-lookup");
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(BenchmarkId::new("precomputed-floor", len), |b| {
            b.iter(|| probe.iter().map(|k| map[black_box(k)]).fold(0usize, usize::wrapping_add))
        });
        group.finish();
        let mut group = c.benchmark_group("nabhash/hashmap-str-lookup-chain");
        group.throughput(Throughput::Elements(PROBES as u64));
        group.bench_function(BenchmarkId::new("precomputed-floor", len), |b| {
            let mut i = 0usize;
            b.iter(|| {
                for _ in 0..PROBES {
                    i = map[&probe[i]];
                }
                i
            })
        });
        group.finish();
    }
}

/// The real-text corpus: the identifiers of a vendored crate's sources, one per line
/// (`benches/data/README.md` has the command that made it and its SHA-256).
const CORPUS: &str = include_str!("../data/syn-2.0.119-identifiers.txt");

/// Every word of [`CORPUS`] counted in a `HashMap<&str, u32>` (a fresh map per pass, as a
/// word-frequency count does): short keys of real lengths and a real repeat pattern, the
/// inserts and the lookups of an `entry` each.
fn real_text_count<S: BuildHasher + Clone>(c: &mut Criterion, name: &str, state: S) {
    let words: Vec<&str> = CORPUS.lines().collect();
    let mut group = c.benchmark_group("nabhash/hashmap-real-text-count");
    group.throughput(Throughput::Elements(words.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut counts: HashMap<&str, u32, S> = HashMap::with_hasher(state.clone());
            for w in &words {
                *counts.entry(black_box(w)).or_insert(0) += 1;
            }
            counts.len()
        })
    });
    group.finish();
}

/// Names the corpus on stderr (its size, word count and NABHash v2 digest), so that a
/// record's rows can be matched with the file they counted.
fn corpus_note(_: &mut Criterion) {
    let digest: String =
        nabhash::v2::hash(CORPUS.as_bytes(), 0).iter().map(|b| format!("{b:02x}")).collect();
    eprintln!(
        "nabhash bench corpus: syn-2.0.119-identifiers.txt, {} bytes, {} words, v2 {digest}",
        CORPUS.len(),
        CORPUS.lines().count()
    );
}

/// The `HashMap` hashers compared: ours, the peers a user would pick instead (foldhash and
/// rapidhash in both variants, std's SipHash, ahash, gxhash where it builds) and the floor.
/// They run one after another in each group, so one run compares them under the same load.
fn hashers(c: &mut Criterion) {
    macro_rules! each {
        ($f:ident) => {
            $f(c, "nabhash", nabhash::FixedState::with_seed(0));
            $f(c, "foldhash-fast", foldhash::fast::FixedState::with_seed(0));
            $f(c, "foldhash-quality", foldhash::quality::FixedState::with_seed(0));
            $f(c, "rapidhash-fast", rapidhash::fast::RandomState::new());
            $f(c, "rapidhash-quality", rapidhash::quality::RandomState::new());
            $f(c, "ahash", ahash::RandomState::with_seeds(1, 2, 3, 4));
            $f(c, "std-siphash", std::collections::hash_map::RandomState::new());
            #[cfg(all(target_arch = "x86_64", target_feature = "aes", target_feature = "sse2"))]
            $f(c, "gxhash", gxhash::GxBuildHasher::default());
        };
    }
    each!(hash_one_u64);
    hash_one_u64(c, "precomputed-floor", Precomputed);
    each!(u64_lookups);
    u64_lookups(c, "precomputed-floor", Precomputed);
    each!(string_lookups);
    floor_string_lookups(c);
    corpus_note(c);
    each!(real_text_count);
}

criterion_group!(benches, throughput, keyed_short, v1_backends, hashers);
criterion_main!(benches);
