//! The engine's type, [`GeneralPurpose`], and its rules: an alphabet and a
//! [`GeneralPurposeConfig`] (whether encoding pads, how decoding treats padding, whitespace and
//! non-canonical input: [`DecodePaddingMode`], [`DecodeMode`]), line wrapping ([`LineWrap`],
//! [`LineEnding`]), the `const` builders and the accessors. The codec calls, the
//! [`Engine`](crate::Engine) trait, are in `engine.rs`; the decoder and encoder below it read
//! the rules from here, so this module imports neither.

use crate::alphabet::Alphabet;
use crate::dispatch::Backend;

/// What strict decoding accepts as padding (`=`), as base64's `DecodePaddingMode`. Forgiving
/// decoding ignores this: padding is optional there, but must be right when present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodePaddingMode {
    /// Either canonical padding or none.
    Indifferent,
    /// Canonical padding must be present: the input length (without whitespace) is a
    /// multiple of 4.
    RequireCanonical,
    /// No `=` may appear.
    RequireNone,
}

/// Strict or forgiving decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeMode {
    /// Only symbols and padding (as [`DecodePaddingMode`] says); the last symbol's unused
    /// bits must be zero (unless
    /// [`GeneralPurposeConfig::with_decode_allow_trailing_bits`]).
    Strict,
    /// WHATWG "forgiving-base64": ASCII whitespace (TAB, LF, FF, CR, SPACE) is skipped
    /// anywhere, padding is optional (but canonical if present), and the last symbol's unused
    /// bits are ignored. What `atob()`, data: URLs, PEM and MIME bodies need.
    Forgiving,
}

/// Line wrapping for [`Engine::encode_wrapped`](crate::Engine::encode_wrapped): a line ending
/// after every `width` symbols (none after the last line).
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

/// What an engine does besides its alphabet: whether encoding pads, how decoding treats
/// padding, whitespace and non-canonical input. base64's `GeneralPurposeConfig` plus
/// [`DecodeMode`]; `const`, so a custom configuration can be a `const`.
///
/// ```
/// use b64::engine::{DecodeMode, DecodePaddingMode, GeneralPurposeConfig};
///
/// const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
///     .with_decode_padding_mode(DecodePaddingMode::Indifferent)
///     .with_decode_allow_trailing_bits(true);
/// assert!(LENIENT.encode_padding());
/// assert_eq!(LENIENT.decode_mode(), DecodeMode::Strict);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneralPurposeConfig {
    encode_padding: bool,
    decode_padding_mode: DecodePaddingMode,
    mode: DecodeMode,
    trailing_bits: bool,
    newlines_only: bool,
}

