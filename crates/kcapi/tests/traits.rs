//! The RustCrypto trait impls against RustCrypto's own implementations: `Digest` and `Mac`
//! (with a `Clone` that must copy the running state), `KeyInit`, `RngCore`.

mod common;

#[cfg(any(feature = "digest", feature = "cipher"))]
use common::pattern;

/// Prefix lengths for the clone tests: empty, around the 64- and 128-byte blocks, and past
/// 64 KiB (the kernel hashes one send in 64 KiB pieces).
#[cfg(feature = "digest")]
const PREFIXES: &[usize] = &[0, 1, 63, 64, 65, 127, 128, 129, 1000, 70_000];

/// Clones `$kernel` after `n` bytes, feeds the original and the clone different suffixes (and
/// a clone of the clone a third), and compares every digest with `$oracle` fed the same.
#[cfg(feature = "digest")]
macro_rules! check_clone {
    ($what:expr, $kernel:expr, $oracle:expr, $out:ident) => {{
        use digest::Update;
        for &n in PREFIXES {
            let prefix = pattern(n, 40);
            let (a, b, c) = (pattern(100, 41), pattern(3000, 42), pattern(70_001, 43));
            let mut k = $kernel;
            let mut o = $oracle;
            k.update(&prefix);
            o.update(&prefix);
            let mut k2 = k.clone();
            let mut o2 = o.clone();
            k.update(&a);
            o.update(&a);
            let mut k3 = k2.clone();
            let mut o3 = o2.clone();
            k2.update(&b);
            o2.update(&b);
            k3.update(&c);
            o3.update(&c);
            assert_eq!($out(k3), $out(o3), "{}: clone of the clone, prefix {n}", $what);
            assert_eq!($out(k), $out(o), "{}: original, prefix {n}", $what);
            assert_eq!($out(k2), $out(o2), "{}: clone, prefix {n}", $what);
        }
    }};
}

#[cfg(feature = "digest")]
fn digest_bytes<D: digest::Digest>(d: D) -> Vec<u8> {
    d.finalize().to_vec()
}

#[cfg(feature = "digest")]
fn mac_bytes<M: digest::Mac>(m: M) -> Vec<u8> {
    m.finalize().into_bytes().to_vec()
}

#[cfg(feature = "digest")]
#[test]
fn digest_clone_copies_the_running_state() {
    require_kernel!();
    check_clone!(
        "sha256",
        kcapi::Sha256::try_new().unwrap(),
        sha2::Sha256::default(),
        digest_bytes
    );
    check_clone!(
        "sha512",
        kcapi::Sha512::try_new().unwrap(),
        sha2::Sha512::default(),
        digest_bytes
    );
    let key = pattern(32, 44);
    check_clone!(
        "hmac(sha256)",
        kcapi::HmacSha256::try_new(&key).unwrap(),
        <hmac::Hmac<sha2::Sha256> as digest::KeyInit>::new_from_slice(&key).unwrap(),
        mac_bytes
    );
}

#[cfg(feature = "digest")]
#[test]
fn hash_try_clone_state_after_finalize_and_reset() {
    require_kernel!();
    let oracle = |d: &[u8]| common::oracle::hash("sha256", d);
    let mut h = kcapi::Hash::new("sha256").unwrap();
    h.update(b"first message").unwrap();
    h.finalize().unwrap();
    // After a finalize the state is the empty message's.
    let mut c = h.try_clone_state().unwrap();
    assert_eq!(c.digest(b"xyz").unwrap(), oracle(b"xyz"));
    h.update(b"dropped").unwrap();
    h.reset().unwrap();
    h.update(b"ab").unwrap();
    let mut c = h.try_clone_state().unwrap();
    h.update(b"c").unwrap();
    c.update(b"d").unwrap();
    assert_eq!(h.finalize().unwrap(), oracle(b"abc"));
    assert_eq!(c.finalize().unwrap(), oracle(b"abd"));
    // try_clone is the other one: a fresh message on the same transform.
    h.update(b"ab").unwrap();
    let mut fresh = h.try_clone().unwrap();
    assert_eq!(fresh.digest(b"c").unwrap(), oracle(b"c"));
}

