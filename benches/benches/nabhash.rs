//! NABHash v1 throughput per backend and input size. (Peers — gxhash, ahash, foldhash,
//! rapidhash, xxh3 — and v2 arrive with the nabhash issue.)

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 7] = [8, 64, 256, 1024, 4096, 65536, 1 << 20];

fn v1(c: &mut Criterion) {
    let mut group = c.benchmark_group("nabhash-v1");
    for &size in &SIZES {
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

criterion_group!(benches, v1);
criterion_main!(benches);
