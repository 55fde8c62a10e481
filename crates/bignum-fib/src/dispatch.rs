//! Backend selection for the limb kernels. Detection happens once per process (in
//! `nab-isa`, under the `NAB_MAX_ISA` cap) and not at all when BMI2 and ADX are enabled at
//! compile time; aarch64's kernels use only the base ISA. Under Miri (which cannot run inline
//! assembly) and with `--cfg bignum_fib_backend="portable"` (a forced backend is a `--cfg`,
//! not a Cargo feature) the portable kernels are used.
//!
//! The algorithms (the multiplication ladder, the Fibonacci recurrence, the decimal
//! conversion) are generic over [`Kernels`] (defined in `kernels`, below this module and
//! every backend); each public operation picks the backend once and runs a monomorphized
//! copy. Nothing under `arch/` or in `portable` imports this module.

#[cfg(all(target_arch = "aarch64", not(miri)))]
use crate::arch::limb::aarch64::Aarch64;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::arch::limb::x86_64::MulxAdx;
use crate::kernels::Kernels;
use crate::portable::Portable;

/// One set of limb kernels. A value exists only for backends the running CPU supports, so
/// any `Backend` may be used without further checks.
///
/// Tests and benches use this to run every backend (see [`backends`]); applications use
/// [`crate::Nat`] and [`crate::fib`], which pick the fastest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend(Kind);

/// The backend's token: holding one proves the CPU support (see `Backend`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Portable(Portable),
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    MulxAdx(MulxAdx),
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    Aarch64(Aarch64),
}

/// Runs `$body` with `$k` bound to the kernel token of `$backend`.
macro_rules! with_kernels {
    ($backend:expr, $k:ident => $body:expr) => {
        match $backend.kind() {
            $crate::dispatch::Kind::Portable($k) => $body,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            $crate::dispatch::Kind::MulxAdx($k) => $body,
            #[cfg(all(target_arch = "aarch64", not(miri)))]
            $crate::dispatch::Kind::Aarch64($k) => $body,
        }
    };
}
pub(crate) use with_kernels;

impl core::fmt::Debug for Kind {
    // As the token-less `Portable` variant printed (`Backend(Portable)`).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Kind::Portable(_) => f.write_str("Portable"),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kind::MulxAdx(t) => f.debug_tuple("MulxAdx").field(t).finish(),
            #[cfg(all(target_arch = "aarch64", not(miri)))]
            Kind::Aarch64(t) => f.debug_tuple("Aarch64").field(t).finish(),
        }
    }
}

impl Backend {
    /// The portable backend, available everywhere.
    pub const PORTABLE: Backend = Backend(Kind::Portable(Portable));

    /// The fastest backend this CPU supports (what [`crate::Nat`] and [`crate::fib`] use).
    #[inline]
    pub fn detect() -> Backend {
        #[cfg(all(not(bignum_fib_backend = "portable"), not(miri)))]
        {
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = MulxAdx::new() {
                return Backend(Kind::MulxAdx(t));
            }
            #[cfg(target_arch = "aarch64")]
            return Backend(Kind::Aarch64(Aarch64::new()));
        }
        #[allow(unreachable_code)]
        Backend::PORTABLE
    }

    /// The backend called `name` (as returned by [`Backend::name`]), if this CPU supports it.
    pub fn by_name(name: &str) -> Option<Backend> {
        backends().find(|b| b.name() == name)
    }

    /// A short stable name: `portable`, `mulx-adx` (x86_64 BMI2 + ADX), `aarch64`.
    pub fn name(self) -> &'static str {
        with_kernels!(self, k => name_of(k))
    }

    /// The backend's token, for [`with_kernels`].
    #[inline]
    pub(crate) fn kind(self) -> Kind {
        self.0
    }

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

fn name_of<K: Kernels>(_: K) -> &'static str {
    K::NAME
}

/// Every backend this CPU supports, portable first.
pub fn backends() -> impl Iterator<Item = Backend> {
    #[allow(unused_mut)] // nothing is pushed on riscv64, mips64 and under Miri
    let mut all = vec![Backend::PORTABLE];
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if let Some(t) = MulxAdx::new() {
        all.push(Backend(Kind::MulxAdx(t)));
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    all.push(Backend(Kind::Aarch64(Aarch64::new())));
    all.into_iter()
}
