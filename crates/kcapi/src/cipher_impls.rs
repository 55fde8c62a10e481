//! RustCrypto `cipher` 0.4 traits for the kernel's `cbc(aes)` (`KeyIvInit` +
//! `BlockEncryptMut`/`BlockDecryptMut`, as the `cbc` crate's `Encryptor`/`Decryptor`) and
//! `ctr(aes)` (`KeyIvInit` + `StreamCipher`, as the `ctr` crate's `Ctr128BE`).
//!
//! Each value is one kernel stream: the first send carries the operation and the IV, every
//! send keeps `MSG_MORE`, and the kernel chains the IV (CBC's last ciphertext block, CTR's
//! counter) from one call to the next, as the software types carry it in their state.

use cipher::consts::{U16, U24, U32, U256};
use cipher::inout::{InOut, InOutBuf};
use cipher::{
    Block, BlockBackend, BlockClosure, BlockDecryptMut, BlockEncryptMut, BlockSizeUser,
    InvalidLength, Iv, IvSizeUser, Key, KeyIvInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
    StreamCipher, StreamCipherError,
};
use zeroize::Zeroizing;

use crate::skcipher::Skcipher;
use crate::sys::{Control, Op};
use crate::{Error, Result};

/// One streaming operation on a kernel skcipher: the IV goes with the first send.
struct KernelStream {
    state: StreamState,
    /// Whole blocks are gathered here for one round trip (the `cipher` traits hand them over
    /// as separate arrays); wiped on drop.
    scratch: Zeroizing<Vec<u8>>,
}

#[derive(Debug)]
struct StreamState {
    cipher: Skcipher,
    op: Op,
    /// The IV, until the first send carries it.
    iv: Option<[u8; 16]>,
    alg: &'static str,
}

impl StreamState {
    /// Processes `buf` (a multiple of 16 bytes) in place, keeping the stream open. The traits
    /// have no error path for a failing syscall: it panics with the algorithm and the error.
    fn process(&mut self, buf: &mut [u8]) {
        if buf.is_empty() {
            return;
        }
        let iv = self.iv.take();
        let op = self.op;
        let ctrl = iv.as_ref().map(|iv| Control { op: Some(op), iv: Some(iv), assoclen: None });
        if let Err(e) = self.cipher.crypt_in_place(ctrl, buf, false) {
            panic!("kcapi {}: {e}", self.alg);
        }
    }
}

/// Without the scratch buffer's contents (plaintext or ciphertext).
impl std::fmt::Debug for KernelStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelStream").field("state", &self.state).finish_non_exhaustive()
    }
}

impl KernelStream {
    fn new(alg: &'static str, key: &[u8], iv: &[u8], op: Op) -> Result<Self> {
        let iv: [u8; 16] = iv.try_into().map_err(|_| Error::InvalidIv)?;
        let cipher = Skcipher::new(alg, key)?;
        let scratch = Zeroizing::new(vec![0u8; PAR_BYTES]);
        Ok(KernelStream { state: StreamState { cipher, op, iv: Some(iv), alg }, scratch })
    }

    fn process(&mut self, buf: &mut [u8]) {
        self.state.process(buf);
    }

    /// Copies `blocks` into the scratch buffer; returns their length in bytes.
    fn load(&mut self, blocks: &[Block<Backend<'_>>]) -> usize {
        for (dst, b) in self.scratch.chunks_exact_mut(16).zip(blocks) {
            dst.copy_from_slice(b);
        }
        blocks.len() * 16
    }

    /// Processes the first `n` bytes of the scratch buffer.
    fn process_scratch(&mut self, n: usize) {
        self.state.process(&mut self.scratch[..n]);
    }

    /// Copies the scratch buffer out into `blocks`.
    fn store(&self, blocks: &mut [Block<Backend<'_>>]) {
        for (b, src) in blocks.iter_mut().zip(self.scratch.chunks_exact(16)) {
            b.copy_from_slice(src);
        }
    }
}

/// Blocks per kernel round trip in the `cipher` block traits (4 KiB: one page per send).
type ParSize = U256;
const PAR_BYTES: usize = 256 * 16;

/// The `cipher` backend: whole blocks through the kernel stream, 256 per round trip.
struct Backend<'a>(&'a mut KernelStream);

impl BlockSizeUser for Backend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Backend<'_> {
    type ParBlocksSize = ParSize;
}

