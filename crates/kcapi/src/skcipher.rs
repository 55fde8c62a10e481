//! Symmetric ciphers (`skcipher` type: `cbc(aes)`, `ctr(aes)`, `xts(aes)`, `ecb(aes)`...),
//! one-shot and streaming.

use std::os::fd::AsFd;

use crate::algorithms;
use crate::error::{Error, Result, from_io};
use crate::socket::{SPLICE_MIN, Socket};
use crate::sys::{self, Control, Op};

/// The unit of input per send/read round trip. The kernel queues sent data until it is read,
/// up to the socket's send buffer (about 208 KiB by default); beyond that a send blocks
/// forever in `af_alg_wait_for_wmem`. A round is the largest multiple of 64 KiB (a multiple of
/// every block size) that leaves two pages of the send buffer free, as for an AEAD message
/// (`af_alg_sendmsg`/`af_alg_sendpage` take input while a page is free): 192 KiB by default,
/// so 1 MiB takes 6 round trips rather than 16 (`cargo xtask vm-test --overhead` counts the
/// syscalls); never less than 64 KiB.
const CHUNK: usize = 64 * 1024;

/// A keyed symmetric cipher.
#[derive(Debug)]
pub struct Skcipher {
    sock: Socket,
    iv_len: Option<usize>,
    block: usize,
    chunk: usize,
    /// Input per round trip (see [`CHUNK`]).
    round: usize,
}

impl Skcipher {
    /// Binds `name` (e.g. `cbc(aes)`) and sets `key` before accepting the operation socket.
    pub fn new(name: &str, key: &[u8]) -> Result<Self> {
        let sock = Socket::open("skcipher", name, Some(key), None)?;
        // After bind the instance exists, so /proc/crypto describes it.
        let info = algorithms::lookup(name, &["skcipher"]);
        let iv_len = info.as_ref().and_then(|a| a.iv_size);
        let block = info.as_ref().and_then(|a| a.block_size).unwrap_or(1).max(1);
        let chunk = info.as_ref().and_then(|a| a.chunk_size).unwrap_or(block).max(block);
        let sndbuf = sys::send_buffer(sock.op.as_fd()).map_err(from_io)?;
        let round = (sndbuf.saturating_sub(2 * sys::page_size()) / CHUNK * CHUNK).max(CHUNK);
        Ok(Skcipher { sock, iv_len, block, chunk, round })
    }

    /// Another handle on the same transform and key (`accept` again).
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Skcipher { sock: self.sock.try_clone()?, ..*self })
    }

    /// The IV size, when `/proc/crypto` tells it.
    pub fn iv_size(&self) -> Option<usize> {
        self.iv_len
    }

    /// The block size (`/proc/crypto`; 1 when unknown). CBC and ECB inputs must be a
    /// multiple of it; CTR, XTS and CTS take other lengths.
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// Streaming chunks other than the last must be a multiple of this (the cipher's chunk
    /// size: 16 for `cbc(aes)` and `ctr(aes)`).
    pub fn chunk_size(&self) -> usize {
        self.chunk
    }

    fn check_iv(&self, iv: &[u8]) -> Result<()> {
        match self.iv_len {
            Some(n) if n != iv.len() => Err(Error::InvalidIv),
            _ => Ok(()),
        }
    }

    /// Encrypts `input` into `output` (same length).
    pub fn encrypt(&mut self, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
        self.check_iv(iv)?;
        self.crypt(
            Some(Control { op: Some(Op::Encrypt), iv: Some(iv), assoclen: None }),
            input,
            output,
            true,
            true,
        )
    }

    /// Decrypts `input` into `output` (same length).
    pub fn decrypt(&mut self, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
        self.check_iv(iv)?;
        self.crypt(
            Some(Control { op: Some(Op::Decrypt), iv: Some(iv), assoclen: None }),
            input,
            output,
            true,
            true,
        )
    }

    /// Encrypts `buf` in place.
    pub fn encrypt_in_place(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.check_iv(iv)?;
        self.crypt_in_place(
            Some(Control { op: Some(Op::Encrypt), iv: Some(iv), assoclen: None }),
            buf,
            true,
        )
    }

    /// Decrypts `buf` in place.
    pub fn decrypt_in_place(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.check_iv(iv)?;
        self.crypt_in_place(
            Some(Control { op: Some(Op::Decrypt), iv: Some(iv), assoclen: None }),
            buf,
            true,
        )
    }

    /// Encrypts through `sendmsg` copies only, never splice: for comparisons and benches.
    #[doc(hidden)]
    pub fn encrypt_copy(&mut self, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
        self.check_iv(iv)?;
        self.crypt(
            Some(Control { op: Some(Op::Encrypt), iv: Some(iv), assoclen: None }),
            input,
            output,
            true,
            false,
        )
    }

    /// A streaming encryption starting at `iv`: chunks go in with `MSG_MORE` and the kernel
    /// carries the chained IV (the last ciphertext block, the counter) from one to the next.
    pub fn encryptor(&mut self, iv: &[u8]) -> Result<Stream<'_>> {
        self.check_iv(iv)?;
        Ok(Stream { cipher: self, op: Op::Encrypt, iv: Some(iv.to_vec()) })
    }

    /// A streaming decryption starting at `iv` (see [`Skcipher::encryptor`]).
    pub fn decryptor(&mut self, iv: &[u8]) -> Result<Stream<'_>> {
        self.check_iv(iv)?;
        Ok(Stream { cipher: self, op: Op::Decrypt, iv: Some(iv.to_vec()) })
    }

    /// Sends `input` in rounds (see [`CHUNK`]), reading each round's output before the next
    /// send.
    /// `last`: the final send drops `MSG_MORE`. `zero_copy`: large inputs go through splice.
    fn crypt(
        &mut self,
        mut ctrl: Option<Control<'_>>,
        input: &[u8],
        output: &mut [u8],
        last: bool,
        zero_copy: bool,
    ) -> Result<()> {
        if input.len() != output.len() {
            return Err(Error::InvalidLength);
        }
        if input.is_empty() {
            // Nothing to process; a stream that goes on still needs its op and IV sent.
            if let (Some(c), false) = (ctrl.take(), last) {
                self.sock.send_all(c, &[], true)?;
            }
            return Ok(());
        }
        let splice = zero_copy && input.len() >= SPLICE_MIN;
        let round = self.round;
        let rounds = input.len().div_ceil(round);
        for (i, (inc, outc)) in input.chunks(round).zip(output.chunks_mut(round)).enumerate() {
            let more = !last || i + 1 < rounds;
            if splice {
                if let Some(c) = ctrl.take() {
                    self.sock.send_all(c, &[], true)?;
                }
                self.sock.splice_all(inc, more)?;
            } else {
                self.sock.send_all(ctrl.take().unwrap_or_default(), inc, more)?;
            }
            self.sock.read_exact(outc).map_err(invalid_length)?;
        }
        Ok(())
    }

    /// [`Self::crypt`] on one buffer: `sendmsg` copies each round in before it is overwritten.
    pub(crate) fn crypt_in_place(
        &mut self,
        mut ctrl: Option<Control<'_>>,
        buf: &mut [u8],
        last: bool,
    ) -> Result<()> {
        if buf.is_empty() {
            if let (Some(c), false) = (ctrl.take(), last) {
                self.sock.send_all(c, &[], true)?;
            }
            return Ok(());
        }
        let rounds = buf.len().div_ceil(self.round);
        for (i, chunk) in buf.chunks_mut(self.round).enumerate() {
            let more = !last || i + 1 < rounds;
            self.sock.send_all(ctrl.take().unwrap_or_default(), chunk, more)?;
            self.sock.read_exact(chunk).map_err(invalid_length)?;
        }
        Ok(())
    }
}

