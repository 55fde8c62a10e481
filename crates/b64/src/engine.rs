//! The codec calls of an [`Engine`] (its type and rules are in `config.rs`): the top of both
//! paths. Encoding goes engine -> encode -> dispatch -> arch -> portable, decoding engine ->
//! decode -> dispatch -> arch -> portable.

#[cfg(feature = "alloc")]
use alloc::{string::String, vec, vec::Vec};

use crate::config::{Engine, LineWrap};
use crate::decode;
use crate::error::{BufferTooSmall, DecodeError};
use crate::io::InPlace;
use crate::{encode, encoded_len};

impl Engine<'_> {
    /// Length of the encoding of `n` bytes with this engine's padding (`None` on overflow).
    #[inline]
    pub const fn encoded_len(&self, n: usize) -> Option<usize> {
        encoded_len(n, self.encode_padding())
    }

    /// Encodes `input` into `out`; returns the bytes written. If `out` is shorter than
    /// [`Engine::encoded_len`], nothing is written and the error says how much is needed.
    #[inline(always)]
    pub fn encode_to_slice(
        &self,
        input: impl AsRef<[u8]>,
        out: &mut [u8],
    ) -> Result<usize, BufferTooSmall> {
        let input = input.as_ref();
        let needed = self.slice_len(input.len());
        if out.len() < needed {
            return Err(BufferTooSmall { needed, available: out.len() });
        }
        Ok(encode::encode_into(self, input, &mut out[..needed]))
    }

    /// Encodes `input` as a `String`.
    #[cfg(feature = "alloc")]
    pub fn encode(&self, input: impl AsRef<[u8]>) -> String {
        encode::into_string(self.encode_to_vec(input))
    }

    /// Encodes `input` as bytes.
    #[cfg(feature = "alloc")]
    pub fn encode_to_vec(&self, input: impl AsRef<[u8]>) -> Vec<u8> {
        let input = input.as_ref();
        let mut out = vec![0; self.slice_len(input.len())];
        encode::encode_into(self, input, &mut out);
        out
    }

    /// Length of [`Engine::encode_wrapped`]'s output for `n` bytes (`None` on overflow).
    pub const fn wrapped_len(&self, n: usize, wrap: LineWrap) -> Option<usize> {
        encode::wrapped_len(n, self.encode_padding(), wrap)
    }

    /// Encodes `input` with a line ending after every `wrap.width` symbols (none at the
    /// end); returns the bytes written, or an error (and nothing written) if `out` is short.
    pub fn encode_wrapped_to_slice(
        &self,
        input: impl AsRef<[u8]>,
        wrap: LineWrap,
        out: &mut [u8],
    ) -> Result<usize, BufferTooSmall> {
        let input = input.as_ref();
        let needed = self.wrapped_len(input.len(), wrap).unwrap_or(usize::MAX);
        if out.len() < needed {
            return Err(BufferTooSmall { needed, available: out.len() });
        }
        Ok(encode::encode_wrapped_into(self, input, wrap, &mut out[..needed]))
    }

    /// Encodes `input` with line wrapping, e.g. [`LineWrap::MIME`].
    ///
    /// ```
    /// let text = b64::STANDARD.encode_wrapped(&[0u8; 60], b64::LineWrap::MIME);
    /// assert_eq!(text.len(), 80 + 2);
    /// assert_eq!(&text[76..78], "\r\n");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode_wrapped(&self, input: impl AsRef<[u8]>, wrap: LineWrap) -> String {
        let input = input.as_ref();
        let len = self.wrapped_len(input.len(), wrap).expect("encoded length overflows usize");
        let mut out = vec![0; len];
        encode::encode_wrapped_into(self, input, wrap, &mut out);
        encode::into_string(out)
    }

    /// MIME encoding: [`Engine::encode_wrapped`] with [`LineWrap::MIME`].
    #[cfg(feature = "alloc")]
    pub fn encode_mime(&self, input: impl AsRef<[u8]>) -> String {
        self.encode_wrapped(input, LineWrap::MIME)
    }

    /// Decodes `input` into `out`; returns the bytes written. Bytes of `out` past them may
    /// have been overwritten; on error, `out`'s contents are unspecified.
    #[inline(always)]
    pub fn decode_to_slice(
        &self,
        input: impl AsRef<[u8]>,
        out: &mut [u8],
    ) -> Result<usize, DecodeError> {
        decode::decode_slice(self, input.as_ref(), out)
    }

    /// Decodes `input` into a new `Vec`.
    #[cfg(feature = "alloc")]
    pub fn decode(&self, input: impl AsRef<[u8]>) -> Result<Vec<u8>, DecodeError> {
        let input = input.as_ref();
        let mut out = vec![0; crate::decoded_len_estimate(input.len())];
        let n = self.decode_to_slice(input, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    /// [`Engine::decode_to_slice`] by the byte-at-a-time reference machine alone (no
    /// kernel, no fast path): the oracle of the tests and fuzz targets.
    #[doc(hidden)]
    pub fn decode_reference(
        &self,
        input: impl AsRef<[u8]>,
        out: &mut [u8],
    ) -> Result<usize, DecodeError> {
        decode::decode_bytewise(self, input.as_ref(), out)
    }

    /// Decodes the text in `buf` into the front of `buf`; returns the decoded length. On
    /// error, `buf`'s contents are unspecified.
    pub fn decode_in_place(&self, buf: &mut [u8]) -> Result<usize, DecodeError> {
        decode::decode_io(self, &mut InPlace { buf })
    }

    /// `encoded_len` of a slice length, which cannot overflow (a slice has at most
    /// `isize::MAX` bytes).
    #[inline]
    fn slice_len(&self, n: usize) -> usize {
        self.encoded_len(n).unwrap_or(usize::MAX)
    }
}
