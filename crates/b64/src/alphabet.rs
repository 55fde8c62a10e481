//! Alphabets: the 64 symbols and the reverse table the decoders use. Built by a `const fn`, so
//! a custom alphabet can be a `const` or a `static`.

use core::fmt;

/// Marks a byte that is not a symbol in [`Alphabet::decode_table`]. Its top bit is set, which
/// is what the SIMD kernels test (a 6-bit value never has it).
pub(crate) const INVALID: u8 = 0xff;

/// A base64 alphabet: 64 distinct printable ASCII symbols, none of them `=` (nor space), in
/// index order.
///
/// ```
/// use b64::{alphabet::Alphabet, engine::{GeneralPurpose, general_purpose::NO_PAD}, Engine as _};
///
/// // The traditional `crypt(3)` ordering.
/// const CRYPT: Alphabet =
///     match Alphabet::new("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
///         Ok(a) => a,
///         Err(_) => panic!("not a valid alphabet"),
///     };
/// let engine = GeneralPurpose::new(&CRYPT, NO_PAD);
/// assert_eq!(engine.encode(b"\x00\x00\x00"), "....");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Alphabet {
    symbols: [u8; 64],
    decode: [u8; 256],
    nibbles: Nibbles,
    runs: Runs,
}

/// The alphabet in the form of the `pshufb` encoders (Muła's "improved" lookup, its tables
/// computed from the alphabet): the symbol of index `i` is `i + offset[class(i)]` with
/// `class(i) = 13` below `low_end`, 0 from there to `mid_end`, and `i - mid_end` above. So
/// it fits alphabets made of a run (symbols `i + c`) from index 0, a second run up to index
/// 51 at least, and anything after: the standard and URL-safe ones. `fits` says whether it
/// does; the encoders take their general four-table lookup otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Runs {
    /// Where the first run ends (exclusive; up to 64).
    pub(crate) low_end: u8,
    /// Where the second run ends (inclusive): 51 (the classes above it are 1..=12).
    pub(crate) mid_end: u8,
    /// What to add to an index of each class.
    pub(crate) offset: [u8; 16],
    /// Whether the alphabet has this shape.
    pub(crate) fits: bool,
}

impl Runs {
    /// What to add to index `i` to make its symbol.
    const fn off(symbols: &[u8; 64], i: usize) -> u8 {
        symbols[i].wrapping_sub(i as u8)
    }

    const fn new(symbols: &[u8; 64]) -> Runs {
        let mut r = Runs { low_end: 0, mid_end: 51, offset: [0; 16], fits: false };
        // The first run, then the second.
        let mut low_end = 1;
        while low_end < 64 && Runs::off(symbols, low_end) == Runs::off(symbols, 0) {
            low_end += 1;
        }
        if low_end >= 52 {
            // One run to 51 at least; everything above it by its own class.
            low_end = 52;
        } else {
            let mut mid_end = low_end;
            while mid_end + 1 < 64 && Runs::off(symbols, mid_end + 1) == Runs::off(symbols, low_end)
            {
                mid_end += 1;
            }
            if mid_end < 51 {
                return r;
            }
        }
        r.low_end = low_end as u8;
        r.offset[13] = Runs::off(symbols, 0);
        r.offset[0] = Runs::off(symbols, low_end);
        let mut i = 52;
        while i < 64 {
            r.offset[i - 51] = Runs::off(symbols, i);
            i += 1;
        }
        r.fits = true;
        r
    }
}

/// The reverse table in the form of the `pshufb` kernels (the Muła–Lemire decode, its
/// tables computed from the alphabet): a byte `x` with high nibble `h` and low nibble `l` is
/// a symbol iff `lo_mask[l] & HI_BIT[h] == 0`, and then its value is
/// `x + shift[h] + Σ fix_add[k] where x == fix_byte[k]` (wrapping). Every printable
/// alphabet has the exact mask; the shifts fit when at most [`Nibbles::MAX_FIXES`] symbols
/// differ from the most common offset of their high nibble (every built-in alphabet: 0 or
/// 1); `fixes > MAX_FIXES` says the alphabet does not fit.
///
/// The first fix also has a second form: `shift[0]` (high nibble 0 holds no symbol) is
/// `shift[h] + fix_add[0]` for `fix_byte[0]`'s `h`, so its value is `x + shift[0]`: a kernel
/// may look the shift up at index 0 for that byte (`andnot` of the compare with the high
/// nibble) instead of adding `fix_add[0]` (one operation fewer per block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Nibbles {
    /// Per low nibble, the bits ([`Nibbles::HI_BIT`]) of the high nibbles it is not a
    /// symbol with; bit 0 always (high nibbles 0, 1 and 8..=15 hold no symbol).
    pub(crate) lo_mask: [u8; 16],
    /// Per high nibble, what to add to a symbol byte to make its value.
    pub(crate) shift: [u8; 16],
    /// Symbols whose value is not `x + shift[h]`, and what to add on top.
    pub(crate) fix_byte: [u8; Nibbles::MAX_FIXES],
    /// See [`Nibbles::fix_byte`].
    pub(crate) fix_add: [u8; Nibbles::MAX_FIXES],
    /// How many of the fixes are used (`> MAX_FIXES`: the alphabet does not fit).
    pub(crate) fixes: usize,
}

