//! aarch64 backends.

pub(crate) mod aes;
