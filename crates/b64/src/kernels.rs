//! What every backend implements ([`Kernels`]) and what the backends share with their callers
//! ([`ShortRules`]). A leaf below `arch/` and `dispatch.rs`, which both import it, so
//! that the arrows run one way: the decoder and encoder call `dispatch`, `dispatch` calls the
//! tokens in `arch/`, and `arch/` calls back into nothing above it.
//!
//! The contract of a kernel: it does the bulk in whole groups only (3 bytes to 4 symbols,
//! 4 symbols to 3 bytes) and stops at the first group of 4 symbols holding a non-symbol; the
//! scalar code in `portable` and `decode` does the rest and all error reporting, so every
//! backend gives the same bytes and the same errors.

use crate::alphabet::Alphabet;
use crate::io::Io;

/// What every kernel does, in whole groups only.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)), allow(dead_code))]
pub(crate) trait Kernels: Copy {
    /// Encodes whole 3-byte groups of `src` into `dst` (4 symbols each) while both have room;
    /// may stop earlier. Returns the bytes consumed (a multiple of 3).
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize;
    /// Encodes all of `src`, last group and padding (if `pad`) included, into `dst` (exactly
    /// the encoded length) when the kernel does that in one call; returns whether it did.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn encode_all(self, _alphabet: &Alphabet, _src: &[u8], _dst: &mut [u8], _pad: bool) -> bool {
        false
    }
    /// Encodes whole blocks of lines from the start of `src` straight into `dst`, the
    /// wrapped encoding of `src` (lines of `width` symbols, each followed by `\n`, or
    /// `\r\n` if `crlf`): while a block's bytes and more follow in `src` (so every line
    /// written has its ending) and its text fits `dst`. Returns the bytes consumed and
    /// written, `(0, 0)` where the kernel has no line path for this width.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn encode_lines(
        self,
        _alphabet: &Alphabet,
        _src: &[u8],
        _dst: &mut [u8],
        _width: usize,
        _crlf: bool,
    ) -> (usize, usize) {
        (0, 0)
    }
    /// Decodes all of a short `src` into `dst` when the kernel does that in one step and the
    /// input is symbols in whole groups, or with a last group that is padded (`xy==`, `xyz=`,
    /// if `short.padded`) or partial (`xy`, `xyz`, if `short.partial`), its last symbol's
    /// unused bits zero if `short.canonical`: input every mode it is used for accepts, with no
    /// error to locate. Returns the bytes written, or `None` to take the general path. May
    /// overwrite `dst` past the bytes written.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn decode_short(
        self,
        _alphabet: &Alphabet,
        _src: &[u8],
        _dst: &mut [u8],
        _short: ShortRules,
    ) -> Option<usize> {
        None
    }
    /// Decodes whole groups of 4 symbols from input index `i` to output index `j` while the
    /// groups hold only symbols and the output has room; may stop earlier. Returns the new
    /// `(i, j)`. May overwrite output bytes past the new `j` (never input not yet consumed).
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize);
    /// [`Kernels::decode_lines`] for lines separated by any fixed run of `sep_len` (1 to 8)
    /// bytes, `sep` little-endian: the lines of `w` symbols from input index `i` while each
    /// is followed by the separator (and 8 readable bytes); `(i, j)` back where the kernel has
    /// none.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn decode_lines_sep<I: Io + ?Sized>(
        self,
        _alphabet: &Alphabet,
        _io: &mut I,
        i: usize,
        j: usize,
        _w: usize,
        _sep: u64,
        _sep_len: usize,
    ) -> (usize, usize) {
        (i, j)
    }
    /// Copies `src` less its whitespace (ASCII whitespace, or `\n` alone if `newlines_only`)
    /// into `dst`, in whole blocks of the kernel's width while `dst` has room for a block's
    /// store; every other byte is kept, symbol or not. Returns `(read, written)`; may write
    /// `dst` past `written`. `(0, 0)` where the kernel has none.
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)),
        allow(dead_code)
    )]
    fn compact(self, _src: &[u8], _dst: &mut [u8], _newlines_only: bool) -> (usize, usize) {
        (0, 0)
    }
    /// Decodes whole lines from input index `i`, the start of a line: each `w` symbols then
    /// the line ending (`\n`, or `\r\n` if `crlf`), while a line has that shape, lies whole
    /// in the input and fits the output. Returns the new `(i, j)`, `i` at the start of the
    /// first line not decoded (unchanged where the kernel has no line path, for this width,
    /// or in place). May overwrite output bytes past the new `j`.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn decode_lines<I: Io + ?Sized>(
        self,
        _alphabet: &Alphabet,
        _io: &mut I,
        i: usize,
        j: usize,
        _w: usize,
        _crlf: bool,
    ) -> (usize, usize) {
        (i, j)
    }
}

/// What a short decode may accept besides whole groups of symbols ([`Kernels::decode_short`]).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct ShortRules {
    /// A last group padded with `=` in the text.
    pub(crate) padded: bool,
    /// A last group of 2 or 3 symbols without its padding.
    pub(crate) partial: bool,
    /// The unused bits of a padded or partial group's last symbol must be zero.
    pub(crate) canonical: bool,
}
