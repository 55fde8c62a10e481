//! The kernel's sharp edges (spec: "Errors and the kernel's sharp edges"), one test each,
//! plus the API's own contracts (in place, streaming, clones across threads, discovery).

mod common;

use common::{oracle, pattern};
use kcapi::{Aead, Error, Hash, Rng, Skcipher};

/// Whether to shrink the largest inputs (qemu-user runs; on the host and in the VM the
/// full sizes run).
fn emulated() -> bool {
    std::env::var_os("XTASK_EMULATED").is_some()
}

#[test]
fn unknown_algorithm_is_not_found() {
    require_kernel!();
    for r in [
        Hash::new("no-such-hash").map(drop),
        Skcipher::new("cbc(no-such-cipher)", &[0; 16]).map(drop),
        Aead::new("gcm(no-such-cipher)", &[0; 16], 16).map(drop),
        Rng::new("no-such-rng").map(drop),
    ] {
        match r {
            Err(Error::NotFound { name }) => assert!(name.contains("no-such")),
            other => panic!("expected NotFound, got {other:?}"),
        }
    }
    // Longer than sockaddr_alg's 64-byte name field: NotFound before any bind.
    assert!(matches!(Hash::new(&"x".repeat(100)), Err(Error::NotFound { .. })));
    // The wrong type for a known name.
    assert!(matches!(Skcipher::new("sha256", &[0; 16]), Err(Error::NotFound { .. })));
}

#[test]
fn unsupported_error_names_the_kernel_options() {
    // Runs everywhere: the message a user without AF_ALG sees.
    let msg = Error::Unsupported.to_string();
    assert!(msg.contains("CONFIG_CRYPTO_USER_API"), "{msg}");
    assert!(Error::NotFound { name: "foo".into() }.to_string().contains("`foo`"));
    if let Err(e) = kcapi::available() {
        assert!(matches!(e, Error::Unsupported), "on a kernel without AF_ALG: {e:?}");
    }
}

#[test]
fn keyed_hash_without_key_is_invalid_key() {
    require_kernel!();
    // accept() without a key succeeds and the kernel answers ENOKEY later: the constructor
    // surfaces it at once.
    assert!(matches!(Hash::new("hmac(sha256)"), Err(Error::InvalidKey)));
    let mut h = Hash::with_key("hmac(sha256)", b"key").unwrap();
    assert_eq!(h.digest(b"data").unwrap(), oracle::hmac_sha256(b"key", b"data"));
}

#[test]
fn bad_keys_ivs_and_lengths_fail_before_the_kernel_hangs() {
    require_kernel!();
    assert!(matches!(Skcipher::new("cbc(aes)", &[0; 15]), Err(Error::InvalidKey)));
    assert!(matches!(Aead::new("gcm(aes)", &[0; 17], 16), Err(Error::InvalidKey)));
    assert!(matches!(Aead::new("gcm(aes)", &[0; 16], 17), Err(Error::InvalidLength)));
    let mut c = Skcipher::new("cbc(aes)", &[0; 16]).unwrap();
    assert_eq!(c.iv_size(), Some(16));
    let mut out = [0u8; 32];
    assert!(matches!(c.encrypt(&[0; 15], &[0; 32], &mut out), Err(Error::InvalidIv)));
    assert!(matches!(c.encrypt(&[0; 16], &[0; 31], &mut out[..31]), Err(Error::InvalidLength)));
    assert!(matches!(c.encrypt(&[0; 16], &[0; 32], &mut out[..16]), Err(Error::InvalidLength)));
    // Still usable after the refusals.
    c.encrypt(&[0; 16], &[0; 32], &mut out).unwrap();
    assert_eq!(out.to_vec(), oracle::cbc_encrypt(&[0; 16], &[0; 16], &[0; 32]));

    let mut a = Aead::new("gcm(aes)", &[0; 16], 16).unwrap();
    assert_eq!(a.nonce_size(), Some(12));
    assert!(matches!(a.seal(&[0; 11], b"", b"x"), Err(Error::InvalidIv)));
    assert!(matches!(a.open(&[0; 12], b"", &[0; 15]), Err(Error::InvalidLength)));
    let big = vec![0u8; a.max_message_len() + 1];
    assert!(matches!(a.seal(&[0; 12], b"", &big), Err(Error::InvalidLength)));
    let mut h = Hash::new("sha256").unwrap();
    assert!(matches!(h.finalize_into(&mut [0; 31]), Err(Error::InvalidLength)));
}

