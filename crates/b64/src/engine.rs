//! The [`Engine`] trait: every encode and decode call, as base64 0.22 names them, plus this
//! crate's (wrapped encoding, in-place decoding, exact lengths). [`GeneralPurpose`] is the
//! engine; [`general_purpose`] has the ready-made ones.
//!
//! This is the top of both paths. Encoding goes engine -> encode -> dispatch -> arch ->
//! portable, decoding engine -> decode -> dispatch -> arch -> portable. The trait's methods
//! are thin and generic only over the input type; each calls one non-generic function below
//! on the engine's [`GeneralPurpose`], so a program holds one copy of the codec whatever
//! engines and input types it uses.

#[cfg(feature = "alloc")]
use alloc::{string::String, vec, vec::Vec};

pub use crate::config::{
    DecodeMode, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig, LineEnding, LineWrap,
};
use crate::decode;
use crate::error::{BufferTooSmall, DecodeError, DecodeSliceError};
use crate::io::InPlace;
use crate::{encode, encoded_len};

pub mod general_purpose;

/// What every engine's configuration says: base64's `engine::Config`.
pub trait Config {
    /// Whether encoding appends `=` padding.
    fn encode_padding(&self) -> bool;
}

/// A base64 codec: the encode and decode calls. [`GeneralPurpose`] implements it (the
/// ready-made engines are in [`general_purpose`] and [`prelude`](crate::prelude)); bring the
/// trait into scope to call them (`use b64::Engine as _;` or `use b64::prelude::*;`).
///
/// Every method runs on the SIMD backend the CPU has, and every backend gives the same result
/// and the same error on every input.
///
/// ```
/// use b64::{Engine as _, engine::{self, general_purpose}, alphabet};
///
/// assert_eq!(general_purpose::STANDARD.encode(b"hello world~"), "aGVsbG8gd29ybGR+");
///
/// const CUSTOM_ENGINE: engine::GeneralPurpose =
///     engine::GeneralPurpose::new(&alphabet::URL_SAFE, general_purpose::NO_PAD);
/// assert_eq!(CUSTOM_ENGINE.decode("aGVsbG8gd29ybGR-")?, b"hello world~");
/// # Ok::<(), b64::DecodeError>(())
/// ```
pub trait Engine: Send + Sync {
    /// The configuration type.
    type Config: Config;

    /// The configuration.
    fn config(&self) -> &Self::Config;

    /// The engine that does the work (for implementations of this trait that wrap one).
    #[doc(hidden)]
    fn internal_general_purpose(&self) -> &GeneralPurpose<'_>;

    /// Length of the encoding of `n` bytes with this engine's padding (`None` on overflow).
    #[inline]
    fn encoded_len(&self, n: usize) -> Option<usize> {
        encoded_len(n, self.internal_general_purpose().encode_padding())
    }

    /// Encodes `input` as a `String`.
    #[cfg(feature = "alloc")]
    #[inline]
    fn encode<T: AsRef<[u8]>>(&self, input: T) -> String {
        encode::into_string(encode_vec(self.internal_general_purpose(), input.as_ref()))
    }

    /// Encodes `input` and appends the text to `output`.
    ///
    /// ```
    /// use b64::prelude::*;
    ///
    /// let mut s = String::from("Basic ");
    /// BASE64_STANDARD.encode_string(b"user:pass", &mut s);
    /// assert_eq!(s, "Basic dXNlcjpwYXNz");
    /// ```
    #[cfg(feature = "alloc")]
    #[inline]
    fn encode_string<T: AsRef<[u8]>>(&self, input: T, output: &mut String) {
        encode_string(self.internal_general_purpose(), input.as_ref(), output);
    }

    /// Encodes `input` as bytes.
    #[cfg(feature = "alloc")]
    #[inline]
    fn encode_to_vec<T: AsRef<[u8]>>(&self, input: T) -> Vec<u8> {
        encode_vec(self.internal_general_purpose(), input.as_ref())
    }

    /// Encodes `input` into `output`; returns the bytes written. If `output` is shorter than
    /// [`Engine::encoded_len`], nothing is written and the error says how much is needed.
    #[inline(always)]
    fn encode_slice<T: AsRef<[u8]>>(
        &self,
        input: T,
        output: &mut [u8],
    ) -> Result<usize, BufferTooSmall> {
        encode_slice(self.internal_general_purpose(), input.as_ref(), output)
    }

