//! SSSE3 and AVX2 kernels (the Muła–Lemire designs), with the alphabet as data: any alphabet
//! runs on them, like on AVX-512 VBMI.
//!
//! Encode, 12 (SSSE3) or 24 (AVX2) bytes per register: `pshufb` places each 3-byte group
//! `s0 s1 s2` as the dword `s1 s0 s2 s1`; `pmulhuw`/`pmullw` with masks move the four 6-bit
//! indices into the four bytes (Muła's multiply trick). The 64-symbol alphabet is four
//! 16-byte `pshufb` tables: table `k` is indexed by `saturating_add(index - 16k, 0x70)`,
//! which keeps the low nibble for indices in `16k..16k+16` and sets the top bit (giving 0)
//! for all others, so OR-ing the four lookups gives the symbol.
//!
//! Decode, 16 or 32 symbols per register: the same trick over six tables covers the reverse
//! table for bytes `0x20..0x80` (every alphabet is printable ASCII); other bytes fail a range
//! check, non-symbols inside it have `0xff`. `pmaddubsw` and `pmaddwd` merge four 6-bit
//! values into a 24-bit dword and `pshufb` packs 3 bytes of each.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_add_epi8, _mm_adds_epu8, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8,
    _mm_cmpgt_epi8, _mm_cvtsi32_si128, _mm_cvtsi128_si32, _mm_loadl_epi64, _mm_loadu_si128,
    _mm_madd_epi16, _mm_maddubs_epi16, _mm_movemask_epi8, _mm_mulhi_epu16, _mm_mullo_epi16,
    _mm_or_si128, _mm_set1_epi8, _mm_set1_epi32, _mm_setr_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_srli_epi16, _mm_srli_si128, _mm_storel_epi64, _mm_storeu_si128,
    _mm_sub_epi8, _mm_subs_epu8, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm256_add_epi8,
    _mm256_adds_epu8, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_broadcastsi128_si256, _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi8,
    _mm256_cmpgt_epi8, _mm256_extracti128_si256, _mm256_inserti128_si256, _mm256_loadu_si256,
    _mm256_madd_epi16, _mm256_maddubs_epi16, _mm256_movemask_epi8, _mm256_mullo_epi16,
    _mm256_or_si256, _mm256_permutevar8x32_epi32, _mm256_set1_epi8, _mm256_set1_epi32,
    _mm256_setr_epi32, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
    _mm256_storeu_si256, _mm256_sub_epi8, _mm256_subs_epu8, _mm256_testz_si256,
};

use crate::alphabet::{Alphabet, Nibbles, Runs};
use crate::arch::lines::{self, LineBlock, run_lines};
use crate::io::Io;
use crate::kernels::{Job, Kernels, ShortRules};

nab_isa::token! {
    /// Proof that SSSE3 may be used (the CPU has it and `NAB_MAX_ISA` allows it, or the build
    /// enables it). Only `Ssse3::new` makes one.
    pub(crate) struct Ssse3 = SSSE3;
}

nab_isa::token! {
    /// Proof that AVX2 may be used, like [`Ssse3`].
    pub(crate) struct Avx2 = AVX2;
}

impl Avx2 {
    /// Runs `f` compiled with AVX2 enabled (where it inlines): the line copies of forgiving
    /// decoding then move 32 bytes at a time.
    #[inline]
    pub(crate) fn with_features<J: Job>(self, job: J) -> J::Output {
        #[target_feature(enable = "avx2")]
        fn inner<J: Job>(job: J) -> J::Output {
            job.run()
        }
        // SAFETY: `self` proves AVX2.
        unsafe { inner(job) }
    }
}

impl Avx2 {
    /// Encodes what a kernel left, `src[done..]` (`done` a multiple of 3, its symbols already
    /// in `dst[..done / 3 * 4]`), into the rest of `dst` (exactly the encoded length of `src`,
    /// with padding if `pad`) by [`encode_last_avx2`].
    #[inline]
    pub(super) fn encode_rest(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        done: usize,
        pad: bool,
    ) {
        let (src, dst) = (&src[done..], &mut dst[done / 3 * 4..]);
        // SAFETY: `self` proves AVX2; `dst` is exactly the encoded length of `src` (the
        // caller's contract, less whole groups on both sides); `&mut` excludes overlap.
        unsafe {
            encode_last_avx2(alphabet, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len(), pad)
        }
    }
}

/// The reverse table's entries for bytes `0x20..0x80`, as six 16-byte `pshufb` tables.
fn decode_rows(alphabet: &Alphabet) -> [[u8; 16]; 6] {
    let table = alphabet.decode_table();
    let mut rows = [[0u8; 16]; 6];
    for (k, row) in rows.iter_mut().enumerate() {
        row.copy_from_slice(&table[0x20 + 16 * k..0x30 + 16 * k]);
    }
    rows
}

/// Checks the raw input of a kernel and runs it: `f(src, n, dst, cap)` on `io`'s buffers from
/// `(i, j)`; returns the new `(i, j)`.
macro_rules! run_decode {
    ($io:expr, $i:expr, $j:expr, |$s:ident, $n:ident, $d:ident, $c:ident, $sep:ident| $call:expr) => {{
        let free = $io.output_free();
        let (src, n, dst, cap) = $io.raw();
        let (i, j) = ($i, $j);
        let in_place = core::ptr::eq(src, dst);
        if i > n || j > cap || (in_place && j > i) {
            return (i, j);
        }
        // SAFETY: `self` proves the CPU feature. `src[i..n]` and `dst[j..cap]` are in bounds
        // (checked above) of live buffers borrowed by `io`: separate, or one buffer with the
        // output behind the input, which the kernels allow. `$sep` (the kernels' `separate`)
        // only for separate buffers whose output holds no input still to be read
        // (`Io::output_free`).
        let used = unsafe {
            let sep = free && !in_place;
            let ($s, $n, $d, $c, $sep) = (src.add(i), n - i, dst.add(j), cap - j, sep);
            $call
        };
        (i + used, j + used / 4 * 3)
    }};
}

impl Kernels for Ssse3 {
    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let runs = alphabet.runs();
        // SAFETY: `self` proves SSSE3; the pointers and lengths come from slices.
        unsafe {
            if runs.fits {
                encode_runs_ssse3(runs, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len())
            } else {
                encode_ssse3(
                    alphabet.symbols(),
                    src.as_ptr(),
                    src.len(),
                    dst.as_mut_ptr(),
                    dst.len(),
                )
            }
        }
    }

    #[inline]
    fn encode_all(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8], pad: bool) -> bool {
        let (s, n, d, len) = (src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves SSSE3; `dst` is exactly the encoded length of `src` (the
        // caller's contract); `&mut` excludes overlap.
        unsafe {
            if n <= 24 {
                encode_short_ssse3(alphabet, s, n, d, len, pad)
            } else {
                encode_all_ssse3(alphabet, s, n, d, len, pad)
            }
        }
        true
    }

    #[inline]
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        let nib = alphabet.nibbles();
        match nib.fixes {
            0 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_ssse3::<0>(nib, s, n, d, c, sep)
            }),
            1 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_ssse3::<1>(nib, s, n, d, c, sep)
            }),
            2 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_ssse3::<2>(nib, s, n, d, c, sep)
            }),
            _ => {
                let rows = decode_rows(alphabet);
                run_decode!(io, i, j, |s, n, d, c, _sep| decode_ssse3(&rows, s, n, d, c))
            }
        }
    }

    #[inline]
    fn decode_short(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        short: ShortRules,
    ) -> Option<usize> {
        let n = src.len();
        if n == 0 || n > SHORT_MAX {
            return None;
        }
        let (nib, table) = (alphabet.nibbles(), alphabet.decode_table());
        let (s, d, cap) = (src.as_ptr(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves SSSE3; `src` holds `0 < n` bytes and `dst` `cap`, as
        // `decode_short_ssse3` needs; `&mut` excludes overlap.
        unsafe {
            match nib.fixes {
                0 => decode_short_ssse3::<0>(nib, table, s, n, d, cap, short),
                1 => decode_short_ssse3::<1>(nib, table, s, n, d, cap, short),
                2 => decode_short_ssse3::<2>(nib, table, s, n, d, cap, short),
                _ => None,
            }
        }
    }

    #[inline]
    fn decode_lines<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        crlf: bool,
    ) -> (usize, usize) {
        let nib = alphabet.nibbles();
        match nib.fixes {
            0 => run_lines!(io, i, j, |s, n, d, c| lines_ssse3::<0>(nib, s, n, d, c, w, crlf)),
            1 => run_lines!(io, i, j, |s, n, d, c| lines_ssse3::<1>(nib, s, n, d, c, w, crlf)),
            2 => run_lines!(io, i, j, |s, n, d, c| lines_ssse3::<2>(nib, s, n, d, c, w, crlf)),
            _ => (i, j),
        }
    }
}

impl Kernels for Avx2 {
    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let runs = alphabet.runs();
        // SAFETY: `self` proves AVX2; the pointers and lengths come from slices.
        unsafe {
            if runs.fits {
                encode_runs_avx2(runs, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len())
            } else {
                encode_avx2(
                    alphabet.symbols(),
                    src.as_ptr(),
                    src.len(),
                    dst.as_mut_ptr(),
                    dst.len(),
                )
            }
        }
    }

    #[inline]
    fn encode_all(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8], pad: bool) -> bool {
        let (s, n, d, len) = (src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves AVX2; `dst` is exactly the encoded length of `src` (the
        // caller's contract); `&mut` excludes overlap.
        unsafe {
            if n <= 24 {
                encode_short_avx2(alphabet, s, n, d, len, pad)
            } else {
                encode_all_avx2(alphabet, s, n, d, len, pad)
            }
        }
        true
    }

    #[inline]
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        let nib = alphabet.nibbles();
        match nib.fixes {
            0 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_avx2::<0>(nib, s, n, d, c, sep)
            }),
            1 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_avx2::<1>(nib, s, n, d, c, sep)
            }),
            2 => run_decode!(io, i, j, |s, n, d, c, sep| {
                decode_nibbles_avx2::<2>(nib, s, n, d, c, sep)
            }),
            _ => {
                let rows = decode_rows(alphabet);
                run_decode!(io, i, j, |s, n, d, c, _sep| decode_avx2(&rows, s, n, d, c))
            }
        }
    }

    #[inline]
    fn decode_short(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        short: ShortRules,
    ) -> Option<usize> {
        let n = src.len();
        if n == 0 || n > SHORT_MAX {
            return None;
        }
        let (nib, table) = (alphabet.nibbles(), alphabet.decode_table());
        let (s, d, cap) = (src.as_ptr(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves AVX2; `src` holds `0 < n` bytes and `dst` `cap`, as
        // `decode_short_avx2` needs; `&mut` excludes overlap.
        unsafe {
            match nib.fixes {
                0 => decode_short_avx2::<0>(nib, table, s, n, d, cap, short),
                1 => decode_short_avx2::<1>(nib, table, s, n, d, cap, short),
                2 => decode_short_avx2::<2>(nib, table, s, n, d, cap, short),
                _ => None,
            }
        }
    }

    #[inline]
    fn decode_lines<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        crlf: bool,
    ) -> (usize, usize) {
        let nib = alphabet.nibbles();
        match nib.fixes {
            0 => run_lines!(io, i, j, |s, n, d, c| lines_avx2::<0>(nib, s, n, d, c, w, crlf)),
            1 => run_lines!(io, i, j, |s, n, d, c| lines_avx2::<1>(nib, s, n, d, c, w, crlf)),
            2 => run_lines!(io, i, j, |s, n, d, c| lines_avx2::<2>(nib, s, n, d, c, w, crlf)),
            _ => (i, j),
        }
    }
}

