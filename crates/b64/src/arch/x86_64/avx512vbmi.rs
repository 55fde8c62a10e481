//! AVX-512 VBMI kernels (the Muła–Lemire designs).
//!
//! Encode, 48 bytes -> 64 symbols: `vpermb` places each 3-byte group `s0 s1 s2` as the
//! dword `s1 s0 s2 s1`; `vpmultishiftqb` pulls the four 6-bit indices out of it at bit
//! offsets 10, 4, 22, 16 (+32 for the odd dword); `vpermb` with the 64-symbol alphabet in a
//! zmm turns indices into symbols (it only reads the low 6 bits of each index).
//!
//! Decode, 64 symbols -> 48 bytes: `vpermi2b` looks every byte up in the first 128 entries of
//! the reverse table (two zmm); a byte that is not a symbol has the top bit set in the input
//! (non-ASCII) or in the looked-up value (`0xff`). `vpmaddubsw` and `vpmaddwd` merge four
//! 6-bit values into a 24-bit dword, and `vpermb` packs 3 bytes of each dword.
//!
//! Wrapped encode (76 and 64 columns, LF or CRLF): each 64 bytes of text, line endings
//! included, come from one load, one `vpermb` that gathers into each qword the input bytes
//! of its symbols (big-endian), `vpmultishiftqb` with a shift per symbol (wherever the
//! endings put it), the alphabet `vpermb` and a masked blend of the endings; the tables of
//! a block of lines stay in registers (`encode_lines_avx512vbmi`).
//!
//! Short inputs run here too. Encode reads and writes a partial last block with plain loads
//! and stores that cover exactly its bytes (see `encode_all_avx512vbmi` for why not masked
//! ones); decode's partial blocks use masked (fault-suppressing) loads and stores.

use core::arch::x86_64::{
    __m512i, _bzhi_u32, _bzhi_u64, _mm_cvtsi32_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si32,
    _mm_cvtsi128_si64, _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_setzero_si128, _mm_storeu_si128,
    _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_mask_blend_epi8, _mm256_maskz_loadu_epi8, _mm256_maskz_permutex2var_epi8,
    _mm256_multishift_epi64_epi8, _mm256_permutex2var_epi8, _mm256_permutexvar_epi8,
    _mm256_set1_epi8, _mm256_set1_epi64x, _mm256_storeu_si256, _mm512_add_epi8,
    _mm512_castsi128_si512, _mm512_castsi512_si128, _mm512_castsi512_si256, _mm512_cmpeq_epi8_mask,
    _mm512_inserti32x4, _mm512_loadu_si512, _mm512_madd_epi16, _mm512_maddubs_epi16,
    _mm512_mask_add_epi8, _mm512_mask_blend_epi8, _mm512_mask_cmpeq_epi8_mask,
    _mm512_mask_cmpge_epu8_mask, _mm512_mask_storeu_epi8, _mm512_mask_test_epi8_mask,
    _mm512_maskz_loadu_epi8, _mm512_maskz_permutex2var_epi8, _mm512_movepi8_mask,
    _mm512_multishift_epi64_epi8, _mm512_or_si512, _mm512_permutex2var_epi8,
    _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_set1_epi32, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_storeu_si512, _mm512_zextsi128_si512, _mm512_zextsi256_si512,
};

use crate::alphabet::Alphabet;
use crate::arch::lines::{self, LineBlock, run_lines};
use crate::io::{Io, run_decode};
use crate::kernels::{Kernels, ShortRules};

nab_isa::token! {
    /// Proof that AVX-512 F, BW, VL and VBMI, and BMI2 may be used (the CPU has them and
    /// `NAB_MAX_ISA` allows them, or the build enables them). Only `Avx512Vbmi::new` makes one.
    pub(crate) struct Avx512Vbmi = AVX512F | AVX512BW | AVX512VL | AVX512VBMI | BMI2;
}

impl Kernels for Avx512Vbmi {
    #[inline]
    fn compact(self, src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
        let table = super::compact::table(newlines_only);
        let (s, n, d, cap) = (src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves AVX-512 F and BW, and `Vbmi2` VBMI2 (with POPCNT, which every
        // VBMI2 CPU has and the cap's tiers include from v2); the pointers and lengths come
        // from slices, and `&mut` excludes overlap.
        unsafe {
            if super::compact::Vbmi2::new().is_some() {
                super::compact::vbmi2(s, n, d, cap, table)
            } else {
                super::compact::avx512bw(s, n, d, cap, table)
            }
        }
    }

    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let groups = (src.len() / 3).min(dst.len() / 4);
        // SAFETY: `self` proves AVX-512 F/BW/VL/VBMI and BMI2; `src` holds `3 * groups` bytes
        // and `dst` room for their `4 * groups` symbols; `&mut` excludes overlap.
        unsafe {
            encode_all_avx512vbmi(
                alphabet.symbols(),
                src.as_ptr(),
                3 * groups,
                dst.as_mut_ptr(),
                4 * groups,
                false,
            )
        }
        3 * groups
    }

    #[inline]
    fn encode_all(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8], pad: bool) -> bool {
        let (s, n, d, len) = (src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len());
        // SAFETY: `self` proves AVX-512 F/BW/VL/VBMI and BMI2; the caller gives a `dst` of
        // exactly the encoded length of `src` (with padding if `pad`), as
        // `encode_all_avx512vbmi` and `encode_short_avx512vbmi` (`n <= 24`) need; `&mut`
        // excludes overlap.
        unsafe {
            // The shortest inputs in a function of their own: the length check inlined in
            // the caller, no stack frame of the loops.
            if n <= 24 {
                encode_short_avx512vbmi(alphabet.symbols(), s, n, d, len, pad)
            } else {
                encode_all_avx512vbmi(alphabet.symbols(), s, n, d, len, pad)
            }
        }
        true
    }

    #[inline]
    fn encode_lines(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        width: usize,
        crlf: bool,
    ) -> (usize, usize) {
        let tables = match (width, crlf) {
            (76, false) => &LINES_76_LF,
            (76, true) => &LINES_76_CRLF,
            (64, false) => &LINES_64_LF,
            (64, true) => &LINES_64_CRLF,
            _ => return (0, 0),
        };
        // SAFETY: `self` proves AVX-512 F/BW/VL/VBMI and BMI2; `src` holds `src.len()` bytes
        // and `dst` room for `dst.len()`; `&mut` excludes overlap.
        unsafe {
            let f = match tables.stores {
                5 => encode_lines_avx512vbmi::<5>,
                10 => encode_lines_avx512vbmi::<10>,
                _ => return (0, 0),
            };
            f(alphabet.symbols(), tables, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len())
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
        let rules = if short.padded { PADDED } else { 0 }
            | if short.partial { PARTIAL } else { 0 }
            | if short.canonical { CANONICAL } else { 0 };
        // SAFETY: `self` proves AVX-512 F/BW/VL/VBMI and BMI2; `src` holds `n` bytes, in the
        // range each function takes (`0 < n <= 64`, `64 FULL < n <= 64 (FULL + 1)`), and `dst`
        // `dst.len()`; `&mut` excludes overlap.
        unsafe {
            let (t, s, d, cap) =
                (alphabet.decode_table(), src.as_ptr(), dst.as_mut_ptr(), dst.len());
            if n <= 64 {
                decode_short_avx512vbmi(t, s, n, d, cap, rules)
            } else if n <= 128 {
                decode_blocks_avx512vbmi::<1>(t, s, n, d, cap, rules)
            } else if n <= 192 {
                decode_blocks_avx512vbmi::<2>(t, s, n, d, cap, rules)
            } else {
                decode_blocks_avx512vbmi::<3>(t, s, n, d, cap, rules)
            }
        }
    }

    #[inline]
    fn decode<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        run_decode(io, i, j, |src, n, dst, cap| {
            // SAFETY: `self` proves the CPU features; `run_decode` gives pointers into live
            // buffers, separate or with the output behind the input (`j <= i`), which
            // `decode_avx512vbmi` allows.
            unsafe { decode_avx512vbmi(alphabet.decode_table(), src, n, dst, cap) }
        })
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
        let table = alphabet.decode_table();
        run_lines!(io, i, j, |s, n, d, c| lines_avx512vbmi(table, s, n, d, c, w, crlf))
    }
}

