//! x86_64 backends: AES-NI (one xmm per lane), AES-NI with AVX2 (v2's long path with ymm
//! loads and additions), VAES on two ymm, VAES on one zmm.

pub(crate) mod aesni;
pub(crate) mod aesni_avx2;
pub(crate) mod vaes;
