//! Garner's reconstruction of the coefficients from their residues, and their sum with
//! carries into the product: three primes ([`crt3_into`], with the FMA engine's digits in
//! vectors), four ([`crt4_into`]), and four or five with wide coefficients
//! ([`wide_crt_into`]). Invariant: the primes' product exceeds every coefficient (the
//! bounds are in `plan`), so each coefficient is exact.

use std::sync::OnceLock;

use super::engine::{ENGINES, Engine};
use super::field::{Field, WIDE_FIELDS, pow_mod};
use crate::par;

/// Reconstructs the coefficients from their residues and adds them with carries into `r`
/// (coefficient `i` at limb `i`); limbs past the last coefficient get the carries. Returns
/// what is carried out of `r` (192 bits, low limb first).
pub(super) fn crt_into(e: Engine, r: &mut [u64], residues: &[Vec<u64>]) -> [u64; 3] {
    let ys: Vec<&[u64]> = residues.iter().map(Vec::as_slice).collect();
    crt_split(e, r, &ys)
}

/// The coefficients from which [`crt_into`] runs in two halves on two threads, when asked
/// (`par`): the CRT costs a few nanoseconds a coefficient, so from `2¹⁷` each half takes a
/// few hundred microseconds, against 23 µs to start and join a scoped thread (measured with
/// `cargo run --release -p bignum-fib --example tune threads`, `amd-zen5`).
const CRT_PAR_MIN: usize = 1 << 17;

/// [`crt_into`] on slices: the low half of the coefficients into the low limbs and the high
/// half into the rest, on two threads when asked, then the low half's carry added at the
/// high half's first limb (what comes out of `r` joins the high half's carry).
fn crt_split(e: Engine, r: &mut [u64], residues: &[&[u64]]) -> [u64; 3] {
    let count = residues[0].len();
    let mid = count / 2;
    if count < 8 || !par::would_split(count, CRT_PAR_MIN) {
        return crt_slices(e, r, residues);
    }
    let (lo, hi) = r.split_at_mut(mid);
    let lo_res: Vec<&[u64]> = residues.iter().map(|y| &y[..mid]).collect();
    let hi_res: Vec<&[u64]> = residues.iter().map(|y| &y[mid..]).collect();
    let (carry_lo, mut carry) =
        par::join(count, CRT_PAR_MIN, || crt_split(e, lo, &lo_res), || crt_split(e, hi, &hi_res));
    // `hi` has at least `count − mid >= 3` limbs: the low half's carry adds within it, and
    // at most one unit leaves it.
    let mut c = false;
    for (limb, &x) in hi.iter_mut().zip(&carry_lo) {
        let (s, c1) = limb.overflowing_add(x);
        let (s, c2) = s.overflowing_add(u64::from(c));
        *limb = s;
        c = c1 || c2;
    }
    if c && crate::limbs::incr(&mut hi[3..]) {
        for limb in &mut carry {
            let (s, o) = limb.overflowing_add(1);
            *limb = s;
            if !o {
                break;
            }
        }
    }
    carry
}

/// [`crt_into`] on one thread.
fn crt_slices(e: Engine, r: &mut [u64], residues: &[&[u64]]) -> [u64; 3] {
    static CRT: [OnceLock<Crt>; ENGINES] = [const { OnceLock::new() }; ENGINES];
    static CRT4: OnceLock<Crt4> = OnceLock::new();
    match *e.fields() {
        [f1, f2, f3] => {
            let c = CRT[e.index()].get_or_init(|| Crt::new([f1, f2, f3]));
            crt3_into(e, r, residues, [f1, f2, f3], c)
        }
        [f1, f2, f3, f4] => {
            let c = CRT4.get_or_init(|| Crt4::new([f1, f2, f3, f4]));
            crt4_into(r, residues, [f1, f2, f3, f4], c)
        }
        _ => unreachable!("an engine has three or four primes"),
    }
}

/// Garner's constants for three fields.
pub(super) struct Crt {
    /// `p₁⁻¹ mod p₂`, Montgomery form.
    pub(super) inv_p1_mod_p2: u64,
    /// `p₁ mod p₃`, Montgomery form.
    pub(super) p1_mod_p3: u64,
    /// `(p₁p₂)⁻¹ mod p₃`, Montgomery form.
    pub(super) inv_p1p2_mod_p3: u64,
    /// `p₁p₂`.
    pub(super) p1p2: u128,
}

