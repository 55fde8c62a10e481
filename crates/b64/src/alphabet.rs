//! Alphabets: the 64 symbols and the reverse table the decoders use. Built by a `const fn`, so
//! a custom alphabet can be a `const` or a `static`.

use core::fmt;

/// Marks a byte that is not a symbol in [`Alphabet::decode_table`]. Its top bit is set, which
/// is what the SIMD kernels test (a 6-bit value never has it).
pub(crate) const INVALID: u8 = 0xff;

/// A base64 alphabet: 64 distinct printable ASCII symbols, none of them `=`, in index order.
///
/// ```
/// // The traditional `crypt(3)` ordering.
/// const CRYPT: b64::alphabet::Alphabet =
///     match b64::alphabet::Alphabet::new(b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
///         Ok(a) => a,
///         Err(_) => panic!("not a valid alphabet"),
///     };
/// let engine = b64::Engine::new(&CRYPT).with_encode_padding(false);
/// assert_eq!(engine.encode_to_vec(b"\x00\x00\x00"), b"....");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Alphabet {
    symbols: [u8; 64],
    decode: [u8; 256],
}

/// Why a byte string is not an [`Alphabet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AlphabetError {
    /// The symbol at `index` is not printable ASCII (`0x21..=0x7e`) or is `=`.
    InvalidSymbol {
        /// Position in the alphabet.
        index: usize,
        /// The byte found there.
        byte: u8,
    },
    /// The symbol at `index` already appeared earlier.
    Duplicate {
        /// Position of the second occurrence.
        index: usize,
        /// The repeated byte.
        byte: u8,
    },
}

impl fmt::Display for AlphabetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AlphabetError::InvalidSymbol { index, byte } => write!(
                f,
                "alphabet symbol {index} (byte 0x{byte:02x}) is not printable ASCII other than '='"
            ),
            AlphabetError::Duplicate { index, byte } => {
                write!(f, "alphabet symbol {index} (byte 0x{byte:02x}) appears twice")
            }
        }
    }
}

impl core::error::Error for AlphabetError {}

impl Alphabet {
    /// Validates `symbols` (64 distinct printable ASCII bytes other than `=`) and builds the
    /// decoding table.
    pub const fn new(symbols: &[u8; 64]) -> Result<Alphabet, AlphabetError> {
        let mut decode = [INVALID; 256];
        let mut i = 0;
        while i < 64 {
            let byte = symbols[i];
            if byte < 0x21 || byte > 0x7e || byte == b'=' {
                return Err(AlphabetError::InvalidSymbol { index: i, byte });
            }
            if decode[byte as usize] != INVALID {
                return Err(AlphabetError::Duplicate { index: i, byte });
            }
            decode[byte as usize] = i as u8;
            i += 1;
        }
        Ok(Alphabet { symbols: *symbols, decode })
    }

    /// The 64 symbols in index order.
    pub const fn symbols(&self) -> &[u8; 64] {
        &self.symbols
    }

    /// Byte -> 6-bit value, `0xff` for every byte that is not a symbol.
    pub(crate) const fn decode_table(&self) -> &[u8; 256] {
        &self.decode
    }

    /// Whether `byte` is one of the 64 symbols.
    #[inline]
    pub const fn contains(&self, byte: u8) -> bool {
        self.decode[byte as usize] != INVALID
    }
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The symbols are printable ASCII (checked by `new`).
        let s: &[u8] = &self.symbols;
        f.debug_tuple("Alphabet").field(&core::str::from_utf8(s).unwrap_or("?")).finish()
    }
}

const fn build(symbols: &[u8; 64]) -> Alphabet {
    match Alphabet::new(symbols) {
        Ok(a) => a,
        Err(_) => panic!("built-in alphabets are valid"),
    }
}

/// RFC 4648 section 4: `A-Z a-z 0-9 + /`.
pub static STANDARD: Alphabet =
    build(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

/// RFC 4648 section 5 (URL and file name safe): `A-Z a-z 0-9 - _`.
pub static URL_SAFE: Alphabet =
    build(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

/// The `crypt(3)` ordering: `. / 0-9 A-Z a-z`.
pub static CRYPT: Alphabet =
    build(b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

/// The bcrypt ordering: `. / A-Z a-z 0-9`.
pub static BCRYPT: Alphabet =
    build(b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
