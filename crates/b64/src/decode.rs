//! The decoder: a byte-at-a-time state machine that defines every error, with the bulk
//! (kernels, then the scalar word loop) taking over whenever it stands at the start of a
//! group of 4 symbols. The one-shot calls, `decode_in_place` and the streaming reader all
//! run this one machine, so they agree on every input and every split of it.
//!
//! Invariant of every fast path (the short path, the line paths, the whitespace path, the
//! bulk): it consumes only what the machine would accept, and where it stops the machine goes
//! on at the same input position with the state it would have there, so errors and their
//! offsets never depend on the path. The one-shot path ([`decode_io`]) tries, in order: lines
//! of a common width from the first byte (forgiving), the bulk, lines of the width the bulk
//! stopped at, the short path for the last group, then the machine, which hands forgiving
//! text to the whitespace path ([`State::compact_and_decode`]: whitespace removed by the
//! backend's compaction, the rest decoded by its bulk) at each whitespace byte. The
//! thresholds ([`TAIL_MAX`], [`WS_BUF`]) say beside them where they come from. Calls go one
//! way: `engine` -> here -> `dispatch` (through the engine's backend) -> `arch` -> `portable`.

use crate::alphabet::INVALID;
use crate::config::{DecodeMode, DecodePaddingMode, GeneralPurpose};
use crate::error::DecodeError;
use crate::io::{Io, Split};
use crate::kernels::ShortRules;

/// The buffer of the whitespace path, aligned to a cache line.
#[repr(align(64))]
struct Aligned<const B: usize>([u8; B]);

/// Bytes of the buffer of the whitespace path ([`State::compact_and_decode`]): the bulk's
/// fixed cost per call (its last, slower blocks) small against the bytes it decodes, and
/// still in L1 when the bulk reads it back.
const WS_BUF: usize = 16384;

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
    /// Stream offset before which the whitespace path is not tried again: the end of what
    /// it last compacted without decoding a group (each byte is compacted at most once).
    ws_from: usize,
}