// ---- SSSE3 ----

#[inline]
#[target_feature(enable = "ssse3")]
fn load_table(t: &[u8; 16]) -> __m128i {
    // SAFETY: reads the 16 bytes of `t`.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

/// The masks and multipliers of Muła's encode (`pand` by `0x0fc0_fc00`, `pmulhuw` by
/// `0x0400_0040`, `pand` by `0x003f_03f0`, `pmullw` by `0x0100_0010`), hidden from the
/// optimizer: LLVM otherwise turns the multiplies by constants of known operands into
/// shift, zero-extend, pack and permute sequences that run at half the speed.
#[inline]
#[target_feature(enable = "ssse3")]
fn multipliers_128() -> [__m128i; 4] {
    core::hint::black_box(
        [0x0fc0_fc00, 0x0400_0040, 0x003f_03f0, 0x0100_0010].map(|c| _mm_set1_epi32(c)),
    )
}

/// The AVX2 twin of [`multipliers_128`].
#[inline]
#[target_feature(enable = "avx2")]
fn multipliers_256() -> [__m256i; 4] {
    core::hint::black_box(
        [0x0fc0_fc00, 0x0400_0040, 0x003f_03f0, 0x0100_0010].map(|c| _mm256_set1_epi32(c)),
    )
}

/// `s0 s1 s2` groups (12 bytes) -> the four 6-bit indices of each in the bytes of a dword.
#[inline]
#[target_feature(enable = "ssse3")]
fn indices_128(x: __m128i, mul: [__m128i; 4]) -> __m128i {
    let x = _mm_shuffle_epi8(x, _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
    let t0 = _mm_and_si128(x, mul[0]);
    let t1 = _mm_mulhi_epu16(t0, mul[1]);
    let t2 = _mm_and_si128(x, mul[2]);
    let t3 = _mm_mullo_epi16(t2, mul[3]);
    _mm_or_si128(t1, t3)
}

/// `tables[k][idx - base - 16k]` for the `k` whose range holds `idx`, 0 when none does.
#[inline]
#[target_feature(enable = "ssse3")]
fn lookup_128<const K: usize>(tables: &[__m128i; K], idx: __m128i, base: i8) -> __m128i {
    let mut r = _mm_set1_epi8(0);
    for (k, &t) in tables.iter().enumerate() {
        let rel = _mm_sub_epi8(idx, _mm_set1_epi8(base.wrapping_add(16 * k as i8)));
        r = _mm_or_si128(r, _mm_shuffle_epi8(t, _mm_adds_epu8(rel, _mm_set1_epi8(0x70))));
    }
    r
}

/// Encodes all of `src[..n]` into `dst[..len]` (its encoded length, with padding if `pad`):
/// the kernel's loop, then [`encode_last_ssse3`], in one call. Below [`SHORT_ENCODE_SSSE3`]
/// bytes the last-bytes code does it all (its 12-byte blocks), without the loop's setup.
///
/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `n` bytes and `dst` for writes of `len`
/// bytes, the encoded length of `n` bytes with padding if `pad`; they do not overlap.
#[target_feature(enable = "ssse3")]
unsafe fn encode_all_ssse3(
    alphabet: &Alphabet,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    // SAFETY: the caller's contract; the loops consume `done` bytes (a multiple of 3) and
    // write their `done / 3 * 4` symbols, leaving the encoded length of the rest.
    unsafe {
        let runs = alphabet.runs();
        let done = if n < SHORT_ENCODE_SSSE3 {
            0
        } else if runs.fits {
            encode_runs_ssse3(runs, src, n, dst, len)
        } else {
            encode_ssse3(alphabet.symbols(), src, n, dst, len)
        };
        let out = done / 3 * 4;
        let mul = multipliers_128();
        encode_last_ssse3(alphabet, src.add(done), n - done, dst.add(out), len - out, pad, mul);
    }
}

/// [`encode_last_ssse3`] alone, for inputs of at most 24 bytes (two blocks), in a function
/// of its own as [`encode_short_avx2`], with the multipliers as plain constants: LLVM turns
/// them into shifts and blends of lower latency, which one or two blocks wait on, and there
/// is no stack round trip (with them, 64 B took 17.5 ns instead of 14.9: the loops keep
/// [`multipliers_128`]).
///
/// # Safety
///
/// As [`encode_all_ssse3`], `n <= 24`.
#[target_feature(enable = "ssse3")]
unsafe fn encode_short_ssse3(
    alphabet: &Alphabet,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    let mul = [0x0fc0_fc00, 0x0400_0040, 0x003f_03f0, 0x0100_0010].map(|c| _mm_set1_epi32(c));
    // SAFETY: the caller's contract.
    unsafe { encode_last_ssse3(alphabet, src, n, dst, len, pad, mul) }
}

/// Inputs shorter than this skip the SSSE3 loops ([`encode_all_ssse3`]): measured (Zen 4, v2
/// cap) 64 B in 16.3 ns instead of 17.3, 100 B 19.5 instead of 20.0 (a threshold of 28 before);
/// 256 B the same either way.
const SHORT_ENCODE_SSSE3: usize = 112;

/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes;
/// they do not overlap.
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn encode_ssse3(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    let mul = multipliers_128();
    let mut tables = [_mm_set1_epi8(0); 4];
    for (k, t) in tables.iter_mut().enumerate() {
        *t = load_table(symbols[16 * k..16 * k + 16].try_into().expect("16 symbols"));
    }
    let (mut i, mut j) = (0, 0);
    // Each block reads 16 bytes (12 used) and writes 16 symbols.
    while i + 16 <= n && i + 12 <= end {
        // SAFETY: `i + 16 <= n`; `j + 16 = (i + 12) / 3 * 4 <= end / 3 * 4 <= cap`.
        unsafe {
            let x = _mm_loadu_si128(src.add(i).cast());
            let out = lookup_128(&tables, indices_128(x, mul), 0);
            _mm_storeu_si128(dst.add(j).cast(), out);
        }
        i += 12;
        j += 16;
    }
    i
}

/// 6-bit values of 16 bytes; the top bit is set for every byte that is not a symbol.
#[inline]
#[target_feature(enable = "ssse3")]
fn values_128(x: __m128i, rows: &[__m128i; 6]) -> __m128i {
    let v = lookup_128(rows, x, 0x20);
    let printable = _mm_cmpgt_epi8(x, _mm_set1_epi8(0x20));
    _mm_or_si128(v, _mm_andnot_si128(printable, _mm_set1_epi8(-1)))
}

/// 16 6-bit values -> 12 bytes (in the low 12 bytes).
#[inline]
#[target_feature(enable = "ssse3")]
fn pack_128(v: __m128i) -> __m128i {
    let pairs = _mm_maddubs_epi16(v, _mm_set1_epi32(0x0140_0140));
    let dwords = _mm_madd_epi16(pairs, _mm_set1_epi32(0x0001_1000));
    _mm_shuffle_epi8(dwords, _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1))
}

/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes;
/// either they do not overlap or `dst <= src` in one buffer (each 16-byte store at `j <= i`
/// follows the load of `src[i..i + 16]`).
#[target_feature(enable = "ssse3")]
unsafe fn decode_ssse3(
    rows: &[[u8; 16]; 6],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let rows = rows.map(|r| load_table(&r));
    let (mut i, mut j) = (0, 0);
    while i + 16 <= n && j + 16 <= cap {
        // SAFETY: `i + 16 <= n`, `j + 16 <= cap`.
        unsafe {
            let x = _mm_loadu_si128(src.add(i).cast());
            let v = values_128(x, &rows);
            if _mm_movemask_epi8(v) != 0 {
                break;
            }
            _mm_storeu_si128(dst.add(j).cast(), pack_128(v));
        }
        i += 16;
        j += 12;
    }
    i
}

// ---- AVX2 ----

#[inline]
#[target_feature(enable = "avx2")]
fn load_table_256(t: &[u8; 16]) -> __m256i {
    // SAFETY: reads the 16 bytes of `t`.
    _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr().cast()) })
}

/// The AVX2 twin of [`lookup_128`].
#[inline]
#[target_feature(enable = "avx2")]
fn lookup_256<const K: usize>(tables: &[__m256i; K], idx: __m256i, base: i8) -> __m256i {
    let mut r = _mm256_set1_epi8(0);
    for (k, &t) in tables.iter().enumerate() {
        let rel = _mm256_sub_epi8(idx, _mm256_set1_epi8(base.wrapping_add(16 * k as i8)));
        r = _mm256_or_si256(
            r,
            _mm256_shuffle_epi8(t, _mm256_adds_epu8(rel, _mm256_set1_epi8(0x70))),
        );
    }
    r
}

