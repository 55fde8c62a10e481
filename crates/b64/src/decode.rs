//! The decoder: a byte-at-a-time state machine that defines every error, with the bulk
//! (kernels, then the scalar word loop) taking over whenever it stands at the start of a
//! group of 4 symbols. The one-shot calls, `decode_in_place` and the streaming reader all
//! run this one machine, so they agree on every input and every split of it.

use crate::alphabet::INVALID;
use crate::{DecodeError, DecodeMode, DecodePadding, Engine};

/// Where the decoder reads and writes: two slices, or one buffer decoded in place (output
/// never ahead of input). Positions are indices into `input()` and `output()`.
pub(crate) trait Io {
    /// The input text.
    fn input(&self) -> &[u8];
    /// The output buffer (in place: the same bytes as `input`).
    fn output(&mut self) -> &mut [u8];
    /// Raw pointers for the kernels (unused where there is none): `(input, input len, output, output len)`. For the
    /// in-place buffer both point at the same bytes.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)),
        allow(dead_code)
    )]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize);
}

/// Separate input and output slices.
pub(crate) struct Split<'i, 'o> {
    pub(crate) src: &'i [u8],
    pub(crate) dst: &'o mut [u8],
}

impl Io for Split<'_, '_> {
    #[inline(always)]
    fn input(&self) -> &[u8] {
        self.src
    }
    #[inline(always)]
    fn output(&mut self) -> &mut [u8] {
        self.dst
    }
    #[inline(always)]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize) {
        (self.src.as_ptr(), self.src.len(), self.dst.as_mut_ptr(), self.dst.len())
    }
}

/// One buffer decoded in place: output position <= input position at every step.
pub(crate) struct InPlace<'b> {
    pub(crate) buf: &'b mut [u8],
}

impl Io for InPlace<'_> {
    #[inline(always)]
    fn input(&self) -> &[u8] {
        self.buf
    }
    #[inline(always)]
    fn output(&mut self) -> &mut [u8] {
        self.buf
    }
    #[inline(always)]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize) {
        let p = self.buf.as_mut_ptr();
        (p.cast_const(), self.buf.len(), p, self.buf.len())
    }
}

/// ASCII whitespace as WHATWG's forgiving-base64 defines it: TAB, LF, FF, CR, SPACE.
#[inline(always)]
pub(crate) fn is_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The decoder's state between bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    /// Values of the symbols of the current group, 6 bits each.
    acc: u32,
    /// Symbols in the current group (0..=3 between calls).
    nq: u8,
    /// `=` seen so far (0: not in the padding).
    pads: u8,
    /// Offset of the first `=`.
    pad_start: usize,
    /// Symbols seen so far.
    symbols: usize,
    /// Offset and byte of the last symbol.
    last: (usize, u8),
}

impl State {
    /// Decodes all of `io.input()` (which starts at stream offset `base`) into `io.output()`
    /// from position `j`; returns the new output position. (Only the `std` reader streams.)
    #[cfg(feature = "std")]
    pub(crate) fn feed<I: Io + ?Sized>(
        &mut self,
        e: &Engine<'_>,
        io: &mut I,
        base: usize,
        j: usize,
    ) -> Result<usize, DecodeError> {
        self.feed_from(e, io, base, 0, j)
    }

    /// [`State::feed`] from input index `i` on.
    fn feed_from<I: Io + ?Sized>(
        &mut self,
        e: &Engine<'_>,
        io: &mut I,
        base: usize,
        mut i: usize,
        mut j: usize,
    ) -> Result<usize, DecodeError> {
        let table = e.alphabet().decode_table();
        let backend = e.backend();
        let n = io.input().len();
        while i < n {
            let b = io.input()[i];
            let v = table[b as usize];
            if self.nq == 0 && self.pads == 0 && v != INVALID {
                let (i2, j2) = backend.decode_bulk(e.alphabet(), io, i, j);
                self.symbols += i2 - i;
                (i, j) = (i2, j2);
                if i == n {
                    break;
                }
            }
            j = self.push(e, io, base + i, i, j)?;
            i += 1;
        }
        Ok(j)
    }

