//! RVV 1.0 kernels in `global_asm!` (core's RISC-V vector intrinsics are unstable), written
//! for any VLEN >= 128 (the V extension's minimum): every loop strip-mines with `vsetvli`, and
//! the tables sit in register groups long enough at VLEN 128 (64 symbols in an LMUL=4 group,
//! 128 reverse-table entries in an LMUL=8 group).
//!
//! Encode, per strip of `vl` groups (`vl <= VLEN/8`): `vlseg3e8` splits bytes `a b c`; shifts
//! make the four 6-bit indices, each in an LMUL=4-aligned register; `vrgather` at LMUL=4 maps
//! them through the alphabet; `vsseg4e8` interleaves the symbols.
//!
//! Decode, per strip: `vlseg4e8` splits the 4 symbols of each group; `vrgather` at LMUL=8
//! looks each up in the reverse table; a byte that is not a symbol has the top bit set in
//! itself or its value; `vfirst` finds the first bad group, and only the groups before it are
//! stored (`vsseg3e8`), so the kernel stops exactly at the first bad group.
//!
//! The functions follow the standard calling convention (vector registers, `vl` and `vtype`
//! are caller-saved).

use core::arch::global_asm;

use crate::alphabet::Alphabet;
use crate::io::{Io, run_decode};
use crate::kernels::Kernels;

global_asm!(
    ".option push",
    ".option arch, +v",
    ".text",
    // usize b64_rvv_encode(const u8 *src, usize groups, u8 *dst, const u8 symbols[64])
    // Encodes `groups` 3-byte groups; returns the bytes consumed (3 * groups).
    ".p2align 2",
    ".globl b64_rvv_encode",
    ".type b64_rvv_encode, @function",
    "b64_rvv_encode:",
    "    mv t1, a1",
    "    mv t6, a1",
    "    mv a4, a3",
    "    li t0, 64",
    "    vsetvli zero, t0, e8, m4, ta, ma",
    "    vle8.v v28, (a4)",
    "    li t3, 63",
    "2:  beqz t1, 3f",
    "    vsetvli t0, t1, e8, m1, ta, ma",
    "    vlseg3e8.v v4, (a0)",
    "    vsrl.vi v8, v4, 2",
    "    vsll.vi v12, v4, 4",
    "    vsrl.vi v13, v5, 4",
    "    vor.vv v12, v12, v13",
    "    vand.vx v12, v12, t3",
    "    vsll.vi v16, v5, 2",
    "    vsrl.vi v17, v6, 6",
    "    vor.vv v16, v16, v17",
    "    vand.vx v16, v16, t3",
    "    vand.vx v20, v6, t3",
    "    vsetvli zero, t0, e8, m4, ta, ma",
    "    vrgather.vv v0, v28, v8",
    "    vrgather.vv v4, v28, v12",
    "    vrgather.vv v24, v28, v16",
    "    vrgather.vv v8, v28, v20",
    "    vsetvli zero, t0, e8, m1, ta, ma",
    "    vmv1r.v v1, v4",
    "    vmv1r.v v2, v24",
    "    vmv1r.v v3, v8",
    "    vsseg4e8.v v0, (a2)",
    "    sub t1, t1, t0",
    "    slli t4, t0, 1",
    "    add t4, t4, t0",
    "    add a0, a0, t4",
    "    slli t5, t0, 2",
    "    add a2, a2, t5",
    "    j 2b",
    "3:  slli a0, t6, 1",
    "    add a0, a0, t6",
    "    ret",
    ".size b64_rvv_encode, . - b64_rvv_encode",
    // usize b64_rvv_decode(const u8 *src, usize groups, u8 *dst, const u8 table[128])
    // Decodes up to `groups` groups of 4 symbols, stopping before the first with a
    // non-symbol; returns the symbols consumed.
    ".p2align 2",
    ".globl b64_rvv_decode",
    ".type b64_rvv_decode, @function",
    "b64_rvv_decode:",
    "    mv t1, a1",
    "    mv t6, a0",
    "    mv a4, a3",
    "    li t0, 128",
    "    vsetvli zero, t0, e8, m8, ta, ma",
    "    vle8.v v24, (a4)",
    "    li t3, 127",
    "2:  beqz t1, 4f",
    "    vsetvli t0, t1, e8, m1, ta, ma",
    "    vlseg4e8.v v0, (a0)",
    "    vor.vv v4, v0, v1",
    "    vor.vv v4, v4, v2",
    "    vor.vv v4, v4, v3",
    "    vsetvli zero, t0, e8, m8, ta, ma",
    "    vrgather.vv v8, v24, v0",
    "    vmv1r.v v5, v8",
    "    vmv1r.v v16, v1",
    "    vrgather.vv v8, v24, v16",
    "    vmv1r.v v6, v8",
    "    vmv1r.v v16, v2",
    "    vrgather.vv v8, v24, v16",
    "    vmv1r.v v7, v8",
    "    vmv1r.v v16, v3",
    "    vrgather.vv v8, v24, v16",
    "    vsetvli zero, t0, e8, m1, ta, ma",
    "    vor.vv v4, v4, v5",
    "    vor.vv v4, v4, v6",
    "    vor.vv v4, v4, v7",
    "    vor.vv v4, v4, v8",
    "    vmsgtu.vx v0, v4, t3",
    "    vfirst.m t4, v0",
    "    vsll.vi v9, v5, 2",
    "    vsrl.vi v12, v6, 4",
    "    vor.vv v9, v9, v12",
    "    vsll.vi v10, v6, 4",
    "    vsrl.vi v12, v7, 2",
    "    vor.vv v10, v10, v12",
    "    vsll.vi v11, v7, 6",
    "    vor.vv v11, v11, v8",
    "    bgez t4, 3f",
    "    vsseg3e8.v v9, (a2)",
    "    sub t1, t1, t0",
    "    slli t4, t0, 2",
    "    add a0, a0, t4",
    "    slli t5, t0, 1",
    "    add t5, t5, t0",
    "    add a2, a2, t5",
    "    j 2b",
    // A bad group at index t4 of this strip: store the groups before it and stop.
    "3:  vsetvli zero, t4, e8, m1, ta, ma",
    "    vsseg3e8.v v9, (a2)",
    "    slli t4, t4, 2",
    "    add a0, a0, t4",
    "4:  sub a0, a0, t6",
    "    ret",
    ".size b64_rvv_decode, . - b64_rvv_decode",
    // usize b64_rvv_compact(const u8 *src, usize len, u8 *dst, const u8 table[16])
    // Copies `src[..len]` less its whitespace (the bytes equal to `table[b & 15]`) to `dst`;
    // returns the bytes written. Per strip (LMUL=4): `vrgather` of the low nibbles in the
    // table, a compare, `vcompress` of the other bytes, `vcpop` of them, a store of that many.
    ".p2align 2",
    ".globl b64_rvv_compact",
    ".type b64_rvv_compact, @function",
    "b64_rvv_compact:",
    "    mv t6, a2",
    "    li t0, 16",
    "    vsetvli zero, t0, e8, m4, ta, ma",
    "    vle8.v v4, (a3)",
    "2:  beqz a1, 4f",
    "    vsetvli t0, a1, e8, m4, ta, ma",
    "    vle8.v v8, (a0)",
    "    vand.vi v12, v8, 15",
    "    vrgather.vv v16, v4, v12",
    "    vmsne.vv v0, v16, v8",
    "    vcompress.vm v20, v8, v0",
    "    vcpop.m t1, v0",
    "    vsetvli zero, t1, e8, m4, ta, ma",
    "    vse8.v v20, (a2)",
    "    add a0, a0, t0",
    "    sub a1, a1, t0",
    "    add a2, a2, t1",
    "    j 2b",
    "4:  sub a0, a2, t6",
    "    ret",
    ".size b64_rvv_compact, . - b64_rvv_compact",
    ".option pop",
);