impl GeneralPurposeConfig {
    /// Pads on encode; strict decoding that requires canonical padding and zero unused bits
    /// in the last symbol (RFC 4648).
    pub const fn new() -> GeneralPurposeConfig {
        GeneralPurposeConfig {
            encode_padding: true,
            decode_padding_mode: DecodePaddingMode::RequireCanonical,
            mode: DecodeMode::Strict,
            trailing_bits: false,
            newlines_only: false,
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
    pub const fn with_decode_padding_mode(mut self, mode: DecodePaddingMode) -> Self {
        self.decode_padding_mode = mode;
        self
    }

    /// Whether strict decoding accepts a last symbol with non-zero unused bits (as GNU
    /// `base64 -d` does). Off by default.
    #[must_use]
    pub const fn with_decode_allow_trailing_bits(mut self, allow: bool) -> Self {
        self.trailing_bits = allow;
        self
    }

    /// Strict or forgiving decoding (not in base64).
    #[must_use]
    pub const fn with_decode_mode(mut self, mode: DecodeMode) -> Self {
        self.mode = mode;
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

    /// Whether encoding pads.
    pub const fn encode_padding(&self) -> bool {
        self.encode_padding
    }

    /// How strict decoding treats padding.
    pub const fn decode_padding_mode(&self) -> DecodePaddingMode {
        self.decode_padding_mode
    }

    /// Whether strict decoding accepts non-zero unused bits in the last symbol.
    pub const fn decode_allow_trailing_bits(&self) -> bool {
        self.trailing_bits
    }

    /// Strict or forgiving.
    pub const fn decode_mode(&self) -> DecodeMode {
        self.mode
    }
}

impl Default for GeneralPurposeConfig {
    /// [`GeneralPurposeConfig::new`].
    fn default() -> Self {
        GeneralPurposeConfig::new()
    }
}

/// The engine: an [`Alphabet`] and a [`GeneralPurposeConfig`], run by the SIMD backend the
/// CPU has. base64's `GeneralPurpose`, except that it borrows its alphabet (so it stays a few
/// words, and `Copy`): a `const` or `static` engine is `GeneralPurpose<'static>`, and the type
/// can be written without the lifetime wherever Rust elides it (`const`, `static`, function
/// signatures). Its calls are the [`Engine`](crate::Engine) trait's.
///
/// ```
/// use b64::{alphabet, engine::{GeneralPurpose, general_purpose::NO_PAD}, Engine as _};
///
/// const URL: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, NO_PAD);
/// let text = URL.encode(b"\xfb\xff");
/// assert_eq!(text, "-_8");
/// assert_eq!(URL.decode(&text)?, b"\xfb\xff");
///
/// let mut out = [0u8; 4];
/// assert_eq!(URL.encode_slice(b"\xfb\xff", &mut out)?, 3);
/// let mut buf = *b"-_8";
/// let n = URL.decode_in_place(&mut buf)?;
/// assert_eq!(&buf[..n], b"\xfb\xff");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GeneralPurpose<'a> {
    alphabet: &'a Alphabet,
    config: GeneralPurposeConfig,
    backend: Option<Backend>,
}

impl<'a> GeneralPurpose<'a> {
    /// An engine for `alphabet` with `config`.
    pub const fn new(alphabet: &'a Alphabet, config: GeneralPurposeConfig) -> GeneralPurpose<'a> {
        GeneralPurpose { alphabet, config, backend: None }
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

    /// The configuration ([`Engine::config`](crate::Engine::config)).
    #[inline]
    pub(crate) const fn settings(&self) -> &GeneralPurposeConfig {
        &self.config
    }

    /// Whether encoding pads.
    #[inline]
    pub(crate) const fn encode_padding(&self) -> bool {
        self.config.encode_padding
    }

    /// How strict decoding treats padding.
    #[inline]
    pub(crate) const fn decode_padding(&self) -> DecodePaddingMode {
        self.config.decode_padding_mode
    }

    /// Strict or forgiving.
    #[inline]
    pub(crate) const fn decode_mode(&self) -> DecodeMode {
        self.config.mode
    }

    /// Whether strict decoding accepts non-zero unused bits in the last symbol.
    #[inline]
    pub(crate) const fn trailing_bits_allowed(&self) -> bool {
        self.config.trailing_bits
    }

    /// Whether forgiving decoding skips `b` (ASCII whitespace, or `\n` alone).
    #[inline]
    pub(crate) fn skips(&self, b: u8) -> bool {
        if self.config.newlines_only { b == b'\n' } else { is_whitespace(b) }
    }

    /// Whether forgiving decoding skips only `\n`.
    #[inline]
    pub(crate) fn newlines_only(&self) -> bool {
        self.config.newlines_only
    }

    /// The backend this engine runs on.
    #[doc(hidden)]
    #[inline]
    pub fn backend(&self) -> Backend {
        match self.backend {
            Some(b) => b,
            None => Backend::chosen(),
        }
    }
}

/// ASCII whitespace as WHATWG's forgiving-base64 defines it: TAB, LF, FF, CR, SPACE.
#[inline(always)]
pub(crate) fn is_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}