/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes;
/// they do not overlap.
#[target_feature(enable = "avx2")]
unsafe fn encode_avx2(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    let mut tables = [_mm256_set1_epi8(0); 4];
    for (k, t) in tables.iter_mut().enumerate() {
        *t = load_table_256(symbols[16 * k..16 * k + 16].try_into().expect("16 symbols"));
    }
    let spread = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);
    let shuffle = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,
    ));
    let (mut i, mut j) = (0, 0);
    // Each block reads 32 bytes (24 used: bytes 0..12 to the low lane, 12..24 to the high
    // lane) and writes 32 symbols.
    while i + 32 <= n && i + 24 <= end {
        // SAFETY: `i + 32 <= n`; `j + 32 = (i + 24) / 3 * 4 <= end / 3 * 4 <= cap`.
        unsafe {
            let x = _mm256_loadu_si256(src.add(i).cast());
            let x = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(x, spread), shuffle);
            let t0 = _mm256_and_si256(x, _mm256_set1_epi32(0x0fc0_fc00));
            let t1 = mulhi_epu16_256(t0, _mm256_set1_epi32(0x0400_0040));
            let t2 = _mm256_and_si256(x, _mm256_set1_epi32(0x003f_03f0));
            let t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x0100_0010));
            let out = lookup_256(&tables, _mm256_or_si256(t1, t3), 0);
            _mm256_storeu_si256(dst.add(j).cast(), out);
        }
        i += 24;
        j += 32;
    }
    i
}

/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `n` bytes, `dst` for writes of `cap` bytes;
/// either they do not overlap or `dst <= src` in one buffer (each 32-byte store at `j <= i`
/// follows the load of `src[i..i + 32]`).
#[target_feature(enable = "avx2")]
unsafe fn decode_avx2(
    rows: &[[u8; 16]; 6],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let rows = rows.map(|r| load_table_256(&r));
    let pack = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
    ));
    let gather = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    let (mut i, mut j) = (0, 0);
    while i + 32 <= n && j + 32 <= cap {
        // SAFETY: `i + 32 <= n`, `j + 32 <= cap`.
        unsafe {
            let x = _mm256_loadu_si256(src.add(i).cast());
            let v = lookup_256(&rows, x, 0x20);
            let printable = _mm256_cmpgt_epi8(x, _mm256_set1_epi8(0x20));
            let v = _mm256_or_si256(v, _mm256_andnot_si256(printable, _mm256_set1_epi8(-1)));
            if _mm256_movemask_epi8(v) != 0 {
                break;
            }
            let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x0140_0140));
            let dwords = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_1000));
            let packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(dwords, pack), gather);
            _mm256_storeu_si256(dst.add(j).cast(), packed);
        }
        i += 32;
        j += 24;
    }
    i
}

// ---- Nibble decode (alphabets that fit `Nibbles`) ----

/// The [`Nibbles`] tables in SSSE3 registers.
struct NibbleRegs128 {
    lo_mask: __m128i,
    hi_bit: __m128i,
    shift: __m128i,
    fix_byte: [__m128i; Nibbles::MAX_FIXES],
    fix_add: [__m128i; Nibbles::MAX_FIXES],
}

impl NibbleRegs128 {
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn new(nib: &Nibbles) -> NibbleRegs128 {
        NibbleRegs128 {
            lo_mask: load_table(&nib.lo_mask),
            hi_bit: load_table(&Nibbles::HI_BIT),
            shift: load_table(&nib.shift),
            fix_byte: nib.fix_byte.map(|b| _mm_set1_epi8(b as i8)),
            fix_add: nib.fix_add.map(|b| _mm_set1_epi8(b as i8)),
        }
    }

    /// The 6-bit values of the 16 bytes of `x` (meaningless for non-symbols), and a vector
    /// that is zero iff every byte is a symbol.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn values<const FIXES: usize>(&self, x: __m128i) -> (__m128i, __m128i) {
        let low = _mm_set1_epi8(0x0f);
        let lo = _mm_and_si128(x, low);
        let hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
        let bad =
            _mm_and_si128(_mm_shuffle_epi8(self.lo_mask, lo), _mm_shuffle_epi8(self.hi_bit, hi));
        let mut v = _mm_add_epi8(x, _mm_shuffle_epi8(self.shift, hi));
        for k in 0..FIXES {
            let fix = _mm_and_si128(_mm_cmpeq_epi8(x, self.fix_byte[k]), self.fix_add[k]);
            v = _mm_add_epi8(v, fix);
        }
        (v, bad)
    }
}

/// Whether a `bad` vector of [`NibbleRegs128::values`] says every byte is a symbol.
#[inline]
#[target_feature(enable = "ssse3")]
fn all_symbols_128(bad: __m128i) -> bool {
    _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) == 0xffff
}

/// [`decode_ssse3`] with the [`Nibbles`] tables (`FIXES` of them used): 4 `pshufb` fewer
/// per block than the six-table lookup, 64 symbols per iteration (then 32, then 16), and if
/// `separate`, one more block for the last whole groups as in [`decode_nibbles_avx2`].
///
/// # Safety
///
/// As [`decode_ssse3`]; in place, each store at `j <= i` follows the loads of
/// `src[i..i + 64]` (or of the 32 or 16 bytes of the shorter loops) and stays within them.
/// `separate` only if `src[..n]` and `dst[..cap]` do not overlap and `dst[..cap]` holds no
/// input the caller may still read (junk may be written past the bytes decoded).
#[target_feature(enable = "ssse3")]
unsafe fn decode_nibbles_ssse3<const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    separate: bool,
) -> usize {
    let t = NibbleRegs128::new(nib);
    let (mut i, mut j) = (0, 0);
    while i + 64 <= n && j + 52 <= cap {
        // SAFETY: `i + 64 <= n`; the stores write `dst[j + 12k..j + 12k + 16]` for k < 4,
        // `j + 52 <= cap`.
        unsafe {
            let x = [0, 16, 32, 48].map(|o| _mm_loadu_si128(src.add(i + o).cast()));
            let r = x.map(|x| t.values::<FIXES>(x));
            let bad = _mm_or_si128(_mm_or_si128(r[0].1, r[1].1), _mm_or_si128(r[2].1, r[3].1));
            if !all_symbols_128(bad) {
                return i + stop::<NibbleRegs128, 4>(&r, dst.add(j), separate);
            }
            for (k, &(v, _)) in r.iter().enumerate() {
                _mm_storeu_si128(dst.add(j + 12 * k).cast(), pack_128(v));
            }
        }
        i += 64;
        j += 48;
    }
    while i + 32 <= n && j + 28 <= cap {
        // SAFETY: `i + 32 <= n`; the stores write `dst[j..j + 16]` and `dst[j + 12..j + 28]`,
        // `j + 28 <= cap`.
        unsafe {
            let x0 = _mm_loadu_si128(src.add(i).cast());
            let x1 = _mm_loadu_si128(src.add(i + 16).cast());
            let (v0, b0) = t.values::<FIXES>(x0);
            let (v1, b1) = t.values::<FIXES>(x1);
            if !all_symbols_128(_mm_or_si128(b0, b1)) {
                return i + stop::<NibbleRegs128, 2>(&[(v0, b0), (v1, b1)], dst.add(j), separate);
            }
            _mm_storeu_si128(dst.add(j).cast(), pack_128(v0));
            _mm_storeu_si128(dst.add(j + 12).cast(), pack_128(v1));
        }
        i += 32;
        j += 24;
    }
    // SAFETY: the caller's contract; `i = j / 3 * 4 <= n`.
    unsafe { decode_tail::<_, FIXES>(&t, src, n, dst, cap, i, separate) }
}

/// The [`Nibbles`] tables in AVX2 registers (each 16-byte table in both lanes).
struct NibbleRegs256 {
    lo_mask: __m256i,
    hi_bit: __m256i,
    shift: __m256i,
    fix_byte: [__m256i; Nibbles::MAX_FIXES],
    fix_add: [__m256i; Nibbles::MAX_FIXES],
}

impl NibbleRegs256 {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(nib: &Nibbles) -> NibbleRegs256 {
        NibbleRegs256 {
            lo_mask: load_table_256(&nib.lo_mask),
            hi_bit: load_table_256(&Nibbles::HI_BIT),
            shift: load_table_256(&nib.shift),
            fix_byte: nib.fix_byte.map(|b| _mm256_set1_epi8(b as i8)),
            fix_add: nib.fix_add.map(|b| _mm256_set1_epi8(b as i8)),
        }
    }

    /// The AVX2 twin of [`NibbleRegs128::values`].
    #[inline]
    #[target_feature(enable = "avx2")]
    fn values<const FIXES: usize>(&self, x: __m256i) -> (__m256i, __m256i) {
        let low = _mm256_set1_epi8(0x0f);
        let lo = _mm256_and_si256(x, low);
        let hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
        let bad = _mm256_and_si256(
            _mm256_shuffle_epi8(self.lo_mask, lo),
            _mm256_shuffle_epi8(self.hi_bit, hi),
        );
        let mut v = _mm256_add_epi8(x, _mm256_shuffle_epi8(self.shift, hi));
        for k in 0..FIXES {
            let fix = _mm256_and_si256(_mm256_cmpeq_epi8(x, self.fix_byte[k]), self.fix_add[k]);
            v = _mm256_add_epi8(v, fix);
        }
        (v, bad)
    }
}

/// 32 6-bit values -> 24 bytes (in the low 24 bytes).
#[inline]
#[target_feature(enable = "avx2")]
fn pack_256(v: __m256i) -> __m256i {
    // Bytes 12..16 of each lane are don't-cares (the permute drops them; the top 8 bytes of
    // the result are overwritten or past the output): copies rather than zeros, which would
    // make LLVM add a blend.
    let gather = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    _mm256_permutevar8x32_epi32(pack_lanes_256(v), gather)
}

