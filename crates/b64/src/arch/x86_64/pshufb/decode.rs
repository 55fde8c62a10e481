//! The decode, written once over [`Vector`]: 16 (SSSE3) or 32 (AVX2) symbols a block, whose
//! 6-bit values `pmaddubsw` and `pmaddwd` merge into 24-bit dwords and [`Vector::pack`]
//! packs 3 bytes of each.
//!
//! The values come from the alphabet's [`Nibbles`] tables where it fits them (every printable
//! alphabet with at most `Nibbles::MAX_FIXES` symbols off its nibble pattern: the standard
//! and URL-safe ones): a `pshufb` on each nibble validates, one more gives the value's
//! offset ([`NibbleRegs::values`]). Other alphabets take the general lookup: the reverse
//! table for bytes `0x20..0x80` as six `pshufb` tables ([`decode_rows`]); other bytes fail a
//! range check, non-symbols inside it have `0xff`.
//!
//! Invariants: a kernel consumes whole groups of 4 symbols only and stops at the first group
//! holding a non-symbol, returning the symbols it decoded; in place (`dst <= src` in one
//! buffer) each store follows the loads of the bytes it overwrites; with separate buffers
//! (`separate`), it may write junk past the bytes decoded, up to the output's end, and re-read
//! input it decoded already. Paths: the main loop ([`decode_nibbles`]: `DECODE_UNROLL` blocks
//! an iteration), the blocks with exact stores and the last block that overlaps decoded
//! groups ([`exact_blocks`], [`last_groups`]), all of a short text with its padded or partial
//! last group ([`decode_short`], up to [`SHORT_MAX`] symbols) and lines of one width
//! ([`decode_lines`], over the line loop of `arch/lines.rs`).

use super::vector::{NibbleRegs, Vector, lookup};
use crate::alphabet::Nibbles;
use crate::arch::lines::{self, LineBlock};
use crate::kernels::ShortRules;

/// 6-bit values of the bytes of `x` by the six tables `rows` (the reverse table for bytes
/// `0x20..0x80`); the top bit is set for every byte that is not a symbol.
///
/// # Safety
///
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn values_by_rows<V: Vector>(x: V, rows: &[V; 6]) -> V {
    // SAFETY: the caller's contract: the features.
    unsafe {
        let v = lookup(rows, x, 0x20);
        let printable = V::cmpgt8(x, V::splat8(0x20));
        V::or(v, V::andnot(printable, V::splat8(-1)))
    }
}

/// Decodes whole blocks of `src[..n]` into `dst[..cap]` by the six-table lookup while they
/// hold only symbols and the output has room for a `B`-byte store; returns the symbols
/// decoded.
///
/// # Safety
///
/// The CPU has `V`'s features; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap` bytes; either they do not overlap or `dst <= src` in one buffer (each `B`-byte store
/// at `j <= i` follows the load of `src[i..i + B]`).
#[inline(always)]
pub(super) unsafe fn decode_rows<V: Vector>(
    rows: &[[u8; 16]; 6],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    // SAFETY: the caller's contract: the features.
    let rows: [V; 6] = unsafe {
        let mut r = [V::zero(); 6];
        for (reg, row) in r.iter_mut().zip(rows) {
            *reg = V::load_table(row);
        }
        r
    };
    let (mut i, mut j) = (0, 0);
    while i + V::B <= n && j + V::B <= cap {
        // SAFETY: `i + B <= n`, `j + B <= cap`.
        unsafe {
            let v = values_by_rows(V::load(src.add(i)), &rows);
            if V::movemask(v) != 0 {
                break;
            }
            V::store_pack(dst.add(j), v);
        }
        i += V::B;
        j += V::OUT;
    }
    i
}

