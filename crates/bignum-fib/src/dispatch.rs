//! Backend selection for the limb kernels, declared once with `nab-isa`'s dispatch shape:
//! the backends and their tokens in one [`backends!`](nab_isa::backends) list, which
//! generates `Backend`'s surface and `with_kernels!`. Detection happens once per process (in
//! `nab-isa`, under the `NAB_MAX_ISA` cap) and not at all when BMI2 and ADX are enabled at
//! compile time; aarch64's kernels use only the base ISA. Under Miri (which cannot run inline
//! assembly) and with `--cfg bignum_fib_backend="portable"` (a forced backend is a `--cfg`,
//! not a Cargo feature) the portable kernels are used.
//!
//! The algorithms (the multiplication ladder, the Fibonacci recurrence, the decimal
//! conversion) are generic over [`Kernels`] (defined in `kernels`, below this module and
//! every backend); each public operation picks the backend once and runs a monomorphized
//! copy through `with_kernels!` (no cached pointer: the calls are whole algorithms, and the
//! kernels inline into them). Nothing under `arch/` or in `portable` imports this module.

#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::limb::aarch64::Aarch64;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::limb::x86_64::MulxAdx;
#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::ntt::neon::Fma;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::ntt::{fma::Fma, ifma::Ifma};
use crate::kernels::Kernels;
use crate::portable::Portable;

nab_isa::backends! {
    /// One set of limb kernels. A value exists only for backends the running CPU supports, so
    /// any `Backend` may be used without further checks.
    ///
    /// Tests and benches use this to run every backend (see [`backends`]); applications use
    /// [`crate::Nat`] and [`crate::fib`], which pick the fastest one.
    pub struct Backend(pub(crate) enum Kind at crate::dispatch::Kind);
    compare by tokens;
    /// Runs `$body` with `$k` bound to the kernel token of `$backend`.
    macro with_kernels;
    /// Every backend this CPU supports, portable first.
    pub fn backends() in portable_first order;
    forced portable if cfg(any(miri, bignum_fib_backend = "portable"));
    /// The portable backend, available everywhere.
    const PORTABLE = Portable(Portable) = "portable" => Portable;
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    MulxAdx(MulxAdx) = "mulx-adx" => MulxAdx::new();
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    Aarch64(Aarch64) = "aarch64" => Some(Aarch64::new());
}
// For `nat`, `fib` and `radix` (the macro is textually scoped to this module).
#[allow(clippy::single_component_path_imports)]
pub(crate) use with_kernels;

nab_isa::backends! {
    /// One NTT engine: the primes, the butterflies and the vector kernels of the NTT
    /// products (`ntt::engine`), chosen per CPU here and per transform length there (the
    /// 50-bit engines take a fourth prime above `2²¹` points). A value exists only for
    /// engines the running CPU supports. The multiplication ladder keys its NTT thresholds
    /// on the kind ([`EngineKind`]), never on the name.
    ///
    /// Tests and benches run every engine through [`ntt_engines`] and the engine's `mul` and
    /// `sqr`; applications use [`crate::Nat`], which picks [`NttEngine::detect`]'s.
    pub struct NttEngine(pub(crate) enum EngineKind at crate::dispatch::EngineKind);
    compare by kind;
    /// Runs `$body` with `$t` bound to the token of `$engine`'s kind.
    macro with_engine;
    /// Every NTT engine this CPU supports, portable first (the IFMA engine too: dispatch
    /// never picks it while the FMA engine runs, but the tests run it).
    pub fn ntt_engines() in portable_first order;
    forced portable if cfg(any(miri, bignum_fib_backend = "portable"));
    /// Scalar Montgomery arithmetic over 62-bit primes, available everywhere.
    const PORTABLE = Portable(Portable) = "portable" => Portable;
    // FMA on doubles, eight lanes (AVX-512F) for the long stages, four for the short ones.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Avx512fFma(Fma) = "avx512f-fma" => Fma::new().filter(|t| t.has_avx512f());
    // FMA on doubles in four lanes (AVX2 + FMA, x86-64-v3).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Avx2Fma(Fma) = "avx2-fma" => Fma::new().map(Fma::narrow);
    // AVX-512 IFMA, 52-bit Montgomery products: after the FMA engines, because eight lanes
    // of doubles measure faster than IFMA's eight 52-bit lanes (F(10⁸): 0.25 against 0.29 s
    // of CPU to compute, 1.63 against 1.98 s with the decimal conversion) and every IFMA
    // CPU has AVX-512F: picked only where FMA is not allowed (never, today).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Avx512Ifma(Ifma) = "avx512ifma" => Ifma::new();
    // FMA on doubles in two lanes (aarch64 NEON).
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    NeonFma(Fma) = "neon-fma" => Fma::new();
}

// The kernels of the public `Backend` API, each listed once (the contracts are `Kernels`').
impl Backend {
    /// `r = a + b`, returning the carry. Panics unless the three lengths are equal.
    pub fn add_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
        assert!(r.len() == a.len() && a.len() == b.len(), "add_n: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.add_n(r, a, b))
    }

    /// `r = a - b`, returning the borrow. Panics unless the three lengths are equal.
    pub fn sub_n(self, r: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
        assert!(r.len() == a.len() && a.len() == b.len(), "sub_n: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.sub_n(r, a, b))
    }

    /// `r += b`, returning the carry. Panics unless the lengths are equal.
    pub fn add_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
        assert!(r.len() == b.len(), "add_assign_n: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.add_assign_n(r, b))
    }

    /// `r -= b`, returning the borrow. Panics unless the lengths are equal.
    pub fn sub_assign_n(self, r: &mut [u64], b: &[u64]) -> u64 {
        assert!(r.len() == b.len(), "sub_assign_n: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.sub_assign_n(r, b))
    }

    /// `r = a * v`, returning the high limb. Panics unless the lengths are equal.
    pub fn mul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        assert!(r.len() == a.len(), "mul_1: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.mul_1(r, a, v))
    }

    /// `r += a * v`, returning the high limb. Panics unless the lengths are equal.
    pub fn addmul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        assert!(r.len() == a.len(), "addmul_1: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.addmul_1(r, a, v))
    }

    /// `r -= a * v`, returning the borrow limb. Panics unless the lengths are equal.
    pub fn submul_1(self, r: &mut [u64], a: &[u64], v: u64) -> u64 {
        assert!(r.len() == a.len(), "submul_1: lengths differ");
        if r.is_empty() {
            return 0;
        }
        with_kernels!(self, k => k.submul_1(r, a, v))
    }

    /// `r = a²` with the schoolbook method. Panics unless `r.len() == 2 * a.len()`.
    pub fn sqr_basecase(self, r: &mut [u64], a: &[u64]) {
        assert!(r.len() == 2 * a.len(), "sqr_basecase: r must have 2 * a.len() limbs");
        if a.is_empty() {
            return;
        }
        with_kernels!(self, k => k.sqr_basecase(r, a))
    }
}
