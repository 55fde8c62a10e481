//! The FMA engine's kernels in eight lanes (AVX-512F): `fmacore::Lanes` for `__m512d`, which
//! instantiates the transform of `fmacore` (same representation, same bounds:
//! see there) on `zmm` registers, for the stages of
//! half-length `h ≥ 8`, the pointwise products, loading and unloading; the shorter stages
//! stay four-lane.

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
    // The stages shorter than a vector stay four-lane (`crate::arch::ntt::fma`).
    stage_min_h: 8,
    generic: [
        stage, stage2, stage2_lower_half, pointwise, load, unload, comb, fold, load_wide,
        garner5,
    ],
    own: [],
}

/// Round to nearest, no exceptions.
const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

fmacore::lanes! {
    __m512d, 8,
    splat: _mm512_set1_pd, load: _mm512_loadu_pd, store: _mm512_storeu_pd,
    add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd,
    unpack_lo: _mm512_unpacklo_pd, unpack_hi: _mm512_unpackhi_pd,
    fmsub: _mm512_fmsub_pd, fnmadd: _mm512_fnmadd_pd,
    {
        #[inline(always)]
        unsafe fn round(a: Self) -> Self {
            // SAFETY: register-only AVX-512F operation.
            unsafe { _mm512_roundscale_pd::<NEAREST>(a) }
        }
        #[inline(always)]
        unsafe fn correct(r: Self, p: Self) -> Self {
            // SAFETY: register-only AVX-512F operations (a masked add on the negative lanes).
            unsafe {
                let negative = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(r, _mm512_setzero_pd());
                _mm512_mask_add_pd(r, negative, r, p)
            }
        }
        fmacore::x86_u52! {
            set1_epi64: _mm512_set1_epi64, loadu_si: _mm512_loadu_si512,
            storeu_si: _mm512_storeu_si512, or_si: _mm512_or_si512, and_si: _mm512_and_si512,
            srli32_epi64: _mm512_srli_epi64::<32>, sub_epi64: _mm512_sub_epi64,
            add_pd: _mm512_add_pd, sub_pd: _mm512_sub_pd, castsi_pd: _mm512_castsi512_pd,
            castpd_si: _mm512_castpd_si512,
        }
    }
}
