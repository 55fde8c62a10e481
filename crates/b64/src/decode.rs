//! The decoder: a byte-at-a-time state machine that defines every error, with the bulk
//! (kernels, then the scalar word loop) taking over whenever it stands at the start of a
//! group of 4 symbols. The one-shot calls, `decode_in_place` and the streaming reader all
//! run this one machine, so they agree on every input and every split of it.
//!
//! Invariant of every fast path (the short path, the line paths, the bulk): it consumes only
//! what the machine would accept, and where it stops the machine goes on at the same input
//! position with the state it would have there, so errors and their offsets never depend on
//! the path. The one-shot path ([`decode_io`]) tries, in order: lines of a common width from
//! the first byte (forgiving), the bulk, lines of the width the bulk stopped at, the short
//! path for the last group, then the machine. The thresholds ([`TAIL_MAX`], [`LINES_BUF`],
//! [`MIN_RUN`], [`MAX_LINE`]) say beside them where they come from. Calls go one way:
//! `engine` -> here -> `dispatch` (through the engine's backend) -> `arch` -> `portable`.

use crate::alphabet::INVALID;
use crate::config::{DecodeMode, DecodePaddingMode, GeneralPurpose};
use crate::error::DecodeError;
use crate::io::{Io, Split};
use crate::kernels::{Job, ShortRules};
use crate::portable::copy_line;

/// The line path's buffer of gathered symbols and the decoder's output, which in place
/// ([`Io::output_before`]) still holds input the byte machine may read: `free` is the
/// decoder's [`Io::output_free`]. [`Split`]'s accessors; no [`Io::split_from`] (the bulk
/// kernels it serves take no short path).
struct Gathered<'i, 'o> {
    io: Split<'i, 'o>,
    free: bool,
}

impl Io for Gathered<'_, '_> {
    #[inline(always)]
    fn input(&self) -> &[u8] {
        self.io.input()
    }
    #[inline(always)]
    fn output(&mut self) -> &mut [u8] {
        self.io.output()
    }
    #[inline(always)]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize) {
        self.io.raw()
    }
    #[inline(always)]
    fn output_before(&mut self, read: usize) -> &mut [u8] {
        self.io.output_before(read)
    }
    #[inline(always)]
    fn output_free(&self) -> bool {
        self.free
    }
}

/// The buffer of the line fast path, aligned to a cache line: the kernels' loads from it
/// (and, for line widths that are multiples of 64, the copies into it) split no line.
#[repr(align(64))]
struct Aligned<const B: usize>([u8; B]);

/// Bytes of the buffer of the line fast path ([`State::lines`]): large enough that the
/// kernel's fixed cost per call is small against the bytes it decodes, small enough for the
/// stack and L1.
const LINES_BUF: usize = 4096;

/// The fewest symbols in a run of lines that the line fast path takes on (shorter runs take
/// the byte-at-a-time path, with the kernel on each line): the buffer costs about as much to
/// set up as decoding this many bytes the slow way.
const MIN_RUN: usize = 256;

/// The longest line the line fast path measures; longer lines leave the kernels seldom
/// enough as it is.
const MAX_LINE: usize = 1024;

/// One call of [`gather`] for the shape at hand, as a [`Job`] (run with the backend's
/// extensions: wider moves).
struct Gather<'a> {
    buf: &'a mut [u8],
    d: usize,
    input: &'a [u8],
    p: usize,
    w: usize,
    first: u8,
    ending: usize,
}

impl Job for Gather<'_> {
    type Output = (usize, usize);

    #[inline(always)]
    fn run(self) -> (usize, usize) {
        let Gather { buf, d, input, p, w, first, ending } = self;
        // The common shapes with the copy unrolled at compile time.
        match w {
            76 if ending == 1 => gather::<76, 1, 77>(buf, d, input, p, w, first, 1),
            76 => gather::<76, 2, 78>(buf, d, input, p, w, first, 2),
            64 if ending == 1 => gather::<64, 1, 65>(buf, d, input, p, w, first, 1),
            64 => gather::<64, 2, 66>(buf, d, input, p, w, first, 2),
            _ => gather::<0, 0, 0>(buf, d, input, p, w, first, ending),
        }
    }
}