/// The AVX-512 VBMI decode as a [`LineBlock`]: the reverse table's first 128 entries and the
/// pack indices.
struct LinesAvx512Vbmi {
    lo: __m512i,
    hi: __m512i,
    packer: __m512i,
}

impl LineBlock for LinesAvx512Vbmi {
    const B: usize = 64;
    const STORE: usize = 64;
    type Bad = __m512i;

    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 VBMI, `src[..64]` readable, `dst[..64]`
        // writable.
        unsafe {
            let x = _mm512_loadu_si512(src.cast());
            let v = lookup(x, self.lo, self.hi);
            _mm512_storeu_si512(dst.cast(), pack(v, self.packer));
            _mm512_or_si512(x, v)
        }
    }

    #[inline(always)]
    unsafe fn or(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's contract: AVX-512 F.
        unsafe { _mm512_or_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn ok(bad: __m512i) -> bool {
        // SAFETY: the caller's contract: AVX-512 BW.
        unsafe { _mm512_movepi8_mask(bad) == 0 }
    }
}

/// [`lines::decode_lines`] with AVX-512 VBMI blocks.
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having AVX-512 F, BW, VL and VBMI, and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn lines_avx512vbmi(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    w: usize,
    crlf: bool,
) -> (usize, usize) {
    // SAFETY: the loads read the table's first 128 bytes and `DECODE_PACK`; the rest is the
    // caller's contract.
    unsafe {
        let k = LinesAvx512Vbmi {
            lo: _mm512_loadu_si512(table.as_ptr().cast()),
            hi: _mm512_loadu_si512(table.as_ptr().add(64).cast()),
            packer: _mm512_loadu_si512(DECODE_PACK.as_ptr().cast()),
        };
        let (i, j) = match (w, crlf) {
            (76, false) => four_lines::<12, 1>(&k, src, n, dst, cap),
            (76, true) => four_lines::<12, 2>(&k, src, n, dst, cap),
            (68, false) => four_lines::<4, 1>(&k, src, n, dst, cap),
            (68, true) => four_lines::<4, 2>(&k, src, n, dst, cap),
            (72, false) => four_lines::<8, 1>(&k, src, n, dst, cap),
            (72, true) => four_lines::<8, 2>(&k, src, n, dst, cap),
            _ => (0, 0),
        };
        let (di, dj) = lines::decode_lines(&k, src.add(i), n - i, dst.add(j), cap - j, w, crlf);
        (i + di, j + dj)
    }
}

/// Lines of `64 + T` symbols (`T` = 4, 8 or 12: 68, 72 and 76 columns) and an ending of `E`
/// bytes (`\n` or `\r\n`), four at a time: each line's first 64 symbols are a block, and the
/// four lines' last `T` symbols, loaded 16 bytes each with their ending into the four lanes
/// of one register, are a fifth (five blocks for four lines instead of eight). The endings
/// are checked in the same register. Stops before the first group of four lines that is
/// not all of that shape (the line loop then finds the exact line); returns the bytes
/// consumed and written.
///
/// # Safety
///
/// As [`lines::decode_lines`], the CPU having AVX-512 F, BW, VL and VBMI, and BMI2.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn four_lines<const T: usize, const E: usize>(
    k: &LinesAvx512Vbmi,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> (usize, usize) {
    let stride = 64 + T + E;
    let bytes = (64 + T) / 4 * 3;
    // Lanes of the tails' register: `T` symbols from byte 0 of each 16-byte lane, then the
    // ending.
    let mut symbols = 0u64;
    let mut ending = 0u64;
    let mut want = [0u8; 64];
    for r in 0..4 {
        symbols |= ((1u64 << T) - 1) << (16 * r);
        ending |= ((1u64 << E) - 1) << (16 * r + T);
        want[16 * r + T] = if E == 2 { b'\r' } else { b'\n' };
        want[16 * r + T + E - 1] = b'\n';
    }
    let (mut i, mut j) = (0, 0);
    // SAFETY: `want` is 64 bytes.
    let want = unsafe { _mm512_loadu_si512(want.as_ptr().cast()) };
    // The tails' loads read 16 bytes from the last line's symbol 64: within `4 * stride + 16`;
    // the last head's store ends at `3 * bytes + 64`.
    while i + 4 * stride + 16 <= n && j + 3 * bytes + 64 <= cap {
        // SAFETY: the loads read `src[i..i + 4 * stride + 16]` and the stores write
        // `dst[j..j + 3 * bytes + 64]`, in bounds by the loop condition; the masked stores
        // write lanes within `dst[j + r * bytes + 48..][..T / 4 * 3]`.
        unsafe {
            let p = src.add(i);
            let mut bad = k.block(p, dst.add(j));
            for r in 1..4 {
                bad = _mm512_or_si512(bad, k.block(p.add(r * stride), dst.add(j + r * bytes)));
            }
            let tails = _mm512_inserti32x4::<3>(
                _mm512_inserti32x4::<2>(
                    _mm512_inserti32x4::<1>(
                        _mm512_castsi128_si512(_mm_loadu_si128(p.add(64).cast())),
                        _mm_loadu_si128(p.add(stride + 64).cast()),
                    ),
                    _mm_loadu_si128(p.add(2 * stride + 64).cast()),
                ),
                _mm_loadu_si128(p.add(3 * stride + 64).cast()),
            );
            let v = lookup(tails, k.lo, k.hi);
            let tail_bad = _mm512_movepi8_mask(_mm512_or_si512(tails, v)) & symbols;
            let endings = _mm512_cmpeq_epi8_mask(tails, want) & ending;
            if _mm512_movepi8_mask(bad) != 0 || tail_bad != 0 || endings != ending {
                break;
            }
            // Lane `r`'s `T / 4` groups pack to bytes `12r..` (see `DECODE_PACK`).
            let packed = pack(v, k.packer);
            for r in 0..4 {
                let lanes = ((1u64 << (T / 4 * 3)) - 1) << (12 * r);
                _mm512_mask_storeu_epi8(dst.add(j + r * bytes + 48 - 12 * r).cast(), lanes, packed);
            }
        }
        i += 4 * stride;
        j += 4 * bytes;
    }
    (i, j)
}

/// `vpermb` indices of the encode shuffle: output byte `4g + p` takes input byte
/// `3g + [1, 0, 2, 1][p]`.
const ENCODE_SHUFFLE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        t[k] = (k / 4 * 3) as u8 + [1, 0, 2, 1][k % 4];
        k += 1;
    }
    t
};

/// `vpermb` indices of the decode pack: output byte `3g + r` is byte `2 - r` of dword `g`
/// (the 24-bit value is little-endian in the dword); bytes 48.. are unused.
const DECODE_PACK: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 48 {
        t[k] = (k / 3 * 4 + 2 - k % 3) as u8;
        k += 1;
    }
    t
};

