//! kcapi: per-operation cost at 16 B and throughput at 64 KiB and 1 MiB for `sha256`,
//! `cbc(aes)` and `gcm(aes)`, and the zero-copy paths against plain `sendmsg` copies at the
//! same sizes: skcipher input by vmsplice+splice; hash input in one `send` of any length,
//! whose pages algif_hash pins rather than copies (as zero-copy as splice, fewer syscalls).
//!
//! The kernel must have AF_ALG (the workspace's CI hosts do not: there the bench prints why it
//! skips and does nothing): `cargo xtask vm-test --bench` runs it in the VM. Built with
//! `--cfg kcapi_bench_libkcapi` (what the VM run does, with Debian's `libkcapi-dev` linked
//! statically), the same operations through libkcapi's handle API are the peer.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [usize; 3] = [16, 65_536, 1 << 20];

/// libkcapi 1.4 (`kcapi.h`): handles created once per bench, like ours.
#[cfg(kcapi_bench_libkcapi)]
#[path = "../../crates/kcapi/examples/common/libkcapi.rs"]
mod libkcapi;

fn sha256(c: &mut Criterion) {
    let mut group = c.benchmark_group("kcapi/sha256");
    let mut h = kcapi::Hash::new("sha256").expect("sha256");
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        group.throughput(Throughput::Bytes(size as u64));
        // Into a caller's buffer, as libkcapi's `kcapi_md_digest` writes.
        let mut digest = [0u8; 32];
        group.bench_with_input(BenchmarkId::new("kcapi", size), &data, |b, d| {
            b.iter(|| {
                h.update(black_box(d)).unwrap();
                h.finalize_into(&mut digest).unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("kcapi-sendmsg", size), &data, |b, d| {
            b.iter(|| {
                h.update_copy(black_box(d)).unwrap();
                h.finalize_into(&mut digest).unwrap()
            })
        });
        #[cfg(kcapi_bench_libkcapi)]
        {
            let mut l = libkcapi::Handle::md(c"sha256");
            let mut out = [0u8; 32];
            // The peer must compute the same thing, or its speed means nothing.
            l.digest(&data, &mut out);
            assert_eq!(out[..], h.digest(&data).unwrap()[..], "libkcapi's sha256 differs");
            group.bench_with_input(BenchmarkId::new("libkcapi", size), &data, |b, d| {
                b.iter(|| l.digest(black_box(d), &mut out))
            });
        }
    }
    group.finish();
}

/// AES-128-CBC of whole blocks by RustCrypto: the outputs the timed rows must produce.
fn cbc_reference(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    use cbc::cipher::{BlockEncryptMut, KeyIvInit, block_padding::NoPadding};
    cbc::Encryptor::<aes::Aes128>::new(key.into(), iv.into())
        .encrypt_padded_vec_mut::<NoPadding>(data)
}

fn cbc_aes(c: &mut Criterion) {
    let mut group = c.benchmark_group("kcapi/cbc-aes128");
    let mut cipher = kcapi::Skcipher::new("cbc(aes)", &[7; 16]).expect("cbc(aes)");
    let iv = [9u8; 16];
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        let mut out = vec![0u8; size];
        // Every row is checked against RustCrypto's CBC before it is timed.
        let reference = cbc_reference(&[7; 16], &iv, &data);
        cipher.encrypt(&iv, &data, &mut out).unwrap();
        assert!(out == reference, "kcapi's cbc(aes) differs from RustCrypto at {size} bytes");
        cipher.encrypt_copy(&iv, &data, &mut out).unwrap();
        assert!(out == reference, "kcapi's cbc(aes) (sendmsg) differs at {size} bytes");
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("kcapi", size), &data, |b, d| {
            b.iter(|| cipher.encrypt(&iv, black_box(d), &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("kcapi-sendmsg", size), &data, |b, d| {
            b.iter(|| cipher.encrypt_copy(&iv, black_box(d), &mut out).unwrap())
        });
        #[cfg(kcapi_bench_libkcapi)]
        {
            let mut l = libkcapi::Handle::cipher(c"cbc(aes)", &[7; 16]);
            for (access, name) in [
                (libkcapi::ACCESS_HEURISTIC, "libkcapi"),
                (libkcapi::ACCESS_SENDMSG, "libkcapi-sendmsg"),
            ] {
                l.encrypt(&data, &iv, &mut out, access);
                if let Some(at) = out.iter().zip(&reference).position(|(a, b)| a != b) {
                    // Reported, not fatal: the row is still timed, and the report says why its
                    // output is not CBC.
                    println!(
                        "kcapi/cbc-aes128/{name}/{size}: output differs from CBC from byte {at}"
                    );
                }
            }
            group.bench_with_input(BenchmarkId::new("libkcapi", size), &data, |b, d| {
                b.iter(|| l.encrypt(black_box(d), &iv, &mut out, libkcapi::ACCESS_HEURISTIC))
            });
            group.bench_with_input(BenchmarkId::new("libkcapi-sendmsg", size), &data, |b, d| {
                b.iter(|| l.encrypt(black_box(d), &iv, &mut out, libkcapi::ACCESS_SENDMSG))
            });
        }
    }
    group.finish();
}

fn gcm_aes(c: &mut Criterion) {
    let mut group = c.benchmark_group("kcapi/gcm-aes128");
    let mut aead = kcapi::Aead::new("gcm(aes)", &[7; 16], 16).expect("gcm(aes)");
    let nonce = [9u8; 12];
    // An AEAD message must fit the socket buffer whole: 1 MiB does not by default.
    let max = aead.max_message_len() - 16;
    for size in benches::sizes(&SIZES).into_iter().map(|s| s.min(max)) {
        let data = benches::input(size);
        let mut out = vec![0u8; size + 16];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("kcapi", size), &data, |b, d| {
            b.iter(|| aead.seal_into(&nonce, b"", black_box(d), &mut out).unwrap())
        });
        #[cfg(kcapi_bench_libkcapi)]
        {
            let mut l = libkcapi::Handle::aead(c"gcm(aes)", &[7; 16], 16);
            let mut ours = vec![0u8; size + 16];
            aead.seal_into(&nonce, b"", &data, &mut ours).unwrap();
            l.seal(&data, &nonce, &mut out);
            if let Some(at) = out.iter().zip(&ours).position(|(a, b)| a != b) {
                println!(
                    "kcapi/gcm-aes128/libkcapi/{size}: output differs from ours from byte {at}"
                );
            }
            group.bench_with_input(BenchmarkId::new("libkcapi", size), &data, |b, d| {
                b.iter(|| l.seal(black_box(d), &nonce, &mut out))
            });
        }
    }
    group.finish();
}

/// `ecb(cipher_null)`: the kernel's null cipher, which copies its input, so the time is the
/// data movement alone (sendmsg's copy into the socket against vmsplice+splice). Under the
/// VM's TCG emulation the real ciphers run at 10–40 MB/s and hide it.
fn null_cipher(c: &mut Criterion) {
    let mut cipher = match kcapi::Skcipher::new("ecb(cipher_null)", &[]) {
        Ok(x) => x,
        Err(e) => {
            println!("kcapi/ecb-cipher_null skipped: {e}");
            return;
        }
    };
    let mut group = c.benchmark_group("kcapi/ecb-cipher_null");
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        let mut out = vec![0u8; size];
        cipher.encrypt(&[], &data, &mut out).unwrap();
        assert_eq!(out, data, "the null cipher changed its input");
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("kcapi", size), &data, |b, d| {
            b.iter(|| cipher.encrypt(&[], black_box(d), &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("kcapi-sendmsg", size), &data, |b, d| {
            b.iter(|| cipher.encrypt_copy(&[], black_box(d), &mut out).unwrap())
        });
        #[cfg(kcapi_bench_libkcapi)]
        {
            let mut l = libkcapi::Handle::cipher(c"ecb(cipher_null)", &[]);
            for (access, name) in [
                (libkcapi::ACCESS_HEURISTIC, "libkcapi"),
                (libkcapi::ACCESS_SENDMSG, "libkcapi-sendmsg"),
            ] {
                l.encrypt(&data, &[], &mut out, access);
                if let Some(at) = out.iter().zip(&data).position(|(a, b)| a != b) {
                    println!(
                        "kcapi/ecb-cipher_null/{name}/{size}: output differs from the input from byte {at}"
                    );
                }
            }
            group.bench_with_input(BenchmarkId::new("libkcapi", size), &data, |b, d| {
                b.iter(|| l.encrypt(black_box(d), &[], &mut out, libkcapi::ACCESS_HEURISTIC))
            });
            group.bench_with_input(BenchmarkId::new("libkcapi-sendmsg", size), &data, |b, d| {
                b.iter(|| l.encrypt(black_box(d), &[], &mut out, libkcapi::ACCESS_SENDMSG))
            });
        }
    }
    group.finish();
}

fn all(c: &mut Criterion) {
    if let Err(e) = kcapi::available() {
        // On stdout, where `cargo xtask bench` reads it into the report.
        println!("kcapi benches skipped: {e}");
        return;
    }
    sha256(c);
    cbc_aes(c);
    gcm_aes(c);
    null_cipher(c);
}

criterion_group!(kcapi_benches, all);
criterion_main!(kcapi_benches);
