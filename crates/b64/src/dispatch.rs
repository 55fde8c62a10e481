//! Backend selection. Detection happens once per process (in `nab-isa`, under the
//! `NAB_MAX_ISA` cap) and not at all when the features are enabled at compile time.
//! `--cfg b64_backend="portable"` forces the scalar code for the whole build (a cfg, never a
//! Cargo feature). Each method runs the backend's kernel, then the scalar code of `portable`
//! from where the kernel stopped. Below `decode` and `encode`, above `arch/` and `portable`.

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
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)),
    allow(unused_imports)
)]
use crate::kernels::Kernels;
use crate::kernels::{Job, ShortRules};
use crate::portable;

/// One implementation of the bulk loops. A value exists only for backends the running CPU
/// supports, so any `Backend` may be used without further checks.
///
/// Tests and benches use this to run every backend (see [`backends`]); applications use the
/// `Engine` methods, which pick the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Ssse3(Ssse3),
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512Bw(Avx512Bw),
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi(Avx512Vbmi),
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Neon(Neon),
    #[cfg(all(target_arch = "riscv64", b64_rvv))]
    Rvv(Rvv),
}

impl Backend {
    /// The scalar code, available everywhere.
    pub const PORTABLE: Backend = Backend(Kind::Portable);

    /// The fastest backend this CPU supports (what the `Engine` methods use).
    #[inline]
    pub fn detect() -> Backend {
        #[cfg(not(b64_backend = "portable"))]
        {
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = Avx512Vbmi::new() {
                return Backend(Kind::Avx512Vbmi(t));
            } else if let Some(t) = Avx512Bw::new() {
                return Backend(Kind::Avx512Bw(t));
            } else if let Some(t) = Avx2::new() {
                return Backend(Kind::Avx2(t));
            } else if let Some(t) = Ssse3::new() {
                return Backend(Kind::Ssse3(t));
            }
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            if let Some(t) = Neon::new() {
                return Backend(Kind::Neon(t));
            }
            #[cfg(all(target_arch = "riscv64", b64_rvv))]
            if let Some(t) = Rvv::new() {
                return Backend(Kind::Rvv(t));
            }
        }
        Backend::PORTABLE
    }

    /// The backend called `name` (as returned by [`Backend::name`]), if this CPU supports it.
    pub fn by_name(name: &str) -> Option<Backend> {
        backends().find(|b| b.name() == name)
    }

