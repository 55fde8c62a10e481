//! The encode, written once over [`Vector`]: Muła's design. `pshufb` places each 3-byte group
//! `s0 s1 s2` as the dword `s1 s0 s2 s1`; `pmulhuw`/`pmullw` with masks move the four 6-bit
//! indices into the four bytes ([`indices`]). The indices become symbols by the alphabet's
//! [`Runs`] form where it fits (5 operations: [`Lanes::symbols_runs`]), else by the 64-symbol
//! alphabet as four 16-byte `pshufb` tables ([`lookup`]).
//!
//! Three parts: the loops over whole blocks ([`encode_lookup`], [`encode_runs`]; `OUT`
//! bytes to `B` symbols a block, each block's load reading a few bytes past the ones used,
//! so they stop that far from the end), and the last-bytes code ([`encode_last`]), which
//! encodes what the loops left, the last group and its padding included, reading and writing
//! exactly the bytes of the input and output (no scalar tail, no stack copy).

use core::arch::x86_64::__m256i;

use super::vector::{Lanes, Vector, lookup, multipliers_hidden, multipliers_plain};
use crate::alphabet::{Alphabet, Runs};

/// `s0 s1 s2` groups (12 bytes at the bottom of each 16-byte lane) -> the four 6-bit indices
/// of each in the bytes of a dword.
///
/// # Safety
///
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn indices<V: Lanes>(x: V, mul: [V; 4]) -> V {
    // SAFETY: the caller's contract: the features.
    unsafe {
        let x = V::shuffle(x, V::lanes([1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10]));
        indices_placed(x, mul)
    }
}

/// [`indices`] of groups already placed as `s1 s0 s2 s1` dwords.
///
/// # Safety
///
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn indices_placed<V: Lanes>(x: V, mul: [V; 4]) -> V {
    // SAFETY: the caller's contract: the features.
    unsafe {
        let t0 = V::and(x, mul[0]);
        let t1 = V::mulhi_u16(t0, mul[1]);
        let t2 = V::and(x, mul[2]);
        let t3 = V::mullo16(t2, mul[3]);
        V::or(t1, t3)
    }
}

/// The 64-symbol alphabet as four 16-byte `pshufb` tables: table `k` holds the symbols of
/// indices `16k..16k + 16`.
///
/// # Safety
///
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn symbol_tables<V: Vector>(symbols: &[u8; 64]) -> [V; 4] {
    // SAFETY: the caller's contract: the features.
    unsafe {
        let mut tables = [V::zero(); 4];
        for (k, t) in tables.iter_mut().enumerate() {
            *t = V::load_table(symbols[16 * k..16 * k + 16].try_into().expect("16 symbols"));
        }
        tables
    }
}

/// The indices -> symbols step of a block: by the [`Runs`] form or by the four tables.
trait Symbols<V> {
    /// The loops read each block by [`Lanes::load_spread`] (the tables' loop) rather than
    /// [`Lanes::load_groups`] (the runs' loop): the load each loop was tuned with.
    const SPREAD: bool;

    /// The symbols of the groups of `x` (placed as [`Lanes::load_spread`] places them).
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s features.
    unsafe fn of(&self, x: V) -> V;

    /// [`Symbols::of`] of groups already placed as `s1 s0 s2 s1` dwords.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s features.
    unsafe fn of_placed(&self, x: V) -> V;
}

/// [`Symbols`] by the [`Runs`] form, its registers set up once.
struct RunSymbols<V> {
    mul: [V; 4],
    low_end: V,
    mid_end: V,
    offset: V,
}

impl<V: Lanes> RunSymbols<V> {
    /// The registers of `runs` (which fits).
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn new(runs: &Runs, mul: [V; 4]) -> Self {
        // SAFETY: the caller's contract: the features. `low_end` <= 64: a positive `i8`, as
        // the signed compare needs.
        unsafe {
            RunSymbols {
                mul,
                low_end: V::splat8(runs.low_end as i8),
                mid_end: V::splat8(runs.mid_end as i8),
                offset: V::load_table(&runs.offset),
            }
        }
    }
}

impl<V: Lanes> Symbols<V> for RunSymbols<V> {
    const SPREAD: bool = false;

    #[inline(always)]
    unsafe fn of(&self, x: V) -> V {
        // SAFETY: the caller's contract: the features.
        unsafe { V::symbols_runs(indices(x, self.mul), self.low_end, self.mid_end, self.offset) }
    }

