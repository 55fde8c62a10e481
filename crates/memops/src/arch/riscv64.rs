//! riscv64 with the V extension (built with `-C target-feature=+v`; Rust has no stable run-time
//! detection there): strip-mined `vsetvli`/`vle8`/`vse8` loops in `asm!` with LMUL=8, so one
//! iteration moves or scans `8 * VLEN / 8` bytes whatever the VLEN (VLEN-agnostic). Without
//! `+v` the crate uses the portable 64-bit words.
//!
//! Each iteration loads its whole chunk (one `vle8.v` into the v8..v15 group) before storing
//! it, so a move is correct under overlap when the chunks go forward for `dst <= src` and
//! backward for `dst > src`.

use core::arch::asm;

/// `memmove`.
///
/// # Safety
///
/// As C `memmove`.
unsafe fn memmove(dst: *mut u8, src: *const u8, n: usize) {
    if n == 0 {
        return;
    }
    if dst.addr().wrapping_sub(src.addr()) >= n {
        // SAFETY: `src`/`dst` valid for `n` bytes; forward chunks are overlap-safe when `dst`
        // is not inside `(src, src + n)`.
        unsafe {
            asm!(
                "2:",
                "vsetvli {vl}, {n}, e8, m8, ta, ma",
                "vle8.v v8, ({src})",
                "vse8.v v8, ({dst})",
                "add {src}, {src}, {vl}",
                "add {dst}, {dst}, {vl}",
                "sub {n}, {n}, {vl}",
                "bnez {n}, 2b",
                n = inout(reg) n => _,
                src = inout(reg) src => _,
                dst = inout(reg) dst => _,
                vl = out(reg) _,
                out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _,
                options(nostack),
            );
        }
    } else {
        // SAFETY: as above; backward chunks for `dst` inside `(src, src + n)`.
        unsafe {
            asm!(
                "2:",
                "vsetvli {vl}, {n}, e8, m8, ta, ma",
                "sub {n}, {n}, {vl}",
                "add {t}, {src}, {n}",
                "vle8.v v8, ({t})",
                "add {t}, {dst}, {n}",
                "vse8.v v8, ({t})",
                "bnez {n}, 2b",
                n = inout(reg) n => _,
                src = in(reg) src,
                dst = in(reg) dst,
                vl = out(reg) _,
                t = out(reg) _,
                out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _,
                options(nostack),
            );
        }
    }
}

/// `memset`.
///
/// # Safety
///
/// As C `memset`.
unsafe fn memset(dst: *mut u8, b: u8, n: usize) {
    if n == 0 {
        return;
    }
    // SAFETY: `dst` valid for `n` bytes of writes.
    unsafe {
        asm!(
            "vsetvli {vl}, zero, e8, m8, ta, ma",
            "vmv.v.x v8, {b}",
            "2:",
            "vsetvli {vl}, {n}, e8, m8, ta, ma",
            "vse8.v v8, ({dst})",
            "add {dst}, {dst}, {vl}",
            "sub {n}, {n}, {vl}",
            "bnez {n}, 2b",
            n = inout(reg) n => _,
            dst = inout(reg) dst => _,
            b = in(reg) usize::from(b),
            vl = out(reg) _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            options(nostack),
        );
    }
}

/// The offset of the first differing byte of `a[..n]` and `b[..n]`, if any.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
unsafe fn mismatch(a: *const u8, b: *const u8, n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let at: usize;
    let found: isize;
    // SAFETY: reads stay inside `a[..n]` and `b[..n]`.
    unsafe {
        asm!(
            "2:",
            "vsetvli {vl}, {n}, e8, m8, ta, ma",
            "vle8.v v8, ({pa})",
            "vle8.v v16, ({pb})",
            "vmsne.vv v0, v8, v16",
            "vfirst.m {f}, v0",
            "bgez {f}, 3f",
            "add {pa}, {pa}, {vl}",
            "add {pb}, {pb}, {vl}",
            "sub {n}, {n}, {vl}",
            "bnez {n}, 2b",
            "3:",
            "add {pa}, {pa}, {f}",
            n = inout(reg) n => _,
            pa = inout(reg) a => at,
            pb = inout(reg) b => _,
            f = out(reg) found,
            vl = out(reg) _,
            out("v0") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            out("v20") _, out("v21") _, out("v22") _, out("v23") _,
            options(nostack, readonly),
        );
    }
    (found >= 0).then(|| at - a.addr())
}

/// `memcmp`.
///
/// # Safety
///
/// As C `memcmp`.
unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: forwarded contract; `j < n`.
    unsafe {
        match mismatch(a, b, n) {
            Some(j) => i32::from(*a.add(j)) - i32::from(*b.add(j)),
            None => 0,
        }
    }
}