/// The main decode loop's packing, which also joins four blocks' 4 × 48 bytes into three full
/// 64-byte stores: row `r` takes the packed bytes `64r .. 64r + 64` of the four blocks, from the
/// merged dwords of blocks `r` (index < 64) and `r + 1` (index 64 + ...) through `vpermt2b`.
static DECODE_JOIN: [[u8; 64]; 3] = {
    let mut t = [[0u8; 64]; 3];
    let mut r = 0;
    while r < 3 {
        let mut k = 0;
        while k < 64 {
            // Output byte `64r + k` is byte `p` of block `b`'s 48.
            let (b, p) = ((64 * r + k) / 48, (64 * r + k) % 48);
            t[r][k] = DECODE_PACK[p] + if b == r { 0 } else { 64 };
            k += 1;
        }
        r += 1;
    }
    t
};

/// `3j` in lane `j`: output symbol `j` starts at input bit `6j`, so it is past the end of `n`
/// input bytes (a padding lane) exactly when `3j >= 4n`.
const THRICE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = (3 * j) as u8;
        j += 1;
    }
    t
};

/// Bit offsets of the four indices in a dword `s1 s0 s2 s1`: 10, 4, 22, 16, then +32 for the
/// second dword of each qword (one byte each, little-endian).
const MULTISHIFT: i64 = 0x3036_242a_1016_040a;

/// `n <= 64` bytes at `p` in the low lanes of a zmm, the rest zero, read with the narrowest
/// masked load that holds them. The CPU matches a masked 64-byte load against earlier stores
/// over all 64 bytes, masked or not: a 16-byte input just before its output on the heap made
/// each 64-byte masked load wait for the previous call's store to the output (16-byte encode:
/// 8.4 ns a call, 2.9 ns with this load). Decode uses it; encode reads exactly its input
/// ([`load_exact`]).
///
/// Decode's stores stay 64-byte masked stores, so the mirror case (an output up to 63 bytes
/// before the next call's input) can still stall there.
///
/// # Safety
///
/// `p` is valid for reads of `n` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn load_upto(p: *const u8, n: usize) -> __m512i {
    // SAFETY: each masked load reads only the lanes below `n`.
    unsafe {
        if n <= 16 {
            _mm512_zextsi128_si512(_mm_maskz_loadu_epi8(low_mask(n) as u16, p.cast()))
        } else if n <= 32 {
            _mm512_zextsi256_si512(_mm256_maskz_loadu_epi8(low_mask(n) as u32, p.cast()))
        } else {
            _mm512_maskz_loadu_epi8(low_mask(n), p.cast())
        }
    }
}

/// The low `n` bits set (`n <= 64`): one `bzhi`, which keeps all 64 bits for `n == 64`.
#[inline]
#[target_feature(enable = "bmi2")]
fn low_mask(n: usize) -> u64 {
    debug_assert!(n <= 64);
    _bzhi_u64(u64::MAX, n as u32)
}

/// One encode block: 48 bytes (in the low bytes of `x`) -> 64 symbols.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn encode_block(x: __m512i, shuffle: __m512i, shifts: __m512i, lut: __m512i) -> __m512i {
    encode_dwords(_mm512_permutexvar_epi8(shuffle, x), shifts, lut)
}

/// Encodes 16 dwords `s1 s0 s2 s1` (see [`ENCODE_SHUFFLE`]) into 64 symbols.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn encode_dwords(dwords: __m512i, shifts: __m512i, lut: __m512i) -> __m512i {
    let indices = _mm512_multishift_epi64_epi8(shifts, dwords);
    _mm512_permutexvar_epi8(indices, lut)
}

/// Encodes all of `src[..n]` into `dst[..len]`, `len` being the encoded length of `n` bytes
/// (with padding if `pad`): 192 bytes at a time in four 48-byte loads (zero-masking loads of
/// the 48 bytes a block uses, each then one `vpermb`: three loads joined by `vpermt2b` were
/// slower, 16 KiB 0.91-0.94x the time; plain 64-byte loads, which split across cache lines
/// three times in four, took 1 MiB in 23.5 us against 21.6 (amd-zen5, criterion medians of 5
/// alternated rounds; simdutf's `icelake` kernel 21.3) and four stores, with the stores aligned
/// to 64 bytes where a whole number of groups gets there, then 48-byte blocks, then the last
/// 0 to 47 bytes in one block, whose symbols past the input (made of the
/// zero bits after it) become `=` when `pad`.
///
/// Every access covers only bytes of `src[..n]` and `dst[..len]`: the last block is read and
/// written in two overlapping plain accesses ([`load_exact`], [`store_exact`]), never by a masked
/// access wider than its data. The CPU orders a later load after an earlier store over the whole
/// width of a masked access, lanes masked off included, so a 64-byte masked store of one call's
/// last symbols that reached the next call's input (heap buffers a few bytes apart) made each
/// 64-byte encode wait for the previous one: 19 ns a call instead of 8 (Zen 4).
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of `n` bytes and
/// `dst` for writes of `len` bytes, the encoded length of `n` bytes with padding if `pad`; they
/// do not overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn encode_all_avx512vbmi(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    // SAFETY: for the whole body: the aligning block reads `src[..64]` and writes `dst[..64]`
    // (`n >= 256`, so `len >= 340`); the main loop's masked loads read `src[i..i + 192]` (`i + 208 <= n`) and its
    // stores write `dst[j..j + 256]` with `i + 208 <= n` and `j = i / 3 * 4`, so
    // `j + 256 <= len`; a block's full load reads `src[i..i + 64]` only when `i + 64 <= n`,
    // else exactly `src[i..i + 48]`, and its store writes `dst[j..j + 64]` with `i + 48 <= n`,
    // so `j + 64 <= len`; the last block reads exactly `src[i..n]` and writes exactly
    // `dst[j..len]`.
    unsafe {
        if n <= 24 {
            // Before anything else: no 512-bit constants for the shortest inputs.
            if len > 0 {
                encode_last_ymm(symbols, src, n, dst, len, pad);
            }
            return;
        }
        let lut = _mm512_loadu_si512(symbols.as_ptr().cast());
        let shifts = _mm512_set1_epi64(MULTISHIFT);
        let (mut i, mut j) = (0, 0);
        if n >= 256 {
            // Stores aligned to 64 bytes: a 64-byte store across two cache lines costs about
            // twice one inside a line (64 KiB into a 16-byte aligned buffer: 10 % slower than
            // into a 64-byte aligned one, Zen 4). Where a whole number of groups reaches the
            // next multiple of 64 (`dst` 4-byte aligned, as heap buffers are), the first block
            // is encoded and stored whole, and the loop goes on from that group, storing again
            // (the same symbols) over the rest of the block.
            let offset = dst as usize % 64;
            if offset != 0 && offset.is_multiple_of(4) {
                let shuffle = _mm512_loadu_si512(ENCODE_SHUFFLE.as_ptr().cast());
                let x = _mm512_loadu_si512(src.cast());
                _mm512_storeu_si512(dst.cast(), encode_block(x, shuffle, shifts, lut));
                let groups = (64 - offset) / 4;
                (i, j) = (3 * groups, 4 * groups);
            }
        }
        let shuffle = _mm512_loadu_si512(ENCODE_SHUFFLE.as_ptr().cast());
        // 192 bytes in four masked 48-byte loads -> 256 symbols in four stores.
        while n - i >= 208 {
            // The bytes past each block's 48 are neither read nor faulted on.
            const M48: u64 = (1 << 48) - 1;
            let x0 = _mm512_maskz_loadu_epi8(M48, src.add(i).cast());
            let x1 = _mm512_maskz_loadu_epi8(M48, src.add(i + 48).cast());
            let x2 = _mm512_maskz_loadu_epi8(M48, src.add(i + 96).cast());
            let x3 = _mm512_maskz_loadu_epi8(M48, src.add(i + 144).cast());
            _mm512_storeu_si512(dst.add(j).cast(), encode_block(x0, shuffle, shifts, lut));
            _mm512_storeu_si512(dst.add(j + 64).cast(), encode_block(x1, shuffle, shifts, lut));
            _mm512_storeu_si512(dst.add(j + 128).cast(), encode_block(x2, shuffle, shifts, lut));
            _mm512_storeu_si512(dst.add(j + 192).cast(), encode_block(x3, shuffle, shifts, lut));
            i += 192;
            j += 256;
        }
        while n - i >= 48 {
            let x = if n - i >= 64 {
                _mm512_loadu_si512(src.add(i).cast())
            } else {
                load_exact(src.add(i), 48)
            };
            _mm512_storeu_si512(dst.add(j).cast(), encode_block(x, shuffle, shifts, lut));
            i += 48;
            j += 64;
        }
        let (r, rest) = (n - i, len - j);
        if rest == 0 {
            return;
        }
        if r <= 24 {
            encode_last_ymm(symbols, src.add(i), r, dst.add(j), rest, pad);
            return;
        }
        let mut y = encode_block(load_exact(src.add(i), r), shuffle, shifts, lut);
        if pad {
            // Symbol `k` starts at bit `6k`: past the `r` bytes when `3k >= 4r`. A vector
            // compare rather than the scalar division for `ceil(4r / 3)`; `4r < 192` and
            // `3k <= 189` fit in a byte.
            let thrice = _mm512_loadu_si512(THRICE.as_ptr().cast());
            let past = _mm512_set1_epi8((4 * r) as u8 as i8);
            let padding = _mm512_mask_cmpge_epu8_mask(low_mask(rest), thrice, past);
            y = _mm512_mask_blend_epi8(padding, y, _mm512_set1_epi8(b'=' as i8));
        }
        store_exact(dst.add(j), rest, y);
    }
}