impl BlockBackend for Backend<'_> {
    fn proc_block(&mut self, mut block: InOut<'_, '_, Block<Self>>) {
        let n = self.0.load(std::slice::from_ref(block.get_in()));
        self.0.process_scratch(n);
        self.0.store(std::slice::from_mut(block.get_out()));
    }

    fn proc_par_blocks(&mut self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let n = self.0.load(blocks.get_in());
        self.0.process_scratch(n);
        self.0.store(blocks.get_out());
    }

    fn proc_tail_blocks(&mut self, mut blocks: InOutBuf<'_, '_, Block<Self>>) {
        let n = self.0.load(blocks.get_in());
        self.0.process_scratch(n);
        self.0.store(blocks.get_out());
    }
}

/// `KeyIvInit::new_from_slices`: `InvalidLength` for a key or IV of the wrong length, a
/// panic for a kernel without `AF_ALG` or the algorithm (no error of the trait says that).
fn from_slices<T>(
    alg: &str,
    key: &[u8],
    iv: &[u8],
    key_len: usize,
    open: fn(&[u8], &[u8]) -> Result<T>,
) -> std::result::Result<T, InvalidLength> {
    if key.len() != key_len || iv.len() != 16 {
        return Err(InvalidLength);
    }
    match open(key, iv) {
        Ok(c) => Ok(c),
        Err(Error::InvalidKey | Error::InvalidIv) => Err(InvalidLength),
        Err(e) => panic!("kcapi {alg}: {e}"),
    }
}

