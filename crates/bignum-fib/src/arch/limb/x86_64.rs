//! x86_64 kernels in inline assembly: products with MULX (BMI2), which leaves the flags
//! alone, so `addmul_1` keeps two independent carry chains, ADOX for the running high limb
//! and ADCX for the addition into `r` (ADX). Loops count a negative index up to zero with
//! `lea`/`jrcxz` (or `inc`, which keeps CF), so neither chain is broken by loop control.

use core::arch::asm;

nab_isa::token! {
    /// Proof that BMI2 (MULX) and ADX (ADCX/ADOX) may be used: the CPU has them and
    /// `NAB_MAX_ISA` allows them (detected once, in `nab-isa`), or the build enables both
    /// (then there is no detection at all). Only `MulxAdx::new` makes one.
    pub(crate) struct MulxAdx = BMI2 | ADX;
}

/// `r = a + b` over `n` limbs (`r` may equal `a`); returns the carry.
///
/// # Safety
/// `n >= 1`; `a`, `b` readable and `r` writable for `n` limbs; `r` either equal to `a` or
/// disjoint from it, and disjoint from `b` unless equal to it.
#[inline]
unsafe fn add_n_asm(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> u64 {
    let carry: u64;
    // SAFETY: the caller guarantees `n >= 1` limbs at each pointer; the loop touches
    // exactly limbs `0..n` (the index runs from `-n` up to zero over end pointers).
    unsafe {
        asm!(
            "clc",
            "2:",
            "mov {t}, qword ptr [{a} + 8*{i}]",
            "adc {t}, qword ptr [{b} + 8*{i}]",
            "mov qword ptr [{r} + 8*{i}], {t}",
            "inc {i}",
            "jnz 2b",
            "mov {t:e}, 0",
            "adc {t:e}, 0",
            a = in(reg) a.add(n),
            b = in(reg) b.add(n),
            r = in(reg) r.add(n),
            i = inout(reg) n.wrapping_neg() => _,
            t = out(reg) carry,
            options(nostack),
        );
    }
    carry
}

/// `r = a - b` over `n` limbs (`r` may equal `a`); returns the borrow.
///
/// # Safety
/// As [`add_n_asm`].
#[inline]
unsafe fn sub_n_asm(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> u64 {
    let borrow: u64;
    // SAFETY: as in `add_n_asm`.
    unsafe {
        asm!(
            "clc",
            "2:",
            "mov {t}, qword ptr [{a} + 8*{i}]",
            "sbb {t}, qword ptr [{b} + 8*{i}]",
            "mov qword ptr [{r} + 8*{i}], {t}",
            "inc {i}",
            "jnz 2b",
            "mov {t:e}, 0",
            "adc {t:e}, 0",
            a = in(reg) a.add(n),
            b = in(reg) b.add(n),
            r = in(reg) r.add(n),
            i = inout(reg) n.wrapping_neg() => _,
            t = out(reg) borrow,
            options(nostack),
        );
    }
    borrow
}

/// `r = a * v` over `n` limbs; returns the high limb.
///
/// # Safety
/// `n >= 1`; `a` readable and `r` writable for `n` limbs, disjoint; BMI2 and ADX present.
#[inline]
unsafe fn mul_1_mulx(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    // SAFETY: the caller guarantees the lengths and the CPU features; the loop touches
    // limbs `0..n` only.
    unsafe {
        asm!(
            "xor {cy:e}, {cy:e}",
            "2:",
            "mulx {hi}, {lo}, qword ptr [{a} + 8*rcx]",
            "adcx {lo}, {cy}",
            "mov qword ptr [{r} + 8*rcx], {lo}",
            "mov {cy}, {hi}",
            "lea rcx, [rcx + 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            "mov {lo:e}, 0",
            "adcx {cy}, {lo}",
            a = in(reg) a.add(n),
            r = in(reg) r.add(n),
            inout("rcx") n.wrapping_neg() => _,
            in("rdx") v,
            cy = out(reg) high,
            lo = out(reg) _,
            hi = out(reg) _,
            options(nostack),
        );
    }
    high
}

/// `r += a * v` over `n` limbs; returns the high limb. Two carry chains: OF carries the
/// previous high limb into the low product (ADOX), CF the addition of `r` (ADCX). The main
/// loop does four limbs per iteration with the high limbs alternating between registers (no
/// moves); the `n mod 4` limbs left run one at a time after it, chains intact.
///
/// # Safety
/// As [`mul_1_mulx`].
#[inline]
unsafe fn addmul_1_mulx(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    let rem = n % 4;
    let main = n - rem;
    // SAFETY: as in `mul_1_mulx`: the main loop touches limbs `0..main` (index from `-main`
    // up to zero over `a + main`, `r + main`), the tail limbs `main..n`.
    unsafe {
        asm!(
            "xor {cy:e}, {cy:e}",
            "jrcxz 4f",
            "2:",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx]",
            "adox {l0}, {cy}",
            "adcx {l0}, qword ptr [{r} + 8*rcx]",
            "mov qword ptr [{r} + 8*rcx], {l0}",
            "mulx {h1}, {l1}, qword ptr [{a} + 8*rcx + 8]",
            "adox {l1}, {h0}",
            "adcx {l1}, qword ptr [{r} + 8*rcx + 8]",
            "mov qword ptr [{r} + 8*rcx + 8], {l1}",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx + 16]",
            "adox {l0}, {h1}",
            "adcx {l0}, qword ptr [{r} + 8*rcx + 16]",
            "mov qword ptr [{r} + 8*rcx + 16], {l0}",
            "mulx {cy}, {l1}, qword ptr [{a} + 8*rcx + 24]",
            "adox {l1}, {h0}",
            "adcx {l1}, qword ptr [{r} + 8*rcx + 24]",
            "mov qword ptr [{r} + 8*rcx + 24], {l1}",
            "lea rcx, [rcx + 4]",
            "jrcxz 4f",
            "jmp 2b",
            "4:",
            // The tail: `rem` limbs from `a + main`, index from `-rem` up to zero.
            "lea {a}, [{a} + 8*{rem}]",
            "lea {r}, [{r} + 8*{rem}]",
            "mov rcx, {rem_neg}",
            "jrcxz 6f",
            "5:",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx]",
            "adox {l0}, {cy}",
            "adcx {l0}, qword ptr [{r} + 8*rcx]",
            "mov qword ptr [{r} + 8*rcx], {l0}",
            "mov {cy}, {h0}",
            "lea rcx, [rcx + 1]",
            "jrcxz 6f",
            "jmp 5b",
            "6:",
            "mov {l0:e}, 0",
            "adox {cy}, {l0}",
            "adcx {cy}, {l0}",
            a = inout(reg) a.add(main) => _,
            r = inout(reg) r.add(main) => _,
            rem = in(reg) rem,
            rem_neg = in(reg) rem.wrapping_neg(),
            inout("rcx") main.wrapping_neg() => _,
            in("rdx") v,
            cy = out(reg) high,
            l0 = out(reg) _,
            h0 = out(reg) _,
            l1 = out(reg) _,
            h1 = out(reg) _,
            options(nostack),
        );
    }
    high
}

