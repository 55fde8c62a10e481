//! The wide FMA products' recombination: the coefficients, from their Garner digits, summed
//! at bit `116·i` in Horner's form over whole numbers ([`fma_wide_recombine`]). Plain integer
//! arithmetic, compiled everywhere so that the unit tests check it on every target.

use super::field::{FIELDS52, LOW52};

/// `w = t₄ + p₄t₅` (below `2¹⁰⁰`) as `[w mod 2⁵², ⌊w/2⁵²⌋]`, the last two of the rows that
/// [`fma_wide_recombine`] takes (as `Fma::garner5` writes them).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) fn wide_w(t4: u64, t5: u64) -> [u64; 2] {
    let w = u128::from(t4) + u128::from(FIELDS52[3].p) * u128::from(t5);
    [w as u64 & LOW52, (w >> 52) as u64]
}

/// Where the values of [`fma_wide_recombine`]'s rows sit in their 116-bit slots: bit offset
/// and width. The digits `t₁`, `t₂`, `t₃` (below `2⁵⁰`) at the slot's start, `w = t₄ + p₄t₅`
/// as its low 52 bits at the start and its high 48 bits from bit 52 (so the two rows' limbs
/// add without carries).
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) const WIDE_ROWS: [(usize, usize); 5] = [(0, 50), (0, 50), (0, 50), (0, 52), (52, 48)];

/// `r = Σᵢ xᵢ·2^(116·i)` for the wide FMA products' coefficients `xᵢ = t₁ + p₁t₂ + p₁p₂t₃ +
/// p₁p₂p₃t₄ + p₁…p₄t₅` (below `2²⁵⁰`), from their Garner digits `t_j < p_j` ([`FIELDS52`])
/// given as the rows `t[0..3] = t₁, t₂, t₃` and `t[3..5]` = [`wide_w`]`(t₄, t₅)`; `r` is
/// overwritten and must hold the sum (`r.len()` limbs).
///
/// In Horner's form over whole numbers, one pass over `r`: with `T_j = Σᵢ t[j][i]·2^(116·i)`
/// and `W = Σᵢ wᵢ·2^(116·i)` (the values packed 116 bits apart: each limb holds bits of at
/// most one value of a row, as a value's at most 52 bits are followed by a gap of at least
/// 64), `r = T₁ + p₁(T₂ + p₂(T₃ + p₃W))`. The three products by a prime run limb by limb,
/// each with its own carry ([`WideHorner`]), so a limb of `r` costs three `64×64` products
/// (the fourth, `p₄t₅`, is `Fma::garner5`'s, in vectors), where the coefficients' column
/// sums took ten per coefficient (1.8 limbs) and a shift. Every partial sum (`T₃ + p₃W`, …)
/// is at most `r`, so all fit in `r.len()` limbs and no carry leaves the last. The rows'
/// layout repeats every 16 values (`16·116 = 29·64` bits): whole blocks of 29 limbs take
/// their values' shifts as constants ([`wide_row_limb`]), the rest a general loop.
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) fn fma_wide_recombine(r: &mut [u64], t: [&[u64]; 5]) {
    let count = t[0].len();
    debug_assert!(t.iter().all(|s| s.len() == count), "five rows of one length");
    let mut h = WideHorner::default();
    // Limb `l` of the four numbers from the rows `t` (from their value 0).
    #[inline(always)]
    fn limbs(t: [&[u64]; 5], l: usize) -> [u64; 4] {
        let limb = |j: usize| wide_row_limb(t[j], l, WIDE_ROWS[j]);
        [limb(0), limb(1), limb(2), limb(3) | limb(4)]
    }
    // Whole blocks: 16 values, 29 limbs.
    let blocks = (count / 16).min(r.len() / 29);
    let chunks = t.map(|s| s.as_chunks::<16>().0);
    let (whole, rest) = r.split_at_mut(29 * blocks);
    for (b, out) in whole.as_chunks_mut::<29>().0.iter_mut().enumerate() {
        let blk = chunks.map(|c| &c[b][..]);
        macro_rules! limbs {
            ($($l:literal)*) => {$(
                out[$l] = h.step(limbs(blk, $l));
            )*};
        }
        limbs!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28);
    }
    // The rest (the limbs past the rows' values are zero).
    let tail = t.map(|s| &s[16 * blocks..]);
    for (l, out) in rest.iter_mut().enumerate() {
        *out = h.step(limbs(tail, l));
    }
    // No carry out of `r`, and no value's bit past it.
    let end = 64 * r.len();
    debug_assert!(
        h.c == [0; 3]
            && t.iter().zip(WIDE_ROWS).all(|(s, (off, _))| {
                (0..count).all(|k| {
                    let skip = end.saturating_sub(116 * k + off);
                    skip >= 64 || s[k] >> skip == 0
                })
            }),
        "wide FMA product overflow"
    );
}

/// Limb `l` of `Σₖ row[k]·2^(116k + off)` (values of at most `width` bits, at most 52:
/// a limb holds bits of one value at most, see [`fma_wide_recombine`]); constant shifts
/// once inlined with constant `l`, `off` and `width`.
#[inline(always)]
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) fn wide_row_limb(row: &[u64], l: usize, (off, width): (usize, usize)) -> u64 {
    // The value with the last start at or below the limb's last bit (an earlier one ends
    // below the limb).
    let Some(k) = (64 * l + 63).checked_sub(off).map(|b| b / 116) else { return 0 };
    let Some(&v) = row.get(k) else { return 0 };
    let start = 116 * k + off;
    if start >= 64 * l {
        v << (start - 64 * l) // its head (the rest in the next limb)
    } else if 64 * l - start < width {
        v >> (64 * l - start) // its tail
    } else {
        0
    }
}

/// The three Horner passes of [`fma_wide_recombine`] (`·p₃ + T₃`, `·p₂ + T₂`, `·p₁ + T₁`),
/// limb by limb: a step runs the three on one limb, each pass's product the last one's
/// limb. Their only state is the three carries, so it stays in registers; the passes'
/// products chain within a step, but the next limb's do not wait for them (only the
/// carries chain from limb to limb), so the processor overlaps the steps.
#[derive(Default)]
#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
pub(super) struct WideHorner {
    /// The passes' carries (below `2⁵¹`).
    pub(super) c: [u64; 3],
}

#[cfg_attr(
    not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))),
    allow(dead_code)
)]
impl WideHorner {
    /// One limb of `T₁`, `T₂`, `T₃` and `W`; returns that limb of `r`.
    #[inline(always)]
    pub(super) fn step(&mut self, [d1, d2, d3, w]: [u64; 4]) -> u64 {
        let [p1, p2, p3, _, _] = FIELDS52.map(|f| u128::from(f.p));
        let [c0, c1, c2] = self.c.map(u128::from);
        let sb = u128::from(d3) + p3 * u128::from(w) + c0;
        let se = u128::from(d2) + p2 * u128::from(sb as u64) + c1;
        let sx = u128::from(d1) + p1 * u128::from(se as u64) + c2;
        self.c = [sb, se, sx].map(|s| (s >> 64) as u64);
        sx as u64
    }
}