/// The most 64-byte stores in one block of [`encode_lines_avx512vbmi`]: its tables (three
/// zmm a store) and the alphabet fill at most 31 of the 32 zmm registers.
const LINE_STORES: usize = 10;

/// [`encode_lines_avx512vbmi`]'s plan for one line width and ending: a block of whole lines
/// (whole 3-byte groups) whose text is written by `stores` 64-byte stores, the last one
/// overlapping the one before it, each made from one 64-byte load.
struct LineTables {
    /// Stores per block.
    stores: usize,
    /// Input bytes and text bytes per block.
    block_in: usize,
    block_out: usize,
    /// Per store: where its load starts in the block's input and where it stores in the
    /// block's text.
    load: [usize; LINE_STORES],
    store: [usize; LINE_STORES],
    /// Per store, `vpermb` indices into its load: qword `q` holds, in reverse order (the
    /// big-endian bit stream), the 8 input bytes from the one holding the first bit of its
    /// first symbol.
    gather: [[u8; 64]; LINE_STORES],
    /// Per store, `vpmultishiftqb` shifts: byte `b`'s symbol is 6 bits of its qword at
    /// `58 - d`, `d` the symbol's first bit counted from the qword's first byte.
    shifts: [[u8; 64]; LINE_STORES],
    /// Per store, the line-ending bytes in place, and the mask of their positions.
    endings: [[u8; 64]; LINE_STORES],
    ending_mask: [u64; LINE_STORES],
}

/// Plans the blocks of lines of `width` symbols and `ending`: the smallest number of lines
/// that encodes whole 3-byte groups (`width * lines` a multiple of 4), times the factor up
/// to [`LINE_STORES`] stores that wastes least of the last, overlapping, store (76 columns:
/// 4 lines, 308 bytes with LF, in 5 stores; 64 columns: 9 lines, 585 bytes with LF, in 10).
/// At least one store: `(width + ending.len()) * 4 <= 64 * LINE_STORES`.
const fn line_tables(width: usize, ending: &[u8]) -> LineTables {
    let line = width + ending.len();
    let unit = if width.is_multiple_of(4) {
        1
    } else if width.is_multiple_of(2) {
        2
    } else {
        4
    };
    // The factor: the fewest stores per text byte, `stores / out` compared crosswise.
    let (mut best_out, mut best_stores) = (0, 1);
    let mut k = 1;
    while unit * k * line <= 64 * LINE_STORES {
        let out = unit * k * line;
        let stores = out.div_ceil(64);
        if out >= 64 && stores * best_out < best_stores * out {
            (best_out, best_stores) = (out, stores);
        }
        k += 1;
    }
    let lines = best_out / line;
    let mut t = LineTables {
        stores: best_stores,
        block_in: lines * width / 4 * 3,
        block_out: best_out,
        load: [0; LINE_STORES],
        store: [0; LINE_STORES],
        gather: [[0; 64]; LINE_STORES],
        shifts: [[0; 64]; LINE_STORES],
        endings: [[0; 64]; LINE_STORES],
        ending_mask: [0; LINE_STORES],
    };
    let mut v = 0;
    while v < t.stores {
        let at = if v + 1 < t.stores { 64 * v } else { best_out - 64 };
        t.store[v] = at;
        // The load starts at the byte holding the first symbol's first bit.
        let mut first = at;
        while first % line >= width {
            first += 1;
        }
        let load = 6 * (first / line * width + first % line) / 8;
        t.load[v] = load;
        let mut q = 0;
        while q < 8 {
            // The qword's first symbol (a qword of endings alone keeps zeros).
            let mut b = 0;
            let mut qfirst = usize::MAX;
            while b < 8 {
                let p = at + 8 * q + b;
                if p % line < width && qfirst == usize::MAX {
                    qfirst = p / line * width + p % line;
                }
                b += 1;
            }
            let base = if qfirst == usize::MAX { load } else { 6 * qfirst / 8 };
            b = 0;
            while b < 8 {
                let p = at + 8 * q + b;
                let k = 8 * q + b;
                t.gather[v][k] = (base - load + 7 - b) as u8;
                if p % line < width {
                    let symbol = p / line * width + p % line;
                    t.shifts[v][k] = (58 - (6 * symbol - 8 * base)) as u8;
                } else {
                    t.endings[v][k] = ending[p % line - width];
                    t.ending_mask[v] |= 1u64 << k;
                }
                b += 1;
            }
            q += 1;
        }
        v += 1;
    }
    t
}

static LINES_76_LF: LineTables = line_tables(76, b"\n");
static LINES_76_CRLF: LineTables = line_tables(76, b"\r\n");
static LINES_64_LF: LineTables = line_tables(64, b"\n");
static LINES_64_CRLF: LineTables = line_tables(64, b"\r\n");

/// Encodes blocks of whole lines (`t`, `S` stores a block) from `src` straight into their
/// wrapped text at `dst`, each 64 bytes of text from one load: `vpermb` gathers each
/// qword's input bytes, `vpmultishiftqb` pulls out each symbol's 6 bits wherever the line
/// endings put it, the alphabet `vpermb` makes symbols and a masked blend puts the endings
/// in; the block's tables stay in registers. Runs while a block and 64 more bytes follow in
/// `src` (a block's last load reads past it; every line written is followed by more text,
/// so has its ending) and its text fits `dst`. Returns the bytes consumed and written.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `t.stores == S`; `src` is valid for
/// reads of `n` bytes and `dst` for writes of `len` bytes; they do not overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn encode_lines_avx512vbmi<const S: usize>(
    symbols: &[u8; 64],
    t: &LineTables,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
) -> (usize, usize) {
    // SAFETY: `symbols` and every table row are 64 bytes.
    let (lut, gather, shifts, endings) = unsafe {
        (
            _mm512_loadu_si512(symbols.as_ptr().cast()),
            core::array::from_fn::<__m512i, S, _>(|v| {
                _mm512_loadu_si512(t.gather[v].as_ptr().cast())
            }),
            core::array::from_fn::<__m512i, S, _>(|v| {
                _mm512_loadu_si512(t.shifts[v].as_ptr().cast())
            }),
            core::array::from_fn::<__m512i, S, _>(|v| {
                _mm512_loadu_si512(t.endings[v].as_ptr().cast())
            }),
        )
    };
    let (load, store, mask) = (&t.load, &t.store, &t.ending_mask);
    let (mut i, mut j) = (0, 0);
    while n - i >= t.block_in + 64 && len - j >= t.block_out {
        for v in 0..S {
            // SAFETY: `load[v] < t.block_in`, so the load reads inside `src[i..i +
            // t.block_in + 64]`, which `src` holds; `store[v] + 64 <= t.block_out`, so the
            // store writes inside `dst[j..j + t.block_out]`, which `dst` holds.
            unsafe {
                let x = _mm512_loadu_si512(src.add(i + load[v]).cast());
                let bits = _mm512_permutexvar_epi8(gather[v], x);
                let y = encode_dwords(bits, shifts[v], lut);
                let y = _mm512_mask_blend_epi8(mask[v], y, endings[v]);
                _mm512_storeu_si512(dst.add(j + store[v]).cast(), y);
            }
        }
        i += t.block_in;
        j += t.block_out;
    }
    (i, j)
}

