//! b64 against the base64 codecs a user would otherwise pick, and a `copy_from_slice` of the
//! same size (the speed of light of the same harness), at 16 B … 1 MiB.
//!
//! Sizes are of the *input*: `encode` reads `size` bytes of data, `decode` reads `size`
//! bytes of base64 text (the encoding of `size / 4 * 3` bytes). Throughput is input bytes per
//! second, so each codec's ratio to `memcpy` at the same size is read off directly. Every
//! codec writes into a preallocated slice.
//!
//! Peers: `base64` 0.22 (`GeneralPurpose`), `base64` 0.23 (`Simd` engine, AVX2/NEON picked at
//! run time), `base64-simd` 0.8.

use std::hint::black_box;

use base64::Engine as _;
use base64_023::Engine as _;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [usize; 8] = [16, 64, 256, 1024, 4096, 16384, 65536, 1 << 20];

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("b64/encode");
    let simd023 =
        base64_023::engine::Simd::standard(base64_023::engine::GeneralPurposeConfig::new());
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        let mut out = vec![0u8; size / 3 * 4 + 4];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("b64", size), &data, |b, d| {
            b.iter(|| b64::STANDARD.encode_to_slice(black_box(d), &mut out).unwrap())
        });
        // Every backend separately, except in `--quick` runs (the dispatched one is `b64`).
        for backend in b64::backends().filter(|_| !benches::quick()) {
            let e = b64::STANDARD.with_backend(backend);
            let name = format!("b64-{}", backend.name());
            group.bench_with_input(BenchmarkId::new(name, size), &data, |b, d| {
                b.iter(|| e.encode_to_slice(black_box(d), &mut out).unwrap())
            });
        }
        group.bench_with_input(BenchmarkId::new("base64-0.22", size), &data, |b, d| {
            b.iter(|| {
                base64::engine::general_purpose::STANDARD
                    .encode_slice(black_box(d), &mut out)
                    .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("base64-0.23-simd", size), &data, |b, d| {
            b.iter(|| simd023.encode_slice(black_box(d), &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("base64-simd", size), &data, |b, d| {
            b.iter(|| {
                base64_simd::STANDARD
                    .encode(black_box(d), base64_simd::Out::from_slice(&mut out))
                    .len()
            })
        });
        let mut copy = vec![0u8; size];
        group.bench_with_input(BenchmarkId::new("memcpy", size), &data, |b, d| {
            b.iter(|| copy.copy_from_slice(black_box(d)))
        });
    }
    group.finish();
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("b64/decode");
    let simd023 =
        base64_023::engine::Simd::standard(base64_023::engine::GeneralPurposeConfig::new());
    for size in benches::sizes(&SIZES) {
        let mut text = vec![0u8; size];
        let n = b64::STANDARD.encode_to_slice(benches::input(size / 4 * 3), &mut text).unwrap();
        assert_eq!(n, size);
        let mut out = vec![0u8; size / 4 * 3 + 64];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("b64", size), &text, |b, t| {
            b.iter(|| b64::STANDARD.decode_to_slice(black_box(t), &mut out).unwrap())
        });
        // Every backend separately, except in `--quick` runs (the dispatched one is `b64`).
        for backend in b64::backends().filter(|_| !benches::quick()) {
            let e = b64::STANDARD.with_backend(backend);
            let name = format!("b64-{}", backend.name());
            group.bench_with_input(BenchmarkId::new(name, size), &text, |b, t| {
                b.iter(|| e.decode_to_slice(black_box(t), &mut out).unwrap())
            });
        }
        group.bench_with_input(BenchmarkId::new("base64-0.22", size), &text, |b, t| {
            b.iter(|| {
                base64::engine::general_purpose::STANDARD
                    .decode_slice(black_box(t), &mut out)
                    .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("base64-0.23-simd", size), &text, |b, t| {
            b.iter(|| simd023.decode_slice(black_box(t), &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("base64-simd", size), &text, |b, t| {
            b.iter(|| {
                base64_simd::STANDARD
                    .decode(black_box(t), base64_simd::Out::from_slice(&mut out))
                    .unwrap()
                    .len()
            })
        });
        let mut copy = vec![0u8; size];
        group.bench_with_input(BenchmarkId::new("memcpy", size), &text, |b, t| {
            b.iter(|| copy.copy_from_slice(black_box(t)))
        });
    }
    group.finish();
}

criterion_group!(b64_benches, encode, decode);
criterion_main!(b64_benches);