/// [`decode_avx2`] with the [`Nibbles`] tables (`FIXES` of them used), 64 symbols per
/// iteration (then 32): an iteration of 128 symbols runs out of the 16 `ymm` registers and
/// reloads constants inside the loop, 2-4 % slower at 4 and 64 KiB (`NAB_MAX_ISA=x86-64-v3`,
/// this CPU, against 64). If `separate` (the buffers do not overlap), the last whole
/// groups (fewer than 32 symbols) are decoded by one more block that ends at them and
/// overlaps groups already decoded (they decode to the same bytes again), instead of
/// leaving them to the scalar loop (unpadded text of 256 and 4096 bytes of data, 55 -> 28
/// and 277 -> 244 ns at `NAB_MAX_ISA=x86-64-v3` on this CPU, with the partial last group
/// of `decode_io`). Fewer than 32 symbols in all go by the SSSE3 kernel's 16-symbol blocks
/// ([`decode_tail`]).
///
/// # Safety
///
/// As [`decode_avx2`]; in place, each store at `j <= i` follows the loads of
/// `src[i..i + 64]` (or of the 32 bytes of the shorter loop) and stays within them.
/// `separate` only if `src[..n]` and `dst[..cap]` do not overlap and `dst[..cap]` holds no
/// input the caller may still read (junk may be written past the bytes decoded).
#[target_feature(enable = "avx2")]
unsafe fn decode_nibbles_avx2<const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    separate: bool,
) -> usize {
    let t = NibbleRegs256::new(nib);
    let (mut i, mut j) = (0, 0);
    while i + 64 <= n && j + 56 <= cap {
        // SAFETY: `i + 64 <= n`; the stores write `dst[j..j + 32]` and `dst[j + 24..j + 56]`,
        // `j + 56 <= cap`.
        unsafe {
            let x0 = _mm256_loadu_si256(src.add(i).cast());
            let x1 = _mm256_loadu_si256(src.add(i + 32).cast());
            let (v0, b0) = t.values::<FIXES>(x0);
            let (v1, b1) = t.values::<FIXES>(x1);
            let bad = _mm256_or_si256(b0, b1);
            if _mm256_testz_si256(bad, bad) == 0 {
                return i + stop::<NibbleRegs256, 2>(&[(v0, b0), (v1, b1)], dst.add(j), separate);
            }
            _mm256_storeu_si256(dst.add(j).cast(), pack_256(v0));
            _mm256_storeu_si256(dst.add(j + 24).cast(), pack_256(v1));
        }
        i += 64;
        j += 48;
    }
    // Blocks of 32 with exact stores; with separate buffers, the block holding the first
    // non-symbol still decodes the whole groups before it.
    // SAFETY: the caller's contract; `j = i / 4 * 3`.
    let (i, j) = match unsafe { exact_blocks::<_, FIXES>(&t, src, n, dst, cap, (i, j), separate) } {
        Ok(end) => end,
        Err(done) => return done,
    };
    if i == 0 {
        // Fewer than 32 symbols, or output for fewer than 8 groups (a text's last line):
        // blocks of 16.
        // SAFETY: the caller's contract; AVX2 implies SSSE3.
        return unsafe {
            decode_tail::<_, FIXES>(&NibbleRegs128::new(nib), src, n, dst, cap, 0, separate)
        };
    }
    // The last whole groups that fit the output (`g <= 28`: the loop ended on `n` or `cap`),
    // by a block ending at them, up to the first non-symbol.
    // SAFETY: the caller's contract; `exact_blocks` ended on `n` or `cap`.
    unsafe { last_groups::<_, FIXES>(&t, src, n, dst, cap, (i, j), separate) }
}

/// One register width of the nibble decode, so that what the SSSE3 (`__m128i`: 16 symbols to
/// 12 bytes) and AVX2 (`__m256i`: 32 to 24) kernels do alike is written once: the stop of an
/// iteration at a non-symbol ([`stop`]), the blocks with exact stores and the last block that
/// overlaps decoded groups ([`exact_blocks`], [`last_groups`]) and the short decode
/// ([`decode_short`]). Implemented by the tables in registers. The methods are
/// `#[inline(always)]` without `#[target_feature]`: they and the generic functions inline into
/// the kernel entry points, which enable the features.
trait NibbleWidth {
    /// Symbols per block.
    const B: usize;
    /// Bytes a block decodes to, `B / 4 * 3`.
    const OUT: usize;
    /// The register.
    type V: Copy;

    /// The `B` bytes at `src`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `src` is valid for reads of `B` bytes.
    unsafe fn load(src: *const u8) -> Self::V;

    /// `src[..m]` (`0 < m <= B`) in the low lanes, the rest zero, reading only those bytes.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `src` is valid for reads of `m` bytes.
    unsafe fn load_exact(src: *const u8, m: usize) -> Self::V;

    /// The 6-bit values of the bytes of `x` and their `bad` vector, as
    /// [`NibbleRegs128::values`].
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn values<const FIXES: usize>(&self, x: Self::V) -> (Self::V, Self::V);

    /// Whether a `bad` vector says every byte is a symbol.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn ok(bad: Self::V) -> bool;

    /// Bytes before the first non-symbol of a block (`B` if none), from its `bad` vector.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn symbols_before(bad: Self::V) -> usize;

    /// The lanes that are symbols (all ones, else zero) and their bit mask, from a `bad`
    /// vector.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn good(bad: Self::V) -> (Self::V, u32);

    /// The bit mask of the lanes of `x` that are `=`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn pads(x: Self::V) -> u32;

    /// `a & b`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn and(a: Self::V, b: Self::V) -> Self::V;

    /// `a | b`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn or(a: Self::V, b: Self::V) -> Self::V;

    /// All lanes zero.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn zero() -> Self::V;

    /// `B` 6-bit values -> `OUT` bytes in the low bytes (the rest junk).
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features.
    unsafe fn pack(v: Self::V) -> Self::V;

    /// Writes all `B` bytes of `y` to `dst`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `dst` is valid for writes of `B` bytes.
    unsafe fn store(dst: *mut u8, y: Self::V);

    /// Writes the low `len <= B` bytes of `y` to `dst`, touching only `dst[..len]`.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `dst` is valid for writes of `len` bytes.
    unsafe fn store_exact(dst: *mut u8, len: usize, y: Self::V);

    /// Writes the `OUT` bytes [`NibbleWidth::pack`] leaves in `y` to `dst[..OUT]`, exactly.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `dst` is valid for writes of `OUT` bytes.
    unsafe fn store_out(dst: *mut u8, y: Self::V);

    /// Writes the `OUT` bytes of a [`NibbleWidth::pack`] result to `dst[at..]`: one `B`-byte
    /// store when `dst[..cap]` has room for it, else exactly. (Each width keeps the bounds
    /// test its loop was tuned with: `at + B <= cap` or `cap - at >= B`.)
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features; `dst` is valid for writes of `cap >= at + OUT`
    /// bytes.
    unsafe fn store_room(dst: *mut u8, at: usize, cap: usize, y: Self::V);
}

/// Bytes before the first non-symbol of a block (16 if none), from the `bad` vector of
/// [`NibbleRegs128::values`].
#[inline]
#[target_feature(enable = "ssse3")]
fn symbols_before_128(bad: __m128i) -> usize {
    (!symbol_lanes_128(bad)).trailing_zeros() as usize
}

/// The lanes that are symbols, as a bit mask, from the `bad` vector of
/// [`NibbleRegs128::values`].
#[inline]
#[target_feature(enable = "ssse3")]
fn symbol_lanes_128(bad: __m128i) -> u32 {
    _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) as u32
}

/// Bytes before the first non-symbol of a block (32 if none), from the `bad` vector of
/// [`NibbleRegs256::values`].
#[inline]
#[target_feature(enable = "avx2")]
fn symbols_before_256(bad: __m256i) -> usize {
    let symbols = _mm256_movemask_epi8(_mm256_cmpeq_epi8(bad, _mm256_setzero_si256())) as u32;
    (!symbols).trailing_zeros() as usize
}

impl NibbleWidth for NibbleRegs128 {
    const B: usize = 16;
    const OUT: usize = 12;
    type V = __m128i;

    #[inline(always)]
    unsafe fn load(src: *const u8) -> __m128i {
        // SAFETY: the caller's contract: SSSE3, `src[..16]` readable.
        unsafe { _mm_loadu_si128(src.cast()) }
    }

    #[inline(always)]
    unsafe fn load_exact(src: *const u8, m: usize) -> __m128i {
        // SAFETY: the caller's contract: SSSE3, `src[..m]` readable, `0 < m <= 16`.
        unsafe { if m == 16 { _mm_loadu_si128(src.cast()) } else { load_exact_128(src, m) } }
    }

    #[inline(always)]
    unsafe fn values<const FIXES: usize>(&self, x: __m128i) -> (__m128i, __m128i) {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { NibbleRegs128::values::<FIXES>(self, x) }
    }

    #[inline(always)]
    unsafe fn ok(bad: __m128i) -> bool {
        // SAFETY: the caller's contract: SSSE3. (`symbols_before_128`'s mask again: LLVM then
        // computes it once for both.)
        unsafe { symbol_lanes_128(bad) == 0xffff }
    }

    #[inline(always)]
    unsafe fn symbols_before(bad: __m128i) -> usize {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { symbols_before_128(bad) }
    }

    #[inline(always)]
    unsafe fn good(bad: __m128i) -> (__m128i, u32) {
        // SAFETY: the caller's contract: SSSE3.
        unsafe {
            let good = _mm_cmpeq_epi8(bad, _mm_setzero_si128());
            (good, _mm_movemask_epi8(good) as u32)
        }
    }

    #[inline(always)]
    unsafe fn pads(x: __m128i) -> u32 {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'=' as i8))) as u32 }
    }

    #[inline(always)]
    unsafe fn and(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { _mm_and_si128(a, b) }
    }

    #[inline(always)]
    unsafe fn or(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { _mm_or_si128(a, b) }
    }

    #[inline(always)]
    unsafe fn zero() -> __m128i {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { _mm_setzero_si128() }
    }

    #[inline(always)]
    unsafe fn pack(v: __m128i) -> __m128i {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { pack_128(v) }
    }

    #[inline(always)]
    unsafe fn store(dst: *mut u8, y: __m128i) {
        // SAFETY: the caller's contract: SSSE3, `dst[..16]` writable.
        unsafe { _mm_storeu_si128(dst.cast(), y) }
    }

    #[inline(always)]
    unsafe fn store_exact(dst: *mut u8, len: usize, y: __m128i) {
        // SAFETY: the caller's contract: SSSE3, `dst[..len]` writable, `len <= 16`.
        unsafe { store_exact_128(dst, len, y) }
    }

    #[inline(always)]
    unsafe fn store_out(dst: *mut u8, y: __m128i) {
        // SAFETY: the caller's contract: SSSE3; writes `dst[..8]` and `dst[8..12]`.
        unsafe {
            _mm_storel_epi64(dst.cast(), y);
            dst.add(8).cast::<i32>().write_unaligned(_mm_cvtsi128_si32(_mm_srli_si128::<8>(y)));
        }
    }

    #[inline(always)]
    unsafe fn store_room(dst: *mut u8, at: usize, cap: usize, y: __m128i) {
        // SAFETY: the caller's contract: SSSE3; writes `dst[at..at + 16]` within `cap`, else
        // `dst[at..at + 12]`.
        unsafe {
            if at + 16 <= cap {
                _mm_storeu_si128(dst.add(at).cast(), y);
            } else {
                Self::store_out(dst.add(at), y);
            }
        }
    }
}

