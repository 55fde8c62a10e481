//! The ready-made engines and configurations, as base64's `engine::general_purpose`, plus
//! [`FORGIVING`] (WHATWG forgiving-base64).

use super::{Config, DecodeMode, DecodePaddingMode, Engine};
use crate::alphabet;
pub use crate::config::{GeneralPurpose, GeneralPurposeConfig};

/// Pads on encode and requires canonical padding on decode (RFC 4648).
pub const PAD: GeneralPurposeConfig = GeneralPurposeConfig::new();

/// Neither writes nor accepts padding.
pub const NO_PAD: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_encode_padding(false)
    .with_decode_padding_mode(DecodePaddingMode::RequireNone);

/// Standard alphabet (`+/`), [`PAD`].
pub const STANDARD: GeneralPurpose<'static> = GeneralPurpose::new(&alphabet::STANDARD, PAD);

/// Standard alphabet, [`NO_PAD`].
pub const STANDARD_NO_PAD: GeneralPurpose<'static> =
    GeneralPurpose::new(&alphabet::STANDARD, NO_PAD);

/// URL-safe alphabet (`-_`), [`PAD`].
pub const URL_SAFE: GeneralPurpose<'static> = GeneralPurpose::new(&alphabet::URL_SAFE, PAD);

/// URL-safe alphabet, [`NO_PAD`].
pub const URL_SAFE_NO_PAD: GeneralPurpose<'static> =
    GeneralPurpose::new(&alphabet::URL_SAFE, NO_PAD);

/// WHATWG forgiving-base64 (`atob`): standard alphabet, padding on encode; decoding skips
/// ASCII whitespace anywhere, takes padding or none, and ignores the last symbol's unused bits.
///
/// ```
/// use b64::{Engine as _, engine::general_purpose::FORGIVING};
///
/// assert_eq!(FORGIVING.decode(" aG\r\nk ")?, b"hi");
/// # Ok::<(), b64::DecodeError>(())
/// ```
pub const FORGIVING: GeneralPurpose<'static> = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_mode(DecodeMode::Forgiving),
);

impl Config for GeneralPurposeConfig {
    #[inline]
    fn encode_padding(&self) -> bool {
        GeneralPurposeConfig::encode_padding(self)
    }
}

impl Engine for GeneralPurpose<'_> {
    type Config = GeneralPurposeConfig;

    #[inline]
    fn config(&self) -> &GeneralPurposeConfig {
        self.settings()
    }

    #[inline(always)]
    fn internal_general_purpose(&self) -> &GeneralPurpose<'_> {
        self
    }
}
