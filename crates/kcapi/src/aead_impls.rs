//! RustCrypto `aead` 0.5 traits (`KeyInit`, `AeadInPlace`) for the kernel's AEADs with a
//! 96-bit nonce and a 128-bit tag.

use std::sync::Mutex;

use aead::consts::{U0, U12, U16, U32};
use aead::{AeadCore, AeadInPlace, Key, KeyInit, KeySizeUser, Nonce, Tag};

use crate::Aead;

macro_rules! kernel_aead {
    ($name:ident, $alg:literal, $key:ty) => {
        #[doc = concat!("The kernel's `", $alg, "` behind RustCrypto's `aead` traits.")]
        ///
        /// The traits take `&self`, so the operation socket sits behind a mutex. `KeyInit`
        /// cannot fail and panics when the kernel lacks `AF_ALG` or the algorithm;
        /// [`Self::try_new`] reports that as an error instead.
        #[derive(Debug)]
        pub struct $name(Mutex<Aead>);

        impl $name {
            /// The AEAD keyed with `key`, or why the kernel cannot provide it.
            pub fn try_new(key: &[u8]) -> crate::Result<Self> {
                Aead::new($alg, key, 16).map(|a| Self(Mutex::new(a)))
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                match Self::try_new(key) {
                    Ok(a) => a,
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            type CiphertextOverhead = U0;
        }

        impl AeadInPlace for $name {
            fn encrypt_in_place_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: &mut [u8],
            ) -> aead::Result<Tag<Self>> {
                let mut a = self.0.lock().unwrap_or_else(|p| p.into_inner());
                let sealed = a.seal(nonce, associated_data, buffer).map_err(|_| aead::Error)?;
                let (ct, tag) = sealed.split_at(buffer.len());
                buffer.copy_from_slice(ct);
                Ok(Tag::<Self>::clone_from_slice(tag))
            }

            fn decrypt_in_place_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: &mut [u8],
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                let mut a = self.0.lock().unwrap_or_else(|p| p.into_inner());
                let input = [&buffer[..], tag.as_slice()].concat();
                a.open_into(nonce, associated_data, &input, buffer).map_err(|_| aead::Error)
            }
        }
    };
}

kernel_aead!(Aes128Gcm, "gcm(aes)", aead::consts::U16);
kernel_aead!(Aes256Gcm, "gcm(aes)", U32);
kernel_aead!(ChaCha20Poly1305, "rfc7539(chacha20,poly1305)", U32);