impl NibbleWidth for NibbleRegs256 {
    const B: usize = 32;
    const OUT: usize = 24;
    type V = __m256i;

    #[inline(always)]
    unsafe fn load(src: *const u8) -> __m256i {
        // SAFETY: the caller's contract: AVX2, `src[..32]` readable.
        unsafe { _mm256_loadu_si256(src.cast()) }
    }

    #[inline(always)]
    unsafe fn load_exact(src: *const u8, m: usize) -> __m256i {
        // SAFETY: the caller's contract: AVX2, `src[..m]` readable, `0 < m <= 32`.
        unsafe { load_exact_256(src, m) }
    }

    #[inline(always)]
    unsafe fn values<const FIXES: usize>(&self, x: __m256i) -> (__m256i, __m256i) {
        // SAFETY: the caller's contract: AVX2.
        unsafe { NibbleRegs256::values::<FIXES>(self, x) }
    }

    #[inline(always)]
    unsafe fn ok(bad: __m256i) -> bool {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_testz_si256(bad, bad) != 0 }
    }

    #[inline(always)]
    unsafe fn symbols_before(bad: __m256i) -> usize {
        // SAFETY: the caller's contract: AVX2.
        unsafe { symbols_before_256(bad) }
    }

    #[inline(always)]
    unsafe fn good(bad: __m256i) -> (__m256i, u32) {
        // SAFETY: the caller's contract: AVX2.
        unsafe {
            let good = _mm256_cmpeq_epi8(bad, _mm256_setzero_si256());
            (good, _mm256_movemask_epi8(good) as u32)
        }
    }

    #[inline(always)]
    unsafe fn pads(x: __m256i) -> u32 {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'=' as i8))) as u32 }
    }

    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn or(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn pack(v: __m256i) -> __m256i {
        // SAFETY: the caller's contract: AVX2.
        unsafe { pack_256(v) }
    }

    #[inline(always)]
    unsafe fn store(dst: *mut u8, y: __m256i) {
        // SAFETY: the caller's contract: AVX2, `dst[..32]` writable.
        unsafe { _mm256_storeu_si256(dst.cast(), y) }
    }

    #[inline(always)]
    unsafe fn store_exact(dst: *mut u8, len: usize, y: __m256i) {
        // SAFETY: the caller's contract: AVX2, `dst[..len]` writable, `len <= 32`: 16 bytes
        // and the exact rest, or the exact low bytes.
        unsafe {
            if len > 16 {
                _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
                store_exact_128(dst.add(16), len - 16, _mm256_extracti128_si256::<1>(y));
            } else {
                store_exact_128(dst, len, _mm256_castsi256_si128(y));
            }
        }
    }

    #[inline(always)]
    unsafe fn store_out(dst: *mut u8, y: __m256i) {
        // SAFETY: the caller's contract: AVX2; writes `dst[..16]` and `dst[16..24]`.
        unsafe {
            _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
            _mm_storel_epi64(dst.add(16).cast(), _mm256_extracti128_si256::<1>(y));
        }
    }

    #[inline(always)]
    unsafe fn store_room(dst: *mut u8, at: usize, cap: usize, y: __m256i) {
        // SAFETY: the caller's contract: AVX2; writes `dst[at..at + 32]` within `cap`, else
        // `dst[at..at + 24]`.
        unsafe {
            if cap - at >= 32 {
                _mm256_storeu_si256(dst.add(at).cast(), y);
            } else {
                Self::store_out(dst.add(at), y);
            }
        }
    }
}

/// Where the blocks `r` of one iteration (values and `bad` of [`NibbleWidth::values`], loaded
/// from consecutive `B`-byte blocks, one of them holding a non-symbol) stop: stores the blocks
/// before the first non-symbol's to `dst` (`OUT` bytes each, as the loop would, by `B`-byte
/// stores), and with separate buffers the whole groups of that block too; returns the symbols
/// decoded.
///
/// # Safety
///
/// The CPU has `W`'s features; `dst` is valid for writes of `OUT * r.len() + B - OUT` bytes;
/// in place (not `separate`), each `B`-byte store at `OUT k` falls within the input already
/// loaded and behind the symbols returned (`j <= i`, stores before block `k >= 1` end at
/// `OUT k + B - OUT <= B k`).
#[inline(always)]
unsafe fn stop<W: NibbleWidth, const K: usize>(
    r: &[(W::V, W::V); K],
    dst: *mut u8,
    separate: bool,
) -> usize {
    for (k, &(v, bad)) in r.iter().enumerate() {
        // SAFETY: the caller's contract: the features, `dst[..OUT * K + B - OUT]` writable.
        unsafe {
            if !W::ok(bad) {
                if !separate {
                    return W::B * k;
                }
                W::store_out(dst.add(W::OUT * k), W::pack(v));
                return W::B * k + W::symbols_before(bad) / 4 * 4;
            }
            W::store(dst.add(W::OUT * k), W::pack(v));
        }
    }
    W::B * K
}

/// The `B`-symbol blocks from input index `i`, output index `j = i / 4 * 3`, with exact
/// `OUT`-byte stores. `Err` with the symbols decoded when a block holds a non-symbol (with
/// separate buffers the whole groups before it are decoded too; in place the store could
/// reach input not yet consumed, so none of that block); else `Ok` with where the blocks
/// ended, `(i, j)`.
///
/// # Safety
///
/// The CPU has `W`'s features; `src` is valid for reads of `n` bytes, `dst` for writes of
/// `cap`; `i <= n` a multiple of 4 and `j = i / 4 * 3 <= cap`; in place, `dst <= src` (each
/// store follows its block's load).
#[inline(always)]
unsafe fn exact_blocks<W: NibbleWidth, const FIXES: usize>(
    t: &W,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    (mut i, mut j): (usize, usize),
    separate: bool,
) -> Result<(usize, usize), usize> {
    while i + W::B <= n && j + W::OUT <= cap {
        // SAFETY: `i + B <= n`, `j + OUT <= cap`.
        unsafe {
            let (v, bad) = t.values::<FIXES>(W::load(src.add(i)));
            if !W::ok(bad) {
                if !separate {
                    return Err(i);
                }
                W::store_out(dst.add(j), W::pack(v));
                return Err(i + W::symbols_before(bad) / 4 * 4);
            }
            W::store_out(dst.add(j), W::pack(v));
        }
        i += W::B;
        j += W::OUT;
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
unsafe fn last_groups<W: NibbleWidth, const FIXES: usize>(
    t: &W,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    (mut i, j): (usize, usize),
    separate: bool,
) -> usize {
    let g = ((n - i) / 4).min((cap - j) / 3) * 4;
    if separate && g > 0 && i + g >= W::B {
        let back = W::B - g;
        // SAFETY: the block reads `src[i + g - B..i + g]`, `i + g <= n`, and writes
        // `dst[j - back / 4 * 3..j + g / 4 * 3]` (`j = i / 4 * 3 >= back / 4 * 3` and
        // `g / 4 * 3 <= cap - j`); the buffers do not overlap (`separate`), so the bytes
        // re-read are still the input and the bytes rewritten get the same values.
        unsafe {
            let (v, bad) = t.values::<FIXES>(W::load(src.add(i + g - W::B)));
            W::store_out(dst.add(j - back / 4 * 3), W::pack(v));
            // The first `back` bytes are symbols (decoded before).
            i += (W::symbols_before(bad) - back) / 4 * 4;
        }
    }
    i
}

/// [`exact_blocks`] then [`last_groups`] from input index `i`: the blocks that end
/// [`decode_nibbles_ssse3`] (16 symbols; also all of [`decode_nibbles_avx2`] on fewer than
/// 32). Returns the symbols decoded in all.
///
/// # Safety
///
/// As [`exact_blocks`].
#[inline(always)]
unsafe fn decode_tail<W: NibbleWidth, const FIXES: usize>(
    t: &W,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    i: usize,
    separate: bool,
) -> usize {
    // SAFETY: the caller's contract.
    unsafe {
        match exact_blocks::<W, FIXES>(t, src, n, dst, cap, (i, i / 4 * 3), separate) {
            Ok(end) => last_groups::<W, FIXES>(t, src, n, dst, cap, end, separate),
            Err(done) => done,
        }
    }
}

// ---- Short decode: all of a short text, its last group included ----

/// The longest text the short decode takes (`decode_short`): 8 AVX2 blocks, 16 SSSE3 ones.
/// Longer texts go the general way, whose fixed cost is small against them.
const SHORT_MAX: usize = 256;

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

/// `k` for `k < 16`, then `0x80`: the 16 bytes at `SHIFT_DOWN[d..]`, as a `pshufb` index, move
/// lane `k + d` to lane `k` and zero the lanes where `k + d >= 16`.
static SHIFT_DOWN: [u8; 32] = {
    let mut t = [0x80u8; 32];
    let mut k = 0;
    while k < 16 {
        t[k] = k as u8;
        k += 1;
    }
    t
};

/// `src[..m]` (`0 < m <= 32`) in the low lanes of a ymm, the rest zero, by plain loads of
/// those bytes only: 16 bytes at 0 and the 16 ending at `m`, moved down into the high lane by
/// one `pshufb`; below 16 bytes, [`load_exact_128`].
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `m` bytes, `0 < m <= 32`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_exact_256(src: *const u8, m: usize) -> __m256i {
    // SAFETY: the loads read `src[..16]` and `src[m - 16..m]` for `m >= 16`, else `src[..m]`
    // exactly; `SHIFT_DOWN[32 - m..48 - m]` is within its 32 bytes for `16 <= m < 32`.
    unsafe {
        if m == 32 {
            _mm256_loadu_si256(src.cast())
        } else if m >= 16 {
            let lo = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(m - 16).cast());
            // High lane `k` is byte `16 + k` = lane `k + 32 - m` of `b`, while below `m`.
            let hi = _mm_shuffle_epi8(b, _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(32 - m).cast()));
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        } else {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(load_exact_128(src, m)),
                _mm_setzero_si128(),
            )
        }
    }
}