    #[inline(always)]
    unsafe fn of_placed(&self, x: V) -> V {
        // SAFETY: the caller's contract: the features.
        unsafe {
            let idx = indices_placed(x, self.mul);
            V::symbols_runs(idx, self.low_end, self.mid_end, self.offset)
        }
    }
}

/// [`Symbols`] by the four tables.
struct TableSymbols<V> {
    mul: [V; 4],
    tables: [V; 4],
}

impl<V: Vector> Symbols<V> for TableSymbols<V> {
    const SPREAD: bool = true;

    #[inline(always)]
    unsafe fn of(&self, x: V) -> V {
        // SAFETY: the caller's contract: the features.
        unsafe { lookup(&self.tables, indices(x, self.mul), 0) }
    }

    #[inline(always)]
    unsafe fn of_placed(&self, x: V) -> V {
        // SAFETY: the caller's contract: the features.
        unsafe { lookup(&self.tables, indices_placed(x, self.mul), 0) }
    }
}

/// Encodes whole blocks of `src[..n]` into `dst[..cap]` by the four-table lookup while both
/// have room (each block reads `SPREAD_READ` bytes, `OUT` used, and writes `B` symbols);
/// returns the bytes consumed (a multiple of 3).
///
/// # Safety
///
/// The CPU has `V`'s features; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap` bytes; they do not overlap.
#[inline(always)]
pub(super) unsafe fn encode_lookup<V: Vector>(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    // SAFETY: the caller's contract: the features.
    let s = unsafe {
        let mul =
            if V::HIDE_LOOKUP_MUL { multipliers_hidden::<V>() } else { multipliers_plain::<V>() };
        TableSymbols { mul, tables: symbol_tables::<V>(symbols) }
    };
    // SAFETY: the caller's contract.
    unsafe { single_blocks(&s, src, n, dst, end, (0, 0)) }
}

/// The encode loops' single blocks from input index `i`, output index `j = i / 3 * 4`, while
/// the input has the bytes of the block's load at `i` and `end` (a multiple of 3, its encoding within the
/// output) leaves room; returns the bytes consumed.
///
/// # Safety
///
/// As [`encode_lookup`]; `end <= n` with `end / 3 * 4 <= cap`.
#[inline(always)]
unsafe fn single_blocks<V: Lanes, S: Symbols<V>>(
    s: &S,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    end: usize,
    (mut i, mut j): (usize, usize),
) -> usize {
    let read = if S::SPREAD { V::SPREAD_READ } else { V::GROUPS_READ };
    while i + read <= n && i + V::OUT <= end {
        // SAFETY: `i + read <= n` (the block's load reads `read` bytes); `j + B =
        // (i + OUT) / 3 * 4 <= end / 3 * 4 <= cap`.
        unsafe {
            let p = src.add(i);
            let x = if S::SPREAD { V::load_spread(p) } else { V::load_groups(p) };
            V::store(dst.add(j), s.of(x));
        }
        i += V::OUT;
        j += V::B;
    }
    i
}

/// [`encode_lookup`] with the [`Runs`] lookup, `RUNS_UNROLL` blocks per iteration, then
/// single blocks (each block reads `GROUPS_READ` bytes). Over [`Lanes`] only: AVX-512 BW's
/// encode runs it on `__m512i`.
///
/// # Safety
///
/// As [`encode_lookup`].
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn encode_runs<V: Lanes>(
    runs: &Runs,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    let u = V::RUNS_UNROLL;
    // SAFETY: the caller's contract: the features.
    let s = unsafe { RunSymbols::new(runs, multipliers_hidden::<V>()) };
    let (mut i, mut j) = (0, 0);
    while i + V::OUT * (u - 1) + V::GROUPS_READ <= n && i + V::OUT * u <= end {
        // SAFETY: `i + OUT (u - 1) + GROUPS_READ <= n` (the last load reads
        // `src[i + OUT (u - 1)..][..GROUPS_READ]`); `j + B u = (i + OUT u) / 3 * 4 <= cap`.
        unsafe {
            for k in 0..u {
                let x = V::load_groups(src.add(i + V::OUT * k));
                V::store(dst.add(j + V::B * k), s.of(x));
            }
        }
        i += V::OUT * u;
        j += V::B * u;
    }
    // SAFETY: the caller's contract.
    unsafe { single_blocks(&s, src, n, dst, end, (i, j)) }
}

