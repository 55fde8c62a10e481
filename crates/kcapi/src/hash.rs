//! Message digests and keyed hashes (`hash` type: `sha256`, `hmac(sha256)`, `cmac(aes)`...).

use std::fs::File;
use std::io::Read;
use std::os::fd::AsFd;

use crate::error::{Error, Result, from_io};
use crate::socket::Socket;
use crate::sys::{self, Control};

/// The largest digest the kernel's hash API produces (`HASH_MAX_DIGESTSIZE`).
const MAX_DIGEST: usize = 64;

/// Chunk of the chunked `send`s of [`Hash::update_copy`] (the kernel hashes each send at once,
/// so any size works).
const SEND_CHUNK: usize = 256 * 1024;

/// `sendfile` sends at most this much per call (Linux's `MAX_RW_COUNT`, rounded down).
const SENDFILE_MAX: u64 = 0x7fff_f000;

/// A kernel hash: `update` any number of times, then `finalize`.
#[derive(Debug)]
pub struct Hash {
    sock: Socket,
    out_len: usize,
    /// Data was sent with `MSG_MORE` since the last finalize.
    pending: bool,
}

impl Hash {
    /// An unkeyed hash such as `sha256`, `sha3-256`, `xxhash64`.
    ///
    /// A keyed algorithm (`hmac(...)`, `cmac(...)`) fails with [`Error::InvalidKey`]: use
    /// [`Hash::with_key`].
    pub fn new(name: &str) -> Result<Self> {
        Self::open(name, None)
    }

    /// A keyed hash such as `hmac(sha256)`. The key is set on the transform before the
    /// operation socket is accepted.
    pub fn with_key(name: &str, key: &[u8]) -> Result<Self> {
        Self::open(name, Some(key))
    }

    fn open(name: &str, key: Option<&[u8]>) -> Result<Self> {
        let sock = Socket::open("hash", name, key, None)?;
        let mut h = Hash { sock, out_len: 0, pending: false };
        // A read with nothing sent digests the empty message: it tells the digest size (the
        // kernel truncates the read to it) and surfaces ENOKEY now rather than later.
        let mut probe = [0u8; MAX_DIGEST];
        h.out_len = sys::read(h.sock.op.as_fd(), &mut probe).map_err(from_io)?;
        Ok(h)
    }

