//! Forgiving decode of text in lines of one width, straight from the input: each line's
//! `w` symbols (a multiple of 4, so no group spans a line ending) are decoded in blocks of
//! the kernel's width, the last block overlapping the one before it when `w` is not a
//! multiple of the block (76 = 32 + 32 + 12 decodes as blocks at 0, 32 and 44), and the
//! line ending is checked with two byte compares. No copy into a buffer, no carry between
//! lines. The loop is written once here over [`LineBlock`], which each x86_64 kernel and
//! NEON implement with their own block decode. (AVX2 decodes 76-column lines two at a time
//! first, in 5 blocks instead of 6: `line_pairs_76` in `x86_64/pshufb/avx2.rs`.)

/// One block of a kernel: `B` symbols decoded in place of the line.
pub(crate) trait LineBlock {
    /// Symbols per block.
    const B: usize;
    /// Bytes each block's store writes: its `B / 4 * 3` decoded bytes and then junk, which
    /// the next block's store (or the next line's) overwrites.
    const STORE: usize;
    /// What [`LineBlock::block`] returns about the symbols: all bits of the blocks of a line
    /// are OR-ed, and [`LineBlock::ok`] tells whether every byte was a symbol.
    type Bad: Copy;
    /// Decodes the `B` bytes at `src` into `STORE` bytes at `dst` (meaningful only if they
    /// are all symbols) and says whether they were.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `src` is valid for reads of `B` bytes and `dst`
    /// for writes of `STORE` bytes.
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> Self::Bad;
    /// Both blocks' reports.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn or(a: Self::Bad, b: Self::Bad) -> Self::Bad;
    /// Whether the report says every byte was a symbol.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn ok(bad: Self::Bad) -> bool;
}

/// Decodes the lines at `src[..n]` (each `w` symbols then `\n`, or `\r\n` if `crlf`) into
/// `dst[..cap]` while a line has that shape, lies whole in `src` and fits `dst` (with the
/// last store's junk); returns the bytes consumed and written (whole lines, `(0, 0)` for a
/// width the blocks do not cover: `w < B` or not a multiple of 4).
///
/// # Safety
///
/// The CPU has the kernel's features; `src` is valid for reads of `n` bytes, `dst` for writes
/// of `cap` bytes, and they do not overlap.
#[inline(always)]
pub(crate) unsafe fn decode_lines<K: LineBlock>(
    k: &K,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    if w < K::B || !w.is_multiple_of(4) {
        return (0, 0);
    }
    // SAFETY: the caller's contract.
    unsafe {
        // The widths of `base64`/MIME (76) and PEM (64) with the block loop unrolled.
        match (w, crlf) {
            (76, false) => lines_of::<K, 76, false>(k, src, n, dst, cap, w),
            (76, true) => lines_of::<K, 76, true>(k, src, n, dst, cap, w),
            (64, false) => lines_of::<K, 64, false>(k, src, n, dst, cap, w),
            (64, true) => lines_of::<K, 64, true>(k, src, n, dst, cap, w),
            (_, false) => lines_of::<K, 0, false>(k, src, n, dst, cap, w),
            (_, true) => lines_of::<K, 0, true>(k, src, n, dst, cap, w),
        }
    }
}