/// The six-table decode with the [`Nibbles`] tables (`FIXES` of them used): 4 `pshufb`
/// fewer per block. `DECODE_UNROLL` blocks per iteration (4, then 2), then blocks
/// with exact stores; if `separate`, the last whole groups (fewer than a block) are decoded
/// by one more block that ends at them and overlaps groups already decoded (they decode to
/// the same bytes again), instead of leaving them to the scalar loop (AVX2, unpadded text of
/// 256 and 4096 bytes of data: 55 -> 28 and 277 -> 244 ns on Zen 4 at the `x86-64-v3` cap,
/// with the partial last group of `decode_io`). AVX2 decodes fewer than 32 symbols in all
/// by SSSE3's 16-symbol blocks ([`decode_tail`]).
///
/// # Safety
///
/// As [`decode_rows`]; in place, each store at `j <= i` follows the loads of the iteration's
/// blocks and stays within them. `separate` only if `src[..n]` and `dst[..cap]` do not
/// overlap and `dst[..cap]` holds no input the caller may still read (junk may be written
/// past the bytes decoded).
#[inline(always)]
pub(super) unsafe fn decode_nibbles<V: Vector, const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    separate: bool,
) -> usize {
    // SAFETY: the caller's contract; every step consumes whole blocks, so `j = i / 4 * 3`
    // between them.
    unsafe {
        let t = NibbleRegs::<V>::new(nib);
        let mut at = (0, 0);
        if V::DECODE_UNROLL == 4 {
            match iterations::<V, FIXES, 4>(&t, src, n, dst, cap, at, separate) {
                Ok(end) => at = end,
                Err(done) => return done,
            }
        }
        match iterations::<V, FIXES, 2>(&t, src, n, dst, cap, at, separate) {
            Ok(end) => at = end,
            Err(done) => return done,
        }
        // Blocks with exact stores; with separate buffers, the block holding the first
        // non-symbol still decodes the whole groups before it.
        let (i, j) = match exact_blocks::<V, FIXES>(&t, src, n, dst, cap, at, separate) {
            Ok(end) => end,
            Err(done) => return done,
        };
        if V::B > 16 && i == 0 {
            // Fewer than 32 symbols, or output for fewer than 8 groups (a text's last line):
            // blocks of 16 (AVX2 implies SSSE3).
            let half = NibbleRegs::<core::arch::x86_64::__m128i>::new(nib);
            return decode_tail::<_, FIXES>(&half, src, n, dst, cap, 0, separate);
        }
        // The last whole groups that fit the output (the blocks ended on `n` or `cap`), by a
        // block ending at them, up to the first non-symbol.
        last_groups::<V, FIXES>(&t, src, n, dst, cap, (i, j), separate)
    }
}

/// The main loop of [`decode_nibbles`] from `(i, j)`: `U` blocks (2 or 4) per iteration,
/// checked together, stored by `B`-byte stores `OUT` bytes apart. `Err` with the symbols
/// decoded when an iteration holds a non-symbol ([`stop`]), else `Ok` with where the loop
/// ended.
///
/// # Safety
///
/// As [`decode_nibbles`]; `j = i / 4 * 3`.
#[inline(always)]
unsafe fn iterations<V: Vector, const FIXES: usize, const U: usize>(
    t: &NibbleRegs<V>,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    (mut i, mut j): (usize, usize),
    separate: bool,
) -> Result<(usize, usize), usize> {
    const { assert!(U == 2 || U == 4) };
    while i + V::B * U <= n && j + V::OUT * (U - 1) + V::B <= cap {
        // SAFETY: `i + B U <= n`; the stores write `dst[j + OUT k..j + OUT k + B]` for
        // `k < U`, `j + OUT (U - 1) + B <= cap`.
        unsafe {
            let mut r = [(V::zero(), V::zero()); U];
            for (k, r) in r.iter_mut().enumerate() {
                *r = t.values::<FIXES>(V::load(src.add(i + V::B * k)));
            }
            let bad = if U == 4 {
                V::or(V::or(r[0].1, r[1].1), V::or(r[2].1, r[3].1))
            } else {
                V::or(r[0].1, r[1].1)
            };
            if !V::ok(bad) {
                return Err(i + stop::<V, U>(&r, dst.add(j), separate));
            }
            for (k, &(v, _)) in r.iter().enumerate() {
                V::store_pack(dst.add(j + V::OUT * k), v);
            }
        }
        i += V::B * U;
        j += V::OUT * U;
    }
    Ok((i, j))
}

/// The nibble decode of one block as a [`LineBlock`].
struct Lines<V, const FIXES: usize>(NibbleRegs<V>);

impl<V: Vector, const FIXES: usize> LineBlock for Lines<V, FIXES> {
    const B: usize = V::B;
    const STORE: usize = V::B;
    type Bad = V;

    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> V {
        // SAFETY: the caller's contract: the features, `src[..B]` readable, `dst[..B]`
        // writable.
        unsafe {
            let (v, bad) = self.0.values::<FIXES>(V::load(src));
            V::store_pack(dst, v);
            bad
        }
    }

    #[inline(always)]
    unsafe fn or(a: V, b: V) -> V {
        // SAFETY: the caller's contract: the features.
        unsafe { V::or(a, b) }
    }

    #[inline(always)]
    unsafe fn ok(bad: V) -> bool {
        // SAFETY: the caller's contract: the features.
        unsafe { V::ok(bad) }
    }
}