    /// One byte, at input index `i` (stream offset `off`).
    #[inline]
    fn push<I: Io + ?Sized>(
        &mut self,
        e: &Engine<'_>,
        io: &mut I,
        off: usize,
        i: usize,
        mut j: usize,
    ) -> Result<usize, DecodeError> {
        let b = io.input()[i];
        let forgiving = e.decode_mode() == DecodeMode::Forgiving;
        if self.pads > 0 {
            if b == b'=' {
                self.pads += 1;
                if self.pads + self.nq > 4 {
                    return Err(DecodeError::InvalidPadding { offset: self.pad_start });
                }
            } else if !(forgiving && is_whitespace(b)) {
                return Err(DecodeError::InvalidPadding { offset: self.pad_start });
            }
            return Ok(j);
        }
        let v = e.alphabet().decode_table()[b as usize];
        if v != INVALID {
            self.acc = self.acc << 6 | u32::from(v);
            self.nq += 1;
            self.symbols += 1;
            self.last = (off, b);
            if self.nq == 4 {
                let out = io.output();
                if j + 3 > out.len() {
                    return Err(DecodeError::OutputTooSmall { offset: off });
                }
                out[j..j + 3].copy_from_slice(&self.acc.to_be_bytes()[1..]);
                j += 3;
                self.nq = 0;
                self.acc = 0;
            }
        } else if b == b'=' {
            let forbidden = !forgiving && e.decode_padding() == DecodePadding::Forbidden;
            if forbidden || self.nq < 2 {
                return Err(DecodeError::InvalidPadding { offset: off });
            }
            self.pads = 1;
            self.pad_start = off;
        } else if !(forgiving && is_whitespace(b)) {
            return Err(DecodeError::InvalidByte { offset: off, byte: b });
        }
        Ok(j)
    }

    /// The end of the input (`total` bytes in all): the checks that need it and the last
    /// 1 or 2 bytes. Returns the final output position.
    pub(crate) fn finish<I: Io + ?Sized>(
        &mut self,
        e: &Engine<'_>,
        io: &mut I,
        j: usize,
        total: usize,
    ) -> Result<usize, DecodeError> {
        let forgiving = e.decode_mode() == DecodeMode::Forgiving;
        if self.pads > 0 {
            if self.pads + self.nq != 4 {
                return Err(DecodeError::InvalidPadding { offset: self.pad_start });
            }
        } else if self.nq == 1 {
            return Err(DecodeError::InvalidLength { len: self.symbols });
        } else if self.nq >= 2 && !forgiving && e.decode_padding() == DecodePadding::Required {
            return Err(DecodeError::InvalidPadding { offset: total });
        }
        if self.nq < 2 {
            return Ok(j);
        }
        // 2 symbols: 12 bits, 1 byte and 4 unused bits; 3 symbols: 18 bits, 2 bytes and 2.
        let unused = if self.nq == 2 { 4 } else { 2 };
        if !forgiving && !e.trailing_bits_allowed() && self.acc & ((1 << unused) - 1) != 0 {
            let (offset, byte) = self.last;
            return Err(DecodeError::InvalidLastSymbol { offset, byte });
        }
        let len = usize::from(self.nq - 1);
        let bytes = (self.acc >> unused).to_be_bytes();
        let out = io.output();
        if j + len > out.len() {
            return Err(DecodeError::OutputTooSmall { offset: self.last.0 });
        }
        out[j..j + len].copy_from_slice(&bytes[4 - len..]);
        self.nq = 0;
        Ok(j + len)
    }
}

/// One-shot decode of `io.input()` into `io.output()`.
#[inline]
pub(crate) fn decode_io<I: Io + ?Sized>(e: &Engine<'_>, io: &mut I) -> Result<usize, DecodeError> {
    let total = io.input().len();
    // The common case first: all symbols, no padding, in whole groups.
    let (i, j) = e.backend().decode_bulk(e.alphabet(), io, 0, 0);
    if i == total {
        return Ok(j);
    }
    let mut state = State { symbols: i, ..State::default() };
    let j = state.feed_from(e, io, 0, i, j)?;
    state.finish(e, io, j, total)
}