impl State {
    /// Decodes all of `io.input()` (which starts at stream offset `base`) into `io.output()`
    /// from position `j`; returns the new output position. (Only the `std` reader streams.)
    #[cfg(feature = "std")]
    pub(crate) fn feed<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        j: usize,
    ) -> Result<usize, DecodeError> {
        self.feed_from(e, io, base, 0, j)
    }

    /// [`State::feed`] from input index `i` on.
    fn feed_from<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        mut i: usize,
        mut j: usize,
    ) -> Result<usize, DecodeError> {
        let table = e.alphabet().decode_table();
        let backend = e.backend();
        let forgiving = e.decode_mode() == DecodeMode::Forgiving;
        let n = io.input().len();
        while i < n {
            let b = io.input()[i];
            let v = table[b as usize];
            if self.nq == 0 && self.pads == 0 && v != INVALID {
                let (i2, j2) = backend.decode_bulk(e.alphabet(), io, i, j);
                self.symbols += i2 - i;
                if i2 != i {
                    (i, j) = (i2, j2);
                    continue;
                }
            } else if forgiving
                && self.pads == 0
                && base + i >= self.ws_from
                && e.skips(b)
                && let Some((i2, j2)) = self.skip_whitespace(e, io, base, i, j)
            {
                (i, j) = (i2, j2);
                continue;
            }
            j = self.push(e, io, base + i, i, j)?;
            i += 1;
        }
        Ok(j)
    }

    /// Forgiving decoding at a whitespace byte (input index `i`, output `j`): the
    /// whitespace path, else (in place, where it does not run) the line path.
    #[inline]
    fn skip_whitespace<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        i: usize,
        j: usize,
    ) -> Option<(usize, usize)> {
        self.compact_and_decode(e, io, base, i, j)
    }

    /// The fast path of forgiving decoding for text with whitespace anywhere, from the
    /// whitespace byte at input index `i` (output `j`): the backend's compaction
    /// ([`Backend::compact`](crate::dispatch::Backend::compact)) copies the input less its
    /// whitespace into a buffer, after the pending symbols of the current group, and the
    /// backend's bulk decodes the buffer in long runs, a chunk at a time. It stops where the
    /// bulk does (a group holding a non-symbol: padding, an invalid byte; a full output) or at
    /// the end of the input; the byte machine goes on at the first byte kept and not decoded
    /// (found by walking back over the input from the end of what was compacted), with the
    /// state it would have there: whole groups decoded, nothing pending. Separate buffers
    /// only (`Io::output_free`): the walk reads input the bulk's output would overwrite in
    /// place. Returns the new `(i, j)`, or `None` if nothing was decoded (the byte machine
    /// then takes the bytes compacted, without coming back here before their end).
    #[inline(never)]
    fn compact_and_decode<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        start: usize,
        mut j: usize,
    ) -> Option<(usize, usize)> {
        let n = io.input().len();
        // The buffer by the text left: zeroing it is part of the call's fixed cost, and a
        // buffer much smaller than the text costs a round of kernel calls per buffer.
        let (mut large, mut medium, mut small);
        let buf: &mut [u8] = if n - start >= WS_BUF {
            large = Aligned([0u8; WS_BUF]);
            &mut large.0
        } else if n - start >= WS_BUF / 16 {
            medium = Aligned([0u8; WS_BUF / 4]);
            &mut medium.0
        } else {
            small = Aligned([0u8; WS_BUF / 32]);
            &mut small.0
        };
        // In place, the bulk decodes into a scratch buffer first: its stores past the bytes
        // decoded (up to the output's end) would overwrite input the walk below reads.
        let (mut big, mut mid, mut little);
        let scratch: Option<&mut [u8]> = if io.output_free() {
            None
        } else if buf.len() == WS_BUF {
            big = [0u8; WS_BUF / 4 * 3];
            Some(&mut big)
        } else if buf.len() == WS_BUF / 4 {
            mid = [0u8; WS_BUF / 4 / 4 * 3];
            Some(&mut mid)
        } else {
            little = [0u8; WS_BUF / 32 / 4 * 3];
            Some(&mut little)
        };
        let mut scratch = scratch;
        let newlines_only = e.newlines_only();
        let backend = e.backend();
        let counted = self.pending_symbols(buf, e.alphabet().symbols());
        // `d`: bytes in the buffer; `p`: the input compacted; `done`: symbols decoded.
        let (mut d, mut p, mut done) = (counted, start, 0usize);
        let rest;
        loop {
            let (r, w) = backend.compact(&io.input()[p..], &mut buf[d..], newlines_only);
            p += r;
            d += w;
            // A full buffer: more input follows, so hand the bulk a multiple of its largest
            // block (256 symbols, AVX-512) and carry the rest over.
            let more = p < n;
            let given = if more { d / 256 * 256 } else { d / 4 * 4 };
            let (bi, j2) = if let Some(scratch) = scratch.as_deref_mut() {
                // In place: into the scratch, then copied behind the input read (`j2` is at
                // most the offset of the last symbol decoded).
                let (bi, k) = backend.decode_bulk(
                    e.alphabet(),
                    &mut Split { src: &buf[..given], dst: &mut scratch[..given / 4 * 3] },
                    0,
                    0,
                );
                io.output_before(p)[j..j + k].copy_from_slice(&scratch[..k]);
                (bi, j + k)
            } else {
                let out = io.output_before(p);
                backend.decode_bulk(e.alphabet(), &mut Split { src: &buf[..given], dst: out }, 0, j)
            };
            if bi > 0 {
                self.last.1 = buf[bi - 1];
            }
            done += bi;
            j = j2;
            if bi < given || !more {
                rest = d - bi;
                break;
            }
            buf.copy_within(bi..d, 0);
            d -= bi;
        }
        if done == 0 {
            self.ws_from = base + p;
            return None;
        }
        // The symbols decoded, less those pending before (counted already).
        self.symbols += done - counted;
        self.nq = 0;
        self.acc = 0;
        // The first byte kept and not decoded: `rest` bytes kept back from `p`.
        let input = io.input();
        let skip = |b: u8| if newlines_only { b == b'\n' } else { crate::config::is_whitespace(b) };
        let mut q = p;
        let mut k = rest;
        while k > 0 {
            q -= 1;
            k -= usize::from(!skip(input[q]));
        }
        // The last symbol decoded: the last byte kept before `q`.
        let mut l = q - 1;
        while skip(input[l]) {
            l -= 1;
        }
        self.last.0 = base + l;
        Some((q, j))
    }

    /// Writes the symbols of the current group (counted already) to the front of `buf`;
    /// returns how many.
    #[inline(always)]
    fn pending_symbols(&self, buf: &mut [u8], symbols: &[u8; 64]) -> usize {
        let counted = usize::from(self.nq);
        for (k, slot) in buf[..counted].iter_mut().enumerate() {
            *slot = symbols[(self.acc >> (6 * (counted - 1 - k))) as usize & 63];
        }
        counted
    }

    /// One byte, at input index `i` (stream offset `off`).
    #[inline]
    fn push<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
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
            } else if !(forgiving && e.skips(b)) {
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
            let forbidden = !forgiving && e.decode_padding() == DecodePaddingMode::RequireNone;
            if forbidden || self.nq < 2 {
                return Err(DecodeError::InvalidPadding { offset: off });
            }
            self.pads = 1;
            self.pad_start = off;
        } else if !(forgiving && e.skips(b)) {
            return Err(DecodeError::InvalidByte { offset: off, byte: b });
        }
        Ok(j)
    }

    /// The end of the input (`total` bytes in all): the checks that need it and the last
    /// 1 or 2 bytes. Returns the final output position.
    pub(crate) fn finish<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
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
        } else if self.nq >= 2
            && !forgiving
            && e.decode_padding() == DecodePaddingMode::RequireCanonical
        {
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

/// The last group of a text when it is `xy==` or `xyz=`, or `xy` or `xyz` without its
/// padding, and valid for `e`: writes its 1 or 2 bytes to `out[j..]` and returns the new
/// output position. `None` (nothing written) for anything else, an error included: the
/// general path then finds and reports it.
#[inline]
fn last_group(e: &GeneralPurpose<'_>, last: &[u8], out: &mut [u8], j: usize) -> Option<usize> {
    let forgiving = e.decode_mode() == DecodeMode::Forgiving;
    let padded = forgiving || e.decode_padding() != DecodePaddingMode::RequireNone;
    let partial = forgiving || e.decode_padding() != DecodePaddingMode::RequireCanonical;
    // `c` is `=` for a group of 2 symbols.
    let (a, b, c) = match *last {
        [a, b, c, b'='] if padded => (a, b, c),
        [a, b] if partial => (a, b, b'='),
        [a, b, c] if partial && c != b'=' => (a, b, c),
        _ => return None,
    };
    let table = e.alphabet().decode_table();
    let (a, b) = (table[a as usize], table[b as usize]);
    if a == INVALID || b == INVALID {
        return None;
    }
    let (acc, unused, len) = if c == b'=' {
        (u32::from(a) << 6 | u32::from(b), 4, 1)
    } else {
        let c = table[c as usize];
        if c == INVALID {
            return None;
        }
        (u32::from(a) << 12 | u32::from(b) << 6 | u32::from(c), 2, 2)
    };
    if !forgiving && !e.trailing_bits_allowed() && acc & ((1 << unused) - 1) != 0 {
        return None;
    }
    let bytes = (acc >> unused).to_be_bytes();
    let dst = out.get_mut(j..j + len)?;
    dst.copy_from_slice(&bytes[4 - len..]);
    Some(j + len)
}

/// Decodes `input` into `out` ([`decode_slice`](crate::Engine::decode_slice)): short, well-formed input in one
/// kernel step; anything else (other bytes, a short buffer, long input) goes the general
/// way, out of line, which finds and reports errors.
#[inline(always)]
pub(crate) fn decode_slice(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, DecodeError> {
    if let Some(n) = decode_short(e, input, out) {
        return Ok(n);
    }
    decode_split(e, input, out)
}

/// [`decode_slice`] past its short path.
#[inline(never)]
fn decode_split(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, DecodeError> {
    decode_io(e, &mut Split { src: input, dst: out })
}

/// Short input in one kernel step where the backend has one (`Backend::decode_short`),
/// a padded or partial last group included as the engine's rules allow; `None` (with `out`
/// perhaps overwritten) to take the general path.
#[inline(always)]
fn decode_short(e: &GeneralPurpose<'_>, input: &[u8], out: &mut [u8]) -> Option<usize> {
    let forgiving = e.decode_mode() == DecodeMode::Forgiving;
    let short = ShortRules {
        padded: forgiving || e.decode_padding() != DecodePaddingMode::RequireNone,
        partial: forgiving || e.decode_padding() != DecodePaddingMode::RequireCanonical,
        canonical: !forgiving && !e.trailing_bits_allowed(),
    };
    e.backend().decode_short(e.alphabet(), input, out, short)
}

/// The longest rest after the bulk that [`decode_io`] hands to the short path: the bulk stops
/// there at a padded or partial last group (at most 3 symbols and 2 `=`), or at a non-symbol,
/// where the short path gives up at once.
const TAIL_MAX: usize = 64;

/// One-shot decode of `io.input()` into `io.output()`.
#[inline]
pub(crate) fn decode_io<I: Io + ?Sized>(
    e: &GeneralPurpose<'_>,
    io: &mut I,
) -> Result<usize, DecodeError> {
    let total = io.input().len();
    let forgiving = e.decode_mode() == DecodeMode::Forgiving;
    // Forgiving text in lines of a common width, from its first line.
    if forgiving {
        for w in COMMON_WIDTHS {
            if let Some(ending) = ending_at(e, io.input(), w)
                && let Some(r) = lines_then_last(e, io, (0, 0), w, (ending, None), 0)
            {
                return r;
            }
        }
    }
    // Forgiving text may start with whitespace (an indented first line): skipped.
    let lead = if forgiving { ws_run(e, io.input(), 0, total) } else { 0 };
    // The common case first: all symbols, no padding, in whole groups.
    let (i, j) = e.backend().decode_bulk(e.alphabet(), io, lead, 0);
    if i == total {
        return Ok(j);
    }
    // Forgiving text in lines of one width (a multiple of 4, at least a kernel block) with
    // another separator between them (a space, a line ending and the next line's indent):
    // the bulk stopped at the end of the first line.
    let w = i - lead;
    if forgiving
        && w >= 16
        && w.is_multiple_of(4)
        && let Some((sep, len)) = separator_at(e, io.input(), i)
        && (lead > 0 || ending_at(e, io.input(), i) != Some(len))
        && let Some(r) = lines_then_last(e, io, (i + len, j), w, (len, Some(sep)), w)
    {
        return r;
    }
    // Forgiving text in lines of another width (a multiple of 4, at least a kernel block):
    // the bulk stopped at the end of the first line. (`input[i]` exists: `i < total`.)
    if forgiving
        && lead == 0
        && i >= 16
        && i.is_multiple_of(4)
        && let Some(ending) = ending_at(e, io.input(), i)
        && let Some(r) = lines_then_last(e, io, (i + ending, j), i, (ending, None), i)
    {
        return r;
    }
    // Then a short rest (the last group padded or partial) in one kernel step, where the
    // backend has one and the buffers are separate.
    if total - i <= TAIL_MAX
        && let Some((src, dst)) = io.split_from(i, j)
        && let Some(n) = decode_short(e, src, dst)
    {
        return Ok(j + n);
    }
    // Then the common endings: whole groups and one last group, padded or partial.
    let len = total - i;
    if (2..=4).contains(&len) {
        // The last `len` bytes by fixed loads (a copy of variable length is a `memcpy` call):
        // `[a, b, b, b]`, `[a, b, c, c]` or `[a, b, c, d]`, of which `len` count.
        let input = io.input();
        let last = [input[i], input[i + 1], input[total - len / 2], input[total - 1]];
        if let Some(j) = last_group(e, &last[..len], io.output(), j) {
            return Ok(j);
        }
    }
    let mut state = State { symbols: i - lead, ..State::default() };
    let j = state.feed_from(e, io, 0, i, j)?;
    state.finish(e, io, j, total)
}

/// The length of the run of whitespace the engine skips at `input[q..n]`.
#[inline(always)]
fn ws_run(e: &GeneralPurpose<'_>, input: &[u8], q: usize, n: usize) -> usize {
    input[q..n].iter().take_while(|&&b| e.skips(b)).count()
}

/// The run of 1 to 8 bytes of whitespace at `input[q..]` (followed by a byte that is not),
/// as the separator of [`Backend::decode_lines_sep`](crate::dispatch::Backend): its bytes
/// little-endian and its length.
#[inline(always)]
fn separator_at(e: &GeneralPurpose<'_>, input: &[u8], q: usize) -> Option<(u64, usize)> {
    let end = input.len().min(q + 9);
    let len = ws_run(e, input, q, end);
    if len == 0 || len > 8 || q + len == input.len() {
        return None;
    }
    let mut bytes = [0u8; 8];
    bytes[..len].copy_from_slice(&input[q..q + len]);
    Some((u64::from_le_bytes(bytes), len))
}

/// The widths whose line ending [`decode_io`] looks for before the bulk, in forgiving text:
/// `base64`'s and MIME's 76 columns and PEM's 64.
const COMMON_WIDTHS: [usize; 2] = [76, 64];

/// The line ending (`1` for `\n`, `2` for `\r\n` where the engine skips `\r`) at `input[q..]`,
/// if any.
#[inline(always)]
fn ending_at(e: &GeneralPurpose<'_>, input: &[u8], q: usize) -> Option<usize> {
    match input.get(q..q + 2) {
        _ if input.get(q) == Some(&b'\n') => Some(1),
        Some(b"\r\n") if !e.newlines_only() => Some(2),
        _ => None,
    }
}

/// The fast path of [`decode_io`] for forgiving text in lines of one width (`w` symbols, a
/// multiple of 4, then `\n` or `\r\n`, or with `sep` any run of 1 to 8 whitespace bytes; the
/// last line perhaps shorter, padded, and ended or not), as `base64`, MIME and PEM write it,
/// or indented: the backend's line kernel takes the lines of that width from input index
/// `start` (output `j`, `before` symbols before it, `ending` bytes of line ending after each
/// line), and the short path the last line (without one
/// final ending), with no pass through the byte-at-a-time machine's loop. Where either stops
/// early, the machine goes on from the last whole line, with the state it would have there
/// (the line kernel consumes only lines of symbols). `None` (nothing consumed) when no line
/// of that shape starts there: the general path then takes it.
#[inline]
fn lines_then_last<I: Io + ?Sized>(
    e: &GeneralPurpose<'_>,
    io: &mut I,
    (start, j): (usize, usize),
    w: usize,
    (ending, sep): (usize, Option<u64>),
    before: usize,
) -> Option<Result<usize, DecodeError>> {
    let total = io.input().len();
    let stride = w + ending;
    let (i, j) = match sep {
        None => e.backend().decode_lines(e.alphabet(), io, start, j, w, ending == 2),
        Some(sep) => e.backend().decode_lines_sep(e.alphabet(), io, start, j, w, sep, ending),
    };
    if i == start {
        return None;
    }
    let symbols = before + (i - start) / stride * w;
    if i == total {
        return Some(Ok(j));
    }
    // The last line, less one final line ending, in one short-path step.
    let input = io.input();
    let mut end = total;
    if input[end - 1] == b'\n' {
        end -= 1;
        if end > i && input[end - 1] == b'\r' && !e.newlines_only() {
            end -= 1;
        }
    }
    if end == i {
        return Some(Ok(j));
    }
    if end - i <= TAIL_MAX + w
        && let Some((src, dst)) = io.split_from(i, j)
        && let Some(n) = decode_short(e, &src[..end - i], dst)
    {
        return Some(Ok(j + n));
    }
    let mut state = State { symbols, ..State::default() };
    Some(state.feed_from(e, io, 0, i, j).and_then(|j| state.finish(e, io, j, total)))
}

/// The byte-at-a-time machine alone, no bulk and no fast path: the oracle the tests hold
/// every backend and every path to.
pub(crate) fn decode_bytewise(
    e: &GeneralPurpose<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, DecodeError> {
    let mut io = Split { src: input, dst: out };
    let mut state = State::default();
    let mut j = 0;
    for i in 0..input.len() {
        j = state.push(e, &mut io, i, i, j)?;
    }
    state.finish(e, &mut io, j, input.len())
}
