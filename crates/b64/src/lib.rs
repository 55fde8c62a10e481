//! SIMD base64 (RFC 4648) at close to memory-copy speed, with strict decoding by default, a
//! forgiving (WHATWG) mode, exact error offsets, and `no_std` + `alloc` support. The API is
//! base64 0.22's (`Engine`, `engine::general_purpose`, `prelude`, `read`, `write`, `display`):
//! code written for base64 compiles with the crate name changed, except where it names an
//! error's fields (ours carry the offset).
//!
//! ```
//! use b64::prelude::*;
//!
//! assert_eq!(BASE64_STANDARD.encode(b"Many hands make light work."),
//!            "TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu");
//! assert_eq!(BASE64_STANDARD.decode("aGk=")?, b"hi");
//! // Errors say what and where.
//! assert_eq!(BASE64_STANDARD.decode("aG!="),
//!            Err(b64::DecodeError::InvalidByte { offset: 2, byte: b'!' }));
//! // Forgiving decoding (WHATWG): whitespace anywhere, padding optional.
//! assert_eq!(BASE64_FORGIVING.decode(" aG\r\nk ")?, b"hi");
//! # Ok::<(), b64::DecodeError>(())
//! ```
//!
//! # Engines
//!
//! An [`Engine`] is an [`Alphabet`](alphabet::Alphabet) plus rules
//! ([`GeneralPurposeConfig`](engine::GeneralPurposeConfig)):
//! [`STANDARD`](engine::general_purpose::STANDARD) and
//! [`URL_SAFE`](engine::general_purpose::URL_SAFE) pad on encode and require canonical padding
//! on decode; [`STANDARD_NO_PAD`](engine::general_purpose::STANDARD_NO_PAD) and
//! [`URL_SAFE_NO_PAD`](engine::general_purpose::URL_SAFE_NO_PAD) neither write nor accept it;
//! [`FORGIVING`](engine::general_purpose::FORGIVING) is WHATWG's forgiving-base64 over the
//! standard alphabet. [`GeneralPurpose::new`](engine::GeneralPurpose::new) with an alphabet
//! and a configuration builds any other combination, custom alphabets included (e.g.
//! [`alphabet::CRYPT`], [`alphabet::BCRYPT`]). The [`prelude`] has the trait and the
//! ready-made engines as `BASE64_STANDARD`, ...
//!
//! # Strictness
//!
//! Strict decoding (the default) rejects any byte outside the alphabet, padding that is
//! missing, misplaced or in excess (as [`DecodePaddingMode`](engine::DecodePaddingMode)
//! says), a symbol count that leaves a
//! remainder of 1, and a last symbol whose unused low bits are not zero (non-canonical input).
//! [`DecodeError`] gives the first problem and its byte offset in the input.
//!
//! # Backends
//!
//! | arch | backends, most preferred first |
//! | --- | --- |
//! | x86_64 | `avx512vbmi`: `vpermb` + `vpmultishiftqb` encode, `vpermi2b` decode, tails in exact-width loads and stores; `avx512bw` (AVX-512 without VBMI): the `avx2` encode on 512-bit registers (up to 144 bytes in 256-bit blocks read by masked loads), `avx2`'s decode; `avx2` and `ssse3`: `pshufb` (Muła–Lemire: multiply-shift encode with a run lookup, nibble-table validation and decode; tables computed from the alphabet, with a general lookup for alphabets they do not fit) |
//! | aarch64 | `neon`: `ld3` + shifts + `tbl` over the 64-byte alphabet + `st4`; `ld4` + `tbl`/`tbx` + shift-insert + `st3`, and the line loop for wrapped text of 64 columns and up |
//! | riscv64 built with `+v` | `rvv`: RVV 1.0 in `global_asm!`, any VLEN >= 128 (tested at 128 and 256) |
//! | everything, incl. big-endian mips64 | `portable`: 64-bit words, endian-correct |
//!
//! Every kernel takes the alphabet as data (tables in registers), so URL-safe and custom
//! alphabets run as fast as the standard one. The choice is made once per process (x86_64:
//! CPUID through `nab-isa`, cached, under the `NAB_MAX_ISA` cap below); aarch64 and riscv64
//! kernels are chosen at compile time. `--cfg b64_backend="portable"` forces the scalar code. A kernel stops at the first group of 4 bytes holding a non-symbol; the scalar code
//! continues from there and reports the exact offset, so every backend gives the same result
//! and the same error on every input.
//!
//! Two shapes of input stay on the kernels: a padded or partial last group (`xy==`, `xyz=`,
//! `xy`, `xyz`) is checked and decoded in the vector registers with the rest of a short text
//! (up to 256 symbols in one kernel call on every x86_64 backend) or right after the bulk of
//! a longer one, and forgiving
//! decoding of text in lines of one width with one ending (`\n` or `\r\n`: `base64`, MIME,
//! PEM) measures the shape at a line break, then decodes the lines straight from the input
//! with the x86_64 and NEON kernels' line loops when the width is a multiple of 4 (64 and 76 columns
//! unrolled; 76 columns two lines at a time on AVX2, 68-76 columns four lines at a time on
//! AVX-512 VBMI; a text in such lines goes to the line loop from its first byte at 76 and 64
//! columns, from the first line's end at other widths, and its last line to the short
//! path), or copies the line bodies
//! into a buffer and decodes it in long kernel runs otherwise; it goes back to the
//! byte-by-byte path wherever the shape breaks (so errors and their offsets do not change).
//! Wrapped encoding encodes blocks of whole lines into a buffer that stays in L1 and copies
//! each line to its place.
//!
//! # Adding a backend
//!
//! For contributors; the files to touch, in order (`arch/aarch64/neon.rs` is the smallest
//! example):
//!
//! 1. `src/arch/<isa>/<name>.rs`: a token, zero-sized, that only a check makes (so holding one
//!    proves it): `nab_isa::token!` for features detected at run time (as `Ssse3`), or a plain
//!    struct in a module compiled only under the `target_feature` (as `Neon`); and
//!    `impl Kernels` for it. `src/kernels.rs`
//!    lists the methods and their contracts: `encode` and `decode` are required, the short,
//!    whole-input and line paths have defaults that decline. `#[target_feature]` goes on thin
//!    entry functions only, helpers are `#[inline(always)]`, and every `unsafe` block says
//!    why it is sound.
//! 2. `src/arch/<isa>/mod.rs`: declare the module.
//! 3. `src/dispatch.rs`: one line in the `nab_isa::backends!` list, in order of preference
//!    (variant, token, name, probe: `Neon(Neon) = "neon" => Neon::new();`), under the
//!    module's `cfg`. `Backend`'s surface, `backends()` and `each_backend!` (which every
//!    kernel method goes through) follow from it; only a backend whose plain code gains from
//!    its features enabled adds its arm to `Backend::with_features` (as `Avx2`).
//! 4. Tests need nothing new: `tests/backends.rs` runs every backend `backends()` lists
//!    against the byte-at-a-time reference, on the vectors of `tests/data/` and random
//!    input. Add the backend to the table above and, for a new `NAB_MAX_ISA` tier, to the
//!    one below.
//!
//! # `NAB_MAX_ISA`
//!
//! The environment variable that caps run-time detection in every crate of the workspace
//! (see `nab-isa`), read once at the first dispatch:
//!
//! | `NAB_MAX_ISA` | x86_64 backend |
//! | --- | --- |
//! | unset (or not a tier name: ignored) | the best the CPU has |
//! | `x86-64-v4` | `avx512bw` (AVX-512 VBMI is not in v4) |
//! | `x86-64-v3` | `avx2` |
//! | `x86-64-v2` | `ssse3` |
//! | `portable` | `portable` |
//!
//! Always at most what the CPU has. Features enabled at compile time win: a build with
//! `-C target-cpu=x86-64-v3` keeps `avx2` under any cap, and NEON (aarch64) and RVV
//! (riscv64) are compile-time choices that no cap changes. Without `std` the cap still
//! applies when anything in the program enables `nab-isa/std`; otherwise call
//! `nab_isa::set_cap` before the first encode or decode.
//!
//! # Features
//!
//! - `std` (default): [`read::DecoderReader`], [`write::EncoderWriter`],
//!   [`write::EncoderStringWriter`]. Implies `alloc`.
//! - `alloc`: [`Engine::encode`], [`Engine::decode`] and the other allocating calls.
//!
//! Without them the crate is `no_std`: `encode_slice`, `decode_slice`, `decode_in_place`, the
//! wrapped encodes into slices and [`display::Base64Display`] work. The error types implement
//! `core::error::Error` (= `std::error::Error`) with or without `std`.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod alphabet;
mod arch;
mod config;
mod decode;
mod dispatch;
pub mod display;
mod encode;
pub mod engine;
mod error;
mod io;
mod kernels;
mod portable;
pub mod prelude;
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
pub mod read;
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
pub mod write;

#[doc(hidden)]
pub use dispatch::{Backend, backends};
pub use engine::Engine;
pub use error::{BufferTooSmall, DecodeError, DecodeSliceError};

/// Length of the encoding of `n` bytes, with or without padding (`None` on overflow).
///
/// ```
/// assert_eq!(b64::encoded_len(5, true), Some(8));
/// assert_eq!(b64::encoded_len(5, false), Some(7));
/// ```
#[inline]
pub const fn encoded_len(n: usize, padding: bool) -> Option<usize> {
    let groups = n / 3;
    let rem = n % 3;
    let Some(whole) = groups.checked_mul(4) else { return None };
    let tail = match (rem, padding) {
        (0, _) => 0,
        (_, true) => 4,
        (r, false) => r + 1,
    };
    whole.checked_add(tail)
}

/// An upper bound of the decoded length of `n` bytes of text (exact for strict input
/// without padding whose length is a multiple of 4).
pub const fn decoded_len_estimate(n: usize) -> usize {
    n / 4 * 3 + if n.is_multiple_of(4) { 0 } else { 3 }
}

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