/// Copies the bodies of the lines at `input[p..]` (`w` symbols, then the line ending:
/// `first`, and `\n` after it if `ending` is 2) to `buf[d..]` while the buffer has room and
/// the input has whole lines of that shape; returns the new `(d, p)`. `W`, `E` and `S` (the
/// width, the ending's length and their sum) are constants for the common shapes, so the
/// copy is a few fixed moves; 0 when only known at run time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn gather<const W: usize, const E: usize, const S: usize>(
    buf: &mut [u8],
    mut d: usize,
    input: &[u8],
    mut p: usize,
    w: usize,
    first: u8,
    ending: usize,
) -> (usize, usize) {
    let w = if W == 0 { w } else { W };
    let ending = if E == 0 { ending } else { E };
    let stride = if S == 0 { w + ending } else { S };
    let lines = ((buf.len() - d) / w).min((input.len() - p) / stride);
    let src = &input[p..p + lines * stride];
    let dst = &mut buf[d..d + lines * w];
    for (line, out) in src.chunks_exact(stride).zip(dst.chunks_exact_mut(w)) {
        if line[w] != first || (ending == 2 && line[w + 1] != b'\n') {
            break;
        }
        if W == 0 {
            copy_line(out, &line[..w]);
        } else {
            out.copy_from_slice(&line[..W]);
        }
        d += w;
        p += stride;
    }
    (d, p)
}

/// A line ending as the line fast path matches it: its first byte (`\n` or `\r`) and its
/// length (1 for `\n`, 2 for `\r\n`).
#[derive(Clone, Copy)]
struct Ending {
    first: u8,
    len: usize,
}

impl Ending {
    /// The ending at `input[i]` (a `\n` or `\r`): `\n`, or `\r\n`; `None` for a lone `\r`.
    #[inline(always)]
    fn at(input: &[u8], i: usize) -> Option<Ending> {
        let first = input[i];
        let len = if first == b'\n' {
            1
        } else if input.get(i + 1) == Some(&b'\n') {
            2
        } else {
            return None;
        };
        Some(Ending { first, len })
    }

    /// Whether an ending of this shape stands whole at `input[q..]`.
    #[inline(always)]
    fn ends_line(self, input: &[u8], q: usize) -> bool {
        q + self.len <= input.len()
            && input[q] == self.first
            && (self.len == 1 || input[q + 1] == b'\n')
    }
}