    /// Another handle on the same transform and key (`accept` again), for another thread.
    /// It starts with an empty message; [`Hash::try_clone_state`] copies the message fed so far.
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Hash { sock: self.sock.try_clone()?, out_len: self.out_len, pending: false })
    }

    /// Another handle that carries on from where this one is: the kernel copies the running
    /// state (the message fed since the last finalize) into a new operation socket. Both
    /// handles then go their own ways, as when a protocol forks a transcript hash.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), kcapi::Error> {
    /// let mut transcript = kcapi::Hash::new("sha256")?;
    /// transcript.update(b"client hello, server hello")?;
    /// let mut fork = transcript.try_clone_state()?;
    /// transcript.update(b", finished")?;
    /// let so_far = fork.finalize()?; // sha256("client hello, server hello")
    /// let all = transcript.finalize()?; // sha256("client hello, server hello, finished")
    /// # assert_ne!(so_far, all);
    /// # Ok(()) }
    /// ```
    pub fn try_clone_state(&self) -> Result<Self> {
        Ok(Hash {
            sock: self.sock.try_clone_state()?,
            out_len: self.out_len,
            pending: self.pending,
        })
    }

    /// The digest size in bytes.
    pub fn output_size(&self) -> usize {
        self.out_len
    }

    /// Feeds `data`, whatever its length, in one `send`: algif_hash does not copy it, it pins
    /// the caller's pages and hashes them in place, 64 KiB at a time inside the one syscall
    /// (`hash_sendmsg` and `af_alg_make_sg` in the kernel's crypto/). vmsplice+splice would
    /// pin them too, at two syscalls per pipe-full and a first send to start the operation:
    /// `cargo xtask vm-test --overhead` measured 6 syscalls per 1 MiB digest that way against
    /// 2 now (libkcapi: 2).
    pub fn update(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        self.sock.send_all(Control::default(), data, true)?;
        self.pending = true;
        Ok(())
    }

    /// Feeds `data` in `send`s of at most 256 KiB, for comparisons and benches.
    #[doc(hidden)]
    pub fn update_copy(&mut self, data: &[u8]) -> Result<()> {
        for chunk in data.chunks(SEND_CHUNK) {
            self.sock.send_all(Control::default(), chunk, true)?;
        }
        self.pending = true;
        Ok(())
    }

    /// Writes the digest of everything fed since the last finalize into `out`, whose length
    /// must be [`Hash::output_size`], and starts a new message.
    pub fn finalize_into(&mut self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.out_len {
            return Err(Error::InvalidLength);
        }
        self.pending = false;
        self.sock.read_exact(out)
    }

    /// The digest of everything fed since the last finalize; starts a new message.
    pub fn finalize(&mut self) -> Result<Vec<u8>> {
        let mut out = vec![0; self.out_len];
        self.finalize_into(&mut out)?;
        Ok(out)
    }

    /// Drops what was fed since the last finalize.
    pub fn reset(&mut self) -> Result<()> {
        if self.pending {
            self.finalize()?;
        }
        Ok(())
    }

    /// The digest of `data` alone (anything fed before is included: call on a fresh or
    /// finalized handle).
    pub fn digest(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.update(data)?;
        self.finalize()
    }

    /// The digest of the whole contents of `file` (from offset 0, whatever its position),
    /// appended to anything fed before. The file's pages go to the kernel without passing
    /// through user space: `sendfile`, or splice through the private pipe when data is
    /// already pending (sendfile ends its transfer without `MSG_MORE`, which finalizes).
    pub fn digest_file(&mut self, file: &File) -> Result<Vec<u8>> {
        let meta = file.metadata().map_err(from_io)?;
        if !meta.is_file() {
            let mut f = file;
            return self.digest_reader(&mut f);
        }
        let len = meta.len();
        if len == 0 {
            return self.finalize();
        }
        if !self.pending && len <= SENDFILE_MAX {
            let mut offset = 0i64;
            let sent = sys::sendfile(self.sock.op.as_fd(), file.as_fd(), &mut offset, len as usize)
                .map_err(from_io)?;
            if sent as u64 == len {
                return self.finalize();
            }
            // A short transfer (a signal, a file that shrank) finalized a partial digest:
            // drop it and start over on the splice path.
            self.finalize()?;
        }
        self.splice_file(file, len)?;
        self.finalize()
    }

    fn splice_file(&mut self, file: &File, len: u64) -> Result<()> {
        if !self.pending {
            self.sock.send_all(Control::default(), &[], true)?;
        }
        self.pending = true;
        let (r, w) = sys::pipe().map_err(from_io)?;
        let mut offset = 0i64;
        while (offset as u64) < len {
            let want = ((len - offset as u64) as usize).min(64 * 1024);
            let n = sys::splice(file.as_fd(), Some(&mut offset), w.as_fd(), want, true)
                .map_err(from_io)?;
            if n == 0 {
                break; // The file shrank.
            }
            let mut left = n;
            while left > 0 {
                left -= sys::splice(r.as_fd(), None, self.sock.op.as_fd(), left, true)
                    .map_err(from_io)?;
            }
        }
        Ok(())
    }

    /// The digest of everything `reader` yields, appended to anything fed before.
    pub fn digest_reader<R: Read + ?Sized>(&mut self, reader: &mut R) -> Result<Vec<u8>> {
        // What the reader yields may be secret (a key file): wiped when done.
        let mut buf = zeroize::Zeroizing::new(vec![0u8; 64 * 1024]);
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::Io(e)),
            };
            self.update(&buf[..n])?;
        }
        self.finalize()
    }
}