#[test]
fn aead_bad_tag_is_authentication_failed_and_the_socket_stays_usable() {
    require_kernel!();
    let key = pattern(16, 1);
    let nonce = pattern(12, 2);
    let mut a = Aead::new("gcm(aes)", &key, 16).unwrap();
    let sealed = a.seal(&nonce, b"aad", b"attack at dawn").unwrap();
    for flip in [0, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[flip] ^= 1;
        assert!(matches!(a.open(&nonce, b"aad", &bad), Err(Error::AuthenticationFailed)));
    }
    assert!(matches!(a.open(&nonce, b"AAD", &sealed), Err(Error::AuthenticationFailed)));
    // The same socket goes on working.
    assert_eq!(a.open(&nonce, b"aad", &sealed).unwrap(), b"attack at dawn");
    assert_eq!(a.seal(&nonce, b"aad", b"attack at dawn").unwrap(), sealed);
}

#[test]
fn aead_empty_message_and_aad() {
    require_kernel!();
    let mut a = Aead::new("gcm(aes)", &[0; 16], 16).unwrap();
    let tag = a.seal(&[0; 12], b"", b"").unwrap();
    assert_eq!(tag, oracle::gcm_seal(&[0; 16], &[0; 12], b"", b""));
    assert!(a.open(&[0; 12], b"", &tag).unwrap().is_empty());
    let mut bad = tag.clone();
    bad[3] ^= 4;
    assert!(matches!(a.open(&[0; 12], b"", &bad), Err(Error::AuthenticationFailed)));
    assert!(a.open(&[0; 12], b"", &tag).unwrap().is_empty());
    let only_aad = a.seal(&[0; 12], b"just aad", b"").unwrap();
    assert_eq!(only_aad, oracle::gcm_seal(&[0; 16], &[0; 12], b"just aad", b""));
    assert!(a.open(&[0; 12], b"just aad", &only_aad).unwrap().is_empty());
    assert!(matches!(a.open(&[0; 12], b"just aaD", &only_aad), Err(Error::AuthenticationFailed)));
}

#[test]
fn aead_in_place_and_large_messages() {
    require_kernel!();
    let key = pattern(32, 3);
    let nonce = pattern(12, 4);
    let mut a = Aead::new("gcm(aes)", &key, 16).unwrap();
    let max = a.max_message_len();
    assert!(max >= 64 * 1024, "send buffer allows only {max} bytes");
    for len in [1, 4095, 4096, 65_536, max - 16 - 100] {
        let aad = pattern(100.min(len), 5);
        let pt = pattern(len, 6);
        let mut buf = pt.clone();
        a.seal_in_place(&nonce, &aad, &mut buf).unwrap();
        assert_eq!(buf, oracle::gcm_seal(&key, &nonce, &aad, &pt), "len {len}");
        a.open_in_place(&nonce, &aad, &mut buf).unwrap();
        assert_eq!(buf, pt, "len {len}");
    }
}

#[test]
fn skcipher_sizes_from_1_byte_to_16_mib() {
    require_kernel!();
    // Beyond the socket's send buffer (about 208 KiB) a single send would block forever.
    let key = pattern(16, 7);
    let iv = pattern(16, 8);
    let mut ctr = Skcipher::new("ctr(aes)", &key).unwrap();
    let mut cbc = Skcipher::new("cbc(aes)", &key).unwrap();
    let top = if emulated() { 1 << 20 } else { 16 << 20 };
    let mut sizes =
        vec![1, 15, 16, 17, 4096, 65_535, 65_536, 65_537, 212_992, 300_000, 1 << 20, top];
    sizes.dedup();
    for len in sizes {
        let pt = pattern(len, 9);
        let mut ct = vec![0; len];
        ctr.encrypt(&iv, &pt, &mut ct).unwrap();
        assert!(ct == oracle::ctr(&key, &iv, &pt), "ctr len {len}");
        let mut back = vec![0; len];
        ctr.decrypt(&iv, &ct, &mut back).unwrap();
        assert!(back == pt, "ctr round trip len {len}");
        let blocks = len - len % 16;
        let mut ct = vec![0; blocks];
        cbc.encrypt(&iv, &pt[..blocks], &mut ct).unwrap();
        assert!(ct == oracle::cbc_encrypt(&key, &iv, &pt[..blocks]), "cbc len {blocks}");
        cbc.decrypt_in_place(&iv, &mut ct).unwrap();
        assert!(ct == pt[..blocks], "cbc in place len {blocks}");
    }
}

