//! `kcapi`: the Linux Kernel Crypto API (`AF_ALG` sockets) from Rust, without libkcapi.
//!
//! The kernel exposes its crypto drivers (including hardware engines) to user space through
//! `AF_ALG` sockets: `bind` a transform by type and name, set its key, `accept` an operation
//! socket, `sendmsg` input with control messages (operation, IV, AAD length) and `read` the
//! output. This crate wraps that in safe types:
//!
//! | kernel type | Rust |
//! | --- | --- |
//! | `hash` | [`Hash::new`], [`Hash::with_key`]: `update`, `finalize`, `digest`, `digest_file` (sendfile) |
//! | `skcipher` | [`Skcipher::new`]: `encrypt`/`decrypt` (and in place), streaming [`Stream`] |
//! | `aead` | [`Aead::new`]: `seal`, `open` (and in place) |
//! | `rng` | [`Rng::new`], [`Rng::with_seed`]: `fill` |
//!
//! [`algorithms`] parses `/proc/crypto`, so a service can log which implementation it uses.
//!
//! ```no_run
//! fn main() {
//!     // An error's `Display` says what is missing and how to get it, e.g. on a kernel
//!     // without AF_ALG: "the kernel has no AF_ALG sockets (EAFNOSUPPORT): enable
//!     // CONFIG_CRYPTO_USER_API ...".
//!     if let Err(e) = run() {
//!         eprintln!("error: {e}");
//!         std::process::exit(1);
//!     }
//! }
//!
//! fn run() -> Result<(), kcapi::Error> {
//!     let mut sha = kcapi::Hash::new("sha256")?;
//!     let digest = sha.digest(b"abc")?;
//!     assert_eq!(digest.len(), 32);
//!
//!     let mut aes = kcapi::Skcipher::new("cbc(aes)", &[0u8; 16])?;
//!     let mut out = [0u8; 32];
//!     aes.encrypt(&[0u8; 16], &[7u8; 32], &mut out)?;
//!
//!     let mut gcm = kcapi::Aead::new("gcm(aes)", &[0u8; 16], 16)?;
//!     let sealed = gcm.seal(&[0u8; 12], b"header", b"secret")?;
//!     assert_eq!(gcm.open(&[0u8; 12], b"header", &sealed)?, b"secret");
//!     Ok(())
//! }
//! ```
//!
//! With the `digest` feature the hashes are RustCrypto `Digest`s, and the traits come from
//! this crate (no `digest` dependency of your own needed):
//!
#![cfg_attr(feature = "digest", doc = "```no_run")]
#![cfg_attr(not(feature = "digest"), doc = "```ignore")]
//! use kcapi::{Digest, Sha256};
//!
//! let hasher = Sha256::try_new()?; // or `Sha256::new()`, which panics without AF_ALG
//! let digest = hasher.chain_update(b"abc").finalize();
//! assert_eq!(digest[..4], [0xba, 0x78, 0x16, 0xbf]);
//! # Ok::<(), kcapi::Error>(())
//! ```
//!
//! # The kernel's sharp edges, and what this crate does about them
//!
//! - Reads are exactly the size the kernel produces (a longer read blocks forever, a shorter
//!   one truncates): lengths are validated before any syscall ([`Error::InvalidLength`]).
//! - The kernel queues skcipher input until it is read, up to the socket send buffer (about
//!   208 KiB): large inputs go in rounds of what fits with two pages to spare (192 KiB by
//!   default, a multiple of 64 KiB), each read back before the next is sent.
//!   An AEAD message must fit whole ([`Aead::max_message_len`]).
//! - Keys are set on the transform before `accept` (afterwards the kernel answers `ENOKEY`).
//! - An rng is seeded before its first read.
//! - A wrong AEAD tag is [`Error::AuthenticationFailed`] and the handle stays usable.
//! - Large skcipher inputs go through vmsplice+splice (a private pipe; no copy). Hash input
//!   goes in one `send` of any length, which algif_hash does not copy either (it pins the
//!   pages); [`Hash::digest_file`] uses sendfile. AEAD input never does: splicing page-cache pages
//!   into algif_aead is CVE-2026-31431 ("Copy Fail").
//!
//! Handles are `Send`; `try_clone` accepts another operation socket on the same transform
//! and key, for another thread. Kernels without `AF_ALG` give [`Error::Unsupported`].
//!
//! # Features
//!
//! - `digest`: RustCrypto `digest` 0.10 traits: `Digest` for `Sha1`, `Sha256`, `Sha384`,
//!   `Sha512`, and `Mac` + `KeyInit` for `HmacSha1`...`HmacSha512` and `CmacAes128`/`192`/`256`,
//!   so they drop into code written against `digest::Digest` or `digest::Mac` (`hmac`'s API).
//!   The traits are re-exported (`kcapi::{Digest, Mac, KeyInit}`, and the crate as
//!   `kcapi::digest`); so are those of the features below.
//!   `Clone` copies the running state ([`Hash::try_clone_state`]); the fallible constructors
//!   are `try_new`, the traits' `Default`/`KeyInit` panic when the kernel lacks the algorithm.
//! - `aead`: RustCrypto `aead` 0.5 traits (`KeyInit`, `AeadInPlace`, hence `Aead`) for
//!   `Aes128Gcm`, `Aes256Gcm`, `ChaCha20Poly1305` (`kcapi::{AeadInPlace, KeyInit}`; the
//!   crate as `kcapi::aead_traits`, as `kcapi::Aead` is this crate's own type).
//! - `rand_core`: RustCrypto `rand_core` 0.6 `RngCore` + `CryptoRng` for [`Rng`]
//!   (`kcapi::{RngCore, CryptoRng}`, the crate as `kcapi::rand_core`).
//! - `cipher`: RustCrypto `cipher` 0.4 traits for the kernel's `cbc(aes)` (`KeyIvInit` +
//!   `BlockEncryptMut`/`BlockDecryptMut`: `Aes128CbcEnc`, `Aes128CbcDec`... as the `cbc`
//!   crate's) and `ctr(aes)` (`KeyIvInit` + `StreamCipher`: `Aes128Ctr`... as `ctr`'s
//!   `Ctr128BE`); the traits as `kcapi::{KeyIvInit, StreamCipher, BlockEncryptMut,
//!   BlockDecryptMut}`, the crate (with its `block_padding`) as `kcapi::cipher`.
//!
//! Copies of plaintext the crate makes are wiped (`zeroize`) when dropped; keys are never
//! copied (they go from the caller's slice straight to the kernel).
//!
//! # Platforms
//!
//! Linux only: `AF_ALG` is a Linux kernel interface. On every other target the crate compiles
//! to nothing (as `splice-pool` does), so a portable program puts its kcapi code behind
//! `#[cfg(target_os = "linux")]` and chooses its fallback at compile time rather than
//! carrying handles that could only ever return an error. On Linux, a kernel built without
//! `AF_ALG` (or without the algorithm) is a run-time [`Error::Unsupported`].
#![cfg(target_os = "linux")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod aead;
mod algorithms;
mod error;
mod hash;
mod rng;
mod skcipher;
mod socket;
mod sys;

