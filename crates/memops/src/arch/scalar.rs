//! Scalar building blocks shared by every backend: the overlapping-word routines for sizes below
//! one vector. A leaf: `Word`, the 64-bit SWAR "vector" of the portable backend, is in
//! `arch::portable`.
//!
//! Nothing here calls `core::ptr::copy*` or `write_bytes` with a run-time length, and with the
//! `c-symbols` feature the crate is `#![no_builtins]`, so these loops are never lowered into
//! calls to `memcpy`/`memset` (which would recurse). Without the feature LLVM may do so; a
//! disassembly of the release test binary (`objdump -d`, every `call`/`jmp` to a `mem*`/`bcmp`
//! symbol) found none from a `memops` function.

#[inline(always)]
pub(crate) unsafe fn rd64(p: *const u8) -> u64 {
    // SAFETY: the caller guarantees 8 readable bytes at `p`.
    unsafe { p.cast::<u64>().read_unaligned() }
}
#[inline(always)]
pub(crate) unsafe fn wr64(p: *mut u8, v: u64) {
    // SAFETY: the caller guarantees 8 writable bytes at `p`.
    unsafe { p.cast::<u64>().write_unaligned(v) }
}
#[inline(always)]
unsafe fn rd32(p: *const u8) -> u32 {
    // SAFETY: the caller guarantees 4 readable bytes at `p`.
    unsafe { p.cast::<u32>().read_unaligned() }
}
#[inline(always)]
unsafe fn wr32(p: *mut u8, v: u32) {
    // SAFETY: the caller guarantees 4 writable bytes at `p`.
    unsafe { p.cast::<u32>().write_unaligned(v) }
}
#[inline(always)]
unsafe fn rd16(p: *const u8) -> u16 {
    // SAFETY: the caller guarantees 2 readable bytes at `p`.
    unsafe { p.cast::<u16>().read_unaligned() }
}
#[inline(always)]
unsafe fn wr16(p: *mut u8, v: u16) {
    // SAFETY: the caller guarantees 2 writable bytes at `p`.
    unsafe { p.cast::<u16>().write_unaligned(v) }
}

/// Copies `n <= 16` bytes: first and last word (or half, quarter word) loaded, then stored.
#[inline(always)]
pub(crate) unsafe fn copy_le16(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: (whole body) the accesses cover exactly `[0, n)` of each buffer.
    unsafe {
        if n >= 8 {
            let a = rd64(src);
            let b = rd64(src.add(n - 8));
            wr64(dst, a);
            wr64(dst.add(n - 8), b);
        } else if n >= 4 {
            let a = rd32(src);
            let b = rd32(src.add(n - 4));
            wr32(dst, a);
            wr32(dst.add(n - 4), b);
        } else if n >= 2 {
            let a = rd16(src);
            let b = rd16(src.add(n - 2));
            wr16(dst, a);
            wr16(dst.add(n - 2), b);
        } else if n == 1 {
            *dst = *src;
        }
    }
}

/// Copies `n <= 64` bytes, every load before any store.
#[inline(always)]
pub(crate) unsafe fn copy_le64(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: (whole body) the accesses cover exactly `[0, n)` of each buffer.
    unsafe {
        if n <= 16 {
            copy_le16(dst, src, n);
        } else if n <= 32 {
            let a = rd64(src);
            let b = rd64(src.add(8));
            let c = rd64(src.add(n - 16));
            let d = rd64(src.add(n - 8));
            wr64(dst, a);
            wr64(dst.add(8), b);
            wr64(dst.add(n - 16), c);
            wr64(dst.add(n - 8), d);
        } else {
            let w: [u64; 8] = [
                rd64(src),
                rd64(src.add(8)),
                rd64(src.add(16)),
                rd64(src.add(24)),
                rd64(src.add(n - 32)),
                rd64(src.add(n - 24)),
                rd64(src.add(n - 16)),
                rd64(src.add(n - 8)),
            ];
            for (k, v) in w.into_iter().enumerate() {
                let off = if k < 4 { 8 * k } else { n - 64 + 8 * k };
                wr64(dst.add(off), v);
            }
        }
    }
}

