//! RustCrypto `digest` 0.10 traits for the kernel's fixed-size hashes (`Digest`) and keyed
//! hashes (`Mac` + `KeyInit`).

use digest::consts::{U16, U20, U24, U32, U48, U64, U128};
use digest::{
    FixedOutput, FixedOutputReset, HashMarker, InvalidLength, Key, KeyInit, MacMarker, Output,
    OutputSizeUser, Reset, Update,
};

use digest::crypto_common::KeySizeUser;

use crate::{Error, Hash};

/// What every kernel hash type shares: output size, `Update`, `FixedOutput[Reset]`, `Reset`
/// and a `Clone` that copies the running state. The traits have no error path: a syscall
/// that fails in the middle of hashing panics with the algorithm and the error.
macro_rules! kernel_hash_common {
    ($name:ident, $alg:literal, $size:ty) => {
        impl $name {
            /// The kernel handle underneath, for the inherent API ([`Hash::digest_file`]...).
            pub fn as_hash(&mut self) -> &mut Hash {
                &mut self.0
            }

            /// A copy that carries on from the running state, or why the kernel could not
            /// make it (what `Clone` panics with).
            pub fn try_clone(&self) -> crate::Result<Self> {
                self.0.try_clone_state().map(Self)
            }
        }

        impl Clone for $name {
            /// A copy of the running hash: the kernel exports this handle's state (the
            /// message fed so far) into a new operation socket ([`Hash::try_clone_state`]),
            /// so the copy and the original then hash on independently.
            ///
            /// Panics when the kernel cannot make the copy (out of descriptors or memory);
            /// [`Self::try_clone`] reports that as an error instead.
            fn clone(&self) -> Self {
                match self.try_clone() {
                    Ok(h) => h,
                    Err(e) => panic!("kcapi {}: copying the running hash: {e}", $alg),
                }
            }
        }

        impl OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl Update for $name {
            fn update(&mut self, data: &[u8]) {
                if let Err(e) = self.0.update(data) {
                    panic!("kcapi {}: {e}", $alg);
                }
            }
        }

        impl FixedOutput for $name {
            fn finalize_into(mut self, out: &mut Output<Self>) {
                FixedOutputReset::finalize_into_reset(&mut self, out);
            }
        }

        impl FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                if let Err(e) = self.0.finalize_into(out) {
                    panic!("kcapi {}: {e}", $alg);
                }
            }
        }

        impl Reset for $name {
            fn reset(&mut self) {
                if let Err(e) = self.0.reset() {
                    panic!("kcapi {}: {e}", $alg);
                }
            }
        }
    };
}

