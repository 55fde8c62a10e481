//! Backend selection, declared once with `nab-isa`'s dispatch shape: the backends and their
//! tokens in one [`backends!`](nab_isa::backends) list, which generates `Backend`'s surface
//! and `each_backend!`, the match that runs a kernel on the backend's token. Detection
//! happens once per process (in `nab-isa`, under the `NAB_MAX_ISA` cap) and not at all when
//! the features are enabled at compile time. `--cfg b64_backend="portable"` forces the scalar
//! code for the whole build (a cfg, never a Cargo feature).
//!
//! Each method runs the backend's kernel through the inlined match (no cached pointer: an
//! engine may carry its own backend, `with_backend`, and the kernels are generic over `Io`),
//! then the scalar code of `portable` from where the kernel stopped. An engine without its
//! own backend takes [`Backend::chosen`]: on x86_64 the detected backend kept as one byte
//! (`arch::x86_64::chosen`), so a short call does not run a probe per backend before its own.
//! Below `decode` and `encode`, above `arch/` and `portable`.

use crate::alphabet::Alphabet;
// Unused where no kernel exists (mips64, riscv64 without V).
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
use crate::arch::aarch64::neon::Neon;
#[cfg(all(target_arch = "riscv64", b64_rvv))]
use crate::arch::riscv64::rvv::Rvv;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    avx512bw::Avx512Bw,
    avx512vbmi::Avx512Vbmi,
    pshufb::{Avx2, Ssse3},
};
use crate::io::Io;
use crate::kernels::{Kernels, ShortRules};
use crate::portable;

nab_isa::backends! {
    /// One implementation of the bulk loops. A value exists only for backends the running CPU
    /// supports, so any `Backend` may be used without further checks.
    ///
    /// Tests and benches use this to run every backend (see [`backends`]); applications use
    /// the `Engine` methods, which pick the fastest.
    pub struct Backend(enum Kind at crate::dispatch::Kind);
    compare by tokens;
    /// Runs `$body` with `$t` bound to the token of `$backend`'s kind.
    macro each_backend;
    /// Every backend usable on this CPU, portable first, then in increasing order of
    /// preference.
    pub fn backends() in portable_first order;
    forced portable if cfg(b64_backend = "portable");
    /// The scalar code, available everywhere.
    const PORTABLE = Portable(Portable) = "portable" => Portable;
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi(Avx512Vbmi) = "avx512vbmi" => Avx512Vbmi::new();
    #[cfg(target_arch = "x86_64")]
    Avx512Bw(Avx512Bw) = "avx512bw" => Avx512Bw::new();
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2) = "avx2" => Avx2::new();
    #[cfg(target_arch = "x86_64")]
    Ssse3(Ssse3) = "ssse3" => Ssse3::new();
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Neon(Neon) = "neon" => Neon::new();
    #[cfg(all(target_arch = "riscv64", b64_rvv))]
    Rvv(Rvv) = "rvv" => Rvv::new();
}

/// The portable backend's token. It has no kernel: its `encode` and `decode` do nothing and
/// every other path declines (the trait's defaults), so the scalar code of `portable` and
/// `decode` does all the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn encode(self, _alphabet: &Alphabet, _src: &[u8], _dst: &mut [u8]) -> usize {
        0
    }
    #[inline(always)]
    fn decode<I: Io + ?Sized>(
        self,
        _alphabet: &Alphabet,
        _io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        (i, j)
    }
}

impl Backend {
    /// [`Backend::detect`]'s answer as the engines take it: on x86_64 from the byte
    /// [`best`](crate::arch::x86_64::best) keeps (one load, not a probe per backend).
    #[inline]
    pub(crate) fn chosen() -> Backend {
        #[cfg(all(target_arch = "x86_64", not(b64_backend = "portable")))]
        {
            use crate::arch::x86_64::chosen::{Best, best};
            match best() {
                Best::Vbmi(t) => Backend(Kind::Avx512Vbmi(t)),
                Best::Bw(t) => Backend(Kind::Avx512Bw(t)),
                Best::Avx2(t) => Backend(Kind::Avx2(t)),
                Best::Ssse3(t) => Backend(Kind::Ssse3(t)),
                Best::Portable => Backend::PORTABLE,
            }
        }
        #[cfg(not(all(target_arch = "x86_64", not(b64_backend = "portable"))))]
        Backend::detect()
    }
}