impl Nibbles {
    /// The most fixes the kernels take (each costs 3 vector operations per block, the first 2 in
    /// the `pshufb` kernels).
    pub(crate) const MAX_FIXES: usize = 2;

    /// Per high nibble, its bit in [`Nibbles::lo_mask`]: 2..=7 (printable ASCII) get bits
    /// 1..=6, the others bit 0.
    pub(crate) const HI_BIT: [u8; 16] = {
        let mut t = [1u8; 16];
        let mut h = 2;
        while h < 8 {
            t[h] = 1 << (h - 1);
            h += 1;
        }
        t
    };

    const fn new(decode: &[u8; 256]) -> Nibbles {
        let mut n = Nibbles {
            lo_mask: [1; 16],
            shift: [0; 16],
            fix_byte: [0; Nibbles::MAX_FIXES],
            fix_add: [0; Nibbles::MAX_FIXES],
            fixes: 0,
        };
        let mut h = 2;
        while h < 8 {
            // The offset (value - byte) most symbols of this high nibble share.
            let (mut best, mut best_count) = (0u8, 0);
            let mut l = 0;
            while l < 16 {
                let x = (h << 4 | l) as u8;
                if decode[x as usize] == INVALID {
                    n.lo_mask[l] |= Nibbles::HI_BIT[h];
                } else {
                    let off = decode[x as usize].wrapping_sub(x);
                    let mut count = 0;
                    let mut m = 0;
                    while m < 16 {
                        let y = (h << 4 | m) as u8;
                        if decode[y as usize] != INVALID
                            && decode[y as usize].wrapping_sub(y) == off
                        {
                            count += 1;
                        }
                        m += 1;
                    }
                    if count > best_count {
                        (best, best_count) = (off, count);
                    }
                }
                l += 1;
            }
            n.shift[h] = best;
            let mut l = 0;
            while l < 16 {
                let x = (h << 4 | l) as u8;
                if decode[x as usize] != INVALID {
                    let rest = decode[x as usize].wrapping_sub(x).wrapping_sub(best);
                    if rest != 0 {
                        if n.fixes < Nibbles::MAX_FIXES {
                            n.fix_byte[n.fixes] = x;
                            n.fix_add[n.fixes] = rest;
                        }
                        n.fixes += 1;
                    }
                }
                l += 1;
            }
            h += 1;
        }
        if n.fixes > 0 {
            let h = (n.fix_byte[0] >> 4) as usize;
            n.shift[0] = n.shift[h].wrapping_add(n.fix_add[0]);
        }
        n
    }
}

/// Why a string is not an [`Alphabet`]. (base64 calls its own `ParseAlphabetError`; that
/// name is an alias of this one, its variants are not.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AlphabetError {
    /// The string is `len` bytes long, not 64.
    InvalidLength {
        /// Its length in bytes.
        len: usize,
    },
    /// The symbol at `index` is not printable ASCII (`0x21..=0x7e`) or is `=`.
    InvalidSymbol {
        /// Position in the alphabet.
        index: usize,
        /// The byte found there.
        byte: u8,
    },
    /// The symbol at `index` already appeared earlier.
    Duplicate {
        /// Position of the second occurrence.
        index: usize,
        /// The repeated byte.
        byte: u8,
    },
}

impl fmt::Display for AlphabetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AlphabetError::InvalidLength { len } => {
                write!(f, "an alphabet has 64 symbols, this one {len} bytes")
            }
            AlphabetError::InvalidSymbol { index, byte } => write!(
                f,
                "alphabet symbol {index} (byte 0x{byte:02x}) is not printable ASCII other than '='"
            ),
            AlphabetError::Duplicate { index, byte } => {
                write!(f, "alphabet symbol {index} (byte 0x{byte:02x}) appears twice")
            }
        }
    }
}

impl core::error::Error for AlphabetError {}

/// base64's name for [`AlphabetError`].
pub type ParseAlphabetError = AlphabetError;

impl Alphabet {
    /// Validates `symbols` (64 distinct printable ASCII characters other than `=` and space)
    /// and builds the decoding tables.
    pub const fn new(symbols: &str) -> Result<Alphabet, AlphabetError> {
        match symbols.as_bytes().as_chunks::<64>() {
            ([symbols], []) => Alphabet::from_symbols(symbols),
            _ => Err(AlphabetError::InvalidLength { len: symbols.len() }),
        }
    }

    /// [`Alphabet::new`] of 64 bytes.
    pub const fn from_symbols(symbols: &[u8; 64]) -> Result<Alphabet, AlphabetError> {
        let mut decode = [INVALID; 256];
        let mut i = 0;
        while i < 64 {
            let byte = symbols[i];
            if byte < 0x21 || byte > 0x7e || byte == b'=' {
                return Err(AlphabetError::InvalidSymbol { index: i, byte });
            }
            if decode[byte as usize] != INVALID {
                return Err(AlphabetError::Duplicate { index: i, byte });
            }
            decode[byte as usize] = i as u8;
            i += 1;
        }
        Ok(Alphabet {
            symbols: *symbols,
            decode,
            nibbles: Nibbles::new(&decode),
            runs: Runs::new(symbols),
        })
    }