/// `b` in every byte of a word.
#[inline(always)]
pub(crate) const fn splat64(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

/// Sets `n <= 16` bytes to `b`.
#[inline(always)]
pub(crate) unsafe fn set_le16(dst: *mut u8, b: u8, n: usize) {
    let v = splat64(b);
    // SAFETY: (whole body) the stores cover exactly `[0, n)`.
    unsafe {
        if n >= 8 {
            wr64(dst, v);
            wr64(dst.add(n - 8), v);
        } else if n >= 4 {
            wr32(dst, v as u32);
            wr32(dst.add(n - 4), v as u32);
        } else if n >= 2 {
            wr16(dst, v as u16);
            wr16(dst.add(n - 2), v as u16);
        } else if n == 1 {
            *dst = b;
        }
    }
}

/// Sets `n <= 64` bytes to `b`.
#[inline(always)]
pub(crate) unsafe fn set_le64(dst: *mut u8, b: u8, n: usize) {
    let v = splat64(b);
    // SAFETY: (whole body) the stores cover exactly `[0, n)`.
    unsafe {
        if n <= 16 {
            set_le16(dst, b, n);
        } else {
            let mut i = 0;
            while i + 16 < n {
                wr64(dst.add(i), v);
                wr64(dst.add(i + 8), v);
                i += 16;
            }
            wr64(dst.add(n - 16), v);
            wr64(dst.add(n - 8), v);
        }
    }
}

/// `memcmp` of any length with big-endian word compares (lexicographic order).
#[inline(always)]
pub(crate) unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    #[inline(always)]
    fn order(x: u64, y: u64) -> i32 {
        let (x, y) = (u64::from_be(x), u64::from_be(y));
        i32::from(x > y) - i32::from(x < y)
    }
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`.
    unsafe {
        if (8..=16).contains(&n) {
            // The two overlapping words at 0 and `n - 8`, with no loop (the vector backends'
            // small compares are all below 16 bytes).
            let (x, y) = (rd64(a), rd64(b));
            if x != y {
                return order(x, y);
            }
            let (x, y) = (rd64(a.add(n - 8)), rd64(b.add(n - 8)));
            order(x, y)
        } else if n >= 8 {
            let mut i = 0;
            while i + 8 <= n {
                let (x, y) = (rd64(a.add(i)), rd64(b.add(i)));
                if x != y {
                    return order(x, y);
                }
                i += 8;
            }
            if i < n {
                let (x, y) = (rd64(a.add(n - 8)), rd64(b.add(n - 8)));
                if x != y {
                    return order(x, y);
                }
            }
            0
        } else if n >= 4 {
            // Two overlapping big-endian halves make one word that orders like the bytes.
            let x = (u64::from(u32::from_be(rd32(a))) << 32)
                | u64::from(u32::from_be(rd32(a.add(n - 4))));
            let y = (u64::from(u32::from_be(rd32(b))) << 32)
                | u64::from(u32::from_be(rd32(b.add(n - 4))));
            i32::from(x > y) - i32::from(x < y)
        } else if n >= 2 {
            // The first two bytes and the last one (the second again when `n == 2`) order
            // like the bytes themselves.
            let x = (u32::from(u16::from_be(rd16(a))) << 8) | u32::from(*a.add(n - 1));
            let y = (u32::from(u16::from_be(rd16(b))) << 8) | u32::from(*b.add(n - 1));
            x as i32 - y as i32
        } else if n == 1 {
            i32::from(*a) - i32::from(*b)
        } else {
            0
        }
    }
}

/// Whether `a[..n] == b[..n]`.
#[inline(always)]
pub(crate) unsafe fn equal(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`.
    unsafe {
        if n >= 8 {
            let mut acc = 0;
            let mut i = 0;
            while i + 8 <= n {
                acc |= rd64(a.add(i)) ^ rd64(b.add(i));
                i += 8;
            }
            acc |= rd64(a.add(n - 8)) ^ rd64(b.add(n - 8));
            acc == 0
        } else if n >= 4 {
            (rd32(a) ^ rd32(b)) | (rd32(a.add(n - 4)) ^ rd32(b.add(n - 4))) == 0
        } else {
            let mut acc = 0;
            for i in 0..n {
                acc |= *a.add(i) ^ *b.add(i);
            }
            acc == 0
        }
    }
}
