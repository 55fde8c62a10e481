//! Property tests: every operation against RustCrypto's software implementation, on random
//! keys, IVs, lengths and chunkings. `PROPTEST_CASES` sets the case count.

mod common;

use common::oracle;
use kcapi::{Aead, Error, Hash, Skcipher};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner() -> TestRunner {
    TestRunner::new(Config { failure_persistence: None, ..Config::default() })
}

fn aes_key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![vec(any::<u8>(), 16), vec(any::<u8>(), 24), vec(any::<u8>(), 32)]
}

/// Lengths, mostly small, sometimes past the 64 KiB splice threshold and the socket buffer.
fn length(max_small: usize) -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0..=max_small, 1 => 65_536usize..=300_000]
}

/// Cut points of `len` at multiples of `unit`, from random weights.
fn cuts(len: usize, unit: usize, weights: &[u16]) -> Vec<usize> {
    let mut points: Vec<usize> =
        weights.iter().map(|&w| (len * usize::from(w) / 65_536) / unit * unit).collect();
    points.push(0);
    points.push(len / unit * unit);
    points.sort();
    points.dedup();
    points
}

#[test]
fn cbc_aes_matches_rustcrypto() {
    require_kernel!();
    let strat =
        (aes_key(), vec(any::<u8>(), 16), length(4096), vec(any::<u16>(), 0..6), any::<u8>());
    runner()
        .run(&strat, |(key, iv, len, weights, fill)| {
            let len = len / 16 * 16;
            let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(fill | 1) ^ fill).collect();
            let want = oracle::cbc_encrypt(&key, &iv, &pt);
            let mut c = Skcipher::new("cbc(aes)", &key).unwrap();
            let mut ct = vec![0; len];
            c.encrypt(&iv, &pt, &mut ct).unwrap();
            prop_assert!(ct == want, "one-shot encrypt, key {} len {len}", key.len());
            let mut back = vec![0; len];
            c.decrypt(&iv, &ct, &mut back).unwrap();
            prop_assert!(back == pt);
            // Streaming over random block-aligned chunks.
            let points = cuts(len, 16, &weights);
            let mut out = vec![0; len];
            let mut s = c.encryptor(&iv).unwrap();
            for w in points.windows(2) {
                s.update(&pt[w[0]..w[1]], &mut out[w[0]..w[1]]).unwrap();
            }
            s.finish(&[], &mut []).unwrap();
            prop_assert!(out == want, "streamed at {points:?}");
            let mut s = c.decryptor(&iv).unwrap();
            for w in points.windows(2) {
                s.update_in_place(&mut out[w[0]..w[1]]).unwrap();
            }
            s.finish(&[], &mut []).unwrap();
            prop_assert!(out == pt);
            Ok(())
        })
        .unwrap();
}

#[test]
fn ctr_aes_matches_rustcrypto() {
    require_kernel!();
    let strat =
        (aes_key(), vec(any::<u8>(), 16), length(5000), vec(any::<u16>(), 0..6), any::<u8>());
    runner()
        .run(&strat, |(key, iv, len, weights, fill)| {
            let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_add(fill)).collect();
            let want = oracle::ctr(&key, &iv, &pt);
            let mut c = Skcipher::new("ctr(aes)", &key).unwrap();
            let mut ct = vec![0; len];
            c.encrypt(&iv, &pt, &mut ct).unwrap();
            prop_assert!(ct == want, "one-shot, key {} len {len}", key.len());
            // Streaming: block-aligned chunks, then an unaligned tail.
            let points = cuts(len, 16, &weights);
            let mut out = vec![0; len];
            let mut s = c.encryptor(&iv).unwrap();
            for w in points.windows(2) {
                s.update(&pt[w[0]..w[1]], &mut out[w[0]..w[1]]).unwrap();
            }
            let last = *points.last().unwrap();
            s.finish(&pt[last..], &mut out[last..]).unwrap();
            prop_assert!(out == want, "streamed at {points:?} + tail");
            c.decrypt_in_place(&iv, &mut out).unwrap();
            prop_assert!(out == pt);
            Ok(())
        })
        .unwrap();
}

#[test]
fn gcm_aes_matches_rustcrypto() {
    require_kernel!();
    let key = prop_oneof![vec(any::<u8>(), 16), vec(any::<u8>(), 32)];
    let strat = (
        key,
        vec(any::<u8>(), 12),
        vec(any::<u8>(), 0..300),
        vec(any::<u8>(), 0..5000),
        any::<usize>(),
    );
    runner()
        .run(&strat, |(key, nonce, aad, pt, flip)| {
            let want = oracle::gcm_seal(&key, &nonce, &aad, &pt);
            let mut a = Aead::new("gcm(aes)", &key, 16).unwrap();
            let sealed = a.seal(&nonce, &aad, &pt).unwrap();
            prop_assert_eq!(&sealed, &want);
            prop_assert_eq!(a.open(&nonce, &aad, &sealed).unwrap(), pt);
            let mut bad = sealed.clone();
            bad[flip % sealed.len()] ^= 0x80;
            prop_assert!(matches!(a.open(&nonce, &aad, &bad), Err(Error::AuthenticationFailed)));
            Ok(())
        })
        .unwrap();
}

#[test]
fn chacha20poly1305_matches_rustcrypto() {
    require_kernel!();
    let strat = (
        vec(any::<u8>(), 32),
        vec(any::<u8>(), 12),
        vec(any::<u8>(), 0..300),
        vec(any::<u8>(), 0..5000),
    );
    runner()
        .run(&strat, |(key, nonce, aad, pt)| {
            let want = oracle::chacha_seal(&key, &nonce, &aad, &pt);
            let mut a = Aead::new("rfc7539(chacha20,poly1305)", &key, 16).unwrap();
            let mut buf = pt.clone();
            a.seal_in_place(&nonce, &aad, &mut buf).unwrap();
            prop_assert_eq!(&buf, &want);
            a.open_in_place(&nonce, &aad, &mut buf).unwrap();
            prop_assert_eq!(buf, pt);
            Ok(())
        })
        .unwrap();
}

#[test]
fn sha_family_matches_rustcrypto_over_random_splits() {
    require_kernel!();
    let alg = prop_oneof![Just("sha1"), Just("sha256"), Just("sha384"), Just("sha512")];
    let strat = (alg, length(5000), vec(any::<u16>(), 0..8), any::<u8>());
    runner()
        .run(&strat, |(alg, len, weights, fill)| {
            let data: Vec<u8> = (0..len).map(|i| (i as u8) ^ fill).collect();
            let mut h = Hash::new(alg).unwrap();
            let points = cuts(len, 1, &weights);
            for w in points.windows(2) {
                h.update(&data[w[0]..w[1]]).unwrap();
            }
            prop_assert_eq!(
                h.finalize().unwrap(),
                oracle::hash(alg, &data),
                "{} split at {:?}",
                alg,
                points
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn hmac_sha256_matches_rustcrypto() {
    require_kernel!();
    // Keys up to 200 bytes: shorter and longer than the 64-byte block (hashed first).
    let strat = (vec(any::<u8>(), 0..200), vec(any::<u8>(), 0..5000));
    runner()
        .run(&strat, |(key, data)| {
            let mut h = Hash::with_key("hmac(sha256)", &key).unwrap();
            prop_assert_eq!(h.digest(&data).unwrap(), oracle::hmac_sha256(&key, &data));
            // A second message on the same handle and key.
            prop_assert_eq!(h.digest(&key).unwrap(), oracle::hmac_sha256(&key, &key));
            Ok(())
        })
        .unwrap();
}