/// [`lines::decode_lines`] with the nibble decode's blocks, after the width's own pass over
/// lines of 76 symbols ([`Vector::line_pairs_76`]) where it has one.
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having `V`'s features.
#[inline(always)]
pub(super) unsafe fn decode_lines<V: Vector, const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    // SAFETY: the caller's contract; the pairs consume whole lines, so the rest starts at a
    // line and its output at the bytes of the lines before.
    unsafe {
        let (i, j) = if w == 76 {
            V::line_pairs_76::<FIXES>(&NibbleRegs::new(nib), src, n, dst, cap, crlf)
        } else {
            (0, 0)
        };
        let k = Lines::<V, FIXES>(NibbleRegs::new(nib));
        let (di, dj) = lines::decode_lines(&k, src.add(i), n - i, dst.add(j), cap - j, w, crlf);
        (i + di, j + dj)
    }
}

/// [`lines::decode_lines_sep`] with this width's blocks.
///
/// # Safety
///
/// The CPU has `V`'s features; as [`lines::decode_lines_sep`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode_lines_sep<V: Vector, const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    sep: u64,
    sep_len: usize,
) -> (usize, usize) {
    // SAFETY: the caller's contract.
    unsafe {
        let k = Lines::<V, FIXES>(NibbleRegs::new(nib));
        lines::decode_lines_sep(&k, src, n, dst, cap, w, sep, sep_len)
    }
}

/// Where the blocks `r` of one iteration (values and `bad` of [`NibbleRegs::values`], loaded
/// from consecutive `B`-byte blocks, one of them holding a non-symbol) stop: stores the blocks
/// before the first non-symbol's to `dst` (`OUT` bytes each, as the loop would, by `B`-byte
/// stores), and with separate buffers the whole groups of that block too; returns the symbols
/// decoded.
///
/// # Safety
///
/// The CPU has `V`'s features; `dst` is valid for writes of `OUT * r.len() + B - OUT` bytes;
/// in place (not `separate`), each `B`-byte store at `OUT k` falls within the input already
/// loaded and behind the symbols returned (`j <= i`, stores before block `k >= 1` end at
/// `OUT k + B - OUT <= B k`).
#[inline(always)]
unsafe fn stop<V: Vector, const K: usize>(r: &[(V, V); K], dst: *mut u8, separate: bool) -> usize {
    for (k, &(v, bad)) in r.iter().enumerate() {
        // SAFETY: the caller's contract: the features, `dst[..OUT * K + B - OUT]` writable.
        unsafe {
            if !V::ok(bad) {
                if !separate {
                    return V::B * k;
                }
                V::store_out(dst.add(V::OUT * k), V::pack(v));
                return V::B * k + V::symbols_before(bad) / 4 * 4;
            }
            V::store_pack(dst.add(V::OUT * k), v);
        }
    }
    V::B * K
}

/// The `B`-symbol blocks from input index `i`, output index `j = i / 4 * 3`, with exact
/// `OUT`-byte stores. `Err` with the symbols decoded when a block holds a non-symbol (with
/// separate buffers the whole groups before it are decoded too; in place the store could
/// reach input not yet consumed, so none of that block); else `Ok` with where the blocks
/// ended, `(i, j)`.
///
/// # Safety
///
/// The CPU has `V`'s features; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap`; `i <= n` a multiple of 4 and `j = i / 4 * 3 <= cap`; in place, `dst <= src` (each
/// store follows its block's load).
#[inline(always)]
unsafe fn exact_blocks<V: Vector, const FIXES: usize>(
    t: &NibbleRegs<V>,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    (mut i, mut j): (usize, usize),
    separate: bool,
) -> Result<(usize, usize), usize> {
    while i + V::B <= n && j + V::OUT <= cap {
        // SAFETY: `i + B <= n`, `j + OUT <= cap`.
        unsafe {
            let (v, bad) = t.values::<FIXES>(V::load(src.add(i)));
            if !V::ok(bad) {
                if !separate {
                    return Err(i);
                }
                V::store_out(dst.add(j), V::pack(v));
                return Err(i + V::symbols_before(bad) / 4 * 4);
            }
            V::store_out(dst.add(j), V::pack(v));
        }
        i += V::B;
        j += V::OUT;
    }
    Ok((i, j))
}

