//! RustCrypto `digest` 0.10 traits for the kernel's fixed-size hashes.

use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};

use crate::Hash;

macro_rules! kernel_digest {
    ($name:ident, $alg:literal, $size:ty) => {
        #[doc = concat!("The kernel's `", $alg, "` behind RustCrypto's `digest` traits.")]
        ///
        /// `Default` (which `digest::Digest` needs) panics when the kernel has no `AF_ALG`
        /// or no such hash; [`Self::try_new`] reports that as an error instead. A failing
        /// syscall in the middle of hashing also panics: the traits have no error path.
        #[derive(Debug)]
        pub struct $name(Hash);

        impl $name {
            /// The hash, or why the kernel cannot provide it.
            pub fn try_new() -> crate::Result<Self> {
                Hash::new($alg).map(Self)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                match Self::try_new() {
                    Ok(h) => h,
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }
        }

        impl Clone for $name {
            /// A new, empty message on the same transform (the kernel cannot copy a
            /// running hash state through this API).
            fn clone(&self) -> Self {
                match self.0.try_clone() {
                    Ok(h) => Self(h),
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }
        }

        impl HashMarker for $name {}

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

kernel_digest!(Sha1, "sha1", digest::consts::U20);
kernel_digest!(Sha256, "sha256", digest::consts::U32);
kernel_digest!(Sha384, "sha384", digest::consts::U48);
kernel_digest!(Sha512, "sha512", digest::consts::U64);
