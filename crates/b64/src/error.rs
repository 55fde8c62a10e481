//! The errors of encoding into a slice and of decoding.

use core::fmt;

/// Why an input is not valid base64 for an [`Engine`](crate::Engine), and where. Offsets are
/// byte positions in the input (for the streaming reader: in the whole stream).
///
/// The input is read from left to right and the first problem is reported; problems that can
/// only be seen at the end (length, missing padding, the last symbol's bits) come last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// `byte` at `offset` is neither a symbol of the alphabet nor padding (nor, in forgiving
    /// mode, ASCII whitespace).
    InvalidByte {
        /// Position in the input.
        offset: usize,
        /// The byte found there.
        byte: u8,
    },
    /// The symbols do not make a whole number of bytes: their count `len` leaves a remainder
    /// of 1 when divided by 4 (padding and whitespace are not counted).
    InvalidLength {
        /// The number of symbols in the input.
        len: usize,
    },
    /// Padding where none may be, or the wrong amount: `offset` is the first `=` of the
    /// padding (padding in [`RequireNone`](crate::engine::DecodePaddingMode::RequireNone)
    /// mode, padding followed by anything else, too much or too little of it), or the input
    /// length when padding is
    /// [`RequireCanonical`](crate::engine::DecodePaddingMode::RequireCanonical) and missing.
    InvalidPadding {
        /// Position of the first `=`, or the input length if padding is missing.
        offset: usize,
    },
    /// The last symbol, `byte` at `offset`, has non-zero bits below the last whole byte: the
    /// input is not the canonical encoding of any data (strict mode only).
    InvalidLastSymbol {
        /// Position in the input.
        offset: usize,
        /// The byte found there.
        byte: u8,
    },
    /// The output slice is too small: the bytes of the symbol at `offset` do not fit.
    OutputTooSmall {
        /// Position in the input of the symbol whose bytes did not fit.
        offset: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::InvalidByte { offset, byte } => {
                write!(f, "invalid byte 0x{byte:02x} at offset {offset}")
            }
            DecodeError::InvalidLength { len } => {
                write!(f, "invalid length: {len} symbols is not a whole number of bytes")
            }
            DecodeError::InvalidPadding { offset } => {
                write!(f, "invalid padding at offset {offset}")
            }
            DecodeError::InvalidLastSymbol { offset, byte } => write!(
                f,
                "non-canonical last symbol 0x{byte:02x} at offset {offset} (its unused bits are not zero)"
            ),
            DecodeError::OutputTooSmall { offset } => {
                write!(f, "output buffer too small for the bytes of the symbol at offset {offset}")
            }
        }
    }
}

impl core::error::Error for DecodeError {}

/// Why [`Engine::decode_slice`](crate::Engine::decode_slice) failed: base64's
/// `DecodeSliceError`. The offset of the symbol whose bytes did not fit is in
/// [`Engine::decode_slice_unchecked`](crate::Engine::decode_slice_unchecked)'s
/// [`DecodeError::OutputTooSmall`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeSliceError {
    /// The input is not valid base64.
    DecodeError(DecodeError),
    /// The output slice is too small for the decoded bytes.
    OutputSliceTooSmall,
}

impl fmt::Display for DecodeSliceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeSliceError::DecodeError(e) => e.fmt(f),
            DecodeSliceError::OutputSliceTooSmall => f.write_str("output slice too small"),
        }
    }
}

impl core::error::Error for DecodeSliceError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            DecodeSliceError::DecodeError(e) => Some(e),
            DecodeSliceError::OutputSliceTooSmall => None,
        }
    }
}

impl From<DecodeError> for DecodeSliceError {
    fn from(e: DecodeError) -> Self {
        match e {
            DecodeError::OutputTooSmall { .. } => DecodeSliceError::OutputSliceTooSmall,
            e => DecodeSliceError::DecodeError(e),
        }
    }
}

/// The output slice of an encode is too small. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BufferTooSmall {
    /// Bytes the encoding needs.
    pub needed: usize,
    /// Bytes the slice has.
    pub available: usize,
}

impl fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output buffer too small: {} bytes needed, {} available",
            self.needed, self.available
        )
    }
}

impl core::error::Error for BufferTooSmall {}