/// `r -= a * v` over `n` limbs; returns the borrow limb. The product chain runs on OF
/// (ADOX); the subtraction is `r - x = !(!r + x)`, an ADCX chain whose carry is the borrow.
/// Four limbs per iteration and a one-at-a-time tail, as in [`addmul_1_mulx`].
///
/// # Safety
/// As [`mul_1_mulx`].
#[inline]
unsafe fn submul_1_mulx(r: *mut u64, a: *const u64, n: usize, v: u64) -> u64 {
    let high: u64;
    let rem = n % 4;
    let main = n - rem;
    // SAFETY: as in `addmul_1_mulx`: the main loop touches limbs `0..main`, the tail limbs
    // `main..n`.
    unsafe {
        asm!(
            "xor {cy:e}, {cy:e}",
            // TEST clears CF and OF as XOR did (JRCXZ cannot reach past the unrolled loop).
            "test rcx, rcx",
            "jz 4f",
            "2:",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx]",
            "adox {l0}, {cy}",
            "mov {t}, qword ptr [{r} + 8*rcx]",
            "not {t}",
            "adcx {t}, {l0}",
            "not {t}",
            "mov qword ptr [{r} + 8*rcx], {t}",
            "mulx {h1}, {l1}, qword ptr [{a} + 8*rcx + 8]",
            "adox {l1}, {h0}",
            "mov {t}, qword ptr [{r} + 8*rcx + 8]",
            "not {t}",
            "adcx {t}, {l1}",
            "not {t}",
            "mov qword ptr [{r} + 8*rcx + 8], {t}",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx + 16]",
            "adox {l0}, {h1}",
            "mov {t}, qword ptr [{r} + 8*rcx + 16]",
            "not {t}",
            "adcx {t}, {l0}",
            "not {t}",
            "mov qword ptr [{r} + 8*rcx + 16], {t}",
            "mulx {cy}, {l1}, qword ptr [{a} + 8*rcx + 24]",
            "adox {l1}, {h0}",
            "mov {t}, qword ptr [{r} + 8*rcx + 24]",
            "not {t}",
            "adcx {t}, {l1}",
            "not {t}",
            "mov qword ptr [{r} + 8*rcx + 24], {t}",
            "lea rcx, [rcx + 4]",
            "jrcxz 4f",
            "jmp 2b",
            "4:",
            // The tail: `rem` limbs from `a + main`, index from `-rem` up to zero.
            "lea {a}, [{a} + 8*{rem}]",
            "lea {r}, [{r} + 8*{rem}]",
            "mov rcx, {rem_neg}",
            "jrcxz 6f",
            "5:",
            "mulx {h0}, {l0}, qword ptr [{a} + 8*rcx]",
            "adox {l0}, {cy}",
            "mov {t}, qword ptr [{r} + 8*rcx]",
            "not {t}",
            "adcx {t}, {l0}",
            "not {t}",
            "mov qword ptr [{r} + 8*rcx], {t}",
            "mov {cy}, {h0}",
            "lea rcx, [rcx + 1]",
            "jrcxz 6f",
            "jmp 5b",
            "6:",
            "mov {l0:e}, 0",
            "adox {cy}, {l0}",
            "adcx {cy}, {l0}",
            a = inout(reg) a.add(main) => _,
            r = inout(reg) r.add(main) => _,
            rem = in(reg) rem,
            rem_neg = in(reg) rem.wrapping_neg(),
            inout("rcx") main.wrapping_neg() => _,
            in("rdx") v,
            cy = out(reg) high,
            l0 = out(reg) _,
            h0 = out(reg) _,
            l1 = out(reg) _,
            h1 = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
    high
}

