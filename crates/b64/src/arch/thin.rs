//! The tables of the whitespace removal (`Kernels::compact`) the x86_64 and NEON kernels
//! share: the whitespace lookup by low nibble, and the 8-byte pack by mask.

/// Entry `k` has low nibble `k + 1`: no byte (of low nibble `k`) equals it.
const FILL: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut k = 0;
    while k < 16 {
        t[k] = (k as u8 + 1) & 0x0f;
        k += 1;
    }
    t
};

/// The lookup of the five bytes of ASCII whitespace (WHATWG): `\t \n \x0c \r` by their low
/// nibble, space at 0; elsewhere a byte of another low nibble (no byte equals its lookup there:
/// `pshufb` gives 0 for bytes from `0x80`, `tbl` looks up their low nibble alone).
pub(crate) const WS_TABLE: [u8; 16] = {
    let mut t = FILL;
    t[0] = b' ';
    t[9] = b'\t';
    t[0xa] = b'\n';
    t[0xc] = 0x0c;
    t[0xd] = b'\r';
    t
};

/// [`WS_TABLE`] for `\n` alone.
pub(crate) const NL_TABLE: [u8; 16] = {
    let mut t = FILL;
    t[0xa] = b'\n';
    t
};

/// For each 8-bit mask of bytes to drop, the positions of the bytes kept, in order, one a
/// byte of the `u64` (the rest 0).
pub(crate) static THIN: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut v, mut k, mut b) = (0u64, 0, 0);
        while b < 8 {
            if m >> b & 1 == 0 {
                v |= (b as u64) << (8 * k);
                k += 1;
            }
            b += 1;
        }
        t[m] = v;
        m += 1;
    }
    t
};

/// For each 8-bit mask of bytes to drop, how many are kept (a table: the SSSE3 and AVX2
/// tokens do not prove POPCNT, and without it `count_ones` is a long sequence).
pub(crate) static KEPT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = 8 - (m as u8).count_ones() as u8;
        m += 1;
    }
    t
};

/// The whitespace lookup for the engine's rule.
#[inline(always)]
pub(crate) fn table(newlines_only: bool) -> &'static [u8; 16] {
    if newlines_only { &NL_TABLE } else { &WS_TABLE }
}