/// After [`exact_blocks`] ended at `(i, j)` (`j = i / 4 * 3`) on `n` or `cap`:
/// the last whole groups that fit the output (`g < B` symbols), if `separate`, by one more
/// block that ends at them and overlaps groups already decoded (they decode to the same bytes
/// again), up to the first non-symbol. Returns the symbols decoded in all.
///
/// # Safety
///
/// As [`exact_blocks`]; `separate` only if the buffers do not overlap.
#[inline(always)]
unsafe fn last_groups<V: Vector, const FIXES: usize>(
    t: &NibbleRegs<V>,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    (mut i, j): (usize, usize),
    separate: bool,
) -> usize {
    let g = ((n - i) / 4).min((cap - j) / 3) * 4;
    if separate && g > 0 && i + g >= V::B {
        let back = V::B - g;
        // SAFETY: the block reads `src[i + g - B..i + g]`, `i + g <= n`, and writes
        // `dst[j - back / 4 * 3..j + g / 4 * 3]` (`j = i / 4 * 3 >= back / 4 * 3` and
        // `g / 4 * 3 <= cap - j`); the buffers do not overlap (`separate`), so the bytes
        // re-read are still the input and the bytes rewritten get the same values.
        unsafe {
            let (v, bad) = t.values::<FIXES>(V::load(src.add(i + g - V::B)));
            V::store_out(dst.add(j - back / 4 * 3), V::pack(v));
            // The first `back` bytes are symbols (decoded before).
            i += (V::symbols_before(bad) - back) / 4 * 4;
        }
    }
    i
}

/// [`exact_blocks`] then [`last_groups`] from input index `i`: with 16-symbol blocks, all of
/// an AVX2 [`decode_nibbles`] of fewer than 32 symbols. Returns the symbols decoded in all.
///
/// # Safety
///
/// As [`exact_blocks`].
#[inline(always)]
unsafe fn decode_tail<V: Vector, const FIXES: usize>(
    t: &NibbleRegs<V>,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    i: usize,
    separate: bool,
) -> usize {
    // SAFETY: the caller's contract.
    unsafe {
        match exact_blocks::<V, FIXES>(t, src, n, dst, cap, (i, i / 4 * 3), separate) {
            Ok(end) => last_groups::<V, FIXES>(t, src, n, dst, cap, end, separate),
            Err(done) => done,
        }
    }
}

// ---- Short decode: all of a short text, its last group included ----

/// The longest text the short decode takes (`decode_short`): 8 AVX2 blocks, 16 SSSE3 ones.
/// Longer texts go the general way, whose fixed cost is small against them.
pub(super) const SHORT_MAX: usize = 256;

/// What the last block of a short text (its last `m` bytes, `0 < m <= 32`, `=` in the lanes
/// of `eq`) must hold, if its shape is one `rules` accept.
struct LastBlock {
    /// Lanes that must be symbols (the others are `=` or past the text).
    symbols: u32,
    /// Bytes the block decodes to.
    bytes: usize,
    /// Lane of the last symbol.
    last: usize,
    /// Bits of the last symbol's value that must be zero (0: none to check).
    unused: u8,
}

impl LastBlock {
    /// The shape of the last `m` bytes: whole groups of symbols, or a padded (`xy==`,
    /// `xyz=`) or partial (`xy`, `xyz`) last group as `rules` allow; `None` for any other
    /// (an error, or a shape the engine rejects: the general path reports it).
    #[inline(always)]
    fn new(m: usize, eq: u32, rules: ShortRules) -> Option<LastBlock> {
        let inside = u32::MAX >> (32 - m);
        if eq == 0 && m.is_multiple_of(4) {
            return Some(LastBlock { symbols: inside, bytes: m / 4 * 3, last: 0, unused: 0 });
        }
        // Symbols the text leaves out of its last group (0, 2 or 3 when valid).
        let partial = (4 - m % 4) % 4;
        // `=` only as the last 1 or 2 bytes of whole groups (then `m >= 4`).
        let text_pads = if eq == 0 {
            0
        } else if partial == 0 && eq == 1 << (m - 1) {
            1
        } else if partial == 0 && eq == 3 << (m - 2) {
            2
        } else {
            return None;
        };
        let ok = if text_pads > 0 { rules.padded } else { partial <= 2 && rules.partial };
        if !ok {
            return None;
        }
        let pads = text_pads + partial;
        Some(LastBlock {
            symbols: inside & !eq,
            bytes: (m + partial) / 4 * 3 - pads,
            last: m - text_pads - 1,
            unused: match (rules.canonical, pads) {
                (false, _) => 0,
                (true, 2) => 0x0f,
                (true, _) => 0x03,
            },
        })
    }
}