/// `KeySizeUser`, `IvSizeUser` and `KeyIvInit` for a type around a [`KernelStream`].
macro_rules! key_iv_init {
    ($name:ident, $alg:literal, $key:ty, $op:expr) => {
        impl $name {
            /// The cipher with `key` and `iv`, or why the kernel cannot provide it
            /// ([`Error::InvalidKey`], [`Error::InvalidIv`], [`Error::NotFound`]...).
            pub fn try_new(key: &[u8], iv: &[u8]) -> Result<Self> {
                KernelStream::new($alg, key, iv, $op).map(Self::from_stream)
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl IvSizeUser for $name {
            type IvSize = U16;
        }

        impl KeyIvInit for $name {
            fn new(key: &Key<Self>, iv: &Iv<Self>) -> Self {
                match Self::try_new(key, iv) {
                    Ok(c) => c,
                    Err(e) => panic!("kcapi {}: {e}", $alg),
                }
            }

            fn new_from_slices(key: &[u8], iv: &[u8]) -> std::result::Result<Self, InvalidLength> {
                from_slices(
                    $alg,
                    key,
                    iv,
                    <$key as cipher::typenum::Unsigned>::USIZE,
                    Self::try_new,
                )
            }
        }
    };
}

macro_rules! kernel_cbc {
    ($enc:ident, $dec:ident, $key:ty, $bits:literal) => {
        #[doc = concat!("The kernel's `cbc(aes)` with a ", $bits, "-bit key, encrypting, behind RustCrypto's")]
        /// `cipher` traits (`KeyIvInit`, `BlockEncryptMut`): a drop-in for the `cbc` crate's
        /// `Encryptor`. Calls chain (the kernel carries the last ciphertext block as the next
        /// IV); up to 256 blocks go per round trip to the kernel.
        ///
        /// `KeyIvInit::new` panics when the kernel has no `AF_ALG` or no `cbc(aes)`, and the
        /// block methods panic when a syscall fails (the traits have no error path);
        /// [`Self::try_new`] reports the first as an error.
        ///
        /// ```no_run
        /// use kcapi::{BlockEncryptMut, cipher::block_padding::NoPadding};
        ///
        #[doc = concat!("let enc = kcapi::", stringify!($enc), "::try_new(&[1; ", $bits, " / 8], &[2; 16])?;")]
        /// let ct = enc.encrypt_padded_vec_mut::<NoPadding>(&[3u8; 64]);
        /// # let _ = ct;
        /// # Ok::<(), kcapi::Error>(())
        /// ```
        #[derive(Debug)]
        pub struct $enc(KernelStream);

        impl $enc {
            fn from_stream(s: KernelStream) -> Self {
                Self(s)
            }
        }

        key_iv_init!($enc, "cbc(aes)", $key, Op::Encrypt);

        impl BlockSizeUser for $enc {
            type BlockSize = U16;
        }

        impl BlockEncryptMut for $enc {
            fn encrypt_with_backend_mut(&mut self, f: impl BlockClosure<BlockSize = U16>) {
                f.call(&mut Backend(&mut self.0));
            }
        }

        #[doc = concat!("The kernel's `cbc(aes)` with a ", $bits, "-bit key, decrypting, behind RustCrypto's")]
        /// `cipher` traits (`KeyIvInit`, `BlockDecryptMut`): a drop-in for the `cbc` crate's
        #[doc = concat!("`Decryptor`; see [`", stringify!($enc), "`].")]
        #[derive(Debug)]
        pub struct $dec(KernelStream);

        impl $dec {
            fn from_stream(s: KernelStream) -> Self {
                Self(s)
            }
        }

        key_iv_init!($dec, "cbc(aes)", $key, Op::Decrypt);

        impl BlockSizeUser for $dec {
            type BlockSize = U16;
        }

        impl BlockDecryptMut for $dec {
            fn decrypt_with_backend_mut(&mut self, f: impl BlockClosure<BlockSize = U16>) {
                f.call(&mut Backend(&mut self.0));
            }
        }
    };
}

kernel_cbc!(Aes128CbcEnc, Aes128CbcDec, U16, 128);
kernel_cbc!(Aes192CbcEnc, Aes192CbcDec, U24, 192);
kernel_cbc!(Aes256CbcEnc, Aes256CbcDec, U32, 256);

macro_rules! kernel_ctr {
    ($name:ident, $key:ty, $bits:literal) => {
        #[doc = concat!("The kernel's `ctr(aes)` with a ", $bits, "-bit key behind RustCrypto's `cipher`")]
        /// traits (`KeyIvInit`, `StreamCipher`): a drop-in for the `ctr` crate's
        /// `Ctr128BE<Aes>` (128-bit big-endian counter). Whole blocks go to the kernel; a
        /// partial block at the end of a call takes a keystream block, whose unused bytes
        /// serve the next call.
        ///
        /// `KeyIvInit::new` panics when the kernel has no `AF_ALG` or no `ctr(aes)`, and
        /// `apply_keystream` panics when a syscall fails (the trait's only error is the end
        /// of the keystream); [`Self::try_new`] reports the first as an error.
        ///
        /// ```no_run
        /// use kcapi::StreamCipher;
        ///
        #[doc = concat!("let mut ctr = kcapi::", stringify!($name), "::try_new(&[1; ", $bits, " / 8], &[2; 16])?;")]
        /// let mut buf = *b"any length at all";
        /// ctr.apply_keystream(&mut buf);
        /// # Ok::<(), kcapi::Error>(())
        /// ```
        pub struct $name {
            stream: KernelStream,
            /// The last keystream block and how much of it is used (16: none left).
            keystream: Zeroizing<[u8; 16]>,
            used: usize,
        }

        impl $name {
            fn from_stream(stream: KernelStream) -> Self {
                Self { stream, keystream: Zeroizing::new([0; 16]), used: 16 }
            }
        }

        /// Without the keystream.
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("stream", &self.stream).finish_non_exhaustive()
            }
        }

        key_iv_init!($name, "ctr(aes)", $key, Op::Encrypt);

        impl StreamCipher for $name {
            fn try_apply_keystream_inout(
                &mut self,
                mut buf: InOutBuf<'_, '_, u8>,
            ) -> std::result::Result<(), StreamCipherError> {
                if buf.get_in().as_ptr() != buf.get_out().as_ptr() {
                    // Separate buffers: the kernel works in place on the output.
                    let input = Zeroizing::new(buf.get_in().to_vec());
                    buf.get_out().copy_from_slice(&input);
                }
                ctr_apply(&mut self.stream, &mut self.keystream, &mut self.used, buf.get_out());
                Ok(())
            }
        }
    };
}

/// XORs `data` with the keystream: what is left of the last block, then whole blocks
/// through the kernel (it adds the keystream itself), then a fresh keystream block for a
/// partial tail.
fn ctr_apply(
    stream: &mut KernelStream,
    keystream: &mut [u8; 16],
    used: &mut usize,
    data: &mut [u8],
) {
    let head = (16 - *used).min(data.len());
    let (first, rest) = data.split_at_mut(head);
    for (d, k) in first.iter_mut().zip(&keystream[*used..]) {
        *d ^= k;
    }
    *used += head;
    let whole = rest.len() / 16 * 16;
    let (body, tail) = rest.split_at_mut(whole);
    stream.process(body);
    if !tail.is_empty() {
        *keystream = [0; 16];
        stream.process(keystream);
        for (d, k) in tail.iter_mut().zip(keystream.iter()) {
            *d ^= k;
        }
        *used = tail.len();
    }
}

kernel_ctr!(Aes128Ctr, U16, 128);
kernel_ctr!(Aes192Ctr, U24, 192);
kernel_ctr!(Aes256Ctr, U32, 256);