/// The doubling-plus-diagonal pass of squaring (see `portable::sqr_diag_addlsh1`): for each
/// limb pair, `(r[2i+1]:r[2i]) = 2·(r[2i+1]:r[2i]) + a_i²` with the doubling as an ADCX
/// chain (`adcx x, x`) and the diagonal addition as an ADOX chain.
///
/// # Safety
/// `n >= 1`; `a` readable for `n` limbs, `r` writable for `2n`; BMI2 and ADX present.
#[inline]
unsafe fn sqr_diag_addlsh1_mulx(r: *mut u64, a: *const u64, n: usize) {
    // SAFETY: the caller guarantees the lengths and the CPU features; the loop touches
    // `a[0..n]` and `r[0..2n]` only.
    unsafe {
        asm!(
            "xor {lo:e}, {lo:e}",
            "2:",
            "mov rdx, qword ptr [{a} + 8*rcx]",
            "mulx {hi}, {lo}, rdx",
            "mov {t}, qword ptr [{r}]",
            "adcx {t}, {t}",
            "adox {t}, {lo}",
            "mov qword ptr [{r}], {t}",
            "mov {t}, qword ptr [{r} + 8]",
            "adcx {t}, {t}",
            "adox {t}, {hi}",
            "mov qword ptr [{r} + 8], {t}",
            "lea {r}, [{r} + 16]",
            "lea rcx, [rcx + 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            a = in(reg) a.add(n),
            r = inout(reg) r => _,
            inout("rcx") n.wrapping_neg() => _,
            out("rdx") _,
            lo = out(reg) _,
            hi = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
}

super::asm_kernels!(
    MulxAdx,
    add_n: add_n_asm, sub_n: sub_n_asm,
    mul_1: mul_1_mulx, addmul_1: addmul_1_mulx, submul_1: submul_1_mulx,
    // SAFETY: `self` proves BMI2 + ADX; `r` has `2 * a.len()` limbs, `a.len() >= 1`, and
    // `r` (a unique borrow) is disjoint from `a`.
    sqr_diag_addlsh1: |r, a| unsafe { sqr_diag_addlsh1_mulx(r.as_mut_ptr(), a.as_ptr(), a.len()) },
);