/// [`encode_last_ymm`] alone, for inputs of at most 24 bytes: a function of its own,
/// without the stack frame and register saves of [`encode_all_avx512vbmi`]'s loops.
///
/// # Safety
///
/// As [`encode_all_avx512vbmi`], `n <= 24`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn encode_short_avx512vbmi(
    symbols: &[u8; 64],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    len: usize,
    pad: bool,
) {
    // SAFETY: `src` holds `n <= 24` bytes and `dst` their encoded length `len`, as
    // `encode_last_ymm` needs (`len > 0` checked).
    unsafe {
        if len > 0 {
            encode_last_ymm(symbols, src, n, dst, len, pad);
        }
    }
}

/// The last block of [`encode_all_avx512vbmi`] when it is at most 24 bytes (at most 32 symbols,
/// `0 < rest <= 32`) in 256-bit registers: on CPUs that run a 512-bit operation as two 256-bit
/// halves (Zen 4) each step then costs half. Same plain accesses as [`load_exact`] and
/// [`store_exact`].
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of `r <= 24`
/// bytes and `dst` for writes of `rest` bytes, their encoded length (with padding if `pad`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn encode_last_ymm(
    symbols: &[u8; 64],
    src: *const u8,
    r: usize,
    dst: *mut u8,
    rest: usize,
    pad: bool,
) {
    // SAFETY: the loads read `w <= r` bytes at 0 and at `r - w`, or bytes below `r`; the
    // stores write `w <= rest` bytes at 0 and at `rest - w`, or bytes below `rest`; the
    // tables' rows `r <= 24` and `rest < 32` (where it is not 32) exist.
    unsafe {
        let (w, a, b) = if r >= 16 {
            (16, _mm_loadu_si128(src.cast()), _mm_loadu_si128(src.add(r - 16).cast()))
        } else if r >= 8 {
            let a = src.cast::<i64>().read_unaligned();
            (
                8,
                _mm_cvtsi64_si128(a),
                _mm_cvtsi64_si128(src.add(r - 8).cast::<i64>().read_unaligned()),
            )
        } else if r >= 4 {
            let a = src.cast::<i32>().read_unaligned();
            (
                4,
                _mm_cvtsi32_si128(a),
                _mm_cvtsi32_si128(src.add(r - 4).cast::<i32>().read_unaligned()),
            )
        } else {
            // Bytes 0, r / 2 and r - 1 are bytes 0, 1, 2 for r = 3 (repeats for r < 3, cut off).
            let v = u32::from(*src)
                | u32::from(*src.add(r / 2)) << 8
                | u32::from(*src.add(r - 1)) << 16;
            (4, _mm_cvtsi32_si128(_bzhi_u32(v, 8 * r as u32) as i32), _mm_setzero_si128())
        };
        // The dwords `s1 s0 s2 s1` of the groups straight from `a` and `b`: lane `k` is input
        // byte `ENCODE_SHUFFLE[k]`, found in `a` or `b` as `SHORT_GATHER` says, and zero from
        // byte `r` on (one table row and one mask per `r`, `w` being a function of it).
        debug_assert_eq!(w, short_width(r));
        // (Unchecked: `r <= 24`, the tables' last row; a bounds check's panic path would give
        // this function a stack frame.)
        let row = SHORT_ROWS.get_unchecked(r);
        let index = _mm256_loadu_si256(row.dwords.as_ptr().cast());
        // (The upper lanes of `a` and `b` are never selected: no zero extension needed.)
        let dwords = _mm256_maskz_permutex2var_epi8(
            row.lanes,
            _mm256_castsi128_si256(a),
            index,
            _mm256_castsi128_si256(b),
        );
        let indices = _mm256_multishift_epi64_epi8(_mm256_set1_epi64x(MULTISHIFT), dwords);
        let mut y = _mm256_permutex2var_epi8(
            _mm256_loadu_si256(symbols.as_ptr().cast()),
            indices,
            _mm256_loadu_si256(symbols.as_ptr().add(32).cast()),
        );
        if pad {
            // As in `encode_all_avx512vbmi`: symbol `k` is padding when `3k >= 4r` (below
            // `rest`, a function of `r` when `pad`), from a table.
            let lanes = row.padding;
            y = _mm256_mask_blend_epi8(lanes, y, _mm256_set1_epi8(b'=' as i8));
        }
        if rest == 32 {
            _mm256_storeu_si256(dst.cast(), y);
            return;
        }
        if rest == 24 {
            // 16 to 18 bytes padded: the lower half, then the upper one's low 8 symbols (one
            // `vextracti128`, not a `vpermb` and its index), tested right after `rest == 32`
            // (behind the general tests, two more taken branches: 17 -> 19 cycles a call).
            _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(y));
            let hi = _mm256_extracti128_si256::<1>(y);
            dst.add(16).cast::<i64>().write_unaligned(_mm_cvtsi128_si64(hi));
            return;
        }
        let w = store_width(rest);
        // Lane `k` of `moved` is lane `k + rest - w` of `y` (a table row per `rest`).
        let moved = _mm256_castsi256_si128(_mm256_permutexvar_epi8(
            _mm256_loadu_si256(SHORT_STORE.get_unchecked(rest).as_ptr().cast()),
            y,
        ));
        let y = _mm256_castsi256_si128(y);
        if w == 16 {
            _mm_storeu_si128(dst.cast(), y);
            _mm_storeu_si128(dst.add(rest - 16).cast(), moved);
        } else if w == 8 {
            dst.cast::<i64>().write_unaligned(_mm_cvtsi128_si64(y));
            dst.add(rest - 8).cast::<i64>().write_unaligned(_mm_cvtsi128_si64(moved));
        } else if w == 4 {
            dst.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(y));
            dst.add(rest - 4).cast::<i32>().write_unaligned(_mm_cvtsi128_si32(moved));
        } else {
            // 2 or 3 symbols (1 or 2 bytes unpadded): 2 bytes at 0 and 2 ending at `rest`
            // (not a byte loop, which became a `memcpy` call).
            debug_assert!((2..=3).contains(&rest));
            let v = _mm_cvtsi128_si32(y) as u32;
            dst.cast::<u16>().write_unaligned(v as u16);
            dst.add(rest - 2).cast::<u16>().write_unaligned((v >> (8 * (rest - 2))) as u16);
        }
    }
}

/// The width of the two overlapping loads of [`encode_last_ymm`] for `r <= 24` bytes.
const fn short_width(r: usize) -> usize {
    if r >= 16 {
        16
    } else if r >= 8 {
        8
    } else {
        4
    }
}