#[cfg(feature = "digest")]
#[test]
fn digests_match_sha1_and_sha2() {
    require_kernel!();
    use digest::Digest;
    for len in [0, 1, 55, 56, 111, 112, 1000, 70_000] {
        let data = pattern(len, 45);
        let check = |alg: &str, got: Vec<u8>| {
            assert_eq!(got, common::oracle::hash(alg, &data), "{alg} len {len}");
        };
        check("sha1", kcapi::Sha1::try_new().unwrap().chain_update(&data).finalize().to_vec());
        check("sha256", kcapi::Sha256::digest(&data).to_vec());
        check("sha384", kcapi::Sha384::digest(&data).to_vec());
        check("sha512", kcapi::Sha512::digest(&data).to_vec());
    }
}

/// `Mac`-generic code: the same function drives the kernel's type and RustCrypto's.
#[cfg(feature = "digest")]
fn mac_of<M: digest::Mac + digest::KeyInit>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut m = <M as digest::KeyInit>::new_from_slice(key).expect("key length");
    for p in parts {
        digest::Mac::update(&mut m, p);
    }
    m.finalize().into_bytes().to_vec()
}

/// Checks `K` against the oracle `O` on several keys and messages, and `verify_slice`.
#[cfg(feature = "digest")]
fn check_mac<K, O>(what: &str, key_lens: &[usize])
where
    K: digest::Mac + digest::KeyInit + digest::FixedOutputReset + Clone,
    O: digest::Mac + digest::KeyInit,
{
    use digest::Mac;
    for &kl in key_lens {
        let key = pattern(kl, 46);
        for len in [0usize, 1, 64, 129, 5000] {
            let data = pattern(len, 47);
            let (a, b) = data.split_at(len / 3);
            let want = mac_of::<O>(&key, &[&data]);
            assert_eq!(mac_of::<K>(&key, &[a, b]), want, "{what} key {kl} len {len}");
            let mut m = <K as digest::KeyInit>::new_from_slice(&key).unwrap();
            Mac::update(&mut m, &data);
            let tag = m.finalize_reset().into_bytes();
            assert_eq!(tag.to_vec(), want);
            // `verify_slice` compares in constant time; a flipped bit fails it.
            Mac::update(&mut m, &data);
            m.clone().verify_slice(&want).unwrap();
            let mut bad = want.clone();
            bad[0] ^= 0x80;
            assert!(m.verify_slice(&bad).is_err(), "{what}: a wrong tag verified");
        }
    }
}

#[cfg(feature = "digest")]
#[test]
fn hmac_matches_the_hmac_crate() {
    require_kernel!();
    use hmac::Hmac;
    // Empty, short, a block, longer than a block (hashed first) for both block sizes.
    let lens = [0, 1, 20, 64, 65, 128, 129, 200];
    check_mac::<kcapi::HmacSha1, Hmac<sha1::Sha1>>("hmac(sha1)", &lens);
    check_mac::<kcapi::HmacSha256, Hmac<sha2::Sha256>>("hmac(sha256)", &lens);
    check_mac::<kcapi::HmacSha384, Hmac<sha2::Sha384>>("hmac(sha384)", &lens);
    check_mac::<kcapi::HmacSha512, Hmac<sha2::Sha512>>("hmac(sha512)", &lens);
    // `KeyInit::new` with the block-sized key.
    let key = digest::Key::<kcapi::HmacSha256>::clone_from_slice(&pattern(64, 48));
    let m = <kcapi::HmacSha256 as digest::KeyInit>::new(&key);
    assert_eq!(mac_bytes(m), mac_of::<Hmac<sha2::Sha256>>(&key, &[]));
}

