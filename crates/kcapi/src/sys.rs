//! The syscall layer: every `unsafe` block of the crate lives here. Everything above it sees
//! `OwnedFd`s, slices and `io::Result`s.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// `ALG_OP_ENCRYPT` / `ALG_OP_DECRYPT` (linux/if_alg.h).
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Encrypt,
    Decrypt,
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 { Err(io::Error::last_os_error()) } else { Ok(ret) }
}

fn check_size(ret: libc::ssize_t) -> io::Result<usize> {
    if ret < 0 { Err(io::Error::last_os_error()) } else { Ok(ret as usize) }
}

/// Retries `f` while it fails with `EINTR`.
fn retry<T>(mut f: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// `socket(AF_ALG, SOCK_SEQPACKET)` bound to `(kind, name)`: the transform socket.
pub fn bind(kind: &str, name: &str) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall with constant arguments; the result is checked.
    let fd =
        check(unsafe { libc::socket(libc::AF_ALG, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: `fd` was just returned by socket() and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: sockaddr_alg is plain old data; all-zero is a valid value.
    let mut addr: libc::sockaddr_alg = unsafe { std::mem::zeroed() };
    addr.salg_family = libc::AF_ALG as libc::sa_family_t;
    // Both fields are NUL-terminated C strings in fixed arrays (linux/if_alg.h).
    if kind.len() >= addr.salg_type.len()
        || name.len() >= addr.salg_name.len()
        || name.contains('\0')
    {
        return Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG));
    }
    addr.salg_type[..kind.len()].copy_from_slice(kind.as_bytes());
    addr.salg_name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: `addr` is a valid sockaddr_alg and the length passed is its size.
    check(unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&raw const addr).cast::<libc::sockaddr>(),
            std::mem::size_of::<libc::sockaddr_alg>() as libc::socklen_t,
        )
    })?;
    Ok(fd)
}

/// `setsockopt(SOL_ALG, ALG_SET_KEY)` on a transform socket (also seeds an rng).
pub fn set_key(tfm: BorrowedFd<'_>, key: &[u8]) -> io::Result<()> {
    let ptr = if key.is_empty() { std::ptr::null() } else { key.as_ptr().cast() };
    // SAFETY: `ptr` points to `key.len()` readable bytes (or is null with length 0).
    check(unsafe {
        libc::setsockopt(
            tfm.as_raw_fd(),
            libc::SOL_ALG,
            libc::ALG_SET_KEY,
            ptr,
            key.len() as libc::socklen_t,
        )
    })?;
    Ok(())
}

/// `setsockopt(SOL_ALG, ALG_SET_AEAD_AUTHSIZE)`: the tag length is the option's length.
pub fn set_authsize(tfm: BorrowedFd<'_>, tag_len: usize) -> io::Result<()> {
    // SAFETY: the kernel reads no memory for this option, only the length.
    check(unsafe {
        libc::setsockopt(
            tfm.as_raw_fd(),
            libc::SOL_ALG,
            libc::ALG_SET_AEAD_AUTHSIZE,
            std::ptr::null(),
            tag_len as libc::socklen_t,
        )
    })?;
    Ok(())
}

/// `accept` on a transform socket: a new operation socket sharing the transform (and its key).
pub fn accept(tfm: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let fd = retry(|| {
        // SAFETY: null address pointers are allowed by accept4.
        check(unsafe {
            libc::accept4(
                tfm.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        })
    })?;
    // SAFETY: `fd` was just returned by accept4 and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `getsockopt(SOL_SOCKET, SO_SNDBUF)`.
pub fn send_buffer(fd: BorrowedFd<'_>) -> io::Result<usize> {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` and `len` are valid for writes and `len` is `value`'s size.
    check(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&raw mut value).cast(),
            &mut len,
        )
    })?;
    Ok(value.max(0) as usize)
}

/// Control data for one `sendmsg` on an operation socket.
#[derive(Default)]
pub struct Control<'a> {
    pub op: Option<Op>,
    pub iv: Option<&'a [u8]>,
    pub assoclen: Option<u32>,
}

/// `CMSG_ALIGN` of glibc and musl: a multiple of `size_t`.
const fn cmsg_align(len: usize) -> usize {
    (len + std::mem::size_of::<usize>() - 1) & !(std::mem::size_of::<usize>() - 1)
}