/// The width of the line at `input[start..]`: its symbols (by the reverse table `table`) up
/// to an ending of the same shape, measured up to [`MAX_LINE`]; `None` if the line is empty
/// or not so ended.
#[inline(always)]
fn measure_line(table: &[u8; 256], input: &[u8], start: usize, ending: Ending) -> Option<usize> {
    let limit = input.len().min(start + MAX_LINE);
    let mut q = start;
    while q < limit && table[input[q] as usize] != INVALID {
        q += 1;
    }
    let w = q - start;
    (w != 0 && ending.ends_line(input, q)).then_some(w)
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
    /// Stream offset before which the line fast path is not tried again: the end of the
    /// last run of lines it measured too short (each byte is measured at most once).
    lines_from: usize,
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
                && base + i >= self.lines_from
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
        if io.output_free() {
            return self.compact_and_decode(e, io, base, i, j);
        }
        let b = io.input()[i];
        if b == b'\n' || (b == b'\r' && !e.newlines_only()) {
            return self.lines(e, io, base, i, j);
        }
        None
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
        let (mut large, mut small);
        let buf: &mut [u8] = if n - start >= LINES_BUF {
            large = Aligned([0u8; LINES_BUF]);
            &mut large.0
        } else {
            small = Aligned([0u8; LINES_BUF / 8]);
            &mut small.0
        };
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
            let out = io.output_before(p);
            let (bi, j2) = backend.decode_bulk(
                e.alphabet(),
                &mut Gathered { io: Split { src: &buf[..given], dst: out }, free: true },
                0,
                j,
            );
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
            self.lines_from = base + p;
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

    /// The fast path of forgiving decoding for text in lines of one width with one ending
    /// (`\n` or `\r\n`), as `base64`, MIME and PEM write it. At a line ending at input index
    /// `i`, in phases: the common widths straight to the backend's line kernel
    /// ([`State::line_kernel`]); else the next line measured ([`measure_line`]) and, for a
    /// width that is a multiple of 4, the line kernel again; else, for a run of lines long
    /// enough to pay for it ([`State::run_is_long`]), the bodies of the lines copied into a
    /// buffer and decoded in long runs of the backend's bulk
    /// ([`State::gather_and_decode`]). Everything it consumes is symbols and line endings, so
    /// no error can lie in it; where a kernel stops (a group holding a non-symbol, a full
    /// output) or the shape breaks, the byte-at-a-time machine takes over at the same input
    /// position as it would without this path. Returns the new `(i, j)`, or `None` if nothing
    /// was consumed.
    fn lines<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        i: usize,
        j: usize,
    ) -> Option<(usize, usize)> {
        let ending = Ending::at(io.input(), i)?;
        let start = i + ending.len;
        // The common widths first, straight to the line kernel, which checks every line's
        // shape itself: no scalar measurement of the next line. (No call for a line that
        // does not end there: the text's last line.)
        if self.nq == 0 {
            for w in COMMON_WIDTHS {
                if ending.ends_line(io.input(), start + w)
                    && let Some(r) = self.line_kernel(e, io, base, (start, j), w, ending)
                {
                    return Some(r);
                }
            }
        }
        let w = measure_line(e.alphabet().decode_table(), io.input(), start, ending)?;
        // Lines whose width is a multiple of 4 (no group spans a line ending) at the start of
        // a group: the line kernel decodes them straight from the input.
        if self.nq == 0
            && w.is_multiple_of(4)
            && let Some(r) = self.line_kernel(e, io, base, (start, j), w, ending)
        {
            return Some(r);
        }
        if !self.run_is_long(io.input(), base, start, w, ending) {
            return None;
        }
        self.gather_and_decode(e, io, base, (start, j), w, ending)
    }

    /// The backend's line kernel on the lines of `w` symbols from input index `start` (the
    /// start of a line and of a group), output index `j`; counts the symbols it consumed.
    /// `None` if it took no line.
    #[inline(always)]
    fn line_kernel<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        (start, j): (usize, usize),
        w: usize,
        ending: Ending,
    ) -> Option<(usize, usize)> {
        let (i2, j2) = e.backend().decode_lines(e.alphabet(), io, start, j, w, ending.len == 2);
        if i2 <= start {
            return None;
        }
        self.symbols += (i2 - start) / (w + ending.len) * w;
        let last = i2 - ending.len - 1;
        self.last = (base + last, io.input()[last]);
        Some((i2, j2))
    }

    /// Whether the lines of `w` symbols from input index `start` make a run worth the buffer
    /// of [`State::gather_and_decode`] (4 KiB to initialise): at least [`MIN_RUN`] symbols,
    /// counted ahead up to there. If not, the fast path is not tried again before the run's
    /// end (each byte is measured at most once).
    #[inline(always)]
    fn run_is_long(
        &mut self,
        input: &[u8],
        base: usize,
        start: usize,
        w: usize,
        ending: Ending,
    ) -> bool {
        let stride = w + ending.len;
        let mut ahead = start;
        while ahead - start < MIN_RUN / w * stride + stride
            && ahead + stride <= input.len()
            && ending.ends_line(input, ahead + w)
        {
            ahead += stride;
        }
        if (ahead - start) / stride * w < MIN_RUN {
            self.lines_from = base + ahead;
            return false;
        }
        true
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

    /// Copies the bodies of the lines of `w` symbols from input index `start` into a buffer,
    /// the pending symbols of the current group first, and decodes it with the backend's
    /// bulk, chunk by chunk: one long run of the kernel instead of one short run per line.
    /// Returns the new `(i, j)`, or `None` if the kernel decoded nothing.
    #[inline(always)]
    fn gather_and_decode<I: Io + ?Sized>(
        &mut self,
        e: &GeneralPurpose<'_>,
        io: &mut I,
        base: usize,
        (start, mut j): (usize, usize),
        w: usize,
        ending: Ending,
    ) -> Option<(usize, usize)> {
        // A small buffer for a short input: initialising the large one would cost more than
        // the copies.
        let (mut large, mut small);
        let buf: &mut [u8] = if io.input().len() - start >= LINES_BUF {
            large = Aligned([0u8; LINES_BUF]);
            &mut large.0
        } else {
            small = Aligned([0u8; LINES_BUF / 4]);
            &mut small.0
        };
        // The symbols of the current group, counted already, lead the buffer.
        let counted = self.pending_symbols(buf, e.alphabet().symbols());
        // `lead`: symbols at the front of the buffer that are not from the lines (the first
        // chunk's `counted`); `pending`: all symbols at the front before the next lines;
        // `taken`: line symbols consumed so far, the index of the next one.
        let (mut lead, mut pending, mut taken) = (counted, counted, 0);
        let stride = w + ending.len;
        // Input index of the line symbol of index `t`.
        let at = |t: usize| start + t / w * stride + t % w;
        let backend = e.backend();
        let free = io.output_free();
        let mut resume = None;
        let mut p = start;
        loop {
            // Gather whole lines (each followed by the ending) while the buffer has room;
            // the common shapes with the copy unrolled at compile time.
            let input = io.input();
            let d;
            (d, p) = backend.with_features(Gather {
                buf: &mut *buf,
                d: pending,
                input,
                p,
                w,
                first: ending.first,
                ending: ending.len,
            });
            // A full buffer: more lines follow, so hand the kernel a multiple of its largest
            // block (256 symbols, AVX-512) and carry the rest over, instead of its slower
            // tail at every chunk.
            let more = d + w > buf.len();
            let given = if more { d / 256 * 256 } else { d };
            let out = io.output_before(p);
            let (bi, j2) = backend.decode_bulk(
                e.alphabet(),
                &mut Gathered { io: Split { src: &buf[..given], dst: out }, free },
                0,
                j,
            );
            if bi == 0 {
                break;
            }
            // `bi >= 4 > lead`: the leading symbols went out with the first group.
            self.symbols += bi - lead;
            self.nq = 0;
            self.acc = 0;
            self.last = (base + at(taken + bi - 1 - lead), buf[bi - 1]);
            j = j2;
            taken += bi - lead;
            resume = Some(at(taken));
            if given - bi >= 4 || !more {
                // The kernel stopped early, or the shape broke (or the input ended).
                break;
            }
            buf.copy_within(bi..d, 0);
            pending = d - bi;
            lead = 0;
        }
        resume.map(|r| (r, j))
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
                && let Some(r) = lines_then_last(e, io, (0, 0), w, ending, 0)
            {
                return r;
            }
        }
    }
    // The common case first: all symbols, no padding, in whole groups.
    let (i, j) = e.backend().decode_bulk(e.alphabet(), io, 0, 0);
    if i == total {
        return Ok(j);
    }
    // Forgiving text in lines of another width (a multiple of 4, at least a kernel block):
    // the bulk stopped at the end of the first line. (`input[i]` exists: `i < total`.)
    if forgiving
        && i >= 16
        && i.is_multiple_of(4)
        && let Some(ending) = ending_at(e, io.input(), i)
        && let Some(r) = lines_then_last(e, io, (i + ending, j), i, ending, i)
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
    let mut state = State { symbols: i, ..State::default() };
    let j = state.feed_from(e, io, 0, i, j)?;
    state.finish(e, io, j, total)
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
/// multiple of 4, then `\n` or `\r\n`; the last line perhaps shorter, padded, and ended or
/// not), as `base64`, MIME and PEM write it: the backend's line kernel takes the lines of
/// that width from input index `start` (output `j`, `before` symbols before it, `ending`
/// bytes of line ending after each line), and the short path the last line (without one
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
    ending: usize,
    before: usize,
) -> Option<Result<usize, DecodeError>> {
    let total = io.input().len();
    let stride = w + ending;
    let (i, j) = e.backend().decode_lines(e.alphabet(), io, start, j, w, ending == 2);
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