impl Crt {
    pub(super) fn new([f1, f2, f3]: [Field; 3]) -> Crt {
        let inv = |x: u64, f: Field| f.to_mont(pow_mod(x % f.p, f.p - 2, f.p));
        let p1p2_mod_p3 = ((u128::from(f1.p) * u128::from(f2.p)) % u128::from(f3.p)) as u64;
        Crt {
            inv_p1_mod_p2: inv(f1.p, f2),
            p1_mod_p3: f3.to_mont(f1.p % f3.p),
            inv_p1p2_mod_p3: inv(p1p2_mod_p3, f3),
            p1p2: u128::from(f1.p) * u128::from(f2.p),
        }
    }
}

/// [`crt_into`] for three primes; the FMA engine computes Garner's digits in vectors.
pub(super) fn crt3_into(
    e: Engine,
    r: &mut [u64],
    residues: &[&[u64]],
    [f1, f2, f3]: [Field; 3],
    c: &Crt,
) -> [u64; 3] {
    /// Coefficients per batch of digits (on the stack).
    const CHUNK: usize = 256;
    let count = residues[0].len();
    debug_assert!(count <= r.len() && residues.iter().all(|v| v.len() == count));
    let (head, tail) = r.split_at_mut(count);
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    let vector = match e {
        Engine::Fma(t, _) => {
            let balanced = |f: Field, m: u64| {
                let x = f.redc(u128::from(m)); // plain
                if x > f.p / 2 { x as f64 - f.p as f64 } else { x as f64 }
            };
            let k = crate::arch::ntt::fmacore::Garner3 {
                p2: f2.p as f64,
                p3: f3.p as f64,
                inv_p1_mod_p2: balanced(f2, c.inv_p1_mod_p2),
                p1_mod_p3: balanced(f3, c.p1_mod_p3),
                inv_p1p2_mod_p3: balanced(f3, c.inv_p1p2_mod_p3),
            };
            Some((t, k))
        }
        _ => None,
    };
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    let _ = e;
    // The running sum of the coefficients that reach the current limb: 192 bits.
    let (mut acc0, mut acc1, mut acc2) = (0u64, 0u64, 0u64);
    let (mut t2s, mut t3s) = ([0u64; CHUNK], [0u64; CHUNK]);
    for (start, out) in (0..count).step_by(CHUNK).zip(head.chunks_mut(CHUNK)) {
        let ys = [0, 1, 2].map(|k| &residues[k][start..start + out.len()]);
        #[allow(unused_mut)]
        let mut done = 0;
        #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
        if let Some((t, k)) = &vector {
            done = t.garner3(ys, &mut t2s[..out.len()], &mut t3s[..out.len()], k);
        }
        for i in done..out.len() {
            // x = y1 + p₁·t2 + p₁p₂·t3 with t2 < p₂ and t3 < p₃.
            let (y1, y2, y3) = (ys[0][i], ys[1][i], ys[2][i]);
            let y1_2 = f2.fix(y1, f2.p); // y1 mod p₂, as p₁ < 2·p₂
            let t2 = f2.mul(f2.sub(y2, y1_2), c.inv_p1_mod_p2);
            let y1_3 = f3.fix(y1, f3.p);
            let u = f3.add(y1_3, f3.mul(t2, c.p1_mod_p3));
            t2s[i] = t2;
            t3s[i] = f3.mul(f3.sub(y3, u), c.inv_p1p2_mod_p3);
        }
        for (i, limb) in out.iter_mut().enumerate() {
            let (y1, t2, t3) = (ys[0][i], t2s[i], t3s[i]);
            debug_assert!(t2 < f2.p && t3 < f3.p);
            // Sum the three terms into the accumulator.
            let lo = u128::from(y1) + u128::from(t2) * u128::from(f1.p); // < 2¹²⁵
            let hi_lo = u128::from(t3) * (c.p1p2 as u64 as u128);
            let hi_hi = u128::from(t3) * (c.p1p2 >> 64);
            // x = lo + hi_lo + hi_hi·2⁶⁴, added limb by limb with the carries.
            let s0 = u128::from(acc0) + (lo as u64 as u128) + (hi_lo as u64 as u128);
            let s1 =
                u128::from(acc1) + (lo >> 64) + (hi_lo >> 64) + (hi_hi as u64 as u128) + (s0 >> 64);
            let s2 = u128::from(acc2) + (hi_hi >> 64) + (s1 >> 64);
            debug_assert!(s2 >> 64 == 0, "NTT coefficient sum overflows 192 bits");
            *limb = s0 as u64;
            (acc0, acc1, acc2) = (s1 as u64, s2 as u64, 0);
        }
    }
    for limb in tail {
        *limb = acc0;
        (acc0, acc1, acc2) = (acc1, acc2, 0);
    }
    [acc0, acc1, acc2]
}

