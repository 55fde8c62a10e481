//! [`Base64Display`]: the encoding of some bytes as a [`Display`], for format strings, with no
//! allocation.
//!
//! It encodes blocks of [`BLOCK`] bytes (a multiple of 3, so only the last block can carry
//! padding) into a buffer on the stack and writes each to the formatter.

use core::fmt::{self, Display};

use crate::engine::Engine;

/// Input bytes encoded per write to the formatter (a multiple of 3; the text, 4/3 of it,
/// stays a small stack buffer).
const BLOCK: usize = 768;

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
        let mut text = [0u8; BLOCK / 3 * 4];
        for block in self.bytes.chunks(BLOCK) {
            let n = self.engine.encode_slice(block, &mut text).map_err(|_| fmt::Error)?;
            // The alphabet is printable ASCII (checked when it is built), so is padding.
            f.write_str(core::str::from_utf8(&text[..n]).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

impl<E: Engine> fmt::Debug for Base64Display<'_, '_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Base64Display").field(&format_args!("{self}")).finish()
    }
}