/// The symbols, by `runs`, of a block of 24 bytes already in a register in
/// [`Lanes::load_groups`]' layout (bytes `0..12` at the bottom of the low lane, `12..24` of
/// the high one): for kernels that load their blocks their own way (AVX-512 BW's masked
/// short encode).
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn run_symbols_256(runs: &Runs, x: __m256i) -> __m256i {
    // SAFETY: the caller's contract: the features.
    unsafe { RunSymbols::new(runs, multipliers_plain::<__m256i>()).of(x) }
}

/// Symbols `y` of the last `r` input bytes of an encode (the symbols past them made of zero
/// bits), padded: `=` from symbol `ceil(4r / 3)` on, by the rows of [`Vector::pad_rows`].
///
/// # Safety
///
/// The CPU has `V`'s features; `r <= OUT`.
#[inline(always)]
unsafe fn pad_last<V: Vector>(y: V, r: usize) -> V {
    // SAFETY: the caller's contract.
    unsafe {
        let (keep, fill) = V::pad_rows(r);
        V::or(V::and(y, keep), fill)
    }
}

/// [`pad_last`] on `__m256i`, for kernels outside this module (AVX-512 BW's short encode).
///
/// # Safety
///
/// The CPU has AVX2; `r <= 24`.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn pad_last_256(y: __m256i, r: usize) -> __m256i {
    // SAFETY: the caller's contract.
    unsafe { pad_last(y, r) }
}

/// Writes the low `len <= 32` symbols of `y` to `dst`, touching only `dst[..len]`
/// ([`Vector::store_symbols`] of `__m256i`: plain stores).
///
/// # Safety
///
/// The CPU has AVX2; `dst` is valid for writes of `len <= 32` bytes.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn store_symbols_256(dst: *mut u8, len: usize, y: __m256i) {
    // SAFETY: the caller's contract.
    unsafe { __m256i::store_symbols(dst, len, y) }
}

/// Encodes all of `src[..r]` into `dst[..len]` (its encoded length, with padding if `pad`),
/// `OUT` bytes to `B` symbols at a time: what is left after a kernel's loops (and the whole of
/// a short input), without the scalar code. The last block (read and written exactly, see
/// [`Vector::load_placed_last`]) has its symbols past the input (made of the zero bits after
/// it) turned into `=` when `pad`. The alphabet's registers are set up once, before the
/// blocks (inside a per-block closure, LLVM set them up again for every block).
///
/// # Safety
///
/// The CPU has `V`'s features; `src` is valid for reads of `r` bytes and `dst` for writes of
/// `len` bytes, the encoded length of `r` bytes with padding if `pad`; they do not overlap.
#[inline(always)]
pub(super) unsafe fn encode_last<V: Vector>(
    alphabet: &Alphabet,
    src: *const u8,
    r: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    if V::LAST_FULL && len == 0 {
        return;
    }
    let runs = alphabet.runs();
    // SAFETY: the caller's contract.
    unsafe {
        let mul =
            if V::HIDE_LAST_MUL { multipliers_hidden::<V>() } else { multipliers_plain::<V>() };
        if runs.fits {
            encode_last_by(&RunSymbols::new(runs, mul), src, r, dst, len, pad);
        } else {
            let tables = symbol_tables::<V>(alphabet.symbols());
            encode_last_by(&TableSymbols { mul, tables }, src, r, dst, len, pad);
        }
    }
}

/// [`encode_last`] with `s` mapping a block to its symbols.
///
/// # Safety
///
/// As [`encode_last`].
#[inline(always)]
unsafe fn encode_last_by<V: Vector, S: Symbols<V>>(
    s: &S,
    mut src: *const u8,
    mut r: usize,
    mut dst: *mut u8,
    mut len: usize,
    pad: bool,
) {
    // SAFETY: each whole block reads within `src[..r]` (`r >= OUT`) and writes `dst[..B]`
    // (`len >= B`); the last reads exactly `src[..r]` and writes exactly `dst[..len]`.
    unsafe {
        while if V::LAST_FULL { r > V::OUT } else { r >= V::OUT } {
            V::store(dst, s.of(V::load_groups_block(src, r)));
            (src, r, dst, len) = (src.add(V::OUT), r - V::OUT, dst.add(V::B), len - V::B);
        }
        if !V::LAST_FULL && len == 0 {
            return;
        }
        let mut y = s.of_placed(V::load_placed_last(src, r));
        if pad {
            y = pad_last(y, r);
        }
        V::store_symbols(dst, len, y);
    }
}
