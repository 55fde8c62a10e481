//! [`Base64Display`]: the encoding of some bytes as a [`Display`], for format strings, with no
//! allocation.
//!
//! It encodes a block at a time into a buffer on the stack and writes each block's text to
//! the formatter (as [`Engine::encode_string`] appends to a `String`).

use core::fmt::{self, Display};

use crate::engine::{Engine, encode_str_blocks};

/// The base64 text of `bytes` as a [`Display`]: base64's `display::Base64Display`.
///
/// ```
/// use b64::{display::Base64Display, engine::general_purpose::STANDARD};
///
/// let value = Base64Display::new(b"\0\x01\x02\x03", &STANDARD);
/// assert_eq!(format!("base64: {value}"), "base64: AAECAw==");
/// ```
pub struct Base64Display<'a, 'e, E: Engine> {
    bytes: &'a [u8],
    engine: &'e E,
}

impl<'a, 'e, E: Engine> Base64Display<'a, 'e, E> {
    /// The encoding of `bytes` with `engine`.
    pub fn new(bytes: &'a [u8], engine: &'e E) -> Base64Display<'a, 'e, E> {
        Base64Display { bytes, engine }
    }
}

impl<E: Engine> Display for Base64Display<'_, '_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        encode_str_blocks(self.engine.internal_general_purpose(), self.bytes, &mut |s| {
            f.write_str(s)
        })
    }
}

impl<E: Engine> fmt::Debug for Base64Display<'_, '_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Base64Display").field(&format_args!("{self}")).finish()
    }
}
