//! The crate's error type.

use std::fmt;
use std::io;

/// What went wrong in a kernel crypto operation.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The kernel has no `AF_ALG` sockets (`EAFNOSUPPORT`).
    Unsupported,
    /// The kernel knows no algorithm `name` of this type, or its `algif_*` module is missing
    /// (`ENOENT` at bind).
    NotFound {
        /// The algorithm name that was asked for.
        name: String,
    },
    /// The key was rejected (wrong length, weak key), or the algorithm needs a key and has none
    /// (`ENOKEY`).
    InvalidKey,
    /// The IV or nonce has the wrong length for the algorithm.
    InvalidIv,
    /// An input or output length the operation cannot take (not a multiple of the block size,
    /// an output buffer of the wrong size, an AEAD message beyond the socket buffer...).
    InvalidLength,
    /// AEAD decryption found a wrong tag (`EBADMSG`). The handle stays usable.
    AuthenticationFailed,
    /// Any other system error.
    Io(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported => f.write_str(
                "the kernel has no AF_ALG sockets (EAFNOSUPPORT): enable CONFIG_CRYPTO_USER_API \
                 and CONFIG_CRYPTO_USER_API_{HASH,SKCIPHER,AEAD,RNG}, or load the af_alg and \
                 algif_* modules",
            ),
            Error::NotFound { name } => write!(
                f,
                "the kernel has no algorithm `{name}` of this type, or its algif_* module is not \
                 loaded (ENOENT)"
            ),
            Error::InvalidKey => f.write_str("the kernel rejected the key, or a key is required"),
            Error::InvalidIv => f.write_str("wrong IV/nonce length for this algorithm"),
            Error::InvalidLength => {
                f.write_str("invalid input or output length for this operation")
            }
            Error::AuthenticationFailed => {
                f.write_str("authentication failed: wrong tag (EBADMSG)")
            }
            Error::Io(e) => write!(f, "AF_ALG system call failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e {
            Error::Io(e) => e,
            other => io::Error::other(other),
        }
    }
}

/// The errno mapping shared by every operation.
pub(crate) fn from_io(e: io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::EAFNOSUPPORT) => Error::Unsupported,
        Some(libc::EBADMSG) => Error::AuthenticationFailed,
        Some(libc::ENOKEY) => Error::InvalidKey,
        _ => Error::Io(e),
    }
}

/// At bind: `ENOENT` means the name is unknown.
pub(crate) fn from_bind(e: io::Error, name: &str) -> Error {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENAMETOOLONG) => Error::NotFound { name: name.into() },
        _ => from_io(e),
    }
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
