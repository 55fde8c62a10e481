//! The encoder: the backend's bulk (kernel, then the scalar word loop), then the last one or
//! two bytes with padding.

#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

use crate::{Engine, LineWrap, encoded_len, portable};

/// Encodes `src` into `dst`, which is exactly `encoded_len(src.len())` long. Returns its length.
#[inline]
pub(crate) fn encode_into(e: &Engine<'_>, src: &[u8], dst: &mut [u8]) -> usize {
    let symbols = e.alphabet().symbols();
    let backend = e.backend();
    if backend.encode_short(e.alphabet(), src, dst, e.encode_padding()) {
        return dst.len();
    }
    encode_long(e, symbols, backend, src, dst)
}

/// The rest of [`encode_into`], out of line: the short path then runs without the loops'
/// register saves.
#[inline(never)]
fn encode_long(
    e: &Engine<'_>,
    symbols: &[u8; 64],
    backend: crate::Backend,
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    let i = backend.encode_bulk(e.alphabet(), src, dst);
    let j = i / 3 * 4;
    j + portable::encode_tail(symbols, &src[i..], e.encode_padding(), &mut dst[j..])
}

/// The length of a wrapped encoding: the symbols plus one ending between lines.
pub(crate) const fn wrapped_len(n: usize, pad: bool, wrap: LineWrap) -> Option<usize> {
    let Some(plain) = encoded_len(n, pad) else { return None };
    if wrap.width == 0 || plain == 0 {
        return Some(plain);
    }
    let breaks = (plain - 1) / wrap.width;
    match breaks.checked_mul(wrap.ending.as_bytes().len()) {
        Some(extra) => plain.checked_add(extra),
        None => None,
    }
}

/// Encodes `src` wrapped into `dst` (exactly `wrapped_len` long): the plain encoding goes to
/// the end of `dst`, then each line moves forward to its place (never past unread symbols:
/// line `k` moves by the `k` endings still to come, which is never negative).
pub(crate) fn encode_wrapped_into(
    e: &Engine<'_>,
    src: &[u8],
    wrap: LineWrap,
    dst: &mut [u8],
) -> usize {
    let total = dst.len();
    let plain = encoded_len(src.len(), e.encode_padding()).unwrap_or(usize::MAX);
    let start = total - plain;
    encode_into(e, src, &mut dst[start..]);
    if start == 0 {
        return total;
    }
    let ending = wrap.ending.as_bytes();
    let (mut from, mut to) = (start, 0);
    while from < total {
        let line = wrap.width.min(total - from);
        dst.copy_within(from..from + line, to);
        from += line;
        to += line;
        if from < total {
            dst[to..to + ending.len()].copy_from_slice(ending);
            to += ending.len();
        }
    }
    total
}

/// Encoded bytes as a `String`.
#[cfg(feature = "alloc")]
pub(crate) fn into_string(bytes: Vec<u8>) -> String {
    // Every alphabet is printable ASCII (checked when it is built), padding and line endings
    // are ASCII: the conversion cannot fail. It still checks, in one fast pass, so that
    // `unsafe` stays in `arch/`.
    String::from_utf8(bytes).unwrap_or_default()
}