#[test]
fn xts_takes_lengths_that_are_not_block_multiples() {
    require_kernel!();
    let key = pattern(32, 24);
    let iv = pattern(16, 25);
    let mut x = Skcipher::new("xts(aes)", &key).unwrap();
    assert_eq!(x.block_size(), 16);
    for len in [16, 17, 31, 4096 + 5, 200_003] {
        let pt = pattern(len, 26);
        let mut ct = vec![0; len];
        x.encrypt(&iv, &pt, &mut ct).unwrap();
        assert_ne!(ct, pt);
        let mut back = vec![0; len];
        x.decrypt(&iv, &ct, &mut back).unwrap();
        assert!(back == pt, "xts round trip len {len}");
    }
    // Less than a block: the kernel's EINVAL, as InvalidLength; the socket stays usable.
    assert!(matches!(x.encrypt(&iv, &[0; 15], &mut [0; 15]), Err(Error::InvalidLength)));
    let mut out = [0u8; 16];
    x.encrypt(&iv, &[1; 16], &mut out).unwrap();
}

#[test]
fn skcipher_copy_and_splice_paths_agree() {
    require_kernel!();
    let key = pattern(32, 10);
    let iv = pattern(16, 11);
    let mut c = Skcipher::new("cbc(aes)", &key).unwrap();
    let pt = pattern(1 << 20, 12);
    let (mut a, mut b) = (vec![0; pt.len()], vec![0; pt.len()]);
    c.encrypt(&iv, &pt, &mut a).unwrap();
    c.encrypt_copy(&iv, &pt, &mut b).unwrap();
    assert!(a == b);
    let mut inplace = pt.clone();
    c.encrypt_in_place(&iv, &mut inplace).unwrap();
    assert!(a == inplace);
    // Unaligned buffers through vmsplice.
    let mut out = vec![0; pt.len() - 32];
    c.encrypt(&iv, &pt[16..pt.len() - 16], &mut out).unwrap();
    assert!(out == oracle::cbc_encrypt(&key, &iv, &pt[16..pt.len() - 16]));
}

#[test]
fn skcipher_streaming_keeps_the_chained_iv() {
    require_kernel!();
    let key = pattern(16, 13);
    let iv = pattern(16, 14);
    let pt = pattern(6 * 65_536 + 48, 15);
    let want_cbc = oracle::cbc_encrypt(&key, &iv, &pt);
    let mut c = Skcipher::new("cbc(aes)", &key).unwrap();
    assert_eq!(c.chunk_size(), 16);
    let mut out = vec![0; pt.len()];
    let mut s = c.encryptor(&iv).unwrap();
    let cuts = [16, 4096, 65_536, 100_000, 3 * 65_536]; // 100_000 = 6250 blocks.
    let mut at = 0;
    for &n in &cuts {
        s.update(&pt[at..at + n], &mut out[at..at + n]).unwrap();
        at += n;
    }
    assert!(matches!(s.update(&pt[..15], &mut [0; 15]), Err(Error::InvalidLength)));
    s.finish(&pt[at..], &mut out[at..]).unwrap();
    assert!(out == want_cbc);

    // Decrypt in place, stream of equal chunks; then CTR with an odd tail.
    let mut d = c.decryptor(&iv).unwrap();
    let mut buf = want_cbc.clone();
    let (head, tail) = buf.split_at_mut(4 * 65_536);
    for chunk in head.chunks_mut(65_536) {
        d.update_in_place(chunk).unwrap();
    }
    let tail_in = tail.to_vec();
    d.finish(&tail_in, tail).unwrap();
    assert!(buf == pt);

    let mut ctr = Skcipher::new("ctr(aes)", &key).unwrap();
    let msg = pattern(1000, 16);
    let mut out = vec![0; 1000];
    let mut s = ctr.encryptor(&iv).unwrap();
    s.update(&msg[..512], &mut out[..512]).unwrap();
    s.finish(&msg[512..], &mut out[512..]).unwrap();
    assert_eq!(out, oracle::ctr(&key, &iv, &msg));
    // The socket starts clean afterwards.
    let mut again = vec![0; 1000];
    ctr.encrypt(&iv, &msg, &mut again).unwrap();
    assert_eq!(again, out);
}

#[test]
fn hash_sizes_and_paths() {
    require_kernel!();
    let mut h = Hash::new("sha256").unwrap();
    assert_eq!(h.output_size(), 32);
    let top = if emulated() { 1 << 20 } else { 16 << 20 };
    for len in [0, 1, 55, 56, 64, 65_535, 65_536, 212_993, 1 << 20, top] {
        let data = pattern(len, 17);
        let want = oracle::hash("sha256", &data);
        assert_eq!(h.digest(&data).unwrap(), want, "update len {len}");
        h.update_copy(&data).unwrap();
        assert_eq!(h.finalize().unwrap(), want, "copy len {len}");
    }
    // Mixed small and large updates in one message.
    let data = pattern(3 << 20, 18);
    for piece in data.chunks(700_001) {
        h.update(&piece[..10]).unwrap();
        h.update(&piece[10..]).unwrap();
    }
    assert_eq!(h.finalize().unwrap(), oracle::hash("sha256", &data));
}

