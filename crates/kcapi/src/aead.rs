//! Authenticated encryption (`aead` type: `gcm(aes)`, `ccm(aes)`, `rfc4106(gcm(aes))`,
//! `rfc7539(chacha20,poly1305)`).
//!
//! Input always goes in through `sendmsg` copies, never splice: splicing page-cache pages
//! into algif_aead's in-place path is what CVE-2026-31431 ("Copy Fail") abused.

use std::os::fd::AsFd;

use zeroize::{Zeroize, Zeroizing};

use crate::algorithms;
use crate::error::{Error, Result, from_io};
use crate::socket::Socket;
use crate::sys::{self, Control, Op};

/// A keyed AEAD with a fixed tag length.
#[derive(Debug)]
pub struct Aead {
    sock: Socket,
    tag_len: usize,
    iv_len: Option<usize>,
    max_len: usize,
}

impl Aead {
    /// Binds `name`, sets `key` and the tag length on the transform, then accepts.
    pub fn new(name: &str, key: &[u8], tag_len: usize) -> Result<Self> {
        let sock = Socket::open("aead", name, Some(key), Some(tag_len))?;
        let iv_len = algorithms::lookup(name, &["aead"]).and_then(|a| a.iv_size);
        let sndbuf = sys::send_buffer(sock.op.as_fd()).map_err(from_io)?;
        // af_alg_sendmsg takes input while at least a page of the send buffer is free and
        // blocks otherwise (af_alg_writable): a message of at most `sndbuf - page` never
        // blocks; two pages of headroom.
        let max_len = sndbuf.saturating_sub(2 * sys::page_size());
        Ok(Aead { sock, tag_len, iv_len, max_len })
    }

