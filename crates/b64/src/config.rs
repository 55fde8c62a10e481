//! [`Engine`]'s type and its rules: an alphabet, whether encoding pads, how decoding treats
//! padding, whitespace and non-canonical input ([`DecodePadding`], [`DecodeMode`]), line
//! wrapping ([`LineWrap`], [`LineEnding`]), the `const` builders and the accessors. The codec
//! calls on an engine are in `engine.rs`; the decoder and encoder below it read the rules from
//! here, so this module imports neither.

use crate::alphabet::Alphabet;
use crate::dispatch::Backend;

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
        if self.newlines_only { b == b'\n' } else { is_whitespace(b) }
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
}

/// ASCII whitespace as WHATWG's forgiving-base64 defines it: TAB, LF, FF, CR, SPACE.
#[inline(always)]
pub(crate) fn is_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}