/// [`decode_lines`] for `w` symbols a line (`W` if not 0) and the ending `\r\n` if `CRLF`,
/// else `\n`.
///
/// # Safety
///
/// As [`decode_lines`]; `K::B <= w`, `w` a multiple of 4.
#[inline(always)]
unsafe fn lines_of<K: LineBlock, const W: usize, const CRLF: bool>(
    k: &K,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
) -> (usize, usize) {
    let w = if W == 0 { w } else { W };
    let crlf = CRLF;
    let first = if crlf { b'\r' } else { b'\n' };
    let stride = w + 1 + usize::from(crlf);
    let last = w - K::B;
    let bytes = w / 4 * 3;
    let (mut i, mut j) = (0, 0);
    // The last block's store ends at `last / 4 * 3 + STORE`.
    while i + stride <= n && j + last / 4 * 3 + K::STORE <= cap {
        // SAFETY: `i + stride <= n`: the line and its ending are readable; every block reads
        // `src[i + o..i + o + B]` with `o <= last = w - B`; every store writes
        // `dst[j + o / 4 * 3..][..STORE]`, within `cap` (loop condition, `o <= last`).
        unsafe {
            if *src.add(i + w) != first || (crlf && *src.add(i + w + 1) != b'\n') {
                break;
            }
            let mut bad = k.block(src.add(i), dst.add(j));
            let mut o = K::B;
            while o < last {
                bad = K::or(bad, k.block(src.add(i + o), dst.add(j + o / 4 * 3)));
                o += K::B;
            }
            if last > 0 {
                bad = K::or(bad, k.block(src.add(i + last), dst.add(j + last / 4 * 3)));
            }
            if !K::ok(bad) {
                break;
            }
        }
        i += stride;
        j += bytes;
    }
    (i, j)
}

/// [`decode_lines`] for lines separated by any fixed run of bytes `sep` (its first `sep_len`
/// bytes, little-endian, 1 to 8; whitespace: a space, an indented line's `\n` and indent),
/// checked with one 8-byte load: the lines of `w` symbols at `src[..n]`, each followed by the
/// separator and 8 bytes readable from it, while they fit `dst[..cap]`. Returns the bytes
/// consumed and written (whole lines and their separators).
///
/// # Safety
///
/// As [`decode_lines`].
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn decode_lines_sep<K: LineBlock>(
    k: &K,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    sep: u64,
    sep_len: usize,
) -> (usize, usize) {
    if w < K::B || !w.is_multiple_of(4) || !(1..=8).contains(&sep_len) {
        return (0, 0);
    }
    let mask = u64::MAX >> (64 - 8 * sep_len);
    let stride = w + sep_len;
    let last = w - K::B;
    let bytes = w / 4 * 3;
    let (mut i, mut j) = (0, 0);
    while i + w + 8 <= n && i + stride <= n && j + last / 4 * 3 + K::STORE <= cap {
        // SAFETY: `i + w + 8 <= n`: the line and 8 bytes after it are readable; the blocks
        // as in `lines_of`.
        unsafe {
            let after = u64::from_le(src.add(i + w).cast::<u64>().read_unaligned());
            if (after ^ sep) & mask != 0 {
                break;
            }
            let mut bad = k.block(src.add(i), dst.add(j));
            let mut o = K::B;
            while o < last {
                bad = K::or(bad, k.block(src.add(i + o), dst.add(j + o / 4 * 3)));
                o += K::B;
            }
            if last > 0 {
                bad = K::or(bad, k.block(src.add(i + last), dst.add(j + last / 4 * 3)));
            }
            if !K::ok(bad) {
                break;
            }
        }
        i += stride;
        j += bytes;
    }
    (i, j)
}

/// Checks the raw input of a line kernel and runs it: `f(src, n, dst, cap)` on `io`'s
/// buffers from `(i, j)`; returns the new `(i, j)`. Not in place (`(i, j)` back): the blocks
/// store before the line's later loads.
macro_rules! run_lines {
    ($io:expr, $i:expr, $j:expr, |$s:ident, $n:ident, $d:ident, $c:ident| $call:expr) => {{
        let (src, n, dst, cap) = $io.raw();
        let (i, j) = ($i, $j);
        if i > n || j > cap || core::ptr::eq(src, dst) {
            return (i, j);
        }
        // SAFETY: `self` proves the CPU features. `src[i..n]` and `dst[j..cap]` are in bounds
        // (checked above) of live buffers borrowed by `io`, separate ones (checked above: a
        // `Split`'s shared and mutable slices cannot overlap).
        let (di, dj) = unsafe {
            let ($s, $n, $d, $c) = (src.add(i), n - i, dst.add(j), cap - j);
            $call
        };
        (i + di, j + dj)
    }};
}
pub(crate) use run_lines;