    /// A short stable name: `portable`, `ssse3`, `avx2`, `avx512bw`, `avx512vbmi`, `neon`,
    /// `rvv`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(_) => "ssse3",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(_) => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(_) => "avx512bw",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(_) => "avx512vbmi",
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kind::Neon(_) => "neon",
            #[cfg(all(target_arch = "riscv64", b64_rvv))]
            Kind::Rvv(_) => "rvv",
        }
    }

    /// Encodes whole 3-byte groups (kernel, then scalar); returns the bytes consumed. `dst`
    /// has room for all of them.
    #[inline]
    pub(crate) fn encode_bulk(self, alphabet: &Alphabet, src: &[u8], dst: &mut [u8]) -> usize {
        let done = match self.0 {
            Kind::Portable => 0,
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(t) => t.encode(alphabet, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.encode(alphabet, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.encode(alphabet, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.encode(alphabet, src, dst),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kind::Neon(t) => t.encode(alphabet, src, dst),
            #[cfg(all(target_arch = "riscv64", b64_rvv))]
            Kind::Rvv(t) => t.encode(alphabet, src, dst),
        };
        let out = done / 3 * 4;
        done + portable::encode_bulk(alphabet.symbols(), &src[done..], &mut dst[out..])
    }

    /// [`Kernels::encode_all`] of the backend, where it has one (`dst` is exactly the encoded
    /// length); returns whether it did.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn encode_all(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        pad: bool,
    ) -> bool {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(t) => t.encode_all(alphabet, src, dst, pad),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.encode_all(alphabet, src, dst, pad),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.encode_all(alphabet, src, dst, pad),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.encode_all(alphabet, src, dst, pad),
            _ => false,
        }
    }

    /// [`Kernels::encode_lines`] of the backend (`(0, 0)` where it has none).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn encode_lines(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        width: usize,
        crlf: bool,
    ) -> (usize, usize) {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.encode_lines(alphabet, src, dst, width, crlf),
            _ => (0, 0),
        }
    }

    /// [`Kernels::decode_short`] of the backend, where it has one.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn decode_short(
        self,
        alphabet: &Alphabet,
        src: &[u8],
        dst: &mut [u8],
        short: ShortRules,
    ) -> Option<usize> {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(t) => t.decode_short(alphabet, src, dst, short),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.decode_short(alphabet, src, dst, short),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.decode_short(alphabet, src, dst, short),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.decode_short(alphabet, src, dst, short),
            _ => None,
        }
    }

    /// [`Kernels::decode_lines`] of the backend (`(i, j)` back where it has none).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn decode_lines<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
        w: usize,
        crlf: bool,
    ) -> (usize, usize) {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(t) => t.decode_lines(alphabet, io, i, j, w, crlf),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.decode_lines(alphabet, io, i, j, w, crlf),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.decode_lines(alphabet, io, i, j, w, crlf),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.decode_lines(alphabet, io, i, j, w, crlf),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kind::Neon(t) => t.decode_lines(alphabet, io, i, j, w, crlf),
            _ => (i, j),
        }
    }

    /// Runs `f` compiled with the backend's vector extensions enabled where that helps plain
    /// code (x86_64: wider moves), else just runs it.
    #[inline]
    pub(crate) fn with_features<J: Job>(self, job: J) -> J::Output {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.with_features(job),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.with_features(job),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.with_features(job),
            _ => job.run(),
        }
    }

    /// Decodes whole groups of 4 symbols from `(i, j)` (kernel, then scalar) until a group
    /// holds a non-symbol or the output is full; returns the new `(i, j)`.
    #[inline]
    pub(crate) fn decode_bulk<I: Io + ?Sized>(
        self,
        alphabet: &Alphabet,
        io: &mut I,
        i: usize,
        j: usize,
    ) -> (usize, usize) {
        let (i, j) = match self.0 {
            Kind::Portable => (i, j),
            #[cfg(target_arch = "x86_64")]
            Kind::Ssse3(t) => t.decode(alphabet, io, i, j),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => t.decode(alphabet, io, i, j),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Bw(t) => t.decode(alphabet, io, i, j),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Vbmi(t) => t.decode(alphabet, io, i, j),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kind::Neon(t) => t.decode(alphabet, io, i, j),
            #[cfg(all(target_arch = "riscv64", b64_rvv))]
            Kind::Rvv(t) => t.decode(alphabet, io, i, j),
        };
        portable::decode_bulk(alphabet.decode_table(), io, i, j)
    }
}

/// Every backend usable on this CPU, portable first, then in increasing order of preference.
pub fn backends() -> impl Iterator<Item = Backend> {
    let all = core::iter::once(Some(Backend::PORTABLE));
    #[cfg(target_arch = "x86_64")]
    let all = all.chain([
        Ssse3::new().map(|t| Backend(Kind::Ssse3(t))),
        Avx2::new().map(|t| Backend(Kind::Avx2(t))),
        Avx512Bw::new().map(|t| Backend(Kind::Avx512Bw(t))),
        Avx512Vbmi::new().map(|t| Backend(Kind::Avx512Vbmi(t))),
    ]);
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    let all = all.chain([Neon::new().map(|t| Backend(Kind::Neon(t)))]);
    #[cfg(all(target_arch = "riscv64", b64_rvv))]
    let all = all.chain([Rvv::new().map(|t| Backend(Kind::Rvv(t)))]);
    all.flatten()
}