#[cfg(feature = "aead")]
mod aead_impls;
#[cfg(feature = "cipher")]
mod cipher_impls;
#[cfg(feature = "digest")]
mod digest_impls;

pub use aead::Aead;
pub use algorithms::{Algorithm, algorithms, parse as parse_proc_crypto};
pub use error::{Error, Result};
pub use hash::Hash;
pub use rng::Rng;
pub use skcipher::{Skcipher, Stream};

#[cfg_attr(docsrs, doc(cfg(feature = "aead")))]
#[cfg(feature = "aead")]
pub use aead_impls::{Aes128Gcm, Aes256Gcm, ChaCha20Poly1305};
#[cfg_attr(docsrs, doc(cfg(feature = "cipher")))]
#[cfg(feature = "cipher")]
pub use cipher_impls::{
    Aes128CbcDec, Aes128CbcEnc, Aes128Ctr, Aes192CbcDec, Aes192CbcEnc, Aes192Ctr, Aes256CbcDec,
    Aes256CbcEnc, Aes256Ctr,
};
// The traits the examples use, so that `use kcapi::{Sha256, Digest}` compiles without a
// dependency on the trait crates (as RustCrypto's hash crates re-export `digest`).
#[cfg_attr(docsrs, doc(cfg(feature = "digest")))]
#[cfg(feature = "digest")]
#[doc(no_inline)]
pub use digest::{self, Digest, KeyInit, Mac};
#[cfg_attr(docsrs, doc(cfg(feature = "aead")))]
#[cfg(feature = "aead")]
#[doc(no_inline)]
pub use {::aead as aead_traits, ::aead::AeadInPlace};
// The same `crypto_common::KeyInit` as `digest`'s, named once.
#[cfg_attr(docsrs, doc(cfg(feature = "aead")))]
#[cfg(all(feature = "aead", not(feature = "digest")))]
#[doc(no_inline)]
pub use ::aead::KeyInit;
#[cfg_attr(docsrs, doc(cfg(feature = "cipher")))]
#[cfg(feature = "cipher")]
#[doc(no_inline)]
pub use cipher::{self, BlockDecryptMut, BlockEncryptMut, KeyIvInit, StreamCipher};
#[cfg_attr(docsrs, doc(cfg(feature = "rand_core")))]
#[cfg(feature = "rand_core")]
#[doc(no_inline)]
pub use rand_core::{self, CryptoRng, RngCore};

#[cfg_attr(docsrs, doc(cfg(feature = "digest")))]
#[cfg(feature = "digest")]
pub use digest_impls::{
    CmacAes128, CmacAes192, CmacAes256, HmacSha1, HmacSha256, HmacSha384, HmacSha512, Sha1, Sha256,
    Sha384, Sha512,
};

/// Whether the kernel offers `AF_ALG` sockets at all: `Ok`, or [`Error::Unsupported`] (or
/// another error) saying why not.
pub fn available() -> Result<()> {
    // Binding a hash that every kernel with the API has (sha256 is required by the module
    // signing and the RNG) tells more than socket() alone: it needs algif_hash too.
    Hash::new("sha256").map(drop)
}

// Handles move between threads (each has its own operation socket).
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Hash>();
    assert_send::<Skcipher>();
    assert_send::<Aead>();
    assert_send::<Rng>();
};

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
