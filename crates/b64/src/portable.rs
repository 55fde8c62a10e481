//! The scalar codec: the reference the kernels are tested against, the whole codec on
//! targets without a kernel (mips64, riscv64 without V), and the tail after every kernel.
//!
//! Six input bytes travel as one big-endian 64-bit word (`from_be_bytes`/`to_be_bytes`), so
//! the code is endian-correct by construction and shifts instead of masking byte by byte.

use crate::alphabet::INVALID;
use crate::io::Io;

/// The first `N` bytes of `s` as an array (`s` is at least `N` long at every call site).
#[inline(always)]
fn array<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&s[..N]);
    a
}

/// Encodes whole 3-byte groups of `src` into `dst` while both have room. Returns the bytes
/// consumed (a multiple of 3); `dst` receives 4 symbols per group.
#[inline]
pub(crate) fn encode_bulk(symbols: &[u8; 64], src: &[u8], dst: &mut [u8]) -> usize {
    let end = (src.len() / 3).min(dst.len() / 4) * 3;
    let (mut i, mut j) = (0, 0);
    // 6 bytes -> 8 symbols: read 8 bytes as one word, use the top 48 bits.
    while i + 8 <= src.len() && i + 6 <= end {
        let w = u64::from_be_bytes(array(&src[i..]));
        let sym = |shift: u32| symbols[(w >> shift) as usize & 63];
        let out = [sym(58), sym(52), sym(46), sym(40), sym(34), sym(28), sym(22), sym(16)];
        dst[j..j + 8].copy_from_slice(&out);
        i += 6;
        j += 8;
    }
    while i + 3 <= end {
        let w = u32::from_be_bytes([0, src[i], src[i + 1], src[i + 2]]);
        let sym = |shift: u32| symbols[(w >> shift) as usize & 63];
        dst[j..j + 4].copy_from_slice(&[sym(18), sym(12), sym(6), sym(0)]);
        i += 3;
        j += 4;
    }
    i
}

/// Encodes the last 1 or 2 bytes of an input (`tail`), with `=` padding when `pad`. Returns
/// the symbols written (2 or 3, plus padding).
#[inline]
pub(crate) fn encode_tail(symbols: &[u8; 64], tail: &[u8], pad: bool, dst: &mut [u8]) -> usize {
    let sym = |v: u32| symbols[v as usize & 63];
    let n = match *tail {
        [] => return 0,
        [a] => {
            let w = u32::from(a) << 16;
            dst[..2].copy_from_slice(&[sym(w >> 18), sym(w >> 12)]);
            2
        }
        [a, b, ..] => {
            let w = u32::from(a) << 16 | u32::from(b) << 8;
            dst[..3].copy_from_slice(&[sym(w >> 18), sym(w >> 12), sym(w >> 6)]);
            3
        }
    };
    if pad {
        // Byte stores, not `fill`: a 1- or 2-byte `fill` becomes a `memset` call.
        dst[n] = b'=';
        dst[3] = b'=';
        4
    } else {
        n
    }
}

/// Decodes whole groups of 4 symbols from input position `i` to output position `j` while
/// the input has only symbols and the output has room. Returns the new `(i, j)`.
#[inline]
pub(crate) fn decode_bulk<I: Io + ?Sized>(
    table: &[u8; 256],
    io: &mut I,
    mut i: usize,
    mut j: usize,
) -> (usize, usize) {
    let n = io.input().len();
    let cap = io.output().len();
    // A non-symbol first (where a kernel stops, at a line ending or the padding): no group to
    // decode, and no need to look up the 8 bytes of one.
    if io.input().get(i).is_some_and(|&b| table[usize::from(b)] == INVALID) {
        return (i, j);
    }
    // 8 symbols -> 6 bytes through one 64-bit word.
    while i + 8 <= n && j + 6 <= cap {
        let c: [u8; 8] = array(&io.input()[i..]);
        let (mut acc, mut bad) = (0u64, 0u8);
        for &byte in &c {
            let v = table[byte as usize];
            bad |= v;
            acc = acc << 6 | u64::from(v & 63);
        }
        if bad & 0x80 != 0 {
            break;
        }
        let bytes = (acc << 16).to_be_bytes();
        io.output()[j..j + 6].copy_from_slice(&bytes[..6]);
        i += 8;
        j += 6;
    }
    while i + 4 <= n && j + 3 <= cap {
        let c: [u8; 4] = array(&io.input()[i..]);
        let (mut acc, mut bad) = (0u32, 0u8);
        for &byte in &c {
            let v = table[byte as usize];
            bad |= v;
            acc = acc << 6 | u32::from(v & 63);
        }
        if bad & 0x80 != 0 {
            break;
        }
        let bytes = acc.to_be_bytes();
        io.output()[j..j + 3].copy_from_slice(&bytes[1..]);
        i += 4;
        j += 3;
    }
    (i, j)
}

/// Copies `src` less its whitespace (ASCII whitespace, or `\n` alone if `newlines_only`) into
/// `dst` until either ends; returns `(read, written)`.
#[inline]
pub(crate) fn compact(src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
    let (mut i, mut o) = (0, 0);
    while i < src.len() && o < dst.len() {
        let b = src[i];
        // ASCII whitespace as `config::is_whitespace` (WHATWG's five bytes).
        let ws = if newlines_only {
            b == b'\n'
        } else {
            matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
        };
        dst[o] = b;
        o += usize::from(!ws);
        i += 1;
    }
    (i, o)
}
/// Copies one line body to `out` (as long) with fixed-size moves (a variable-length
/// `copy_from_slice` is a `memcpy` call per line).
#[inline(always)]
pub(crate) fn copy_line(out: &mut [u8], line: &[u8]) {
    let w = line.len();
    if w < 16 {
        out.copy_from_slice(line);
        return;
    }
    let mut k = 0;
    while k + 16 <= w {
        out[k..k + 16].copy_from_slice(&line[k..k + 16]);
        k += 16;
    }
    if k < w {
        out[w - 16..].copy_from_slice(&line[w - 16..]);
    }
}