/// [`encode_last_ymm`]'s `vpermt2b` index for `r <= 24` bytes (row `r`): lane `k` below the
/// width `w` ([`short_width`]) is lane `k` of the first load, lane `k` from `w` on is lane
/// `k - (r - w)` of the second (`32 +` selects it; lanes from `r` on are zeroed by the mask).
const SHORT_GATHER: [[u8; 32]; 25] = {
    let mut t = [[0u8; 32]; 25];
    let mut r = 0;
    while r <= 24 {
        let w = short_width(r);
        let mut k = 0;
        while k < 32 {
            t[r][k] = if k < w { k as u8 } else { (k + 32 + w).wrapping_sub(r) as u8 };
            k += 1;
        }
        r += 1;
    }
    t
};

/// [`encode_last_ymm`]'s `vpermt2b` index for `r <= 24` bytes (row `r`), the gather of
/// [`SHORT_GATHER`] and the encode shuffle [`ENCODE_SHUFFLE`] in one: lane `k` takes input byte
/// `ENCODE_SHUFFLE[k]` from where `SHORT_GATHER[r]` finds it in the two loads.
const SHORT_DWORDS: [[u8; 32]; 25] = {
    let mut t = [[0u8; 32]; 25];
    let mut r = 0;
    while r <= 24 {
        let mut k = 0;
        while k < 32 {
            t[r][k] = SHORT_GATHER[r][ENCODE_SHUFFLE[k] as usize];
            k += 1;
        }
        r += 1;
    }
    t
};

/// The lanes of [`SHORT_DWORDS`] row `r` that hold an input byte (`ENCODE_SHUFFLE[k] < r`); the
/// others are zeroed, the zero bits after the input.
const SHORT_DWORDS_LANES: [u32; 25] = {
    let mut t = [0u32; 25];
    let mut r = 0;
    while r <= 24 {
        let mut k = 0;
        while k < 32 {
            if (ENCODE_SHUFFLE[k] as usize) < r {
                t[r] |= 1 << k;
            }
            k += 1;
        }
        r += 1;
    }
    t
};

/// The width of the two overlapping stores of [`encode_last_ymm`] for `rest < 32` symbols
/// (2: the bytes one by one).
const fn store_width(rest: usize) -> usize {
    if rest >= 16 {
        16
    } else if rest >= 8 {
        8
    } else if rest >= 4 {
        4
    } else {
        2
    }
}

/// [`encode_last_ymm`]'s `vpermb` index for the second store of `rest < 32` symbols (row
/// `rest`): lane `k` is symbol `k + rest - w` ([`store_width`]), so that its low `w` lanes end
/// at symbol `rest`.
static SHORT_STORE: [[u8; 32]; 32] = {
    let mut t = [[0u8; 32]; 32];
    let mut rest = 0;
    while rest < 32 {
        let w = store_width(rest);
        let mut k = 0;
        while k < 32 {
            t[rest][k] = ((k + rest).wrapping_sub(w) & 31) as u8;
            k += 1;
        }
        rest += 1;
    }
    t
};

/// The padding lanes of the padded encoding of `r <= 24` bytes (entry `r`): symbol `k` is `=`
/// when `3k >= 4r` and `k` is below the encoded length `4 * ceil(r / 3)`.
const SHORT_PADDING: [u32; 25] = {
    let mut t = [0u32; 25];
    let mut r: usize = 0;
    while r <= 24 {
        let len = r.div_ceil(3) * 4;
        let mut k = 0;
        while k < len {
            if 3 * k >= 4 * r {
                t[r] |= 1 << k;
            }
            k += 1;
        }
        r += 1;
    }
    t
};

/// [`encode_last_ymm`]'s tables for `r <= 24` bytes in one row per `r` (one address for the
/// three).
#[repr(C, align(64))]
struct ShortRow {
    /// [`SHORT_DWORDS`] row `r`.
    dwords: [u8; 32],
    /// [`SHORT_DWORDS_LANES`] entry `r`.
    lanes: u32,
    /// [`SHORT_PADDING`] entry `r`.
    padding: u32,
}

/// [`ShortRow`] for every `r <= 24`.
static SHORT_ROWS: [ShortRow; 25] = {
    let mut t = [const { ShortRow { dwords: [0; 32], lanes: 0, padding: 0 } }; 25];
    let mut r = 0;
    while r <= 24 {
        t[r] = ShortRow {
            dwords: SHORT_DWORDS[r],
            lanes: SHORT_DWORDS_LANES[r],
            padding: SHORT_PADDING[r],
        };
        r += 1;
    }
    t
};

/// `k` in lane `k`: the identity permutation, to which [`load_exact`] and [`store_exact`] add
/// their offsets.
static IOTA: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        t[k] = k as u8;
        k += 1;
    }
    t
};

/// `src[..n]` (`n <= 64`) in the low lanes of a zmm, the rest zero, read by plain loads that
/// touch only those bytes: for `w <= n <= 2w` (`w` = 32, 16, 8 or 4), `w` bytes at 0 and `w`
/// bytes ending at `n`, joined by one `vpermt2b`; below 4 bytes, three byte loads. (A masked
/// load would be one instruction, but see [`encode_all_avx512vbmi`] for what its width costs.)
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of `n <= 64` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn load_exact(src: *const u8, n: usize) -> __m512i {
    // SAFETY: each load reads `w` bytes at 0 or at `n - w`, within `src[..n]` as `w <= n`; the
    // byte loads read indices below `n`.
    unsafe {
        let (w, a, b) = if n >= 32 {
            let a = _mm256_loadu_si256(src.cast());
            let b = _mm256_loadu_si256(src.add(n - 32).cast());
            (32, _mm512_zextsi256_si512(a), _mm512_zextsi256_si512(b))
        } else if n >= 16 {
            let a = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(n - 16).cast());
            (16, _mm512_zextsi128_si512(a), _mm512_zextsi128_si512(b))
        } else if n >= 8 {
            let a = src.cast::<i64>().read_unaligned();
            let b = src.add(n - 8).cast::<i64>().read_unaligned();
            (
                8,
                _mm512_zextsi128_si512(_mm_cvtsi64_si128(a)),
                _mm512_zextsi128_si512(_mm_cvtsi64_si128(b)),
            )
        } else if n >= 4 {
            let a = src.cast::<i32>().read_unaligned();
            let b = src.add(n - 4).cast::<i32>().read_unaligned();
            (
                4,
                _mm512_zextsi128_si512(_mm_cvtsi32_si128(a)),
                _mm512_zextsi128_si512(_mm_cvtsi32_si128(b)),
            )
        } else if n > 0 {
            // Bytes 0, n / 2 and n - 1 are bytes 0, 1, 2 for n = 3 (repeats for n < 3, cut off).
            let v = u32::from(*src)
                | u32::from(*src.add(n / 2)) << 8
                | u32::from(*src.add(n - 1)) << 16;
            let v = _bzhi_u32(v, 8 * n as u32);
            return _mm512_zextsi128_si512(_mm_cvtsi32_si128(v as i32));
        } else {
            return _mm512_setzero_si512();
        };
        // Lanes below `w` from `a`; lane `k` in `w..n` from lane `k - (n - w)` of `b` (index
        // `64 + ...` selects `b`); lanes from `n` on zero.
        let iota = _mm512_loadu_si512(IOTA.as_ptr().cast());
        let index = _mm512_mask_add_epi8(
            iota,
            !low_mask(w),
            iota,
            _mm512_set1_epi8((64 + w - n) as u8 as i8),
        );
        _mm512_maskz_permutex2var_epi8(low_mask(n), a, index, b)
    }
}

