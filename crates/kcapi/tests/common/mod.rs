//! Shared by kcapi's integration tests: the kernel gate and the vector files.
#![allow(dead_code, unused_imports)]

/// Whether the kernel has AF_ALG. Without it a test prints why it is skipped and returns
/// early; but under `KCAPI_REQUIRE=1` (set by the VM's `/init`) unavailability fails the test.
pub fn kernel(test: &str) -> bool {
    match kcapi::available() {
        Ok(()) => true,
        Err(e) => {
            if std::env::var_os("KCAPI_REQUIRE").is_some_and(|v| v == "1") {
                panic!("{test}: AF_ALG is required here (KCAPI_REQUIRE=1) but unavailable: {e}");
            }
            // Straight to fd 2, past libtest's capture (which only takes print!/eprint!), so
            // that a skip is visible in every run, not reported as a silent pass.
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "kcapi-test: SKIPPED {test}: {e}");
            false
        }
    }
}

/// Returns from the test when the kernel has no AF_ALG (see [`kernel`]).
#[macro_export]
macro_rules! require_kernel {
    () => {
        if !$crate::common::kernel(&format!("{}:{}", file!(), line!())) {
            return;
        }
    };
    ($name:expr) => {
        if !$crate::common::kernel($name) {
            return;
        }
    };
}

/// One record of a vector file (`key = value` lines), read by `testkit::vectors`.
pub use testkit::vectors::Record as Vector;

/// The vectors of `tests/data/<file>`, embedded at compile time so that the test binaries
/// carry them into the VM.
#[macro_export]
macro_rules! vectors {
    ($file:literal) => {
        testkit::data_file!($file).records()
    };
}

/// Deterministic filler bytes.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8).collect()
}

/// RustCrypto's software implementations: the oracles.
pub mod oracle {
    use aes::{Aes128, Aes192, Aes256};
    use aes_gcm::aead::{Aead as _, KeyInit, Payload};
    use cbc::cipher::block_padding::NoPadding;
    use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit, StreamCipher};
    use digest::Digest;
    use hmac::Mac;

    pub fn cbc_encrypt(key: &[u8], iv: &[u8], pt: &[u8]) -> Vec<u8> {
        match key.len() {
            16 => cbc::Encryptor::<Aes128>::new_from_slices(key, iv)
                .unwrap()
                .encrypt_padded_vec_mut::<NoPadding>(pt),
            24 => cbc::Encryptor::<Aes192>::new_from_slices(key, iv)
                .unwrap()
                .encrypt_padded_vec_mut::<NoPadding>(pt),
            32 => cbc::Encryptor::<Aes256>::new_from_slices(key, iv)
                .unwrap()
                .encrypt_padded_vec_mut::<NoPadding>(pt),
            n => panic!("AES key of {n} bytes"),
        }
    }

    pub fn cbc_decrypt(key: &[u8], iv: &[u8], ct: &[u8]) -> Vec<u8> {
        match key.len() {
            16 => cbc::Decryptor::<Aes128>::new_from_slices(key, iv)
                .unwrap()
                .decrypt_padded_vec_mut::<NoPadding>(ct),
            24 => cbc::Decryptor::<Aes192>::new_from_slices(key, iv)
                .unwrap()
                .decrypt_padded_vec_mut::<NoPadding>(ct),
            32 => cbc::Decryptor::<Aes256>::new_from_slices(key, iv)
                .unwrap()
                .decrypt_padded_vec_mut::<NoPadding>(ct),
            n => panic!("AES key of {n} bytes"),
        }
        .unwrap()
    }

    /// CTR with a 128-bit big-endian counter (the kernel's `ctr(aes)`).
    pub fn ctr(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
        let mut buf = data.to_vec();
        match key.len() {
            16 => {
                ctr::Ctr128BE::<Aes128>::new_from_slices(key, iv).unwrap().apply_keystream(&mut buf)
            }
            24 => {
                ctr::Ctr128BE::<Aes192>::new_from_slices(key, iv).unwrap().apply_keystream(&mut buf)
            }
            32 => {
                ctr::Ctr128BE::<Aes256>::new_from_slices(key, iv).unwrap().apply_keystream(&mut buf)
            }
            n => panic!("AES key of {n} bytes"),
        }
        buf
    }

    /// `ciphertext || tag` (16-byte tag).
    pub fn gcm_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
        let p = Payload { msg: pt, aad };
        let n = aes_gcm::Nonce::from_slice(nonce);
        match key.len() {
            16 => aes_gcm::Aes128Gcm::new_from_slice(key).unwrap().encrypt(n, p),
            24 => aes_gcm::AesGcm::<Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
                .unwrap()
                .encrypt(n, p),
            32 => aes_gcm::Aes256Gcm::new_from_slice(key).unwrap().encrypt(n, p),
            n => panic!("AES key of {n} bytes"),
        }
        .unwrap()
    }

    pub fn chacha_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
        use chacha20poly1305::aead::{Aead as _, KeyInit as _};
        chacha20poly1305::ChaCha20Poly1305::new_from_slice(key)
            .unwrap()
            .encrypt(
                chacha20poly1305::Nonce::from_slice(nonce),
                chacha20poly1305::aead::Payload { msg: pt, aad },
            )
            .unwrap()
    }

    pub fn hmac_sha256(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut m = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(key).unwrap();
        m.update(data);
        m.finalize().into_bytes().to_vec()
    }

    /// The kernel's hash name → RustCrypto's digest.
    pub fn hash(alg: &str, data: &[u8]) -> Vec<u8> {
        match alg {
            "sha1" => sha1::Sha1::digest(data).to_vec(),
            "sha224" => sha2::Sha224::digest(data).to_vec(),
            "sha256" => sha2::Sha256::digest(data).to_vec(),
            "sha384" => sha2::Sha384::digest(data).to_vec(),
            "sha512" => sha2::Sha512::digest(data).to_vec(),
            other => panic!("no oracle for {other}"),
        }
    }
}