/// Garner's constants for four fields (the mixed-radix form
/// `x = t₁ + p₁(t₂ + p₂(t₃ + p₃t₄))`), each `p_i⁻¹ mod p_j` in Montgomery form mod `p_j`.
pub(super) struct Crt4 {
    pub(super) inv_p1_mod_p2: u64,
    pub(super) inv_p1_mod_p3: u64,
    pub(super) inv_p2_mod_p3: u64,
    pub(super) inv_p1_mod_p4: u64,
    pub(super) inv_p2_mod_p4: u64,
    pub(super) inv_p3_mod_p4: u64,
}

impl Crt4 {
    pub(super) fn new([f1, f2, f3, f4]: [Field; 4]) -> Crt4 {
        let inv = |x: u64, f: Field| f.to_mont(pow_mod(x % f.p, f.p - 2, f.p));
        Crt4 {
            inv_p1_mod_p2: inv(f1.p, f2),
            inv_p1_mod_p3: inv(f1.p, f3),
            inv_p2_mod_p3: inv(f2.p, f3),
            inv_p1_mod_p4: inv(f1.p, f4),
            inv_p2_mod_p4: inv(f2.p, f4),
            inv_p3_mod_p4: inv(f3.p, f4),
        }
    }
}

/// [`crt_into`] for four primes below `2⁵⁰`, each below twice any other (so one
/// [`Field::fix`] reduces a residue of one modulo another). The coefficients are below
/// `N·2¹²⁸ ≤ 2¹⁶⁰` (`N ≤ 2³²`), so the running sum still fits 192 bits.
pub(super) fn crt4_into(
    r: &mut [u64],
    residues: &[&[u64]],
    [f1, f2, f3, f4]: [Field; 4],
    c: &Crt4,
) -> [u64; 3] {
    let count = residues[0].len();
    debug_assert!(count <= r.len() && residues.iter().all(|v| v.len() == count));
    let (head, tail) = r.split_at_mut(count);
    let (mut acc0, mut acc1, mut acc2) = (0u64, 0u64, 0u64);
    let ys = residues[0].iter().zip(residues[1]).zip(residues[2]).zip(residues[3]);
    for (limb, (((&y1, &y2), &y3), &y4)) in head.iter_mut().zip(ys) {
        // Mixed-radix digits: t₁ = y₁; t₂ = (y₂ − t₁)/p₁ mod p₂;
        // t₃ = ((y₃ − t₁)/p₁ − t₂)/p₂ mod p₃; t₄ = (((y₄ − t₁)/p₁ − t₂)/p₂ − t₃)/p₃ mod p₄.
        let t2 = f2.mul(f2.sub(y2, f2.fix(y1, f2.p)), c.inv_p1_mod_p2);
        let u = f3.mul(f3.sub(y3, f3.fix(y1, f3.p)), c.inv_p1_mod_p3);
        let t3 = f3.mul(f3.sub(u, f3.fix(t2, f3.p)), c.inv_p2_mod_p3);
        let v = f4.mul(f4.sub(y4, f4.fix(y1, f4.p)), c.inv_p1_mod_p4);
        let v = f4.mul(f4.sub(v, f4.fix(t2, f4.p)), c.inv_p2_mod_p4);
        let t4 = f4.mul(f4.sub(v, f4.fix(t3, f4.p)), c.inv_p3_mod_p4);
        // x = t₁ + p₁(t₂ + p₂(t₃ + p₃t₄)), from the inside out (100, 150, 200 bits).
        let v = u128::from(t4) * u128::from(f3.p) + u128::from(t3);
        let lo = u128::from(v as u64) * u128::from(f2.p) + u128::from(t2);
        let hi = (v >> 64) * u128::from(f2.p) + (lo >> 64);
        let (w0, w1, w2) = (lo as u64, hi as u64, (hi >> 64) as u64);
        let m0 = u128::from(w0) * u128::from(f1.p) + u128::from(y1);
        let m1 = u128::from(w1) * u128::from(f1.p) + (m0 >> 64);
        let m2 = u128::from(w2) * u128::from(f1.p) + (m1 >> 64);
        debug_assert!(m2 >> 64 == 0, "NTT coefficient above 192 bits");
        let s0 = u128::from(acc0) + (m0 as u64 as u128);
        let s1 = u128::from(acc1) + (m1 as u64 as u128) + (s0 >> 64);
        let s2 = u128::from(acc2) + (m2 as u64 as u128) + (s1 >> 64);
        debug_assert!(s2 >> 64 == 0, "NTT coefficient sum overflows 192 bits");
        *limb = s0 as u64;
        (acc0, acc1) = (s1 as u64, s2 as u64);
        acc2 = 0;
    }
    for limb in tail {
        *limb = acc0;
        (acc0, acc1, acc2) = (acc1, acc2, 0);
    }
    [acc0, acc1, acc2]
}