    /// The symbols in `pshufb` form ([`Runs`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const fn runs(&self) -> &Runs {
        &self.runs
    }

    /// The reverse table in `pshufb` form ([`Nibbles`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const fn nibbles(&self) -> &Nibbles {
        &self.nibbles
    }

    /// The 64 symbols in index order.
    pub const fn symbols(&self) -> &[u8; 64] {
        &self.symbols
    }

    /// The 64 symbols as a string.
    pub fn as_str(&self) -> &str {
        // The symbols are printable ASCII (checked by `from_symbols`).
        core::str::from_utf8(&self.symbols).unwrap_or_default()
    }

    /// Byte -> 6-bit value, `0xff` for every byte that is not a symbol.
    pub(crate) const fn decode_table(&self) -> &[u8; 256] {
        &self.decode
    }

    /// Whether `byte` is one of the 64 symbols.
    #[inline]
    pub const fn contains(&self, byte: u8) -> bool {
        self.decode[byte as usize] != INVALID
    }
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Alphabet").field(&self.as_str()).finish()
    }
}

impl TryFrom<&str> for Alphabet {
    type Error = AlphabetError;

    fn try_from(symbols: &str) -> Result<Alphabet, AlphabetError> {
        Alphabet::new(symbols)
    }
}

const fn build(symbols: &[u8; 64]) -> Alphabet {
    match Alphabet::from_symbols(symbols) {
        Ok(a) => a,
        Err(_) => panic!("built-in alphabets are valid"),
    }
}

/// RFC 4648 section 4: `A-Z a-z 0-9 + /`.
pub static STANDARD: Alphabet =
    build(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

/// RFC 4648 section 5 (URL and file name safe): `A-Z a-z 0-9 - _`.
pub static URL_SAFE: Alphabet =
    build(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

/// The `crypt(3)` ordering: `. / 0-9 A-Z a-z`.
pub static CRYPT: Alphabet =
    build(b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

/// The bcrypt ordering: `. / A-Z a-z 0-9`.
pub static BCRYPT: Alphabet =
    build(b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");

/// IMAP's modified UTF-7 (RFC 3501 section 5.1.3): `A-Z a-z 0-9 + ,`.
pub static IMAP_MUTF7: Alphabet =
    build(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,");

/// BinHex 4.0's ordering.
pub static BIN_HEX: Alphabet =
    build(b"!\"#$%&'()*+,-012345689@ABCDEFGHIJKLMNPQRSTUVXYZ[`abcdefhijklmpqr");

#[cfg(test)]
mod tests {
    use super::*;

    /// The run form gives every symbol where it fits, and it fits the standard and URL-safe
    /// alphabets.
    #[test]
    fn runs_give_the_symbols() {
        for a in [&STANDARD, &URL_SAFE, &CRYPT, &BCRYPT] {
            let r = a.runs();
            if !r.fits {
                continue;
            }
            for i in 0..64u8 {
                let class = i.saturating_sub(r.mid_end) | if i < r.low_end { 13 } else { 0 };
                let sym = i.wrapping_add(r.offset[usize::from(class)]);
                assert_eq!(sym, a.symbols()[usize::from(i)], "{a:?} index {i}");
            }
        }
        assert!(STANDARD.runs().fits && URL_SAFE.runs().fits);
    }

    /// The nibble form gives the reverse table's answer for every byte, and every built-in
    /// alphabet fits it.
    #[test]
    fn nibbles_agree_with_the_reverse_table() {
        for a in [&STANDARD, &URL_SAFE, &CRYPT, &BCRYPT] {
            let n = a.nibbles();
            assert!(n.fixes <= 1, "{a:?} needs {} fixes", n.fixes);
            for x in 0..=255u8 {
                let (h, l) = (usize::from(x >> 4), usize::from(x & 15));
                let symbol = n.lo_mask[l] & Nibbles::HI_BIT[h] == 0;
                assert_eq!(symbol, a.contains(x), "{a:?} byte {x:#04x}");
                if symbol {
                    let mut v = x.wrapping_add(n.shift[h]);
                    // The first fix's second form: the shift at index 0.
                    let mut w = v;
                    for k in 0..n.fixes {
                        if x == n.fix_byte[k] {
                            v = v.wrapping_add(n.fix_add[k]);
                            w = if k == 0 {
                                x.wrapping_add(n.shift[0])
                            } else {
                                w.wrapping_add(n.fix_add[k])
                            };
                        }
                    }
                    assert_eq!(v, a.decode_table()[usize::from(x)], "{a:?} byte {x:#04x}");
                    assert_eq!(w, v, "{a:?} byte {x:#04x}, the first fix at index 0");
                }
            }
        }
    }
}
