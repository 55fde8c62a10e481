//! The FMA engine's eight-lane kernels (AVX-512F, `__m512d`), for the stages of half-length
//! `h ≥ 8`, the pointwise products, loading, unloading and the prefix kernels; the shorter
//! stages stay four-lane (`fma`). Only the token [`Fma8`] is this width's own: its
//! intrinsics are the second column of `fma`'s x86 table, and its entry points are generated
//! by `fmacore::fma_entry_points` (same representation, same bounds: see `fmacore`).

use core::arch::x86_64::*;

use super::fmacore;

nab_isa::token! {
    /// Proof that AVX-512F, AVX2 and FMA may be used (x86-64-v4 has them): the CPU (and the
    /// OS, for the zmm state) supports them and `NAB_MAX_ISA` allows them, or the build
    /// enables them. Only `Fma8::new` makes one.
    pub(crate) struct Fma8 = AVX512F | AVX2 | FMA;
}

fmacore::fma_entry_points! {
    token: Fma8,
    lanes: __m512d,
    feature: "avx512f,avx2,fma",
    // The stages shorter than a vector stay four-lane (`fma`).
    stage_min_h: 8,
    generic: [
        stage, stage2, stage2_part, stage2_lower_half, stage2_lower_half_part, pointwise, load,
        unload, comb, fold, load_wide, garner5,
    ],
    own: [],
}