/// Writes the low `len` bytes of `y` (`len <= 64`) to `dst` with plain stores that touch only
/// `dst[..len]`: for `w <= len <= 2w`, `w` bytes at 0 and the `w` bytes ending at `len` (moved
/// down by one `vpermb`).
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `dst` is valid for writes of `len <= 64`
/// bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn store_exact(dst: *mut u8, len: usize, y: __m512i) {
    if len == 64 {
        // SAFETY: `dst[..64]` is writable.
        unsafe { _mm512_storeu_si512(dst.cast(), y) };
        return;
    }
    let w = if len >= 32 {
        32
    } else if len >= 16 {
        16
    } else if len >= 8 {
        8
    } else if len >= 4 {
        4
    } else {
        2
    };
    // Lane `k` of `moved` is lane `k + len - w` of `y` (`len >= w` but for `len` = 0, 1).
    // SAFETY: `IOTA` is 64 bytes.
    let iota = unsafe { _mm512_loadu_si512(IOTA.as_ptr().cast()) };
    let moved = _mm512_permutexvar_epi8(
        _mm512_add_epi8(iota, _mm512_set1_epi8(len.wrapping_sub(w) as u8 as i8)),
        y,
    );
    let (a, b) = (_mm512_castsi512_si128(y), _mm512_castsi512_si128(moved));
    // SAFETY: each store writes `w` bytes at 0 or at `len - w`, within `dst[..len]` as
    // `w <= len`; below 2 bytes, only `dst[..len]` byte by byte.
    unsafe {
        match w {
            32 => {
                _mm256_storeu_si256(dst.cast(), _mm512_castsi512_si256(y));
                _mm256_storeu_si256(dst.add(len - 32).cast(), _mm512_castsi512_si256(moved));
            }
            16 => {
                _mm_storeu_si128(dst.cast(), a);
                _mm_storeu_si128(dst.add(len - 16).cast(), b);
            }
            8 => {
                dst.cast::<i64>().write_unaligned(_mm_cvtsi128_si64(a));
                dst.add(len - 8).cast::<i64>().write_unaligned(_mm_cvtsi128_si64(b));
            }
            4 => {
                dst.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(a));
                dst.add(len - 4).cast::<i32>().write_unaligned(_mm_cvtsi128_si32(b));
            }
            _ => {
                let v = _mm_cvtsi128_si32(a).to_le_bytes();
                for (k, &byte) in v.iter().enumerate().take(len) {
                    *dst.add(k) = byte;
                }
            }
        }
    }
}

/// The longest text the short path takes: 4 blocks ([`decode_blocks_avx512vbmi`]). (At 2,
/// texts of 129 to 136 symbols, 100 and 101 bytes of data, took the general path at 0.3-0.45x
/// base64-simd.)
const SHORT_MAX: usize = 256;

/// [`ShortRules`] as bits for [`decode_short_avx512vbmi`]: a padded last group may be
/// accepted.
const PADDED: u32 = 1;
/// A partial last group (padding left out) may be accepted.
const PARTIAL: u32 = 2;
/// The unused bits of the last symbol must be zero.
const CANONICAL: u32 = 4;

/// Decodes all of `src[..n]` (`0 < n <= 64`) into `dst[..cap]` in one block when it is
/// symbols in whole groups, or with a padded (`xy==`, `xyz=`: `rules & PADDED`) or partial
/// (`xy`, `xyz`: `rules & PARTIAL`) last group whose last symbol has zero unused bits (if
/// `rules & CANONICAL`), and the output fits; `None` (nothing written) otherwise. The `=` are
/// found in the vector (a compare and mask tests, no scalar look at the text), and they and
/// the lanes past the input decode as zeros, so a padded text costs about what an unpadded
/// one does. The 64-byte block is stored where `dst` has room for it, else only the decoded
/// bytes. A function of its own, apart from [`decode_blocks_avx512vbmi`]: without the block
/// loop's registers and stack frame (86 symbols 9.0 -> 10.3 ns, 22 symbols 8.7 -> 9.1 ns when
/// one function took both).
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of
/// `0 < n <= 64` bytes and `dst` for writes of `cap` bytes; they do not overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn decode_short_avx512vbmi(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: u32,
) -> Option<usize> {
    // SAFETY: the masked load reads lanes of `src[..n]`; the store writes 64 bytes only when
    // `cap` has them, else masked lanes below the `bytes <= cap` decoded.
    unsafe {
        let lo = _mm512_loadu_si512(table.as_ptr().cast());
        let hi = _mm512_loadu_si512(table.as_ptr().add(64).cast());
        let (v, bad, bytes) = last_block(load_upto(src, n), n, lo, hi, rules)?;
        if bytes > cap || bad != 0 {
            return None;
        }
        let packer = _mm512_loadu_si512(DECODE_PACK.as_ptr().cast());
        if cap >= 64 {
            _mm512_storeu_si512(dst.cast(), pack(v, packer));
        } else {
            _mm512_mask_storeu_epi8(dst.cast(), low_mask(bytes), pack(v, packer));
        }
        Some(bytes)
    }
}

/// [`decode_short_avx512vbmi`] for `64 FULL < n <= 64 (FULL + 1)` (`FULL` = 1, 2 or 3, each
/// count of whole 64-byte blocks a function of its own, unrolled): the `FULL` whole blocks,
/// checked in one branch with the last 1 to 64 bytes; `None` (`dst` perhaps written) where
/// that one would decline.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of
/// `64 FULL < n <= 64 (FULL + 1)` bytes (`1 <= FULL <= 3`) and `dst` for writes of `cap` bytes;
/// they do not overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn decode_blocks_avx512vbmi<const FULL: usize>(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
    rules: u32,
) -> Option<usize> {
    // SAFETY: the full loads read `src[64k..64k + 64]` for `k < full` (`64 full < n`), the
    // masked one lanes of `src[64 full..n]`; full stores write `dst[48k..48k + 64]` only when
    // `cap` has them, else masked lanes below `total <= cap`.
    unsafe {
        let lo = _mm512_loadu_si512(table.as_ptr().cast());
        let hi = _mm512_loadu_si512(table.as_ptr().add(64).cast());
        // The block with the last group: the last 1 to 64 bytes, after `full` whole blocks
        // (`m % 4 == n % 4`).
        let full = FULL;
        debug_assert_eq!(full, (n - 1) / 64);
        let (tail, m) = (src.add(64 * full), n - 64 * full);
        let (v, bad, bytes) = last_block(load_upto(tail, m), m, lo, hi, rules)?;
        let total = bytes + 48 * full;
        if total > cap {
            return None;
        }
        // The whole blocks (1 to 3), checked together with the last one in one branch.
        let zero = _mm512_setzero_si512();
        let x0 = _mm512_loadu_si512(src.cast());
        let v0 = lookup(x0, lo, hi);
        let mut any = _mm512_or_si512(x0, v0);
        let v1 = if full >= 2 {
            let x1 = _mm512_loadu_si512(src.add(64).cast());
            let v1 = lookup(x1, lo, hi);
            any = _mm512_or_si512(any, _mm512_or_si512(x1, v1));
            v1
        } else {
            zero
        };
        let v2 = if full >= 3 {
            let x2 = _mm512_loadu_si512(src.add(128).cast());
            let v2 = lookup(x2, lo, hi);
            any = _mm512_or_si512(any, _mm512_or_si512(x2, v2));
            v2
        } else {
            zero
        };
        if _mm512_movepi8_mask(any) | bad != 0 {
            return None;
        }
        let packer = _mm512_loadu_si512(DECODE_PACK.as_ptr().cast());
        let store = |k: usize, v: __m512i, bytes: usize| {
            if 48 * k + 64 <= cap {
                _mm512_storeu_si512(dst.add(48 * k).cast(), pack(v, packer));
            } else {
                _mm512_mask_storeu_epi8(dst.add(48 * k).cast(), low_mask(bytes), pack(v, packer));
            }
        };
        store(0, v0, 48);
        if full >= 2 {
            store(1, v1, 48);
        }
        if full >= 3 {
            store(2, v2, 48);
        }
        store(full, v, bytes);
        Some(total)
    }
}

