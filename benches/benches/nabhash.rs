//! nabhash against the hashes a user would otherwise pick: throughput of independent calls per
//! input size, 8-byte `hash_one`, and `HashMap<u64, _>` lookups in cache and at 1M keys.
//!
//! `cargo xtask bench --crate nabhash` builds with `-C target-cpu=native` (gxhash does not
//! build without AES enabled at compile time); without it, gxhash is left out.

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

fn hash_one_u64<S: BuildHasher>(c: &mut Criterion, name: &str, state: S) {
    c.benchmark_group("nabhash/hash_one-u64").bench_function(name, |b| {
        let mut x = 0u64;
        b.iter(|| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            state.hash_one(black_box(x))
        })
    });
}

fn lookups<S: BuildHasher + Clone>(c: &mut Criterion, name: &str, state: S) {
    for (label, n) in [("in-cache-1k", 1_000u64), ("1M", 1_000_000)] {
        let keys: Vec<u64> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let mut map = HashMap::with_capacity_and_hasher(keys.len(), state.clone());
        for &k in &keys {
            map.insert(k, k);
        }
        // 1000 lookups per iteration, spread over the whole map.
        let probe: Vec<u64> = (0..1000).map(|i| keys[(i * 7919) % keys.len()]).collect();
        let mut group = c.benchmark_group(format!("nabhash/hashmap-u64-lookup-{label}"));
        group.throughput(Throughput::Elements(probe.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| probe.iter().map(|k| map[black_box(k)]).fold(0u64, u64::wrapping_add))
        });
        group.finish();
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

fn hashers(c: &mut Criterion) {
    macro_rules! each {
        ($f:ident) => {
            $f(c, "nabhash", nabhash::FixedState::with_seed(0));
            $f(c, "foldhash-fast", foldhash::fast::FixedState::with_seed(0));
            $f(c, "foldhash-quality", foldhash::quality::FixedState::with_seed(0));
            $f(c, "ahash", ahash::RandomState::with_seeds(1, 2, 3, 4));
            $f(c, "rapidhash-fast", rapidhash::fast::RandomState::new());
            $f(c, "std-siphash", std::collections::hash_map::RandomState::new());
            #[cfg(all(target_arch = "x86_64", target_feature = "aes", target_feature = "sse2"))]
            $f(c, "gxhash", gxhash::GxBuildHasher::default());
        };
    }
    each!(hash_one_u64);
    each!(lookups);
}

criterion_group!(benches, throughput, v1_backends, hashers);
criterion_main!(benches);