#[cfg(feature = "digest")]
#[test]
fn cmac_matches_the_cmac_crate() {
    require_kernel!();
    use cmac::Cmac;
    check_mac::<kcapi::CmacAes128, Cmac<aes::Aes128>>("cmac(aes) 128", &[16]);
    check_mac::<kcapi::CmacAes192, Cmac<aes::Aes192>>("cmac(aes) 192", &[24]);
    check_mac::<kcapi::CmacAes256, Cmac<aes::Aes256>>("cmac(aes) 256", &[32]);
    for bad in [0, 15, 17, 24, 32] {
        assert!(<kcapi::CmacAes128 as digest::KeyInit>::new_from_slice(&vec![1; bad]).is_err());
    }
    assert!(matches!(kcapi::CmacAes128::try_new(&[1; 15]), Err(kcapi::Error::InvalidKey)));
}

#[cfg(feature = "rand_core")]
#[test]
fn rng_core_fills_through_the_traits() {
    require_kernel!();
    use rand_core::{CryptoRng, RngCore};
    fn draw<R: RngCore + CryptoRng>(r: &mut R) -> (u32, u64, Vec<u8>) {
        let mut buf = vec![0u8; 300];
        r.try_fill_bytes(&mut buf).unwrap();
        (r.next_u32(), r.next_u64(), buf)
    }
    let mut r = kcapi::Rng::new("stdrng").unwrap();
    let (a32, a64, a) = draw(&mut r);
    let (b32, b64, b) = draw(&mut r);
    // Equal draws from a working DRBG: probability 2^-96 and 2^-2400.
    assert!((a32, a64) != (b32, b64));
    assert_ne!(a, b);
    assert!(a.iter().any(|&x| x != 0));
    let mut empty = [0u8; 0];
    r.fill_bytes(&mut empty);
}

/// Encrypts then decrypts `pt` (whole blocks) with `E`/`D` in pieces cut at `cuts` (block
/// counts), one block at a time for the first piece: the chaining across calls is the test.
#[cfg(feature = "cipher")]
fn cbc_pieces<E, D>(key: &[u8], iv: &[u8], pt: &[u8], cuts: &[usize]) -> (Vec<u8>, Vec<u8>)
where
    E: cipher::KeyIvInit + cipher::BlockEncryptMut<BlockSize = cipher::consts::U16>,
    D: cipher::KeyIvInit + cipher::BlockDecryptMut<BlockSize = cipher::consts::U16>,
{
    use cipher::generic_array::GenericArray;
    let blocks = |b: &[u8]| -> Vec<GenericArray<u8, cipher::consts::U16>> {
        b.chunks(16).map(GenericArray::clone_from_slice).collect()
    };
    let flat = |v: Vec<GenericArray<u8, cipher::consts::U16>>| -> Vec<u8> {
        v.iter().flat_map(|b| b.iter().copied()).collect()
    };
    let mut enc = E::new_from_slices(key, iv).unwrap();
    let mut dec = D::new_from_slices(key, iv).unwrap();
    let mut ct = blocks(pt);
    let mut at = 0;
    for (i, &cut) in cuts.iter().chain([&ct.len()]).enumerate() {
        let piece = &mut ct[at..cut.max(at)];
        if i == 0 {
            for b in piece.iter_mut() {
                enc.encrypt_block_mut(b);
            }
        } else {
            enc.encrypt_blocks_mut(piece);
        }
        at = cut.max(at);
    }
    let mut back = ct.clone();
    let mut at = 0;
    for &cut in cuts.iter().chain([&back.len()]) {
        // Separate input and output buffers (`InOutBuf` from two slices).
        let input = back[at..cut.max(at)].to_vec();
        dec.decrypt_blocks_b2b_mut(&input, &mut back[at..cut.max(at)]).unwrap();
        at = cut.max(at);
    }
    (flat(ct), flat(back))
}