/// `p_i⁻¹ mod p_j` (`i < j`) for [`WIDE_FIELDS`], as Shoup's pairs `(c, ⌊c·2⁶⁴/p_j⌋)`.
pub(super) fn wide_inverses() -> &'static [[[u64; 2]; 5]; 5] {
    static INV: OnceLock<[[[u64; 2]; 5]; 5]> = OnceLock::new();
    INV.get_or_init(|| {
        let mut inv = [[[0u64; 2]; 5]; 5];
        for (i, row) in inv.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate().skip(i + 1) {
                let (fi, fj) = (WIDE_FIELDS[i], WIDE_FIELDS[j]);
                let c = pow_mod(fi.p % fj.p, fj.p - 2, fj.p);
                *v = fj.shoup_pair(c);
            }
        }
        inv
    })
}

/// `r` = the sum of the coefficients `x_i` (from their residues modulo the first `P` of
/// [`WIDE_FIELDS`], each in `[0, p)`) times `2^(bits·i)`; `r` is overwritten.
#[allow(clippy::needless_range_loop)] // `i` indexes every prime's residues and the bits
pub(super) fn wide_crt_into<const P: usize>(bits: usize, r: &mut [u64], residues: &[Vec<u64>]) {
    let inv = wide_inverses();
    let fields = &WIDE_FIELDS[..P];
    let residues: [&[u64]; P] = core::array::from_fn(|j| &residues[j][..]);
    let count = residues[0].len();
    debug_assert!(residues.iter().all(|v| v.len() == count));
    r.fill(0);
    for i in 0..count {
        // Garner's digits: t_j = (…((y_j − t₁)/p₁ − t₂)/p₂ … − t_{j−1})/p_{j−1} mod p_j, as in
        // `crt4_into` (the primes are within a factor 2 of each other, so one `fix` reduces
        // a digit modulo another prime), the products Shoup's, in `[0, 2p_j)` until the last.
        let mut t = [0u64; P];
        for j in 0..P {
            let fj = fields[j];
            let mut v = residues[j][i];
            for k in 0..j {
                v = fj.mul_shoup(v + fj.p - fj.fix(t[k], fj.p), inv[k][j]); // of a value < 3p_j
            }
            t[j] = v.min(v.wrapping_sub(fj.p));
        }
        // x = t₁ + p₁(t₂ + p₂(… + p_{P−1}·t_P)), Horner from the inside out, one more limb
        // at each step: below 2^(62·P) (at most five limbs), and a sixth for the shift.
        let mut x = [0u64; 7];
        x[0] = t[P - 1];
        for (len, k) in (0..P - 1).rev().enumerate() {
            let mut carry = u128::from(t[k]);
            for l in &mut x[..=len] {
                let v = u128::from(*l) * u128::from(fields[k].p) + carry;
                *l = v as u64;
                carry = v >> 64;
            }
            x[len + 1] = carry as u64;
        }
        // Shifted to its bit offset within the limb (`P + 1` limbs).
        let bit = bits * i;
        let (q, off) = (bit / 64, (bit % 64) as u32);
        if off != 0 {
            for j in (1..=P).rev() {
                x[j] = x[j] << off | x[j - 1] >> (64 - off);
            }
            x[0] <<= off;
        }
        let mut carry = false;
        if let Some(dst) = r.get_mut(q..q + P + 1) {
            for (d, &a) in dst.iter_mut().zip(&x[..=P]) {
                let (s, c1) = d.overflowing_add(a);
                let (s, c2) = s.overflowing_add(u64::from(carry));
                *d = s;
                carry = c1 | c2;
            }
            for d in r[q + P + 1..].iter_mut() {
                if !carry {
                    break;
                }
                (*d, carry) = d.overflowing_add(1);
            }
        } else {
            // The top coefficients: their high limbs are zero past `r`.
            for (j, d) in r[q..].iter_mut().enumerate() {
                let (s, c1) = d.overflowing_add(x[j]);
                let (s, c2) = s.overflowing_add(u64::from(carry));
                *d = s;
                carry = c1 | c2;
            }
            debug_assert!(x[r.len() - q..].iter().all(|&l| l == 0), "wide product overflow");
        }
        debug_assert!(!carry, "wide product overflow");
    }
}
