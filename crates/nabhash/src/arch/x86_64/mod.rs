//! x86_64 backends: AES-NI (one xmm per lane; also the short kernels every backend shares,
//! with a masked load where AVX-512 BW is there), AES-NI with AVX2 or AVX-512 (v2's long path
//! with ymm loads and additions; with 32 registers), VAES on two ymm, VAES on one zmm.

pub(crate) mod aesni;
pub(crate) mod aesni_avx2;
pub(crate) mod vaes;