/// The block of a short text that holds its last group: the `m` bytes (`0 < m <= 64`) in the
/// low lanes of `x`, the rest zero. Returns their 6-bit values (padding and the lanes past
/// the input as zeros), the lanes that are not symbols where symbols must be (or the last
/// symbol's unused bits, when `rules & CANONICAL`), and the bytes they decode to; `None`
/// for a shape of the last group that `rules` does not accept.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn last_block(
    x: __m512i,
    m: usize,
    lo: __m512i,
    hi: __m512i,
    rules: u32,
) -> Option<(__m512i, u64, usize)> {
    let inside = low_mask(m);
    let eq = _mm512_mask_cmpeq_epi8_mask(inside, x, _mm512_set1_epi8(b'=' as i8));
    if eq == 0 && m.is_multiple_of(4) {
        // Whole groups of symbols: the common case, without the padding's steps.
        let v = lookup(x, lo, hi);
        Some((v, _mm512_movepi8_mask(_mm512_or_si512(x, v)) & inside, m / 4 * 3))
    } else {
        // Symbols the text leaves out of its last group (`m % 4` is 0, 2 or 3 when
        // valid).
        let partial = (4 - m % 4) % 4;
        // `=` only as the last 1 or 2 bytes of whole groups (then `m >= 4`). Compared
        // with the two masks that shape allows rather than counted: this function's
        // features do not include `popcnt`, and a software popcount was most of what a
        // padded text cost more than an unpadded one.
        let text_pads = if eq == 0 {
            0
        } else if partial == 0 && eq == 1 << (m - 1) {
            1
        } else if partial == 0 && eq == 3 << (m - 2) {
            2
        } else {
            return None;
        };
        let pads = text_pads + partial;
        let shape_ok =
            if text_pads > 0 { rules & PADDED != 0 } else { partial <= 2 && rules & PARTIAL != 0 };
        if !shape_ok {
            return None;
        }
        // Lanes that must be symbols; the others (padding, past the input) decode as
        // zeros.
        let symbols = inside & !eq;
        let v = _mm512_maskz_permutex2var_epi8(symbols, lo, x, hi);
        let mut bad = _mm512_movepi8_mask(_mm512_or_si512(x, v)) & symbols;
        if rules & CANONICAL != 0 {
            // The unused bits of the last symbol, in the vector (no scalar table lookup).
            let unused = _mm512_set1_epi8(if pads == 2 { 0x0f } else { 0x03 });
            bad |= _mm512_mask_test_epi8_mask(1 << (m - text_pads - 1), v, unused);
        }
        Some((v, bad, (m + partial) / 4 * 3 - pads))
    }
}

/// One decode block: 64 bytes -> their 6-bit values (top bit set for non-symbols).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn lookup(x: __m512i, lo: __m512i, hi: __m512i) -> __m512i {
    _mm512_permutex2var_epi8(lo, x, hi)
}

/// Packs 64 6-bit values into 48 bytes (the low 48 bytes of the result).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn pack(v: __m512i, pack: __m512i) -> __m512i {
    _mm512_permutexvar_epi8(pack, merge(v))
}

/// Merges each dword's four 6-bit values into its low 24 bits (`s0 s1 s2` from the top byte
/// down: bytes 2, 1, 0).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn merge(v: __m512i) -> __m512i {
    let pairs = _mm512_maddubs_epi16(v, _mm512_set1_epi32(0x0140_0140));
    _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x0001_1000))
}

/// Decodes whole groups of 4 symbols of `src[..n]` into `dst[..cap]`, stopping at the first
/// group that holds a non-symbol or does not fit; returns the symbols consumed.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI, and BMI2; `src` is valid for reads of `n` bytes, `dst`
/// for writes of `cap` bytes; either they do not overlap, or `dst <= src` in one buffer. Every
/// store goes only over input already loaded (the main loop's 192 bytes at `j <= i` come after its
/// loads of `src[i..i + 256]`; a tail block's store, at most 64 bytes at `j <= i`, after the
/// block's load at `i`), so in-place decoding reads the input intact.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn decode_avx512vbmi(
    table: &[u8; 256],
    src: *const u8,
    n: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let end = (n / 4).min(cap / 3) * 4;
    // SAFETY: for the whole body: full loads read `src[i..i + 64]` with `i + 64 <= end <= n`;
    // full stores write `dst[j..j + 64]` only when `j + 64 <= cap` (the main loop's three at
    // `j`, `j + 64`, `j + 128` when `j + 192 <= cap`); masked accesses touch
    // lanes below `end` (loads) and below `end / 4 * 3 <= cap` (stores).
    unsafe {
        let lo = _mm512_loadu_si512(table.as_ptr().cast());
        let hi = _mm512_loadu_si512(table.as_ptr().add(64).cast());
        let packer = _mm512_loadu_si512(DECODE_PACK.as_ptr().cast());
        let join0 = _mm512_loadu_si512(DECODE_JOIN[0].as_ptr().cast());
        let join1 = _mm512_loadu_si512(DECODE_JOIN[1].as_ptr().cast());
        let join2 = _mm512_loadu_si512(DECODE_JOIN[2].as_ptr().cast());
        let (mut i, mut j) = (0, 0);
        // 256 symbols -> 192 bytes in three 64-byte stores, none overlapping the next.
        while i + 256 <= end && j + 192 <= cap {
            let x0 = _mm512_loadu_si512(src.add(i).cast());
            let x1 = _mm512_loadu_si512(src.add(i + 64).cast());
            let x2 = _mm512_loadu_si512(src.add(i + 128).cast());
            let x3 = _mm512_loadu_si512(src.add(i + 192).cast());
            let v0 = lookup(x0, lo, hi);
            let v1 = lookup(x1, lo, hi);
            let v2 = lookup(x2, lo, hi);
            let v3 = lookup(x3, lo, hi);
            let any = _mm512_or_si512(
                _mm512_or_si512(_mm512_or_si512(x0, v0), _mm512_or_si512(x1, v1)),
                _mm512_or_si512(_mm512_or_si512(x2, v2), _mm512_or_si512(x3, v3)),
            );
            if _mm512_movepi8_mask(any) != 0 {
                break;
            }
            let (d0, d1, d2, d3) = (merge(v0), merge(v1), merge(v2), merge(v3));
            _mm512_storeu_si512(dst.add(j).cast(), _mm512_permutex2var_epi8(d0, join0, d1));
            _mm512_storeu_si512(dst.add(j + 64).cast(), _mm512_permutex2var_epi8(d1, join1, d2));
            _mm512_storeu_si512(dst.add(j + 128).cast(), _mm512_permutex2var_epi8(d2, join2, d3));
            i += 256;
            j += 192;
        }
        while i < end {
            let take = (end - i).min(64);
            let x = _mm512_maskz_loadu_epi8(low_mask(take), src.add(i).cast());
            let v = lookup(x, lo, hi);
            let bad = _mm512_movepi8_mask(_mm512_or_si512(x, v)) & low_mask(take);
            let good = if bad == 0 { take } else { bad.trailing_zeros() as usize / 4 * 4 };
            let bytes = good / 4 * 3;
            if bytes == 48 && j + 64 <= cap {
                _mm512_storeu_si512(dst.add(j).cast(), pack(v, packer));
            } else {
                _mm512_mask_storeu_epi8(dst.add(j).cast(), low_mask(bytes), pack(v, packer));
            }
            i += good;
            j += bytes;
            if good < take {
                break;
            }
        }
        i
    }
}