/// Decodes all of `src[..n]` (`0 < n`) into `dst[..cap]` when it is symbols in whole groups,
/// or with a last group padded or partial as `rules` allow (its last symbol's unused bits
/// zero if `rules.canonical`), and the output fits; `None` otherwise (`dst` perhaps written).
/// Whole `B`-byte blocks, then the last 1 to `B` bytes read exactly
/// ([`NibbleWidth::load_exact`]); the `=` and the lanes past the text decode as zeros. A
/// block's `B`-byte store is used where `dst` has room, else only its bytes are written.
///
/// # Safety
///
/// The CPU has `W`'s features; `src` is valid for reads of `n > 0` bytes, `dst` for writes
/// of `cap` bytes; they do not overlap.
#[inline(always)]
unsafe fn decode_short<W: NibbleWidth, const FIXES: usize>(
    t: &W,
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: ShortRules,
) -> Option<usize> {
    let full = (n - 1) / W::B;
    let m = n - W::B * full;
    // SAFETY: the loads read `src[Bk..Bk + B]` for `k < full` (`B full < n`) and exactly
    // `src[B full..n]`; the stores write `dst[OUT k..OUT k + B]` when that is within `cap`,
    // else exactly the block's bytes, all below `total <= cap`.
    unsafe {
        let tail = src.add(W::B * full);
        let x = W::load_exact(tail, m);
        let last = LastBlock::new(m, W::pads(x), rules)?;
        let (v, bad) = t.values::<FIXES>(x);
        let (good, good_lanes) = W::good(bad);
        if good_lanes & last.symbols != last.symbols
            || table[usize::from(*tail.add(last.last))] & last.unused != 0
        {
            return None;
        }
        let total = W::OUT * full + last.bytes;
        if total > cap {
            return None;
        }
        // The whole blocks' checks in one test after them, not a branch per block (measured
        // faster: v2 64-100 B by 4-12 %, v3 100 B by 2 %): a bad block's bytes are stored
        // before the `None`, which the contract allows.
        if full > 0 {
            let mut bad_any = W::zero();
            for k in 0..full {
                let (v, bad) = t.values::<FIXES>(W::load(src.add(W::B * k)));
                bad_any = W::or(bad_any, bad);
                W::store_room(dst, W::OUT * k, cap, W::pack(v));
            }
            if !W::ok(bad_any) {
                return None;
            }
        }
        // The `=` and the lanes past the text decode as zeros (garbage there would carry
        // into the bytes kept).
        let y = W::pack(W::and(v, good));
        let (out, room) = (dst.add(W::OUT * full), cap - W::OUT * full);
        if room >= W::B {
            W::store(out, y);
        } else {
            W::store_exact(out, last.bytes, y);
        }
        Some(total)
    }
}

/// [`decode_short`] with SSSE3 blocks.
///
/// # Safety
///
/// As [`decode_short`], the CPU having SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn decode_short_ssse3<const FIXES: usize>(
    nib: &Nibbles,
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: ShortRules,
) -> Option<usize> {
    let t = NibbleRegs128::new(nib);
    // SAFETY: the caller's contract.
    unsafe { decode_short::<_, FIXES>(&t, table, src, n, dst, cap, rules) }
}

/// [`decode_short`] with AVX2 blocks.
///
/// # Safety
///
/// As [`decode_short`], the CPU having AVX2.
#[target_feature(enable = "avx2")]
unsafe fn decode_short_avx2<const FIXES: usize>(
    nib: &Nibbles,
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: ShortRules,
) -> Option<usize> {
    let t = NibbleRegs256::new(nib);
    // SAFETY: the caller's contract.
    unsafe { decode_short::<_, FIXES>(&t, table, src, n, dst, cap, rules) }
}

// ---- Lines of one width (forgiving decode) ----

/// The SSSE3 nibble decode as a [`LineBlock`].
struct LinesSsse3<const FIXES: usize>(NibbleRegs128);

impl<const FIXES: usize> LineBlock for LinesSsse3<FIXES> {
    const B: usize = 16;
    const STORE: usize = 16;
    type Bad = __m128i;

    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> __m128i {
        // SAFETY: the caller's contract: SSSE3, `src[..16]` readable, `dst[..16]` writable.
        unsafe {
            let (v, bad) = self.0.values::<FIXES>(_mm_loadu_si128(src.cast()));
            _mm_storeu_si128(dst.cast(), pack_128(v));
            bad
        }
    }

    #[inline(always)]
    unsafe fn or(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { _mm_or_si128(a, b) }
    }

    #[inline(always)]
    unsafe fn ok(bad: __m128i) -> bool {
        // SAFETY: the caller's contract: SSSE3.
        unsafe { all_symbols_128(bad) }
    }
}

/// [`lines::decode_lines`] with SSSE3 blocks.
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn lines_ssse3<const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    let k = LinesSsse3::<FIXES>(NibbleRegs128::new(nib));
    // SAFETY: the caller's contract.
    unsafe { lines::decode_lines(&k, src, n, dst, cap, w, crlf) }
}

/// The AVX2 nibble decode as a [`LineBlock`].
struct LinesAvx2<const FIXES: usize>(NibbleRegs256);

impl<const FIXES: usize> LineBlock for LinesAvx2<FIXES> {
    const B: usize = 32;
    const STORE: usize = 32;
    type Bad = __m256i;

    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> __m256i {
        // SAFETY: the caller's contract: AVX2, `src[..32]` readable, `dst[..32]` writable.
        unsafe {
            let (v, bad) = self.0.values::<FIXES>(_mm256_loadu_si256(src.cast()));
            _mm256_storeu_si256(dst.cast(), pack_256(v));
            bad
        }
    }

    #[inline(always)]
    unsafe fn or(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn ok(bad: __m256i) -> bool {
        // SAFETY: the caller's contract: AVX2.
        unsafe { _mm256_testz_si256(bad, bad) != 0 }
    }
}

/// [`lines::decode_lines`] with AVX2 blocks.
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having AVX2.
#[target_feature(enable = "avx2")]
unsafe fn lines_avx2<const FIXES: usize>(
    nib: &Nibbles,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    let k = LinesAvx2::<FIXES>(NibbleRegs256::new(nib));
    // SAFETY: the caller's contract; the pairs consume whole lines, so the rest starts at a
    // line and its output at the bytes of the lines before.
    unsafe {
        let (i, j) = match (w, crlf) {
            (76, false) => line_pairs_76_avx2::<FIXES, false>(&k.0, src, n, dst, cap),
            (76, true) => line_pairs_76_avx2::<FIXES, true>(&k.0, src, n, dst, cap),
            _ => (0, 0),
        };
        let (di, dj) = lines::decode_lines(&k, src.add(i), n - i, dst.add(j), cap - j, w, crlf);
        (i + di, j + dj)
    }
}

/// 32 6-bit values -> 12 bytes in the low bytes of each lane (the rest junk): [`pack_256`]
/// without the permute that joins the lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn pack_lanes_256(v: __m256i) -> __m256i {
    let pack = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 0, 0, 0, 0,
    ));
    let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x0140_0140));
    let dwords = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_1000));
    _mm256_shuffle_epi8(dwords, pack)
}

/// Lines of 76 symbols (`base64`'s and MIME's width), two per iteration in 5 blocks instead
/// of the 6 of [`lines::decode_lines`] (32 + 32 + an overlapping 32 each): each line's
/// symbols `0..64` in two blocks, and the last 16 symbols (`60..76`, 4 of them decoded
/// already) of both lines in the two lanes of one. Stops before a pair that is not two lines
/// of that shape (each `\n`-ended, or `\r\n` if `CRLF`, all symbols), or whose output does
/// not fit; [`lines::decode_lines`] goes on from there. Returns the bytes consumed and
/// written (whole lines).
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having AVX2.
#[inline(always)]
unsafe fn line_pairs_76_avx2<const FIXES: usize, const CRLF: bool>(
    t: &NibbleRegs256,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> (usize, usize) {
    let first = if CRLF { b'\r' } else { b'\n' };
    let stride = 77 + usize::from(CRLF);
    // The second line's output starts at 57; its tail's 16-byte store ends at 57 + 45 + 16.
    const REACH: usize = 57 + 45 + 16;
    let (mut i, mut j) = (0, 0);
    while i + 2 * stride <= n && j + REACH <= cap {
        // SAFETY: `i + 2 * stride <= n`: both lines and their endings are readable (the loads
        // read `a[..64]`, `a[60..76]` and the same of `b`); the stores write `dst[j..j + 56]`,
        // `dst[j + 45..j + 61]`, `dst[j + 57..j + 113]` and `dst[j + 102..j + 118]`, within
        // `cap` (`j + REACH <= cap`), each overwriting only the junk of the ones before.
        unsafe {
            let (a, b) = (src.add(i), src.add(i + stride));
            if *a.add(76) != first
                || *b.add(76) != first
                || (CRLF && (*a.add(77) != b'\n' || *b.add(77) != b'\n'))
            {
                break;
            }
            let (va0, bad_a0) = t.values::<FIXES>(_mm256_loadu_si256(a.cast()));
            let (va1, bad_a1) = t.values::<FIXES>(_mm256_loadu_si256(a.add(32).cast()));
            let (vb0, bad_b0) = t.values::<FIXES>(_mm256_loadu_si256(b.cast()));
            let (vb1, bad_b1) = t.values::<FIXES>(_mm256_loadu_si256(b.add(32).cast()));
            let tails = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(a.add(60).cast())),
                _mm_loadu_si128(b.add(60).cast()),
            );
            let (vt, bad_t) = t.values::<FIXES>(tails);
            let bad = _mm256_or_si256(
                _mm256_or_si256(_mm256_or_si256(bad_a0, bad_a1), _mm256_or_si256(bad_b0, bad_b1)),
                bad_t,
            );
            if _mm256_testz_si256(bad, bad) == 0 {
                break;
            }
            let out = dst.add(j);
            let yt = pack_lanes_256(vt);
            _mm256_storeu_si256(out.cast(), pack_256(va0));
            _mm256_storeu_si256(out.add(24).cast(), pack_256(va1));
            _mm_storeu_si128(out.add(45).cast(), _mm256_castsi256_si128(yt));
            _mm256_storeu_si256(out.add(57).cast(), pack_256(vb0));
            _mm256_storeu_si256(out.add(81).cast(), pack_256(vb1));
            _mm_storeu_si128(out.add(102).cast(), _mm256_extracti128_si256::<1>(yt));
        }
        i += 2 * stride;
        j += 114;
    }
    (i, j)
}

