//! x86_64 backends: AES-NI (one xmm per lane), VAES on two ymm, VAES on one zmm.

pub(crate) mod aesni;
pub(crate) mod vaes;