/// [`decode_short`] of the most common short text, one block of whole groups (`n <= B`, a
/// multiple of 4, no `=`): no last-group shape, no unused bits to check, one test for the
/// symbols, and no stack frame (the general path is a call of its own). `Some(result)` when
/// the text has that shape (`result` as [`decode_short`]'s), `None` to take the general path.
/// amd-zen5, `b64/decode` 16 B, criterion medians of 3 alternated rounds (old, this test in
/// the general function, this split): `x86-64-v2` 4.83 / 3.98 / 3.51 ns, `-v3` 4.63 / 4.34 /
/// 3.63, `-v4` 4.64 / 4.28 / 3.53 (base64-simd 5.7-5.9: 1.6x). Texts of more than one block
/// pay one call more: 64 B at `-v3` 5.37 -> 5.87 ns (base64-simd 11.8).
///
/// # Safety
///
/// As [`decode_short`].
#[inline(always)]
pub(super) unsafe fn decode_short_block<V: Vector, const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> Option<Option<usize>> {
    if n > V::B || !n.is_multiple_of(4) {
        return None;
    }
    // SAFETY: the load reads exactly `src[..n]`; the store writes `dst[..B]` when `cap >= B`,
    // else exactly the `bytes <= cap` decoded.
    unsafe {
        let x = V::load_exact(src, n);
        if V::pads(x) != 0 {
            return None;
        }
        let t = &NibbleRegs::<V>::new(nib);
        let (v, bad) = t.values::<FIXES>(x);
        let (good, good_lanes) = V::good(bad);
        let inside = u32::MAX >> (32 - n);
        let bytes = n / 4 * 3;
        if good_lanes & inside != inside || bytes > cap {
            return Some(None);
        }
        // The lanes past the text (zero bytes, not symbols) decode as zeros.
        let y = V::pack(V::and(v, good));
        if cap >= V::B {
            V::store(dst, y);
        } else {
            V::store_exact(dst, bytes, y);
        }
        Some(Some(bytes))
    }
}

/// Decodes all of `src[..n]` (`0 < n`) into `dst[..cap]` when it is symbols in whole groups,
/// or with a last group padded or partial as `rules` allow (its last symbol's unused bits
/// zero if `rules.canonical`), and the output fits; `None` otherwise (`dst` perhaps written).
/// Whole `B`-byte blocks, then the last 1 to `B` bytes read exactly
/// ([`Vector::load_exact`]); the `=` and the lanes past the text decode as zeros. A
/// block's `B`-byte store is used where `dst` has room, else only its bytes are written.
///
/// # Safety
///
/// The CPU has `V`'s features; `src` is valid for reads of `n > 0` bytes, `dst` for writes
/// of `cap` bytes; they do not overlap.
#[inline(always)]
pub(super) unsafe fn decode_short<V: Vector, const FIXES: usize>(
    nib: &Nibbles,
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: ShortRules,
) -> Option<usize> {
    let full = (n - 1) / V::B;
    let m = n - V::B * full;
    // SAFETY: the loads read `src[Bk..Bk + B]` for `k < full` (`B full < n`) and exactly
    // `src[B full..n]`; the stores write `dst[OUT k..OUT k + B]` when that is within `cap`,
    // else exactly the block's bytes, all below `total <= cap`.
    unsafe {
        let t = &NibbleRegs::<V>::new(nib);
        let tail = src.add(V::B * full);
        let x = V::load_exact(tail, m);
        let last = LastBlock::new(m, V::pads(x), rules)?;
        let (v, bad) = t.values::<FIXES>(x);
        let (good, good_lanes) = V::good(bad);
        if good_lanes & last.symbols != last.symbols
            || table[usize::from(*tail.add(last.last))] & last.unused != 0
        {
            return None;
        }
        let total = V::OUT * full + last.bytes;
        if total > cap {
            return None;
        }
        // The whole blocks' checks in one test after them, not a branch per block (measured
        // faster: v2 64-100 B by 4-12 %, v3 100 B by 2 %): a bad block's bytes are stored
        // before the `None`, which the contract allows.
        if full > 0 {
            let mut bad_any = V::zero();
            for k in 0..full {
                let (v, bad) = t.values::<FIXES>(V::load(src.add(V::B * k)));
                bad_any = V::or(bad_any, bad);
                V::store_room(dst, V::OUT * k, cap, V::pack(v));
            }
            if !V::ok(bad_any) {
                return None;
            }
        }
        // The `=` and the lanes past the text decode as zeros (garbage there would carry
        // into the bytes kept).
        let y = V::pack(V::and(v, good));
        let (out, room) = (dst.add(V::OUT * full), cap - V::OUT * full);
        if room >= V::B {
            V::store(out, y);
        } else {
            V::store_exact(out, last.bytes, y);
        }
        Some(total)
    }
}