// ---- The last bytes of an encode ----

/// `src[..r]` (`r < 16`) in the low lanes of a register, the rest zero, by plain loads that
/// touch only those bytes: for `w <= r < 2w` (`w` = 8 or 4), `w` bytes at 0 and the `w` bytes
/// ending at `r`, joined by one `pshufb`; below 4 bytes, three byte loads. (Reading past the
/// input, or into a stack copy, would make the next load wait on stores: see
/// `encode_all_avx512vbmi`.)
///
/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `r < 16` bytes.
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn load_exact_128(src: *const u8, r: usize) -> __m128i {
    // SAFETY: the loads read `w <= r` bytes at 0 and at `r - w`, or bytes below `r`.
    unsafe {
        let x = if r >= 8 {
            let a = _mm_loadl_epi64(src.cast());
            let b = _mm_loadl_epi64(src.add(r - 8).cast());
            _mm_unpacklo_epi64(a, b)
        } else if r >= 4 {
            let a = _mm_cvtsi32_si128(src.cast::<i32>().read_unaligned());
            let b = _mm_cvtsi32_si128(src.add(r - 4).cast::<i32>().read_unaligned());
            _mm_unpacklo_epi32(a, b)
        } else if r > 0 {
            // Bytes 0, r / 2 and r - 1 are bytes 0, 1, 2 for r = 3 (repeats for r < 3, cut off).
            let v = u32::from(*src)
                | u32::from(*src.add(r / 2)) << 8
                | u32::from(*src.add(r - 1)) << 16;
            return _mm_cvtsi32_si128((v & (u32::MAX >> (32 - 8 * r))) as i32);
        } else {
            return _mm_setzero_si128();
        };
        _mm_shuffle_epi8(x, _mm_loadu_si128(LOAD_EXACT_INDEX[r].as_ptr().cast()))
    }
}

/// The `pshufb` indices of [`load_exact_128`] per length `r` (4..16; the others unused): lane
/// `k < w` stays; lane `k` in `w..r` takes lane `k - (r - w)` of the second load, which sits
/// at `w + k - (r - w)`; lanes from `r` on become zero (index with the top bit set). A table
/// rather than computed: one load instead of eight operations.
static LOAD_EXACT_INDEX: [[u8; 16]; 16] = {
    let mut t = [[0x80u8; 16]; 16];
    let mut r = 4;
    while r < 16 {
        let w = if r >= 8 { 8 } else { 4 };
        let mut k = 0;
        while k < r {
            t[r][k] = if k < w { k } else { 2 * w + k - r } as u8;
            k += 1;
        }
        r += 1;
    }
    t
};

/// Writes the low `len` bytes of `y` (`len <= 16`) to `dst` with plain stores that touch only
/// `dst[..len]`: for `w <= len < 2w`, `w` bytes at 0 and the `w` bytes ending at `len`.
///
/// # Safety
///
/// The CPU has SSSE3; `dst` is valid for writes of `len <= 16` bytes.
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn store_exact_128(dst: *mut u8, len: usize, y: __m128i) {
    // SAFETY: each store writes `w <= len` bytes at 0 or at `len - w`, or bytes below `len`.
    unsafe {
        if len == 16 {
            _mm_storeu_si128(dst.cast(), y);
            return;
        }
        let w = if len >= 8 {
            8
        } else if len >= 4 {
            4
        } else {
            let v = _mm_cvtsi128_si32(y).to_le_bytes();
            for (k, &byte) in v.iter().enumerate().take(len) {
                *dst.add(k) = byte;
            }
            return;
        };
        // Lane `k` of `moved` is lane `k + len - w` of `y` (`len - w < w`: within `y`).
        let index = _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(len - w).cast());
        let moved = _mm_shuffle_epi8(y, index);
        if w == 8 {
            _mm_storel_epi64(dst.cast(), y);
            _mm_storel_epi64(dst.add(len - 8).cast(), moved);
        } else {
            dst.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(y));
            dst.add(len - 4).cast::<i32>().write_unaligned(_mm_cvtsi128_si32(moved));
        }
    }
}

/// Encodes all of `src[..r]` into `dst[..len]` (its encoded length, with padding if `pad`),
/// 12 bytes to 16 symbols at a time: what is left after a kernel's loops (and the whole of a
/// short input), without the scalar code. The last block's symbols past the input (made of
/// the zero bits after it) become `=` when `pad`.
///
/// # Safety
///
/// The CPU has SSSE3; `src` is valid for reads of `r` bytes and `dst` for writes of `len`
/// bytes, the encoded length of `r` bytes with padding if `pad`; they do not overlap.
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn encode_last_ssse3(
    alphabet: &Alphabet,
    src: *const u8,
    r: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
    mul: [__m128i; 4],
) {
    let runs = alphabet.runs();
    // The alphabet's registers once, before the blocks (inside the closure, LLVM set them up
    // again for every block).
    // SAFETY: the caller's contract.
    unsafe {
        if runs.fits {
            // `low_end` <= 64: a positive `i8`, as the signed compare needs.
            let low_end = _mm_set1_epi8(runs.low_end as i8);
            let mid_end = _mm_set1_epi8(runs.mid_end as i8);
            let offset = load_table(&runs.offset);
            let symbols = |x| symbols_runs_128(indices_128(x, mul), low_end, mid_end, offset);
            encode_last_by_128(symbols, src, r, dst, len, pad);
        } else {
            let t = alphabet.symbols();
            let tables: [__m128i; 4] = core::array::from_fn(|k| {
                load_table(t[16 * k..16 * k + 16].try_into().expect("16"))
            });
            let symbols = |x| lookup_128(&tables, indices_128(x, mul), 0);
            encode_last_by_128(symbols, src, r, dst, len, pad);
        }
    }
}

/// [`encode_last_ssse3`] with `symbols` mapping 12 bytes (in the low lanes) to their 16
/// symbols.
///
/// # Safety
///
/// As [`encode_last_ssse3`].
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn encode_last_by_128(
    symbols: impl Fn(__m128i) -> __m128i,
    mut src: *const u8,
    mut r: usize,
    mut dst: *mut u8,
    mut len: usize,
    pad: bool,
) {
    // SAFETY: each block reads `src[..16]` only when `r >= 16`, else exactly `src[..12]` or
    // `src[..r]`, and writes `dst[..16]` for 12 bytes (`len >= 16`), or exactly `dst[..len]`.
    unsafe {
        while r >= 12 {
            let x = if r >= 16 { _mm_loadu_si128(src.cast()) } else { load_exact_128(src, 12) };
            _mm_storeu_si128(dst.cast(), symbols(x));
            (src, r, dst, len) = (src.add(12), r - 12, dst.add(16), len - 16);
        }
        if len == 0 {
            return;
        }
        let mut y = symbols(load_exact_128(src, r));
        if pad {
            // Symbol `k` starts at bit `6k`: past the `r < 12` bytes when `3k >= 4r`.
            let thrice = _mm_setr_epi8(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45);
            let data = _mm_cmpgt_epi8(_mm_set1_epi8(4 * r as i8), thrice);
            let eq = _mm_set1_epi8(b'=' as i8);
            y = _mm_or_si128(_mm_and_si128(data, y), _mm_andnot_si128(data, eq));
        }
        store_exact_128(dst, len, y);
    }
}

/// `3k` in lane `k`: symbol `k` of a block is padding when `3k >= 4r` (it starts at bit `6k`,
/// past the `r` bytes).
const THRICE_256: [i8; 32] = {
    let mut t = [0i8; 32];
    let mut k = 0;
    while k < 32 {
        t[k] = 3 * k as i8;
        k += 1;
    }
    t
};

/// Encodes all of `src[..n]` into `dst[..len]` (its encoded length, with padding if `pad`):
/// the kernel's loops from 28 bytes, then [`encode_last_avx2`], in one call.
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `n` bytes and `dst` for writes of `len`
/// bytes, the encoded length of `n` bytes with padding if `pad`; they do not overlap.
#[target_feature(enable = "avx2")]
unsafe fn encode_all_avx2(
    alphabet: &Alphabet,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    // SAFETY: the caller's contract; the loops consume `done` bytes (a multiple of 3) and
    // write their `done / 3 * 4` symbols, leaving the encoded length of the rest.
    unsafe {
        let done = if n < 28 {
            0
        } else if alphabet.runs().fits {
            encode_runs_avx2(alphabet.runs(), src, n, dst, len)
        } else {
            encode_avx2(alphabet.symbols(), src, n, dst, len)
        };
        let out = done / 3 * 4;
        encode_last_avx2(alphabet, src.add(done), n - done, dst.add(out), len - out, pad);
    }
}

/// [`encode_last_avx2`] alone, for inputs of at most 24 bytes (one block): a function of its
/// own, without the loops' stack frame (the multipliers they keep in memory).
///
/// # Safety
///
/// As [`encode_all_avx2`], `n <= 24`.
#[target_feature(enable = "avx2")]
unsafe fn encode_short_avx2(
    alphabet: &Alphabet,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    // SAFETY: the caller's contract.
    unsafe { encode_last_avx2(alphabet, src, n, dst, len, pad) }
}

/// `src[..r]` (`r <= 24`) as [`load_groups_256`] places 24 bytes (bytes 0..12 at the bottom
/// of the low lane, 12..24 at the bottom of the high one), the bytes past `r` zero, by plain
/// loads of those bytes only: below 16 bytes, [`load_exact_128`] and a byte shift for the high
/// lane; from 16, 16 bytes at 0 and the 16 ending at `r`, moved down by one `pshufb`.
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `r <= 24` bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_groups_exact_256(src: *const u8, r: usize) -> __m256i {
    // SAFETY: reads `src[..16]` and `src[r - 16..r]` for `r >= 16`, else exactly `src[..r]`;
    // `SHIFT_DOWN[28 - r..44 - r]` is within its 32 bytes for `16 <= r <= 24`.
    unsafe {
        let (lo, hi) = if r >= 16 {
            let b = _mm_loadu_si128(src.add(r - 16).cast());
            // High lane `k` is byte `12 + k` = lane `k + 28 - r` of `b`, while below `r`.
            let index = _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(28 - r).cast());
            (_mm_loadu_si128(src.cast()), _mm_shuffle_epi8(b, index))
        } else {
            let lo = load_exact_128(src, r);
            (lo, _mm_srli_si128::<12>(lo))
        };
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
    }
}

