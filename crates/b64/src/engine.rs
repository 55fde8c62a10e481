//! [`Engine`]: an alphabet plus padding and decoding rules, and every encode/decode call.

#[cfg(feature = "alloc")]
use alloc::{string::String, vec, vec::Vec};

use crate::alphabet::Alphabet;
use crate::decode::{InPlace, Split, decode_io};
use crate::dispatch::Backend;
use crate::error::{BufferTooSmall, DecodeError};
use crate::{encode, encoded_len};

/// What decoding accepts as padding (`=`). Forgiving decoding ignores this: padding is
/// optional there, but must be right when present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodePadding {
    /// Canonical padding must be present: the input length (without whitespace) is a
    /// multiple of 4.
    Required,
    /// No `=` may appear.
    Forbidden,
    /// Either canonical padding or none.
    Indifferent,
}

/// Strict or forgiving decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeMode {
    /// Only symbols and padding (as [`DecodePadding`] says); the last symbol's unused bits
    /// must be zero (unless [`Engine::with_trailing_bits_allowed`]).
    Strict,
    /// WHATWG "forgiving-base64": ASCII whitespace (TAB, LF, FF, CR, SPACE) is skipped
    /// anywhere, padding is optional (but canonical if present), and the last symbol's unused
    /// bits are ignored. What `atob()`, data: URLs, PEM and MIME bodies need.
    Forgiving,
}

/// Line wrapping for [`Engine::encode_wrapped`]: a line ending after every `width` symbols
/// (none after the last line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineWrap {
    /// Symbols per line; 0 means no wrapping.
    pub width: usize,
    /// What ends a line.
    pub ending: LineEnding,
}

impl LineWrap {
    /// MIME (RFC 2045): 76 symbols per line, CRLF.
    pub const MIME: LineWrap = LineWrap { width: 76, ending: LineEnding::CrLf };
}

/// A line ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The bytes of the ending.
    pub const fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Lf => b"\n",
            LineEnding::CrLf => b"\r\n",
        }
    }
}

/// A base64 codec: an [`Alphabet`], whether encoding pads with `=`, and how decoding treats
/// padding, whitespace and non-canonical input. Small and `Copy`.
///
/// ```
/// let e = b64::STANDARD;
/// let text = e.encode(b"hello");
/// assert_eq!(text, "aGVsbG8=");
/// assert_eq!(e.decode(&text)?, b"hello");
///
/// let mut out = [0u8; 8];
/// assert_eq!(e.encode_to_slice(b"hello", &mut out)?, 8);
/// let mut buf = *b"aGVsbG8=";
/// let n = e.decode_in_place(&mut buf)?;
/// assert_eq!(&buf[..n], b"hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Engine<'a> {
    alphabet: &'a Alphabet,
    encode_padding: bool,
    decode_padding: DecodePadding,
    mode: DecodeMode,
    trailing_bits: bool,
    newlines_only: bool,
    backend: Option<Backend>,
}

impl<'a> Engine<'a> {
    /// An engine for `alphabet` that pads on encode and requires padding on strict decode.
    pub const fn new(alphabet: &'a Alphabet) -> Engine<'a> {
        Engine {
            alphabet,
            encode_padding: true,
            decode_padding: DecodePadding::Required,
            mode: DecodeMode::Strict,
            trailing_bits: false,
            newlines_only: false,
            backend: None,
        }
    }

    /// Whether encoding appends `=` padding.
    #[must_use]
    pub const fn with_encode_padding(mut self, pad: bool) -> Self {
        self.encode_padding = pad;
        self
    }

    /// How strict decoding treats padding.
    #[must_use]
    pub const fn with_decode_padding(mut self, padding: DecodePadding) -> Self {
        self.decode_padding = padding;
        self
    }

    /// Strict or forgiving decoding.
    #[must_use]
    pub const fn with_decode_mode(mut self, mode: DecodeMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether strict decoding accepts a last symbol with non-zero unused bits (as GNU
    /// `base64 -d` does). Off by default.
    #[must_use]
    pub const fn with_trailing_bits_allowed(mut self, allowed: bool) -> Self {
        self.trailing_bits = allowed;
        self
    }

    /// Forgiving decoding that skips only `\n` between symbols (no other whitespace): the
    /// bytes GNU `base64 -d` skips, for the `b64` CLI, which handles its padding rules itself.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_newlines_only(mut self, only: bool) -> Self {
        self.newlines_only = only;
        self
    }

    /// Whether forgiving decoding skips `b` (ASCII whitespace, or `\n` alone).
    #[inline]
    pub(crate) fn skips(&self, b: u8) -> bool {
        if self.newlines_only { b == b'\n' } else { crate::decode::is_whitespace(b) }
    }

    /// Whether forgiving decoding skips only `\n`.
    #[inline]
    pub(crate) fn newlines_only(&self) -> bool {
        self.newlines_only
    }

    /// This engine run by a given backend instead of the detected one (tests and benches).
    #[doc(hidden)]
    #[must_use]
    pub const fn with_backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// The alphabet.
    pub const fn alphabet(&self) -> &'a Alphabet {
        self.alphabet
    }

    /// Whether encoding pads.
    pub const fn encode_padding(&self) -> bool {
        self.encode_padding
    }

    /// How strict decoding treats padding.
    pub const fn decode_padding(&self) -> DecodePadding {
        self.decode_padding
    }

    /// Strict or forgiving.
    pub const fn decode_mode(&self) -> DecodeMode {
        self.mode
    }

    /// Whether strict decoding accepts non-zero unused bits in the last symbol.
    pub const fn trailing_bits_allowed(&self) -> bool {
        self.trailing_bits
    }

    /// The backend this engine runs on.
    #[doc(hidden)]
    #[inline]
    pub fn backend(&self) -> Backend {
        match self.backend {
            Some(b) => b,
            None => Backend::detect(),
        }
    }

    /// Length of the encoding of `n` bytes with this engine's padding (`None` on overflow).
    #[inline]
    pub const fn encoded_len(&self, n: usize) -> Option<usize> {
        encoded_len(n, self.encode_padding)
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
        encode::wrapped_len(n, self.encode_padding, wrap)
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
        let input = input.as_ref();
        // Short, well-formed input in one kernel step; anything else (other bytes, a short
        // buffer, long input) goes the general way, out of line, which finds and reports
        // errors.
        if let Some(n) = crate::decode::decode_short(self, input, out) {
            return Ok(n);
        }
        self.decode_split(input, out)
    }

    /// [`Engine::decode_to_slice`] past its short path.
    #[inline(never)]
    fn decode_split(&self, input: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
        decode_io(self, &mut Split { src: input, dst: out })
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
        crate::decode::decode_bytewise(self, input.as_ref(), out)
    }

    /// Decodes the text in `buf` into the front of `buf`; returns the decoded length. On
    /// error, `buf`'s contents are unspecified.
    pub fn decode_in_place(&self, buf: &mut [u8]) -> Result<usize, DecodeError> {
        decode_io(self, &mut InPlace { buf })
    }

    /// `encoded_len` of a slice length, which cannot overflow (a slice has at most
    /// `isize::MAX` bytes).
    #[inline]
    fn slice_len(&self, n: usize) -> usize {
        self.encoded_len(n).unwrap_or(usize::MAX)
    }
}