/// Room for the control messages of one `sendmsg`, as `u64`s so that it is aligned for
/// `cmsghdr`: op (24 bytes on 64-bit), IV (16 + 4 + IV, rounded up) and AAD length (24) with
/// IVs up to 128 bytes, far beyond any cipher's (the kernel's `MAX_IVLEN` is 32).
const CONTROL_WORDS: usize = 32;

impl Control<'_> {
    /// The encoded control messages (`cmsghdr` + data each, `CMSG_SPACE` apart) and their
    /// length in bytes, without allocating (this runs on every operation).
    fn encode(&self) -> io::Result<([u64; CONTROL_WORDS], usize)> {
        let mut buf = [0u64; CONTROL_WORDS];
        let hdr = cmsg_align(std::mem::size_of::<libc::cmsghdr>());
        let mut off = 0;
        let mut put = |kind: libc::c_int, parts: &[&[u8]]| -> io::Result<()> {
            let len: usize = parts.iter().map(|p| p.len()).sum();
            if off + hdr + cmsg_align(len) > CONTROL_WORDS * 8 {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            // SAFETY: cmsghdr is plain old data; all-zero is valid (musl has padding fields).
            let mut h: libc::cmsghdr = unsafe { std::mem::zeroed() };
            h.cmsg_len = (hdr + len) as _;
            h.cmsg_level = libc::SOL_ALG;
            h.cmsg_type = kind;
            let bytes = buf.as_mut_ptr().cast::<u8>();
            // SAFETY: `off + hdr + len` is within the buffer (checked above); unaligned
            // writes need no alignment.
            unsafe { std::ptr::write_unaligned(bytes.add(off).cast::<libc::cmsghdr>(), h) };
            let mut at = off + hdr;
            for p in parts {
                // SAFETY: within the buffer (checked above); `p` does not overlap it.
                unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), bytes.add(at), p.len()) };
                at += p.len();
            }
            off += hdr + cmsg_align(len);
            Ok(())
        };
        if let Some(op) = self.op {
            let v = match op {
                Op::Encrypt => libc::ALG_OP_ENCRYPT,
                Op::Decrypt => libc::ALG_OP_DECRYPT,
            } as u32;
            put(libc::ALG_SET_OP, &[&v.to_ne_bytes()])?;
        }
        if let Some(iv) = self.iv {
            // struct af_alg_iv { __u32 ivlen; __u8 iv[]; }
            put(libc::ALG_SET_IV, &[&(iv.len() as u32).to_ne_bytes(), iv])?;
        }
        if let Some(n) = self.assoclen {
            put(libc::ALG_SET_AEAD_ASSOCLEN, &[&n.to_ne_bytes()])?;
        }
        Ok((buf, off))
    }
}

/// `sendmsg` of `data` with `ctrl`; `more` sets `MSG_MORE`. Returns the bytes the kernel took.
pub fn sendmsg(
    fd: BorrowedFd<'_>,
    ctrl: &Control<'_>,
    data: &[&[u8]],
    more: bool,
) -> io::Result<usize> {
    let (cbuf, clen) = ctrl.encode()?;
    let mut iov = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; 2];
    if data.len() > iov.len() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    for (v, d) in iov.iter_mut().zip(data) {
        *v = libc::iovec { iov_base: d.as_ptr() as *mut libc::c_void, iov_len: d.len() };
    }
    let iov = &iov[..data.len()];
    // SAFETY: msghdr is plain old data; all-zero is valid (it has padding fields on some libcs).
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = iov.len() as _;
    if clen > 0 {
        msg.msg_control = cbuf.as_ptr() as *mut libc::c_void;
        msg.msg_controllen = clen as _;
    }
    let flags = if more { libc::MSG_MORE } else { 0 };
    // SAFETY: `msg` points at `iov` (describing live, readable slices) and at `cbuf` (valid
    // control messages); the kernel only reads them.
    retry(|| check_size(unsafe { libc::sendmsg(fd.as_raw_fd(), &msg, flags) }))
}