/// Encodes all of `src[..r]` into `dst[..len]` (its encoded length, with padding if `pad`),
/// 24 bytes to 32 symbols at a time: what is left after the kernel's loops (and the whole of
/// a short input) in 256-bit blocks, the last of them (at most 24 bytes) read and written
/// exactly (see [`load_exact_128`]). Its symbols past the input become `=` when `pad`.
///
/// # Safety
///
/// The CPU has AVX2; `src` is valid for reads of `r` bytes and `dst` for writes of `len`
/// bytes, the encoded length of `r` bytes with padding if `pad`; they do not overlap.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn encode_last_avx2(
    alphabet: &Alphabet,
    mut src: *const u8,
    mut r: usize,
    mut dst: *mut u8,
    mut len: usize,
    pad: bool,
) {
    if len == 0 {
        return;
    }
    let runs = alphabet.runs();
    // Not hidden from the optimizer here (unlike the loops' `multipliers_256`): its
    // shift-and-blend for `pmullw` is longer but of lower latency, which is what one or two
    // blocks wait on, and there is no stack round trip.
    let mul = [0x0fc0_fc00, 0x0400_0040, 0x003f_03f0, 0x0100_0010].map(|c| _mm256_set1_epi32(c));
    let symbols = |x: __m256i| {
        let idx = indices_256(x, mul);
        if runs.fits {
            // `low_end` <= 64: a positive `i8`, as the signed compare needs.
            let low_end = _mm256_set1_epi8(runs.low_end as i8);
            let mid_end = _mm256_set1_epi8(runs.mid_end as i8);
            symbols_runs_256(idx, low_end, mid_end, load_table_256(&runs.offset))
        } else {
            let t = alphabet.symbols();
            let tables: [__m256i; 4] = core::array::from_fn(|k| {
                load_table_256(t[16 * k..16 * k + 16].try_into().expect("16"))
            });
            lookup_256(&tables, idx, 0)
        }
    };
    // SAFETY: a block over 24 bytes reads exactly `src[..24]` (`r > 24`) and writes
    // `dst[..32]` (`len > 32`); the last reads exactly `src[..r]` and writes exactly
    // `dst[..len]`.
    unsafe {
        while r > 24 {
            _mm256_storeu_si256(dst.cast(), symbols(load_groups_exact_256(src, 24)));
            (src, r, dst, len) = (src.add(24), r - 24, dst.add(32), len - 32);
        }
        let mut y = symbols(load_groups_exact_256(src, r));
        if pad {
            let thrice = _mm256_loadu_si256(THRICE_256.as_ptr().cast());
            let data = _mm256_cmpgt_epi8(_mm256_set1_epi8(4 * r as i8), thrice);
            let eq = _mm256_set1_epi8(b'=' as i8);
            y = _mm256_or_si256(_mm256_and_si256(data, y), _mm256_andnot_si256(data, eq));
        }
        if len == 32 {
            _mm256_storeu_si256(dst.cast(), y);
        } else if len > 16 {
            _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
            store_exact_128(dst.add(16), len - 16, _mm256_extracti128_si256::<1>(y));
        } else {
            store_exact_128(dst, len, _mm256_castsi256_si128(y));
        }
    }
}

// ---- Run encode (alphabets that fit `Runs`) ----

/// Symbols of the 6-bit indices in `idx` by the [`Runs`] form: 5 operations instead of the
/// four-table lookup's 16.
#[inline]
#[target_feature(enable = "ssse3")]
fn symbols_runs_128(idx: __m128i, low_end: __m128i, mid_end: __m128i, offset: __m128i) -> __m128i {
    let class = _mm_or_si128(
        _mm_subs_epu8(idx, mid_end),
        _mm_and_si128(_mm_cmpgt_epi8(low_end, idx), _mm_set1_epi8(13)),
    );
    _mm_add_epi8(idx, _mm_shuffle_epi8(offset, class))
}

/// [`encode_ssse3`] with the [`Runs`] lookup, 24 bytes per iteration.
///
/// # Safety
///
/// As [`encode_ssse3`].
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn encode_runs_ssse3(
    runs: &Runs,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    // `low_end` <= 64: a positive `i8`, as the signed compare needs.
    let mul = multipliers_128();
    let low_end = _mm_set1_epi8(runs.low_end as i8);
    let mid_end = _mm_set1_epi8(runs.mid_end as i8);
    let offset = load_table(&runs.offset);
    let (mut i, mut j) = (0, 0);
    while i + 28 <= n && i + 24 <= end {
        // SAFETY: `i + 28 <= n` (loads at `i` and `i + 12`); `j + 32 = (i + 24) / 3 * 4 <= cap`.
        unsafe {
            let x0 = _mm_loadu_si128(src.add(i).cast());
            let x1 = _mm_loadu_si128(src.add(i + 12).cast());
            let s0 = symbols_runs_128(indices_128(x0, mul), low_end, mid_end, offset);
            let s1 = symbols_runs_128(indices_128(x1, mul), low_end, mid_end, offset);
            _mm_storeu_si128(dst.add(j).cast(), s0);
            _mm_storeu_si128(dst.add(j + 16).cast(), s1);
        }
        i += 24;
        j += 32;
    }
    while i + 16 <= n && i + 12 <= end {
        // SAFETY: `i + 16 <= n`; `j + 16 = (i + 12) / 3 * 4 <= cap`.
        unsafe {
            let x = _mm_loadu_si128(src.add(i).cast());
            let out = symbols_runs_128(indices_128(x, mul), low_end, mid_end, offset);
            _mm_storeu_si128(dst.add(j).cast(), out);
        }
        i += 12;
        j += 16;
    }
    i
}

/// The AVX2 twin of [`symbols_runs_128`], with `vpblendvb` (one instruction on Zen 4) in
/// place of the `pand` and `por` that set the low run's class.
#[inline]
#[target_feature(enable = "avx2")]
fn symbols_runs_256(idx: __m256i, low_end: __m256i, mid_end: __m256i, offset: __m256i) -> __m256i {
    let class = _mm256_blendv_epi8(
        _mm256_subs_epu8(idx, mid_end),
        _mm256_set1_epi8(13),
        _mm256_cmpgt_epi8(low_end, idx),
    );
    _mm256_add_epi8(idx, _mm256_shuffle_epi8(offset, class))
}

/// `vpmulhuw`, written out: LLVM lowers `_mm256_mulhi_epu16` (a widening multiply in
/// `core::arch`) into zero-extends, two multiplies, a pack and a permute here.
#[inline]
#[target_feature(enable = "avx2")]
fn mulhi_epu16_256(a: __m256i, b: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: `vpmulhuw` on registers only (`nomem`, `nostack`, `pure`), and AVX2 is enabled.
    unsafe {
        core::arch::asm!(
            "vpmulhuw {r}, {a}, {b}",
            r = lateout(ymm_reg) r,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// Loads 24 bytes at `p` (28 readable) as two lanes, bytes 0..12 at the bottom of the low
/// lane and 12..24 at the bottom of the high one (a 128-bit load and a `vinserti128` with a
/// memory operand: no cross-lane permute).
///
/// # Safety
///
/// `p` is valid for reads of 28 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_groups_256(p: *const u8) -> __m256i {
    // SAFETY: reads `p[0..16]` and `p[12..28]`.
    unsafe {
        let lo = _mm_loadu_si128(p.cast());
        let hi = _mm_loadu_si128(p.add(12).cast());
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
    }
}

/// Groups as [`load_groups_256`] places them -> the four 6-bit indices of each group in the
/// bytes of a dword.
#[inline]
#[target_feature(enable = "avx2")]
fn indices_256(x: __m256i, mul: [__m256i; 4]) -> __m256i {
    let shuffle = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,
    ));
    let x = _mm256_shuffle_epi8(x, shuffle);
    let t0 = _mm256_and_si256(x, mul[0]);
    let t1 = mulhi_epu16_256(t0, mul[1]);
    let t2 = _mm256_and_si256(x, mul[2]);
    let t3 = _mm256_mullo_epi16(t2, mul[3]);
    _mm256_or_si256(t1, t3)
}

/// [`encode_avx2`] with the [`Runs`] lookup, 96 bytes per iteration.
///
/// # Safety
///
/// As [`encode_avx2`].
#[target_feature(enable = "avx2")]
unsafe fn encode_runs_avx2(
    runs: &Runs,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 3).min(cap / 4) * 3;
    // `low_end` <= 64: a positive `i8`, as the signed compare needs.
    let mul = multipliers_256();
    let low_end = _mm256_set1_epi8(runs.low_end as i8);
    let mid_end = _mm256_set1_epi8(runs.mid_end as i8);
    let offset = load_table_256(&runs.offset);
    let (mut i, mut j) = (0, 0);
    while i + 100 <= n && i + 96 <= end {
        // SAFETY: `i + 100 <= n` (the last load reads `src[i + 72..i + 100]`);
        // `j + 128 = (i + 96) / 3 * 4 <= cap`.
        unsafe {
            for k in 0..4 {
                let x = load_groups_256(src.add(i + 24 * k));
                let s = symbols_runs_256(indices_256(x, mul), low_end, mid_end, offset);
                _mm256_storeu_si256(dst.add(j + 32 * k).cast(), s);
            }
        }
        i += 96;
        j += 128;
    }
    while i + 28 <= n && i + 24 <= end {
        // SAFETY: `i + 28 <= n`; `j + 32 = (i + 24) / 3 * 4 <= cap`.
        unsafe {
            let x = load_groups_256(src.add(i));
            let out = symbols_runs_256(indices_256(x, mul), low_end, mid_end, offset);
            _mm256_storeu_si256(dst.add(j).cast(), out);
        }
        i += 24;
        j += 32;
    }
    i
}