// The kernels a `Backend` runs, each listed once (the contracts are `Kernels`').
impl Backend {
    /// Encodes whole 3-byte groups (kernel, then scalar); returns the bytes consumed. `dst`
    /// has room for all of them.
    #[inline]
    pub(crate) fn encode_bulk(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let done = each_backend!(self, t => t.encode(alphabet, src, dst));
        let out = done / 3 * 4;
        done + portable::encode_bulk(alphabet.symbols(), &src[done..], &mut dst[out..])
    }

    /// [`Kernels::encode_all`] of the backend, where it has one (`dst` is exactly the encoded
    /// length); returns whether it did.
    #[inline(always)]
    pub(crate) fn encode_all(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        pad: bool,
    ) -> bool {
        each_backend!(self, t => t.encode_all(alphabet, src, dst, pad))
    }

    /// [`Kernels::encode_lines`] of the backend (`(0, 0)` where it has none).
    #[inline]
    pub(crate) fn encode_lines(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        width: usize,
        crlf: bool,
    ) -> (usize, usize) {
        each_backend!(self, t => t.encode_lines(alphabet, src, dst, width, crlf))
    }

    /// [`Kernels::decode_short`] of the backend, where it has one.
    #[inline(always)]
    pub(crate) fn decode_short(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        short: ShortRules,
    ) -> Option<usize> {
        each_backend!(self, t => t.decode_short(alphabet, src, dst, short))
    }

    /// [`Kernels::decode_lines`] of the backend (`(i, j)` back where it has none).
    #[inline]
    pub(crate) fn decode_lines<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        crlf: bool,
    ) -> (usize, usize) {
        each_backend!(self, t => t.decode_lines(alphabet, io, i, j, w, crlf))
    }

    /// [`Kernels::decode_lines_sep`] of the backend (`(i, j)` back where it has none).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn decode_lines_sep<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        sep: u64,
        sep_len: usize,
    ) -> (usize, usize) {
        each_backend!(self, t => t.decode_lines_sep(alphabet, io, i, j, w, sep, sep_len))
    }

    /// Copies `src` less its whitespace (`Kernels::compact`: ASCII whitespace, or `\n` alone
    /// if `newlines_only`) into `dst` (kernel, then scalar) until either ends; returns
    /// `(read, written)`.
    #[inline]
    pub(crate) fn compact(self, src: &[u8], dst: &mut [u8], newlines_only: bool) -> (usize, usize) {
        let (i, o) = each_backend!(self, t => t.compact(src, dst, newlines_only));
        let (i2, o2) = portable::compact(&src[i..], &mut dst[o..], newlines_only);
        (i + i2, o + o2)
    }

    /// Decodes whole groups of 4 symbols from `(i, j)` (kernel, then scalar) until a group
    /// holds a non-symbol or the output is full; returns the new `(i, j)`.
    #[inline(always)]
    pub(crate) fn decode_bulk<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        let (i, j) = each_backend!(self, t => t.decode(alphabet, io, i, j));
        // The kernel took the whole text (the common case): no call for the scalar rest.
        if i == io.input().len() {
            return (i, j);
        }
        portable::decode_bulk(alphabet.decode_table(), io, i, j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engines' cached choice is `detect`'s, the first of the `backends!` list this CPU
    /// (under the cap) allows, on the first call and the next (the portable backend when a
    /// build forces it).
    #[test]
    fn chosen_is_detected() {
        assert_eq!(Backend::chosen(), Backend::detect());
        assert_eq!(Backend::chosen(), Backend::detect());
        if cfg!(b64_backend = "portable") {
            assert_eq!(Backend::detect(), Backend::PORTABLE);
        } else {
            assert_eq!(Some(Backend::detect()), backends().last());
        }
    }
}