    /// Length of [`Engine::encode_wrapped`]'s output for `n` bytes (`None` on overflow).
    #[inline]
    fn wrapped_len(&self, n: usize, wrap: LineWrap) -> Option<usize> {
        encode::wrapped_len(n, self.internal_general_purpose().encode_padding(), wrap)
    }

    /// Encodes `input` with a line ending after every `wrap.width` symbols (none at the
    /// end); returns the bytes written, or an error (and nothing written) if `output` is short.
    #[inline]
    fn encode_wrapped_slice<T: AsRef<[u8]>>(
        &self,
        input: T,
        wrap: LineWrap,
        output: &mut [u8],
    ) -> Result<usize, BufferTooSmall> {
        encode_wrapped_slice(self.internal_general_purpose(), input.as_ref(), wrap, output)
    }

    /// Encodes `input` with line wrapping, e.g. [`LineWrap::MIME`].
    ///
    /// ```
    /// use b64::{Engine as _, engine::{LineWrap, general_purpose::STANDARD}};
    ///
    /// let text = STANDARD.encode_wrapped(&[0u8; 60], LineWrap::MIME);
    /// assert_eq!(text.len(), 80 + 2);
    /// assert_eq!(&text[76..78], "\r\n");
    /// ```
    #[cfg(feature = "alloc")]
    #[inline]
    fn encode_wrapped<T: AsRef<[u8]>>(&self, input: T, wrap: LineWrap) -> String {
        encode_wrapped(self.internal_general_purpose(), input.as_ref(), wrap)
    }

    /// MIME encoding: [`Engine::encode_wrapped`] with [`LineWrap::MIME`].
    #[cfg(feature = "alloc")]
    #[inline]
    fn encode_mime<T: AsRef<[u8]>>(&self, input: T) -> String {
        self.encode_wrapped(input, LineWrap::MIME)
    }

    /// Decodes `input` into a new `Vec`.
    #[cfg(feature = "alloc")]
    #[inline]
    fn decode<T: AsRef<[u8]>>(&self, input: T) -> Result<Vec<u8>, DecodeError> {
        decode_new(self.internal_general_purpose(), input.as_ref())
    }

    /// Decodes `input` and appends the bytes to `buffer`. On error, `buffer` is as it was.
    #[cfg(feature = "alloc")]
    #[inline]
    fn decode_vec<T: AsRef<[u8]>>(
        &self,
        input: T,
        buffer: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        decode_vec(self.internal_general_purpose(), input.as_ref(), buffer)
    }

    /// Decodes `input` into `output`; returns the bytes written. An `output` of exactly the
    /// decoded length is enough ([`decoded_len_estimate`](crate::decoded_len_estimate) bounds
    /// it); bytes of `output` past the decoded ones may have been overwritten, and on error its
    /// contents are unspecified.
    ///
    /// ```
    /// use b64::{prelude::*, DecodeSliceError, DecodeError};
    ///
    /// let mut out = [0u8; 5];
    /// assert_eq!(BASE64_STANDARD.decode_slice("aGVsbG8=", &mut out), Ok(5));
    /// assert_eq!(BASE64_STANDARD.decode_slice("aGVsbG8h", &mut out),
    ///            Err(DecodeSliceError::OutputSliceTooSmall));
    /// assert_eq!(BASE64_STANDARD.decode_slice("aGVsbG8", &mut out),
    ///            Err(DecodeSliceError::DecodeError(DecodeError::InvalidPadding { offset: 7 })));
    /// ```
    #[inline(always)]
    fn decode_slice<T: AsRef<[u8]>>(
        &self,
        input: T,
        output: &mut [u8],
    ) -> Result<usize, DecodeSliceError> {
        Ok(decode::decode_slice(self.internal_general_purpose(), input.as_ref(), output)?)
    }

    /// [`Engine::decode_slice`] with the error of [`Engine::decode`]: an `output` too short is
    /// [`DecodeError::OutputTooSmall`], with the offset of the symbol whose bytes did not fit
    /// (base64's panics there).
    #[inline(always)]
    fn decode_slice_unchecked<T: AsRef<[u8]>>(
        &self,
        input: T,
        output: &mut [u8],
    ) -> Result<usize, DecodeError> {
        decode::decode_slice(self.internal_general_purpose(), input.as_ref(), output)
    }

    /// Decodes the text in `buf` into the front of `buf`; returns the decoded length. On
    /// error, `buf`'s contents are unspecified.
    #[inline]
    fn decode_in_place(&self, buf: &mut [u8]) -> Result<usize, DecodeError> {
        decode::decode_io(self.internal_general_purpose(), &mut InPlace { buf })
    }

