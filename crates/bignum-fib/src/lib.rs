//! `bignum-fib`: big natural numbers with assembly limb kernels, Fibonacci numbers by GMP's
//! two-squarings-per-bit recurrence, and fast decimal conversion.
//!
//! [`fib`], [`fib_pair`] and [`lucas`] compute Fibonacci and Lucas numbers as [`Nat`]s;
//! [`fib_digits`] counts the decimal digits of `F(n)` without computing it. A [`Nat`] is a
//! natural number of any size: `+`, `-` ([`Nat::checked_sub`]), `*`, `/`, `%`
//! ([`Nat::div_rem`]), [`Nat::pow`], [`Nat::square`], shifts, comparisons, text in radix 2
//! to 36 both ways ([`Display`], [`LowerHex`], [`FromStr`], [`Nat::from_str_radix`],
//! [`Nat::to_str_radix`], [`Nat::write_decimal`]) and bytes ([`Nat::to_bytes_le`]). Code
//! written for num-bigint's `BigUint` compiles with `Nat` in its place for those operations
//! (primitive operands, `Sum`/`Product`, and with the `num-traits` feature its traits).
//!
//! [`Display`]: core::fmt::Display
//! [`LowerHex`]: core::fmt::LowerHex
//! [`FromStr`]: core::str::FromStr
//!
//! ```
//! use bignum_fib::{Nat, fib, fib_digits, fib_pair, lucas};
//!
//! // F(100), in decimal and hexadecimal.
//! let f = fib(100);
//! assert_eq!(f.to_string(), "354224848179261915075");
//! assert_eq!(format!("{f:x}"), "1333db76a7c594bfc3");
//!
//! // Neighbours and Lucas numbers.
//! let (f10, f11) = fib_pair(10);
//! assert_eq!((f10.to_u64(), f11.to_u64()), (Some(55), Some(89)));
//! assert_eq!(lucas(10).to_u64(), Some(123));
//!
//! // The size of F(10^9) without computing it.
//! assert_eq!(fib_digits(1_000_000_000), 208_987_640);
//!
//! // Arithmetic on parsed numbers; a bad digit is an error, not a panic.
//! let x: Nat = "123456789012345678901234567890".parse()?;
//! let square = &x * &x;
//! assert_eq!(square, x.square());
//! assert!(square.to_string().starts_with("1524157875323883675049535156"));
//! assert!("12x".parse::<Nat>().is_err());
//! # Ok::<(), bignum_fib::ParseNatError>(())
//! ```
//!
//! # Layers
//!
//! - Limb kernels (`add_n`, `sub_n`, `mul_1`, `addmul_1`, `submul_1`, `sqr_basecase`):
//!   x86_64 inline assembly with MULX and two carry chains (ADCX/ADOX) when the CPU has BMI2
//!   and ADX; aarch64 inline assembly (`mul`/`umulh`/`adds`/`adcs`); portable `u128` Rust
//!   everywhere else (riscv64, mips64, Miri) and as the reference of the tests. `fib --time`
//!   names the kernels a run used.
//! - Multiplication and a separate squaring ladder: schoolbook → Karatsuba → Toom-3 → a
//!   number-theoretic transform (one limb per coefficient, CRT) over three 62-bit primes
//!   (portable; or four or five with 112- or 140-bit coefficients where that halves the
//!   transform), or over three or four 50-bit primes held in doubles with AVX2 + FMA or
//!   AVX-512F (an AVX-512 IFMA engine is kept and tested but never chosen: the FMA engines
//!   measure faster), switching at size thresholds measured per engine (each constant in the
//!   source says where its value came from).
//! - [`fib`], [`fib_pair`], [`lucas`]: a table to F(93), then `F(2k±1)` from two squarings
//!   per bit, and one multiplication on the last step.
//! - Decimal conversion divide-and-conquer by `10^(19·2^i)` with Barrett division by
//!   Newton reciprocals; hexadecimal is linear.
//!
//! # Threads
//!
//! One thread unless asked: [`with_threads`] runs a closure with up to `n` threads for the
//! operations inside it (the `fib` command uses `available_parallelism()`, `fib -j N`).
//! Above size thresholds the work splits into independent halves: the two squarings of each
//! step of the Fibonacci recurrence, the quarters of each NTT transform (every prime's, so a
//! single large product splits too), and the quotient and remainder of each division of the
//! decimal conversion. Results are identical for every thread count.
//!
//! The threads are `std::thread::scope` threads started at each split and joined before it
//! returns, rather than a pool (rayon's or our own): no dependency, no thread left behind
//! after the call, and nothing that waits for a pool's worker, so a call made from inside a
//! user's rayon pool or a tokio blocking thread cannot deadlock on it. Splits are made only
//! where each half takes far longer than starting a thread, and the budget is divided at
//! each split, so at most `n` threads run at once.
//!
//! # `NAB_MAX_ISA`
//!
//! The environment variable that caps run-time detection in every crate of the workspace
//! (see `nab-isa`), read once at the first dispatch. It decides both x86_64 choices, the limb
//! kernels and the NTT's engine (`fib --time` names both):
//!
//! | `NAB_MAX_ISA` | limb kernels | NTT engine |
//! | --- | --- | --- |
//! | unset (or not a tier name: ignored) | `mulx-adx` if the CPU has BMI2 and ADX | `avx512f-fma` if the CPU has AVX-512F and FMA, else `avx2-fma` if it has AVX2 and FMA |
//! | `x86-64-v4` | `mulx-adx` | `avx512f-fma` |
//! | `x86-64-v3` | `mulx-adx` | `avx2-fma` |
//! | `x86-64-v2` | `portable` | `portable` |
//! | `portable` | `portable` | `portable` |
//!
//! Always at most what the CPU has. Features enabled at compile time win (a build with
//! `-C target-cpu=x86-64-v3` keeps `mulx-adx` under any cap). aarch64's kernels use only the
//! base ISA (the NTT engine `neon-fma`: NEON, which every aarch64 target enables) and stay
//! under every cap; `--cfg bignum_fib_backend="portable"` takes the portable ones.
//!
//! # Adding a backend
//!
//! For contributors; the files to touch, in order. Both lists are declared once in
//! `src/dispatch.rs` with `nab_isa::backends!`, which generates the rest of the dispatch.
//!
//! Limb kernels (`mulx-adx` is the example):
//!
//! 1. `src/arch/limb/<isa>.rs`: a zero-sized token that only a check makes
//!    (`nab_isa::token!` for features detected at run time, as `MulxAdx`; a plain struct
//!    for the base ISA, as `Aarch64`), the raw-pointer kernels in `asm!`, and
//!    `super::asm_kernels!(Token, add_n: ..., ...)`, which implements `Kernels`
//!    (`src/kernels.rs`: the contracts; `sqr_basecase` has a default) with the asserts and
//!    SAFETY lines written once.
//! 2. `src/arch/limb/mod.rs`: declare the module under its `cfg`.
//! 3. `src/dispatch.rs`: one line in `Backend`'s list, in order of preference
//!    (`MulxAdx(MulxAdx) = "mulx-adx" => MulxAdx::new();`). `Backend`'s surface,
//!    `backends()` and `with_kernels!` follow; every algorithm then runs on it.
//!
//! NTT engines (`neon-fma` is the example):
//!
//! 1. `src/arch/ntt/<name>.rs`: the engine's token and vector kernels (an FMA engine
//!    implements `fmacore::Lanes` and takes its safe entry points from
//!    `fmacore::fma_entry_points!`, as `neon.rs`).
//! 2. `src/arch/ntt/mod.rs`: declare the module under its `cfg`.
//! 3. `src/dispatch.rs`: one line in `NttEngine`'s list, in order of preference
//!    (`NeonFma(Fma) = "neon-fma" => Fma::new();`).
//! 4. `src/ntt/engine.rs`: its arm in `Engine::with_primes` (the representation and primes
//!    it computes with; a new representation also needs its arms in `Engine`'s methods).
//! 5. `src/mul.rs`: its arm in `Thresholds::detect`, the NTT thresholds keyed by its
//!    `EngineKind` (measured with the `tune` example).
//!
//! Tests need nothing new: `tests/backends.rs` runs every backend of `backends()` and every
//! engine of `ntt_engines()` against the portable ones, `src/ntt/tests.rs` every engine's
//! transforms. Add the names to the table above, for a new tier to the `NAB_MAX_ISA` table,
//! and to `tests/report_backend.rs`.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod arch;
mod bytes;
mod dispatch;
mod div;
mod fib;
mod kernels;
mod limbs;
mod mul;
mod nat;
mod ntt;
#[cfg(feature = "num-traits")]
mod num_traits_impls;
mod par;
mod portable;
mod primitive;
mod radix;
mod scratch;
mod text;