macro_rules! kernel_digest {
    ($name:ident, $alg:literal, $size:ty) => {
        #[doc = concat!("The kernel's `", $alg, "` behind RustCrypto's `digest` traits.")]
        ///
        /// `Default` (hence `Digest::new`, which `digest::Digest`-generic code calls) has no
        /// error path, so it panics when the kernel has no `AF_ALG` or no such hash. Code
        /// that constructs the hasher itself should call [`Self::try_new`], which reports
        /// that as an error; the value then goes wherever a `Digest` is expected:
        ///
        /// ```no_run
        /// use kcapi::Digest;
        ///
        /// fn fingerprint<D: Digest>(mut d: D, data: &[u8]) -> Vec<u8> {
        ///     d.update(data);
        ///     d.finalize().to_vec()
        /// }
        ///
        #[doc = concat!("match kcapi::", stringify!($name), "::try_new() {")]
        ///     Ok(h) => println!("{:02x?}", fingerprint(h, b"abc")),
        ///     Err(e) => eprintln!("no kernel hash, using another implementation: {e}"),
        /// }
        /// ```
        ///
        /// `Clone` copies the running state (see its docs).
        #[derive(Debug)]
        pub struct $name(Hash);

        impl $name {
            /// The hash, or why the kernel cannot provide it.
            pub fn try_new() -> crate::Result<Self> {
                Hash::new($alg).map(Self)
            }
        }

        impl Default for $name {
            /// Panics when the kernel cannot provide the hash (`digest`'s API leaves no
            /// choice); [`Self::try_new`] is the fallible constructor.
            fn default() -> Self {
                match Self::try_new() {
                    Ok(h) => h,
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }
        }

        impl HashMarker for $name {}

        kernel_hash_common!($name, $alg, $size);
    };
}

kernel_digest!(Sha1, "sha1", U20);
kernel_digest!(Sha256, "sha256", U32);
kernel_digest!(Sha384, "sha384", U48);
kernel_digest!(Sha512, "sha512", U64);

/// The key lengths a keyed hash takes through `KeyInit::new_from_slice`.
#[derive(Clone, Copy)]
enum KeyLengths {
    /// HMAC: any length (a key longer than the block is hashed first, RFC 2104).
    Any,
    /// CMAC: exactly `KeySize`.
    Exact,
}

/// `KeyInit::new_from_slice`: `InvalidLength` for a length the algorithm refuses, a panic
/// for a kernel without `AF_ALG` or the algorithm (no error of `KeyInit` says that).
fn keyed<T>(
    alg: &str,
    key: &[u8],
    size: usize,
    lengths: KeyLengths,
    open: fn(&[u8]) -> crate::Result<T>,
) -> Result<T, InvalidLength> {
    if matches!(lengths, KeyLengths::Exact) && key.len() != size {
        return Err(InvalidLength);
    }
    match open(key) {
        Ok(h) => Ok(h),
        Err(Error::InvalidKey) => Err(InvalidLength),
        Err(e) => panic!("kcapi {alg}: {e}"),
    }
}

/// The key paragraph of a keyed hash's docs.
macro_rules! key_doc {
    (Any) => {
        "`KeySize` is the block size (as for the `hmac` crate), but `new_from_slice` takes a \
         key of any length."
    };
    (Exact) => {
        "`new_from_slice` takes exactly `KeySize` bytes (`InvalidLength` otherwise)."
    };
}

macro_rules! kernel_mac {
    ($name:ident, $alg:literal, $size:ty, $key:ty, $lengths:ident, $key_len:literal) => {
        #[doc = concat!("The kernel's `", $alg, "` behind RustCrypto's `digest::Mac` and `KeyInit`.")]
        ///
        #[doc = key_doc!($lengths)]
        /// `KeyInit` has no error for a kernel without `AF_ALG` or without the algorithm, so
        /// `new`/`new_from_slice` panic then; [`Self::try_new`] reports it as an error, and
        /// its value goes wherever a `Mac` is expected:
        ///
        /// ```no_run
        /// use kcapi::Mac;
        ///
        /// fn tag<M: Mac>(mut m: M, data: &[u8]) -> Vec<u8> {
        ///     m.update(data);
        ///     m.finalize().into_bytes().to_vec()
        /// }
        ///
        #[doc = concat!("let key = [7u8; ", stringify!($key_len), "];")]
        #[doc = concat!("let mac = kcapi::", stringify!($name), "::try_new(&key)?;")]
        /// println!("{:02x?}", tag(mac, b"message"));
        /// # Ok::<(), kcapi::Error>(())
        /// ```
        ///
        /// `Clone` copies the running state, as for the unkeyed hashes.
        #[derive(Debug)]
        pub struct $name(Hash);

        impl $name {
            /// The keyed hash, or why the kernel cannot provide it ([`Error::InvalidKey`] for
            /// a key it refuses).
            pub fn try_new(key: &[u8]) -> crate::Result<Self> {
                Hash::with_key($alg, key).map(Self)
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                match Self::try_new(key) {
                    Ok(h) => h,
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }

            fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
                keyed(
                    $alg,
                    key,
                    <$key as digest::typenum::Unsigned>::USIZE,
                    KeyLengths::$lengths,
                    Self::try_new,
                )
            }
        }

        impl MacMarker for $name {}

        kernel_hash_common!($name, $alg, $size);
    };
}

kernel_mac!(HmacSha1, "hmac(sha1)", U20, U64, Any, 20);
kernel_mac!(HmacSha256, "hmac(sha256)", U32, U64, Any, 32);
kernel_mac!(HmacSha384, "hmac(sha384)", U48, U128, Any, 48);
kernel_mac!(HmacSha512, "hmac(sha512)", U64, U128, Any, 64);
kernel_mac!(CmacAes128, "cmac(aes)", U16, U16, Exact, 16);
kernel_mac!(CmacAes192, "cmac(aes)", U16, U24, Exact, 24);
kernel_mac!(CmacAes256, "cmac(aes)", U16, U32, Exact, 32);
