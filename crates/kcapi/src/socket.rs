//! A bound transform socket and one operation socket on it, with the I/O loops every type
//! shares: complete sends, exact reads, and the vmsplice/splice path through a private pipe.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use crate::error::{Error, Result, from_bind, from_io};
use crate::sys::{self, Control};

/// Inputs at least this long go through vmsplice+splice instead of `sendmsg` copies (below it
/// the two extra syscalls cost more than the copy saves; 64 KiB is one default pipe).
pub(crate) const SPLICE_MIN: usize = 64 * 1024;

/// A transform (`bind`, key) and an operation socket (`accept`).
#[derive(Debug)]
pub(crate) struct Socket {
    /// Shared by every handle accepted from it (the kernel keeps the transform, and its key,
    /// alive while an operation socket refers to it; this keeps the descriptor for more
    /// `accept`s).
    pub tfm: Arc<OwnedFd>,
    pub op: OwnedFd,
    /// The private pipe of the zero-copy path, made on first use.
    pipe: Option<(OwnedFd, OwnedFd)>,
    /// The pipe's capacity.
    pipe_len: usize,
}

impl Socket {
    /// `bind(kind, name)`, then the key and tag length on the transform, then `accept`: keys
    /// go in before accept, or the operation socket fails later with `ENOKEY`.
    pub fn open(
        kind: &str,
        name: &str,
        key: Option<&[u8]>,
        tag_len: Option<usize>,
    ) -> Result<Self> {
        let tfm = sys::bind(kind, name).map_err(|e| from_bind(e, name))?;
        if let Some(key) = key {
            sys::set_key(tfm.as_fd(), key).map_err(|e| match e.raw_os_error() {
                Some(libc::EINVAL) | Some(libc::ENOKEY) => Error::InvalidKey,
                _ => from_io(e),
            })?;
        }
        if let Some(n) = tag_len {
            sys::set_authsize(tfm.as_fd(), n).map_err(|e| match e.raw_os_error() {
                Some(libc::EINVAL) => Error::InvalidLength,
                _ => from_io(e),
            })?;
        }
        let op = sys::accept(tfm.as_fd()).map_err(from_io)?;
        Ok(Socket { tfm: Arc::new(tfm), op, pipe: None, pipe_len: 0 })
    }

    /// A second operation socket on the same transform (and key), in the initial state:
    /// `accept` on the transform socket.
    pub fn try_clone(&self) -> Result<Self> {
        let op = sys::accept(self.tfm.as_fd()).map_err(from_io)?;
        Ok(Socket { tfm: Arc::clone(&self.tfm), op, pipe: None, pipe_len: 0 })
    }

    /// A second operation socket that starts where this one is: `accept` on the *operation*
    /// socket. For a hash, the kernel exports the running state of the message being hashed
    /// and imports it into the new socket (`hash_accept` in crypto/algif_hash.c).
    pub fn try_clone_state(&self) -> Result<Self> {
        let op = sys::accept(self.op.as_fd()).map_err(from_io)?;
        Ok(Socket { tfm: Arc::clone(&self.tfm), op, pipe: None, pipe_len: 0 })
    }

    /// Sends all of `data` (the kernel copies it): `sendmsg` when `ctrl` has something to
    /// say, on the first call only, plain `send` otherwise; `more` keeps `MSG_MORE` on the
    /// last one too.
    pub fn send_all(&mut self, ctrl: Control<'_>, data: &[u8], more: bool) -> Result<()> {
        let bare = ctrl.op.is_none() && ctrl.iv.is_none() && ctrl.assoclen.is_none();
        let mut sent = if bare {
            sys::send(self.op.as_fd(), data, more)
        } else {
            sys::sendmsg(self.op.as_fd(), &ctrl, &[data], more)
        }
        .map_err(from_io)?;
        while sent < data.len() {
            sent += sys::send(self.op.as_fd(), &data[sent..], more).map_err(from_io)?;
        }
        Ok(())
    }

    /// Sends all of `data` through the private pipe (vmsplice, then splice into the socket):
    /// the kernel reads the caller's pages, no copy. `more` as in [`Self::send_all`].
    pub fn splice_all(&mut self, data: &[u8], more: bool) -> Result<()> {
        if self.pipe.is_none() {
            let (r, w) = sys::pipe().map_err(from_io)?;
            // 1 MiB is the default `pipe-max-size`; smaller is fine when refused.
            self.pipe_len = sys::set_pipe_size(w.as_fd(), 1 << 20)
                .or_else(|_| sys::set_pipe_size(w.as_fd(), 64 * 1024))
                .unwrap_or(64 * 1024);
            self.pipe = Some((r, w));
        }
        // Taken out while in use: on an error it is dropped, since it may still reference
        // `data`.
        let (r, w) = self.pipe.take().expect("made above");
        let mut done = 0;
        while done < data.len() {
            let end = data.len().min(done + self.pipe_len);
            let n = sys::vmsplice(w.as_fd(), &data[done..end]).map_err(from_io)?;
            // Drain the pipe before returning (or vmsplicing more): the pipe references `data`.
            let mut left = n;
            let flag_more = more || done + n < data.len();
            while left > 0 {
                let moved = sys::splice(r.as_fd(), None, self.op.as_fd(), left, flag_more)
                    .map_err(from_io)?;
                if moved == 0 {
                    return Err(Error::Io(std::io::Error::from(std::io::ErrorKind::WriteZero)));
                }
                left -= moved;
            }
            done += n;
        }
        self.pipe = Some((r, w));
        Ok(())
    }

    /// Reads exactly `buf.len()` bytes (the kernel may return less per call).
    pub fn read_exact(&mut self, buf: &mut [u8]) -> Result<()> {
        let mut got = 0;
        while got < buf.len() {
            let n = sys::read(self.op.as_fd(), &mut buf[got..]).map_err(from_io)?;
            if n == 0 {
                return Err(Error::Io(std::io::Error::from(std::io::ErrorKind::UnexpectedEof)));
            }
            got += n;
        }
        Ok(())
    }
}