unsafe extern "C" {
    /// Encodes `groups` 3-byte groups of `src` into `4 * groups` symbols at `dst`; returns
    /// `3 * groups`.
    fn b64_rvv_encode(src: *const u8, groups: usize, dst: *mut u8, symbols: *const u8) -> usize;
    /// Decodes up to `groups` groups of 4 symbols of `src` into `dst` (3 bytes each), stopping
    /// before the first group with a non-symbol; returns the symbols consumed.
    fn b64_rvv_decode(src: *const u8, groups: usize, dst: *mut u8, table: *const u8) -> usize;
    /// Copies `src[..len]` less the bytes equal to `table[b & 15]` (whitespace) to `dst`;
    /// returns the bytes written (at most `len`).
    fn b64_rvv_compact(src: *const u8, len: usize, dst: *mut u8, table: *const u8) -> usize;
}

/// The whitespace lookup by low nibble (as `arch/thin.rs`'s, for `vrgather`): `\t \n \x0c
/// \r` at their low nibble, space at 0; elsewhere a byte of another low nibble.
const fn ws_table(newlines_only: bool) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut k = 0;
    while k < 16 {
        t[k] = (k as u8 + 1) & 0x0f;
        k += 1;
    }
    t[0xa] = b'\n';
    if !newlines_only {
        t[0] = b' ';
        t[9] = b'\t';
        t[0xc] = 0x0c;
        t[0xd] = b'\r';
    }
    t
}

static WS_TABLE: [u8; 16] = ws_table(false);
static NL_TABLE: [u8; 16] = ws_table(true);

/// Proof that the build targets the V extension (this module exists only with
/// `cfg(b64_rvv)`, set by `build.rs` when the build enables `+v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rvv(());

impl Rvv {
    #[inline]
    pub(crate) fn new() -> Option<Self> {
        Some(Rvv(()))
    }
}

impl Kernels for Rvv {
    #[inline]
    fn compact(self, src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
        let len = src.len().min(dst.len());
        let table = if newlines_only { &NL_TABLE } else { &WS_TABLE };
        // SAFETY: the build targets V; `b64_rvv_compact` reads `src[..len]` and the 16-byte
        // table and writes at most `len <= dst.len()` bytes of `dst` (`&mut`: no overlap).
        let w = unsafe { b64_rvv_compact(src.as_ptr(), len, dst.as_mut_ptr(), table.as_ptr()) };
        (len, w)
    }

    #[inline]
    fn encode(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let groups = (src.len() / 3).min(dst.len() / 4);
        // SAFETY: the build targets V (RVV 1.0, VLEN >= 128); `b64_rvv_encode` reads
        // `3 * groups <= src.len()` bytes and the 64 symbols, and writes
        // `4 * groups <= dst.len()` bytes.
        unsafe {
            b64_rvv_encode(src.as_ptr(), groups, dst.as_mut_ptr(), alphabet.symbols().as_ptr())
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
            let groups = (n / 4).min(cap / 3);
            // SAFETY: the build targets V. `run_decode` gives pointers into live buffers,
            // `n` and `cap` bytes from them: separate, or one buffer with the output behind
            // the input; each strip is loaded in full before its (smaller) store at an output
            // position <= its input position. The table has 256 entries (128 are read).
            unsafe { b64_rvv_decode(src, groups, dst, alphabet.decode_table().as_ptr()) }
        })
    }
}