    /// Another handle on the same transform, key and tag length (`accept` again).
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Aead { sock: self.sock.try_clone()?, ..*self })
    }

    /// The tag length.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The nonce size, when `/proc/crypto` tells it.
    pub fn nonce_size(&self) -> Option<usize> {
        self.iv_len
    }

    /// The largest `aad + message + tag` one operation takes: the kernel needs the whole
    /// message queued in the socket before it can process it, so it must fit the send buffer.
    pub fn max_message_len(&self) -> usize {
        self.max_len
    }

    fn check(&self, nonce: &[u8], total: usize) -> Result<()> {
        if self.iv_len.is_some_and(|n| n != nonce.len()) {
            return Err(Error::InvalidIv);
        }
        if total > self.max_len {
            return Err(Error::InvalidLength);
        }
        Ok(())
    }

    /// Encrypts and authenticates: returns `ciphertext || tag`.
    pub fn seal(&mut self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; plaintext.len() + self.tag_len];
        self.seal_into(nonce, aad, plaintext, &mut out)?;
        Ok(out)
    }

    /// [`Aead::seal`] into `out`, whose length must be `plaintext.len() + tag_len`.
    pub fn seal_into(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if out.len() != plaintext.len() + self.tag_len {
            return Err(Error::InvalidLength);
        }
        self.check(nonce, aad.len() + out.len())?;
        let assoclen = u32::try_from(aad.len()).map_err(|_| Error::InvalidLength)?;
        let ctrl = Control { op: Some(Op::Encrypt), iv: Some(nonce), assoclen: Some(assoclen) };
        self.send(ctrl, aad, plaintext)?;
        // The kernel writes `aad || ciphertext || tag`: exactly that much, or it truncates or
        // blocks.
        self.read_with_aad(aad.len(), out)
    }

    /// Encrypts `buf` in place and appends the tag.
    pub fn seal_in_place(&mut self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<()> {
        let n = buf.len();
        buf.resize(n + self.tag_len, 0);
        // The plaintext's copy is wiped when it goes (the caller's buffer now holds ciphertext).
        let plain = Zeroizing::new(buf[..n].to_vec());
        let r = self.seal_into(nonce, aad, &plain, buf);
        if r.is_err() {
            buf.truncate(n);
        }
        r
    }

    /// Checks and decrypts `ciphertext || tag`: the plaintext, or
    /// [`Error::AuthenticationFailed`] (the handle stays usable).
    pub fn open(&mut self, nonce: &[u8], aad: &[u8], ciphertext: &[u8]) -> Result<Vec<u8>> {
        let n = ciphertext.len().checked_sub(self.tag_len).ok_or(Error::InvalidLength)?;
        let mut out = vec![0; n];
        if let Err(e) = self.open_into(nonce, aad, ciphertext, &mut out) {
            out.zeroize();
            return Err(e);
        }
        Ok(out)
    }

    /// [`Aead::open`] into `out`, whose length must be `ciphertext.len() - tag_len`. On
    /// failure `out` holds no plaintext (it is zeroed).
    pub fn open_into(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        let n = ciphertext.len().checked_sub(self.tag_len).ok_or(Error::InvalidLength)?;
        if out.len() != n {
            return Err(Error::InvalidLength);
        }
        self.check(nonce, aad.len() + ciphertext.len())?;
        if aad.is_empty() && n == 0 {
            // Nothing to read back: the kernel's aead_recvmsg returns at once for an empty
            // read and leaves the tag queued. A lone tag is checked by recomputing it instead
            // (encryption is deterministic for a key and nonce).
            let tag = self.seal(nonce, aad, &[])?;
            let diff = tag.iter().zip(ciphertext).fold(0u8, |d, (a, b)| d | (a ^ b));
            return if std::hint::black_box(diff) == 0 {
                Ok(())
            } else {
                Err(Error::AuthenticationFailed)
            };
        }
        let assoclen = u32::try_from(aad.len()).map_err(|_| Error::InvalidLength)?;
        let ctrl = Control { op: Some(Op::Decrypt), iv: Some(nonce), assoclen: Some(assoclen) };
        self.send(ctrl, aad, ciphertext)?;
        let r = self.read_with_aad(aad.len(), out);
        if r.is_err() {
            out.zeroize();
        }
        r
    }

    /// Decrypts `ciphertext || tag` in place, leaving the plaintext in `buf`.
    pub fn open_in_place(&mut self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<()> {
        let n = buf.len().checked_sub(self.tag_len).ok_or(Error::InvalidLength)?;
        let ct = buf.clone();
        self.open_into(nonce, aad, &ct, &mut buf[..n])?;
        buf.truncate(n);
        Ok(())
    }

    /// One `sendmsg` of `aad || data` (no `MSG_MORE`: the operation is complete).
    fn send(&mut self, ctrl: Control<'_>, aad: &[u8], data: &[u8]) -> Result<()> {
        let total = aad.len() + data.len();
        let mut sent =
            sys::sendmsg(self.sock.op.as_fd(), &ctrl, &[aad, data], false).map_err(from_io)?;
        // The whole message fits the send buffer (checked), so this loop is for the kernel's
        // right to take less per call.
        while sent < total {
            let (a, d) = if sent < aad.len() {
                (&aad[sent..], data)
            } else {
                (&[][..], &data[sent - aad.len()..])
            };
            sent += sys::sendmsg(self.sock.op.as_fd(), &Control::default(), &[a, d], false)
                .map_err(from_io)?;
        }
        Ok(())
    }

    /// Reads `aad_len` bytes of echoed AAD (discarded) and then exactly `out.len()` bytes.
    fn read_with_aad(&mut self, aad_len: usize, out: &mut [u8]) -> Result<()> {
        let mut aad_sink = vec![0u8; aad_len];
        let mut got = 0;
        let total = aad_len + out.len();
        while got < total {
            let n = if got < aad_len {
                let (a, o) = (&mut aad_sink[got..], &mut out[..]);
                sys::readv(self.sock.op.as_fd(), &mut [a, o])
            } else {
                sys::read(self.sock.op.as_fd(), &mut out[got - aad_len..])
            }
            .map_err(from_io)?;
            if n == 0 {
                return Err(Error::Io(std::io::Error::from(std::io::ErrorKind::UnexpectedEof)));
            }
            got += n;
        }
        Ok(())
    }
}
