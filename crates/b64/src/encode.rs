//! The encoder: the backend's bulk (kernel, then the scalar word loop), then the last one or
//! two bytes with padding.

#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

use crate::config::{GeneralPurpose, LineEnding, LineWrap};
use crate::{encoded_len, portable};

/// Encodes `src` into `dst`, which is exactly `encoded_len(src.len())` long. Returns its length.
#[inline(always)]
pub(crate) fn encode_into(e: &GeneralPurpose<'_>, src: &[u8], dst: &mut [u8]) -> usize {
    let symbols = e.alphabet().symbols();
    let backend = e.backend();
    if backend.encode_all(e.alphabet(), src, dst, e.encode_padding()) {
        return dst.len();
    }
    encode_long(e, symbols, backend, src, dst)
}

/// [`encode_into`] for backends without `encode_all`, out of line: the one-call path then
/// runs without this one's register saves.
#[inline(never)]
fn encode_long(
    e: &GeneralPurpose<'_>,
    symbols: &[u8; 64],
    backend: crate::dispatch::Backend,
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

/// Symbols encoded per block of [`encode_wrapped_into`] (about; a whole number of lines
/// that encode whole 3-byte groups): small enough to stay in L1 between the encode and the
/// line copies, large enough that the kernel runs long.
const WRAP_BLOCK: usize = 4096;

/// Encodes `src` wrapped into `dst` (exactly `wrapped_len` long): the backend's line path
/// where it has one for this width (AVX-512 VBMI: 76 and 64 columns), then blocks of whole lines
/// (`lcm(width, 4)` symbols, a multiple of it near [`WRAP_BLOCK`]) are encoded into a buffer
/// that stays in L1, then each line is copied to its place with fixed-size moves and its
/// ending after it. Widths whose unit exceeds the buffer take [`encode_wrapped_long`].
pub(crate) fn encode_wrapped_into(
    e: &GeneralPurpose<'_>,
    src: &[u8],
    wrap: LineWrap,
    dst: &mut [u8],
) -> usize {
    let total = dst.len();
    let w = wrap.width;
    if w == 0 || total == encoded_len(src.len(), e.encode_padding()).unwrap_or(usize::MAX) {
        return encode_into(e, src, dst);
    }
    // Symbols of the smallest run of whole lines that is whole groups: lcm(w, 4).
    let unit = if w.is_multiple_of(4) {
        w
    } else if w.is_multiple_of(2) {
        2 * w
    } else {
        4 * w
    };
    if unit > WRAP_BLOCK {
        return encode_wrapped_long(e, src, wrap, dst);
    }
    let block = WRAP_BLOCK / unit * unit;
    let mut buf = [0u8; WRAP_BLOCK];
    let ending = wrap.ending.as_bytes();
    // The backend's line path first, where it has one: whole lines straight into `dst`.
    let crlf = matches!(wrap.ending, LineEnding::CrLf);
    let (mut i, mut j) = e.backend().encode_lines(e.alphabet(), src, dst, w, crlf);
    while i < src.len() {
        let take = (block / 4 * 3).min(src.len() - i);
        let symbols = encode_into(
            e,
            &src[i..i + take],
            &mut buf[..encoded_len(take, e.encode_padding()).unwrap_or(0)],
        );
        i += take;
        j = match (w, wrap.ending) {
            (76, LineEnding::Lf) => place_lines::<76, 1>(&buf[..symbols], w, ending, dst, j),
            (76, LineEnding::CrLf) => place_lines::<76, 2>(&buf[..symbols], w, ending, dst, j),
            (64, LineEnding::Lf) => place_lines::<64, 1>(&buf[..symbols], w, ending, dst, j),
            (64, LineEnding::CrLf) => place_lines::<64, 2>(&buf[..symbols], w, ending, dst, j),
            _ => place_lines::<0, 0>(&buf[..symbols], w, ending, dst, j),
        };
    }
    total
}

/// Copies `text` (whole lines of `w` symbols, `W` if not 0, but for the last block's last
/// line) to `dst[j..]`, each line followed by `ending` (`E` bytes if not 0) unless it is the
/// last line of `dst`; returns the new `j`.
#[inline(always)]
fn place_lines<const W: usize, const E: usize>(
    text: &[u8],
    w: usize,
    ending: &[u8],
    dst: &mut [u8],
    mut j: usize,
) -> usize {
    let w = if W == 0 { w } else { W };
    let ending = if E == 0 { ending } else { &ending[..E] };
    let mut lines = text.chunks_exact(w);
    for line in &mut lines {
        if W == 0 {
            crate::portable::copy_line(&mut dst[j..j + w], line);
        } else {
            dst[j..j + W].copy_from_slice(&line[..W]);
        }
        j += w;
        if j < dst.len() {
            dst[j..j + ending.len()].copy_from_slice(ending);
            j += ending.len();
        }
    }
    let rest = lines.remainder();
    dst[j..j + rest.len()].copy_from_slice(rest);
    j + rest.len()
}

/// [`encode_wrapped_into`] for very long lines: the plain encoding goes to the end of `dst`,
/// then each line moves forward to its place (never past unread symbols: line `k` moves by
/// the `k` endings still to come, which is never negative).
fn encode_wrapped_long(
    e: &GeneralPurpose<'_>,
    src: &[u8],
    wrap: LineWrap,
    dst: &mut [u8],
) -> usize {
    let total = dst.len();
    let plain = encoded_len(src.len(), e.encode_padding()).unwrap_or(usize::MAX);
    let start = total - plain;
    encode_into(e, src, &mut dst[start..]);
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