/// Equality (`bcmp`).
///
/// # Safety
///
/// As C `bcmp`.
unsafe fn bcmp(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: forwarded contract.
    unsafe { mismatch(a, b, n).is_none() }
}

/// `memchr`.
///
/// # Safety
///
/// `p` valid for reads of `n` bytes.
unsafe fn memchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let at: usize;
    let found: isize;
    // SAFETY: reads stay inside `p[..n]`.
    unsafe {
        asm!(
            "2:",
            "vsetvli {vl}, {n}, e8, m8, ta, ma",
            "vle8.v v8, ({p})",
            "vmseq.vx v0, v8, {b}",
            "vfirst.m {f}, v0",
            "bgez {f}, 3f",
            "add {p}, {p}, {vl}",
            "sub {n}, {n}, {vl}",
            "bnez {n}, 2b",
            "3:",
            "add {p}, {p}, {f}",
            n = inout(reg) n => _,
            p = inout(reg) p => at,
            b = in(reg) usize::from(b),
            f = out(reg) found,
            vl = out(reg) _,
            out("v0") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            options(nostack, readonly),
        );
    }
    (found >= 0).then(|| at - p.addr())
}

/// `memrchr`: the vector loop finds the last chunk holding `b`, a byte loop the position in it.
///
/// # Safety
///
/// `p` valid for reads of `n` bytes.
unsafe fn memrchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let start: usize;
    let hits: usize;
    let len: usize;
    // SAFETY: reads stay inside `p[..n]`.
    unsafe {
        asm!(
            "2:",
            "vsetvli {vl}, {n}, e8, m8, ta, ma",
            "sub {n}, {n}, {vl}",
            "add {t}, {p}, {n}",
            "vle8.v v8, ({t})",
            "vmseq.vx v0, v8, {b}",
            "vcpop.m {c}, v0",
            "bnez {c}, 3f",
            "bnez {n}, 2b",
            "3:",
            n = inout(reg) n => start,
            p = in(reg) p,
            b = in(reg) usize::from(b),
            c = out(reg) hits,
            vl = out(reg) len,
            t = out(reg) _,
            out("v0") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            options(nostack, readonly),
        );
    }
    if hits == 0 {
        return None;
    }
    // SAFETY: `start + len <= n`.
    (start..start + len).rev().find(|&i| unsafe { *p.add(i) } == b)
}

/// Count of `b` in `p[..n]`.
///
/// # Safety
///
/// `p` valid for reads of `n` bytes.
unsafe fn count(p: *const u8, n: usize, b: u8) -> usize {
    if n == 0 {
        return 0;
    }
    let total: usize;
    // SAFETY: reads stay inside `p[..n]`.
    unsafe {
        asm!(
            "li {acc}, 0",
            "2:",
            "vsetvli {vl}, {n}, e8, m8, ta, ma",
            "vle8.v v8, ({p})",
            "vmseq.vx v0, v8, {b}",
            "vcpop.m {c}, v0",
            "add {acc}, {acc}, {c}",
            "add {p}, {p}, {vl}",
            "sub {n}, {n}, {vl}",
            "bnez {n}, 2b",
            n = inout(reg) n => _,
            p = inout(reg) p => _,
            b = in(reg) usize::from(b),
            acc = out(reg) total,
            c = out(reg) _,
            vl = out(reg) _,
            out("v0") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            options(nostack, readonly),
        );
    }
    total
}

/// `memmove` under a forced strategy: RVV has one strategy (its loop).
///
/// # Safety
///
/// As C `memmove`.
unsafe fn memmove_with(dst: *mut u8, src: *const u8, n: usize, _s: &super::table::Strategy) {
    // SAFETY: same contract.
    unsafe { memmove(dst, src, n) }
}

/// `memset` under a forced strategy: RVV has one strategy (its loop).
///
/// # Safety
///
/// As C `memset`.
unsafe fn memset_with(dst: *mut u8, b: u8, n: usize, _s: &super::table::Strategy) {
    // SAFETY: same contract.
    unsafe { memset(dst, b, n) }
}

/// The RVV backend's operations. The two- and three-byte searches and the substring
/// prefilter are the portable backend's 64-bit-word kernels.
pub(crate) static RVV: super::table::Ops = super::table::Ops {
    memmove,
    memset,
    memmove_with,
    memset_with,
    memcmp,
    bcmp,
    memchr,
    memrchr,
    count,
    memchr2: super::portable::PORTABLE.memchr2,
    memchr3: super::portable::PORTABLE.memchr3,
    memrchr2: super::portable::PORTABLE.memrchr2,
    memrchr3: super::portable::PORTABLE.memrchr3,
    pair_find: super::portable::PORTABLE.pair_find,
    pair_rfind: super::portable::PORTABLE.pair_rfind,
};