#[cfg(feature = "cipher")]
#[test]
fn cbc_matches_the_cbc_crate_across_calls() {
    require_kernel!();
    use cipher::{KeyIvInit, block_padding::NoPadding};
    let iv = pattern(16, 50);
    // Around the 256-block round trip of the backend, and one block at a time.
    for (n, cuts) in [(1, vec![]), (3, vec![1, 2]), (300, vec![2, 258]), (600, vec![0, 256, 513])] {
        let pt = pattern(n * 16, 51);
        for kl in [16, 24, 32] {
            let key = pattern(kl, 52);
            let want = common::oracle::cbc_encrypt(&key, &iv, &pt);
            let (ct, back) = match kl {
                16 => cbc_pieces::<kcapi::Aes128CbcEnc, kcapi::Aes128CbcDec>(&key, &iv, &pt, &cuts),
                24 => cbc_pieces::<kcapi::Aes192CbcEnc, kcapi::Aes192CbcDec>(&key, &iv, &pt, &cuts),
                _ => cbc_pieces::<kcapi::Aes256CbcEnc, kcapi::Aes256CbcDec>(&key, &iv, &pt, &cuts),
            };
            assert!(ct == want, "cbc(aes) key {kl}, {n} blocks cut at {cuts:?}");
            assert!(back == pt, "cbc(aes) decrypt key {kl}, {n} blocks cut at {cuts:?}");
        }
    }
    // The padded one-shot helpers of the trait, and the cbc crate's own type as a peer.
    let key = pattern(16, 53);
    let enc = kcapi::Aes128CbcEnc::new_from_slices(&key, &iv).unwrap();
    let ours = cipher::BlockEncryptMut::encrypt_padded_vec_mut::<cipher::block_padding::Pkcs7>(
        enc,
        b"seventeen bytes!!",
    );
    let theirs = cipher::BlockEncryptMut::encrypt_padded_vec_mut::<cipher::block_padding::Pkcs7>(
        cbc::Encryptor::<aes::Aes128>::new_from_slices(&key, &iv).unwrap(),
        b"seventeen bytes!!",
    );
    assert_eq!(ours, theirs);
    let dec = kcapi::Aes128CbcDec::new_from_slices(&key, &iv).unwrap();
    let pt = cipher::BlockDecryptMut::decrypt_padded_vec_mut::<NoPadding>(dec, &ours).unwrap();
    assert_eq!(&pt[..17], b"seventeen bytes!!");
    assert!(kcapi::Aes128CbcEnc::new_from_slices(&key[..15], &iv).is_err());
    assert!(kcapi::Aes128CbcEnc::new_from_slices(&key, &iv[..12]).is_err());
    assert!(matches!(kcapi::Aes256CbcDec::try_new(&[0; 31], &iv), Err(kcapi::Error::InvalidKey)));
}

#[cfg(feature = "cipher")]
#[test]
fn ctr_matches_the_ctr_crate_across_odd_calls() {
    require_kernel!();
    use cipher::{KeyIvInit, StreamCipher};
    let iv = pattern(16, 54);
    let data = pattern(70_000, 55);
    // Calls of every length around a block, a partial block left over, and a large one.
    let cuts = [0, 1, 2, 17, 32, 33, 48, 49, 100, 4099, 4100, 69_990, 70_000];
    for kl in [16, 24, 32] {
        let key = pattern(kl, 56);
        let want = common::oracle::ctr(&key, &iv, &data);
        let mut got = data.clone();
        macro_rules! run {
            ($t:ty) => {{
                let mut c = <$t>::new_from_slices(&key, &iv).unwrap();
                for w in cuts.windows(2) {
                    if w[0] % 2 == 0 {
                        c.apply_keystream(&mut got[w[0]..w[1]]);
                    } else {
                        // Separate input and output buffers.
                        let input = got[w[0]..w[1]].to_vec();
                        c.apply_keystream_b2b(&input, &mut got[w[0]..w[1]]).unwrap();
                    }
                }
            }};
        }
        match kl {
            16 => run!(kcapi::Aes128Ctr),
            24 => run!(kcapi::Aes192Ctr),
            _ => run!(kcapi::Aes256Ctr),
        }
        assert!(got == want, "ctr(aes) key {kl} cut at {cuts:?}");
    }
    assert!(kcapi::Aes128Ctr::new_from_slices(&[0; 16], &[0; 15]).is_err());
}