#[doc(hidden)]
pub use dispatch::{Backend, backends};
#[doc(hidden)]
pub use dispatch::{NttEngine, ntt_engines};
#[doc(hidden)]
pub use mul::{
    MUL_KARATSUBA_THRESHOLD, MUL_NTT_THRESHOLD, MUL_NTT_THRESHOLD_FMA, MUL_NTT_THRESHOLD_IFMA,
    MUL_TOOM3_THRESHOLD, SQR_KARATSUBA_THRESHOLD, SQR_NTT_THRESHOLD, SQR_NTT_THRESHOLD_FMA,
    SQR_NTT_THRESHOLD_IFMA, SQR_TOOM3_THRESHOLD, Thresholds,
};
pub use nat::Nat;

/// The engine of the NTT multiplication on this CPU: `avx512f-fma`, `avx2-fma`, `neon-fma`
/// (aarch64) or `portable` (for the benches' backend report and `fib --time`).
#[doc(hidden)]
pub fn ntt_engine() -> &'static str {
    ntt::engine_name()
}
pub use radix::ParseNatError;

/// `F(n)`, the `n`-th Fibonacci number (`F(0) = 0`, `F(1) = 1`).
///
/// `F(n)` has about `0.694·n` bits; memory is the caller's concern (the `fib` binary checks
/// it before starting).
pub fn fib(n: u64) -> Nat {
    fib::fib(n)
}

