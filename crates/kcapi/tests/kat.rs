//! Known-answer tests from the published vectors in `tests/data/`. Each file is checked twice:
//! against RustCrypto (the file itself is right; runs everywhere) and against the kernel.

mod common;

use common::oracle;

#[test]
fn vector_files_agree_with_rustcrypto() {
    for v in vectors!("sha.txt") {
        assert_eq!(oracle::hash(v.text("alg"), &v.hex("data")), v.hex("md"), "{}", v.name());
    }
    for v in vectors!("hmac_sha256.txt") {
        assert_eq!(
            oracle::hmac_sha256(&v.hex("key"), &v.hex("data")),
            v.hex("mac"),
            "{}",
            v.name()
        );
    }
    for v in vectors!("aes_cbc.txt") {
        assert_eq!(
            oracle::cbc_encrypt(&v.hex("key"), &v.hex("iv"), &v.hex("pt")),
            v.hex("ct"),
            "{}",
            v.name()
        );
    }
    for v in vectors!("aes_ctr.txt") {
        assert_eq!(
            oracle::ctr(&v.hex("key"), &v.hex("iv"), &v.hex("pt")),
            v.hex("ct"),
            "{}",
            v.name()
        );
    }
    for v in vectors!("aes_gcm.txt") {
        let want = [v.hex("ct"), v.hex("tag")].concat();
        assert_eq!(
            oracle::gcm_seal(&v.hex("key"), &v.hex("nonce"), &v.hex("aad"), &v.hex("pt")),
            want,
            "{}",
            v.name()
        );
    }
    for v in vectors!("chacha20poly1305.txt") {
        let want = [v.hex("ct"), v.hex("tag")].concat();
        assert_eq!(
            oracle::chacha_seal(&v.hex("key"), &v.hex("nonce"), &v.hex("aad"), &v.hex("pt")),
            want,
            "{}",
            v.name()
        );
    }
}

#[test]
fn sha_fips180_examples() {
    require_kernel!();
    for v in vectors!("sha.txt") {
        let mut h = kcapi::Hash::new(v.text("alg")).unwrap();
        assert_eq!(h.digest(&v.hex("data")).unwrap(), v.hex("md"), "{}", v.name());
        assert_eq!(h.output_size(), v.hex("md").len());
    }
}

#[test]
fn sha256_million_a() {
    require_kernel!();
    // FIPS 180 example: one million repetitions of "a", fed in uneven pieces.
    let mut h = kcapi::Hash::new("sha256").unwrap();
    let a = vec![b'a'; 1_000_000];
    for piece in a.chunks(333_333) {
        h.update(piece).unwrap();
    }
    let want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    let got: String = h.finalize().unwrap().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(got, want);
}

#[test]
fn hmac_sha256_rfc4231() {
    require_kernel!();
    for v in vectors!("hmac_sha256.txt") {
        let mut h = kcapi::Hash::with_key("hmac(sha256)", &v.hex("key")).unwrap();
        assert_eq!(h.digest(&v.hex("data")).unwrap(), v.hex("mac"), "{}", v.name());
    }
}

/// Encrypts `pt` to `ct` and back with the kernel's `alg`, for every vector.
fn skcipher_kat(alg: &str, vectors: &[common::Vector]) {
    for v in vectors {
        let (key, iv, pt, ct) = (v.hex("key"), v.hex("iv"), v.hex("pt"), v.hex("ct"));
        let mut c = kcapi::Skcipher::new(alg, &key).unwrap();
        let mut out = vec![0; pt.len()];
        c.encrypt(&iv, &pt, &mut out).unwrap();
        assert_eq!(out, ct, "{} encrypt", v.name());
        c.decrypt(&iv, &ct, &mut out).unwrap();
        assert_eq!(out, pt, "{} decrypt", v.name());
    }
}

/// Seals `pt` to `ct || tag` and opens it again with the kernel's `alg`, for every vector.
fn aead_kat(alg: &str, vectors: &[common::Vector]) {
    for v in vectors {
        let (key, nonce, aad, pt) = (v.hex("key"), v.hex("nonce"), v.hex("aad"), v.hex("pt"));
        let want = [v.hex("ct"), v.hex("tag")].concat();
        let mut a = kcapi::Aead::new(alg, &key, 16).unwrap();
        assert_eq!(a.seal(&nonce, &aad, &pt).unwrap(), want, "{} seal", v.name());
        assert_eq!(a.open(&nonce, &aad, &want).unwrap(), pt, "{} open", v.name());
    }
}

#[test]
fn aes_cbc_sp800_38a() {
    require_kernel!();
    skcipher_kat("cbc(aes)", &vectors!("aes_cbc.txt"));
}

#[test]
fn aes_ctr_sp800_38a() {
    require_kernel!();
    skcipher_kat("ctr(aes)", &vectors!("aes_ctr.txt"));
}

#[test]
fn aes_gcm_spec_test_cases() {
    require_kernel!();
    aead_kat("gcm(aes)", &vectors!("aes_gcm.txt"));
}

#[test]
fn chacha20poly1305_rfc8439() {
    require_kernel!();
    aead_kat("rfc7539(chacha20,poly1305)", &vectors!("chacha20poly1305.txt"));
}
