//! x86_64 backends.

pub(crate) mod aesni;