#[test]
fn hash_reset_and_reuse() {
    require_kernel!();
    let mut h = Hash::new("sha512").unwrap();
    h.update(b"garbage").unwrap();
    h.reset().unwrap();
    assert_eq!(h.digest(b"abc").unwrap(), oracle::hash("sha512", b"abc"));
    h.reset().unwrap();
    assert_eq!(h.finalize().unwrap(), oracle::hash("sha512", b""));
}

#[test]
fn digest_file_by_sendfile_and_splice() {
    require_kernel!();
    use std::io::Write;
    let dir = std::env::temp_dir();
    let top = if emulated() { 1 << 20 } else { 16 << 20 };
    let mut h = Hash::new("sha256").unwrap();
    for len in [0usize, 1, 4095, 4096, 4097, 1_000_003, top] {
        let data = pattern(len, 19);
        let path = dir.join(format!("kcapi-digest-file-{}-{len}", std::process::id()));
        std::fs::File::create(&path).unwrap().write_all(&data).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        assert_eq!(h.digest_file(&f).unwrap(), oracle::hash("sha256", &data), "sendfile len {len}");
        // With data pending, the file is appended through splice.
        h.update(b"prefix").unwrap();
        let want = oracle::hash("sha256", &[b"prefix".as_slice(), &data].concat());
        assert_eq!(h.digest_file(&f).unwrap(), want, "splice len {len}");
        let mut r = std::fs::File::open(&path).unwrap();
        assert_eq!(h.digest_reader(&mut r).unwrap(), oracle::hash("sha256", &data));
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn rng_is_seeded_and_fills_any_length() {
    require_kernel!();
    let mut r = Rng::new("stdrng").unwrap();
    for len in [0, 1, 127, 128, 129, 4096] {
        let mut buf = vec![0u8; len];
        r.fill(&mut buf).unwrap();
        if len >= 128 {
            assert!(buf.iter().any(|&b| b != 0));
        }
    }
    let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
    r.fill(&mut a).unwrap();
    r.fill(&mut b).unwrap();
    assert_ne!(a, b);
    r.seed(b"personalization").unwrap();
    r.fill(&mut a).unwrap();
    let mut with_seed = Rng::with_seed("drbg_nopr_sha256", b"seed").unwrap();
    with_seed.fill(&mut b).unwrap();
    assert_ne!(a, b);
    let mut clone = with_seed.try_clone().unwrap();
    clone.fill(&mut a).unwrap();
    assert_ne!(a, b);
}

#[test]
fn clones_work_from_other_threads() {
    require_kernel!();
    let key = pattern(16, 20);
    let hash = Hash::with_key("hmac(sha256)", &key).unwrap();
    let cipher = Skcipher::new("ctr(aes)", &key).unwrap();
    let aead = Aead::new("rfc7539(chacha20,poly1305)", &pattern(32, 21), 16).unwrap();
    let handles: Vec<_> = (0..4u8)
        .map(|i| {
            let (mut h, mut c, mut a) =
                (hash.try_clone().unwrap(), cipher.try_clone().unwrap(), aead.try_clone().unwrap());
            let key = key.clone();
            std::thread::spawn(move || {
                let data = pattern(10_000 + usize::from(i), i);
                assert_eq!(h.digest(&data).unwrap(), oracle::hmac_sha256(&key, &data));
                let iv = [i; 16];
                let mut out = vec![0; data.len()];
                c.encrypt(&iv, &data, &mut out).unwrap();
                assert_eq!(out, oracle::ctr(&key, &iv, &data));
                let sealed = a.seal(&[i; 12], b"", &data).unwrap();
                assert_eq!(sealed, oracle::chacha_seal(&pattern(32, 21), &[i; 12], b"", &data));
            })
        })
        .collect();
    for t in handles {
        t.join().unwrap();
    }
    // The originals are unaffected (moved handles are Send).
    let mut h = hash;
    assert_eq!(h.digest(b"x").unwrap(), oracle::hmac_sha256(&key, b"x"));
}

#[test]
fn algorithms_describe_what_was_bound() {
    require_kernel!();
    let _keep = Skcipher::new("cbc(aes)", &[0; 16]).unwrap();
    let _gcm = Aead::new("gcm(aes)", &[0; 16], 16).unwrap();
    let all = kcapi::algorithms().unwrap();
    let sha = all
        .iter()
        .find(|a| a.name == "sha256" && a.kind.ends_with("hash"))
        .expect("sha256 in /proc/crypto");
    assert_eq!(sha.digest_size, Some(32));
    assert_eq!(sha.block_size, Some(64));
    let cbc = all
        .iter()
        .find(|a| a.name == "cbc(aes)" && a.kind == "skcipher")
        .expect("cbc(aes) after bind");
    assert_eq!((cbc.iv_size, cbc.min_key_size, cbc.max_key_size), (Some(16), Some(16), Some(32)));
    let gcm =
        all.iter().find(|a| a.name == "gcm(aes)" && a.kind == "aead").expect("gcm(aes) after bind");
    assert_eq!((gcm.iv_size, gcm.max_auth_size), (Some(12), Some(16)));
    assert!(all.iter().all(|a| !a.driver.is_empty()));
}

#[test]
fn proc_crypto_parser() {
    // Runs everywhere: a sample in the kernel's format.
    let text = "name         : cbc(aes)\ndriver       : cbc-aes-aesni\nmodule       : aesni_intel\npriority     : 400\nrefcnt       : 1\nselftest     : passed\ninternal     : no\ntype         : skcipher\nasync        : yes\nblocksize    : 16\nmin keysize  : 16\nmax keysize  : 32\nivsize       : 16\nchunksize    : 16\nwalksize     : 16\n\nname         : sha256\ndriver       : sha256-generic\nmodule       : kernel\npriority     : 100\nrefcnt       : 2\nselftest     : passed\ninternal     : no\ntype         : shash\nblocksize    : 64\ndigestsize   : 32\n\nmalformed line\nname : x\n";
    let algs = kcapi::parse_proc_crypto(text);
    assert_eq!(algs.len(), 3);
    let cbc = &algs[0];
    assert_eq!(
        (cbc.name.as_str(), cbc.driver.as_str(), cbc.module.as_str()),
        ("cbc(aes)", "cbc-aes-aesni", "aesni_intel")
    );
    assert_eq!((cbc.priority, cbc.kind.as_str(), cbc.is_async), (400, "skcipher", true));
    assert_eq!((cbc.block_size, cbc.iv_size, cbc.chunk_size), (Some(16), Some(16), Some(16)));
    assert_eq!((cbc.min_key_size, cbc.max_key_size, cbc.digest_size), (Some(16), Some(32), None));
    assert_eq!((algs[1].digest_size, algs[1].is_async), (Some(32), false));
    assert_eq!(algs[2].name, "x");
    assert!(kcapi::parse_proc_crypto("").is_empty());
}

#[cfg(feature = "digest")]
#[test]
fn digest_traits() {
    require_kernel!();
    use digest::Digest;
    let got = kcapi::Sha256::digest(b"abc");
    assert_eq!(got.to_vec(), oracle::hash("sha256", b"abc"));
    let mut h = kcapi::Sha512::new();
    h.update(b"ab");
    h.update(b"c");
    assert_eq!(h.finalize_reset().to_vec(), oracle::hash("sha512", b"abc"));
    assert_eq!(h.finalize().to_vec(), oracle::hash("sha512", b""));
}

#[cfg(feature = "aead")]
#[test]
fn aead_traits() {
    require_kernel!();
    use aes_gcm::aead::{Aead as _, KeyInit as _};
    let key = pattern(32, 22);
    let nonce = pattern(12, 23);
    let k = kcapi::Aes256Gcm::new_from_slice(&key).unwrap();
    let sealed = k.encrypt(aes_gcm::Nonce::from_slice(&nonce), b"message".as_slice()).unwrap();
    assert_eq!(sealed, oracle::gcm_seal(&key, &nonce, b"", b"message"));
    let opened = k.decrypt(aes_gcm::Nonce::from_slice(&nonce), sealed.as_slice()).unwrap();
    assert_eq!(opened, b"message");
    let mut bad = sealed.clone();
    bad[0] ^= 1;
    assert!(k.decrypt(aes_gcm::Nonce::from_slice(&nonce), bad.as_slice()).is_err());
    let c = kcapi::ChaCha20Poly1305::new_from_slice(&key).unwrap();
    let sealed = c.encrypt(aes_gcm::Nonce::from_slice(&nonce), b"m".as_slice()).unwrap();
    assert_eq!(sealed, oracle::chacha_seal(&key, &nonce, b"", b"m"));
}
