//! x86_64 kernels: AVX-512 VBMI, AVX-512 BW (encode; AVX2's decode), and AVX2 and SSSE3
//! (`pshufb/`, one algorithm over two register widths). The alphabet and the reverse table
//! are data (registers), so every alphabet runs on every kernel.

pub(crate) mod avx512bw;
pub(crate) mod avx512vbmi;
pub(crate) mod pshufb;