/// A streaming encryption or decryption ([`Skcipher::encryptor`], [`Skcipher::decryptor`]).
#[derive(Debug)]
pub struct Stream<'a> {
    cipher: &'a mut Skcipher,
    op: Op,
    /// The IV, until the first send carries it.
    iv: Option<Vec<u8>>,
}

impl Stream<'_> {
    /// Processes one chunk whose length is a multiple of [`Skcipher::chunk_size`].
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<()> {
        if !input.len().is_multiple_of(self.cipher.chunk) {
            return Err(Error::InvalidLength);
        }
        if input.is_empty() {
            return Ok(());
        }
        let iv = self.iv.take();
        let op = self.op;
        let ctrl = iv.as_deref().map(|iv| Control { op: Some(op), iv: Some(iv), assoclen: None });
        self.cipher.crypt(ctrl, input, output, false, true)
    }

    /// [`Stream::update`] in place.
    pub fn update_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        if !buf.len().is_multiple_of(self.cipher.chunk) {
            return Err(Error::InvalidLength);
        }
        if buf.is_empty() {
            return Ok(());
        }
        let iv = self.iv.take();
        let op = self.op;
        let ctrl = iv.as_deref().map(|iv| Control { op: Some(op), iv: Some(iv), assoclen: None });
        self.cipher.crypt_in_place(ctrl, buf, false)
    }

    /// Processes the last chunk (any length the cipher accepts: a block multiple for CBC,
    /// anything for CTR) and ends the stream.
    pub fn finish(self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let iv = self.iv;
        let op = self.op;
        let ctrl = iv.as_deref().map(|iv| Control { op: Some(op), iv: Some(iv), assoclen: None });
        if input.is_empty() && ctrl.is_none() {
            // End the MSG_MORE state so that the socket's next operation starts clean.
            return self.cipher.sock.send_all(Control::default(), &[], false);
        }
        self.cipher.crypt(ctrl, input, output, true, true)
    }
}

/// The kernel rejects a length the cipher cannot take (a partial block for CBC, less than a
/// block for XTS) with `EINVAL` when the operation runs, having consumed the input: the
/// socket stays usable. (Lengths are not checked up front: XTS and CTS take any length from
/// one block up, whatever the block size says.)
fn invalid_length(e: Error) -> Error {
    match e {
        Error::Io(ref io) if io.raw_os_error() == Some(libc::EINVAL) => Error::InvalidLength,
        other => other,
    }
}