/// The number of decimal digits of `F(n)`, without computing `F(n)`: `n·log10 φ − log10 √5`
/// in 128-bit fixed point (`F(n) = (φⁿ − ψⁿ)/√5`), and `F(n)` itself only for `n < 100` or
/// where that value lies within `2⁻⁶⁰` of an integer (the fixed-point error is below `2⁻⁶³`).
///
/// ```
/// assert_eq!(bignum_fib::fib_digits(100), 21); // 354224848179261915075
/// assert_eq!(bignum_fib::fib_digits(0), 1);
/// assert_eq!(bignum_fib::fib_digits(1_000_000_000), 208_987_640);
/// ```
pub fn fib_digits(n: u64) -> u64 {
    fib::fib_digits(n)
}

/// Frees the NTT buffers that products on this thread keep for the next product, and returns
/// how many bytes they held.
///
/// Multiplications past the NTT threshold keep up to 8 of their transform buffers per thread
/// (each at most 16 MiB, so at most 128 MiB per thread; F(10⁸) keeps about that much, F(10⁷)
/// about a tenth) because fresh buffers cost page faults and the kernel's zeroing: a tenth of
/// F(10⁷)'s time. A thread that is done with large numbers can give that memory back; the
/// next large product allocates again.
///
/// ```
/// let f = bignum_fib::fib(1_000_000);
/// assert!(f.to_string().starts_with("195328"));
/// bignum_fib::release_thread_buffers();
/// assert_eq!(bignum_fib::release_thread_buffers(), 0); // nothing left to free
/// ```
pub fn release_thread_buffers() -> usize {
    ntt::release_thread_buffers()
}

/// Runs `f` with up to `threads` threads for the large operations inside it (on this
/// thread; `threads <= 1`: one), and returns its result. The crate uses one thread unless
/// asked: this is how to ask.
///
/// Above size thresholds the work is split: the two squarings of each step of [`fib`] (from
/// 8192 limbs), the quarters of the NTT transforms and their top radix-4 pass (from `2¹⁸`
/// points, products of about 130 000 limbs), the CRT after them and the primes' twiddle
/// tables, the halves of the decimal conversion (from 4096 limbs). Results are the same for
/// every thread count. `std::available_parallelism()` is the usual choice (it follows cgroup
/// CPU quotas; the `fib` command's default).
///
/// The threads are scoped threads started at each split and joined before it returns (no
/// pool, no dependency), so a call from inside a rayon pool or a tokio blocking thread
/// cannot deadlock; it adds up to `threads − 1` threads to that pool's for its duration, so
/// inside a pool that already keeps every core busy, leave it at 1.
///
/// ```
/// let threads = std::thread::available_parallelism().map_or(1, usize::from);
/// let f = bignum_fib::with_threads(threads, || bignum_fib::fib(1_000_000).to_string());
/// assert_eq!(f, bignum_fib::fib(1_000_000).to_string());
/// assert!(f.starts_with("195328"));
/// ```
pub fn with_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    par::with_threads(threads, f)
}

/// [`with_threads`] with every size threshold of the splits replaced by `min` (so that small
/// inputs take the threaded paths), returning how many splits were made (for the tests).
#[doc(hidden)]
pub fn with_threads_counted<R>(threads: usize, min: usize, f: impl FnOnce() -> R) -> (R, usize) {
    par::with_threads_counted(threads, min, f)
}

/// `(F(n), F(n+1))`.
pub fn fib_pair(n: u64) -> (Nat, Nat) {
    fib::fib_pair(n)
}

/// `L(n)`, the `n`-th Lucas number (`L(0) = 2`, `L(1) = 1`).
pub fn lucas(n: u64) -> Nat {
    fib::lucas(n)
}

// The README's examples run as doctests (`cargo test --doc`), so the registry page cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