    /// [`Engine::decode_slice_unchecked`] by the byte-at-a-time reference machine alone (no
    /// kernel, no fast path): the oracle of the tests and fuzz targets.
    #[doc(hidden)]
    fn decode_reference<T: AsRef<[u8]>>(
        &self,
        input: T,
        output: &mut [u8],
    ) -> Result<usize, DecodeError> {
        decode::decode_bytewise(self.internal_general_purpose(), input.as_ref(), output)
    }
}

/// `encoded_len` of a slice length, which cannot overflow (a slice has at most `isize::MAX`
/// bytes).
#[inline]
fn slice_len(e: &GeneralPurpose<'_>, n: usize) -> usize {
    encoded_len(n, e.encode_padding()).unwrap_or(usize::MAX)
}

#[inline(always)]
fn encode_slice(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, BufferTooSmall> {
    let needed = slice_len(e, input.len());
    if out.len() < needed {
        return Err(BufferTooSmall { needed, available: out.len() });
    }
    Ok(encode::encode_into(e, input, &mut out[..needed]))
}

#[cfg(feature = "alloc")]
fn encode_vec(e: &GeneralPurpose<'_>, input: &[u8]) -> Vec<u8> {
    let mut out = vec![0; slice_len(e, input.len())];
    encode::encode_into(e, input, &mut out);
    out
}

/// Input bytes per block of [`encode_str_blocks`] (a multiple of 3, so only the last block
/// can carry padding; its 4 KiB of text stay in L1, as the wrapped encoder's blocks do).
const STR_BLOCK: usize = 3 * 1024;

/// Encodes `input` a block at a time into a buffer on the stack and hands each block's text
/// to `sink` as a `&str`: the encoding as text with no allocation, no `unsafe` outside
/// `arch/`, and each UTF-8 check over the block just written (in L1). What
/// [`Engine::encode_string`] and [`Base64Display`](crate::display::Base64Display) use.
pub(crate) fn encode_str_blocks<Err>(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    sink: &mut dyn FnMut(&str) -> Result<(), Err>,
) -> Result<(), Err> {
    let mut text = [0u8; STR_BLOCK / 3 * 4];
    for block in input.chunks(STR_BLOCK) {
        let n = encode::encode_into(e, block, &mut text[..slice_len(e, block.len())]);
        // The alphabet is printable ASCII (checked when it is built), so is padding: the
        // check cannot fail.
        sink(core::str::from_utf8(&text[..n]).unwrap_or_default())?;
    }
    Ok(())
}

/// Appends the encoding to `output`.
#[cfg(feature = "alloc")]
fn encode_string(e: &GeneralPurpose<'_>, input: &[u8], output: &mut String) {
    output.reserve(slice_len(e, input.len()));
    let Ok(()) = encode_str_blocks::<core::convert::Infallible>(e, input, &mut |s| {
        output.push_str(s);
        Ok(())
    });
}

fn encode_wrapped_slice(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    wrap: LineWrap,
    out: &mut [u8],
) -> Result<usize, BufferTooSmall> {
    let needed = encode::wrapped_len(input.len(), e.encode_padding(), wrap).unwrap_or(usize::MAX);
    if out.len() < needed {
        return Err(BufferTooSmall { needed, available: out.len() });
    }
    Ok(encode::encode_wrapped_into(e, input, wrap, &mut out[..needed]))
}

#[cfg(feature = "alloc")]
fn encode_wrapped(e: &GeneralPurpose<'_>, input: &[u8], wrap: LineWrap) -> String {
    let len = encode::wrapped_len(input.len(), e.encode_padding(), wrap)
        .expect("encoded length overflows usize");
    let mut out = vec![0; len];
    encode::encode_wrapped_into(e, input, wrap, &mut out);
    encode::into_string(out)
}

#[cfg(feature = "alloc")]
fn decode_new(e: &GeneralPurpose<'_>, input: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0; crate::decoded_len_estimate(input.len())];
    let n = decode::decode_slice(e, input, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[cfg(feature = "alloc")]
fn decode_vec(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    buffer: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    let start = buffer.len();
    buffer.resize(start + crate::decoded_len_estimate(input.len()), 0);
    match decode::decode_slice(e, input, &mut buffer[start..]) {
        Ok(n) => {
            buffer.truncate(start + n);
            Ok(())
        }
        Err(err) => {
            buffer.truncate(start);
            Err(err)
        }
    }
}