/// `send` of `data` with no control message: the kernel's shorter path for the data-only
/// sends of hashes and of later cipher rounds (no `msghdr`/iovec array to copy in).
pub fn send(fd: BorrowedFd<'_>, data: &[u8], more: bool) -> io::Result<usize> {
    let flags = if more { libc::MSG_MORE } else { 0 };
    retry(|| {
        // SAFETY: `data` is valid for `data.len()` bytes of reads; the kernel only reads it.
        let n = unsafe { libc::send(fd.as_raw_fd(), data.as_ptr().cast(), data.len(), flags) };
        check_size(n)
    })
}

/// One `read` into `buf`.
pub fn read(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes of writes.
    retry(|| check_size(unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) }))
}

/// `pipe2(O_CLOEXEC)`: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both descriptors were just returned by pipe2 and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `fcntl(F_SETPIPE_SZ)`: returns the pipe's new capacity.
pub fn set_pipe_size(fd: BorrowedFd<'_>, size: usize) -> io::Result<usize> {
    // SAFETY: plain fcntl on a descriptor we hold.
    check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, size as libc::c_int) })
        .map(|n| n as usize)
}

/// `vmsplice` of `data` into the pipe's write end: the pipe references the caller's pages.
///
/// The kernel keeps references to the pages of `data` until they leave the pipe, so the caller
/// must drain the pipe (splice it to its destination) before `data` can change or go away.
pub fn vmsplice(pipe_w: BorrowedFd<'_>, data: &[u8]) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: data.as_ptr() as *mut libc::c_void, iov_len: data.len() };
    // SAFETY: `iov` describes `data`, readable; the lifetime requirement is the caller's
    // (documented above), and every caller drains the pipe before returning.
    retry(|| check_size(unsafe { libc::vmsplice(pipe_w.as_raw_fd(), &iov, 1, 0) }))
}

/// `splice` of up to `len` bytes from `from` to `to`; `more` sets `SPLICE_F_MORE`.
pub fn splice(
    from: BorrowedFd<'_>,
    offset: Option<&mut i64>,
    to: BorrowedFd<'_>,
    len: usize,
    more: bool,
) -> io::Result<usize> {
    let flags = if more { libc::SPLICE_F_MORE } else { 0 };
    let off: *mut libc::loff_t = match offset {
        Some(o) => o as *mut i64 as *mut libc::loff_t,
        None => std::ptr::null_mut(),
    };
    retry(|| {
        // SAFETY: `off` is null or points to a live i64 (loff_t is 64-bit everywhere).
        let r = unsafe {
            libc::splice(from.as_raw_fd(), off, to.as_raw_fd(), std::ptr::null_mut(), len, flags)
        };
        check_size(r)
    })
}

/// `sendfile` of up to `len` bytes of `file` from `*offset` to the socket; advances `*offset`.
pub fn sendfile(
    sock: BorrowedFd<'_>,
    file: BorrowedFd<'_>,
    offset: &mut i64,
    len: usize,
) -> io::Result<usize> {
    let mut off = libc::off_t::try_from(*offset)
        .map_err(|_| io::Error::from_raw_os_error(libc::EOVERFLOW))?;
    let n = retry(|| {
        // SAFETY: `off` is a live off_t that the kernel updates.
        let r = unsafe { libc::sendfile(sock.as_raw_fd(), file.as_raw_fd(), &mut off, len) };
        check_size(r)
    })?;
    #[allow(clippy::useless_conversion)] // off_t is 32-bit on 32-bit targets.
    {
        *offset = i64::from(off);
    }
    Ok(n)
}

/// `readv` into several buffers in order.
pub fn readv(fd: BorrowedFd<'_>, bufs: &mut [&mut [u8]]) -> io::Result<usize> {
    let iov: Vec<libc::iovec> = bufs
        .iter_mut()
        .map(|b| libc::iovec { iov_base: b.as_mut_ptr().cast(), iov_len: b.len() })
        .collect();
    retry(|| {
        // SAFETY: every iovec describes a live buffer valid for writes of its length.
        let r = unsafe { libc::readv(fd.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int) };
        check_size(r)
    })
}

/// The page size (`sysconf(_SC_PAGESIZE)`), 4096 if unknown.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the running system.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as usize } else { 4096 }
}
