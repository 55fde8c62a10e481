//! Benches of `bignum-fib` against its peers: F(n) for n = 10^4 … 10^7, computed alone
//! (`bignum-fib/fib`) and computed and converted to decimal (`bignum-fib/fib+decimal`);
//! the decimal conversion alone of F(10^6), F(10^7) (`bignum-fib/decimal`); and at 10^8
//! (`bignum-fib/fib-1e8`: compute, decimal), ours and malachite only (the other peers take
//! minutes there), not under `--quick`.
//!
//! Each peer computes F(n) with its own Fibonacci function where it has one: malachite
//! (`Natural::fibonacci`, its port of GMP's `mpz_fib_ui`) and GMP itself (`gmp-6.2`, with the
//! `gmp` feature that `cargo xtask bench` turns on: `mpz_fib_ui` and `mpz_get_str`, through
//! `rug`). num-bigint and dashu have none, so they run the same algorithm as ours, GMP's
//! two-squarings-per-bit recurrence with one multiplication on the last step, written once over
//! [`Arith`] with the peer's own squaring and multiplication.
//!
//! `bignum-fib/fib-first-call`: F(10^7) as the first call of a fresh process, ours and GMP
//! (each iteration starts the `fib-first-call` helper and counts the time of its one call).
//! GMP is Debian's `libgmp10`, a generic x86-64 build (no `mulx`/`adx` loops).
//! `bignum-fib/fib+decimal-threads`: F(n) and its decimal text with one thread
//! (`bignum-fib`) and two (`bignum-fib-2-threads`, `bignum_fib::with_threads(2, ..)`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// What the recurrence needs from a big-number type.
#[cfg(feature = "peers-bignum")]
trait Arith: Sized {
    fn small(v: u64) -> Self;
    fn sqr(&self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    fn add(&self, o: &Self) -> Self;
    /// `self - o`, `self >= o`.
    fn sub(&self, o: &Self) -> Self;
    fn shl(&self, bits: u32) -> Self;
    fn decimal(&self) -> String;
    /// `F(n)`: the peer's own Fibonacci function where it has one, else [`fib_generic`].
    fn fib(n: u64) -> Self {
        fib_generic(n)
    }
}

#[cfg(feature = "peers-bignum")]
/// `F(n)` by GMP's recurrence (`mpz_fib_ui`): `(F(k), F(k−1))` doubled with two squarings
/// per bit, then `F(n)` from one multiplication.
fn fib_generic<T: Arith>(n: u64) -> T {
    const TABLE_MAX: u64 = 93;
    let table = |i: u64| {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..i {
            (a, b) = (b, a.wrapping_add(b));
        }
        a
    };
    if n <= TABLE_MAX {
        return T::small(table(n));
    }
    let m = n / 2;
    // (F(k), F(k−1)) for k = m.
    let bits = 64 - m.leading_zeros();
    let mut shift = bits.saturating_sub(6);
    let mut k = m >> shift;
    let (mut fk, mut fk1) = (T::small(table(k)), T::small(table(k - 1)));
    let two = T::small(2);
    while shift > 0 {
        shift -= 1;
        let bit = (m >> shift) & 1;
        let (s, s1) = (fk.sqr(), fk1.sqr());
        let t = s.shl(2).sub(&s1);
        let f2k1 = if k & 1 == 0 { t.add(&two) } else { t.sub(&two) };
        let f2km1 = s.add(&s1);
        let f2k = f2k1.sub(&f2km1);
        (fk, fk1) = if bit == 1 { (f2k1, f2k) } else { (f2k, f2km1) };
        k = 2 * k + bit;
    }
    if n & 1 == 0 {
        fk.mul(&fk.add(&fk1.shl(1)))
    } else {
        let p = fk.shl(1).add(&fk1).mul(&fk.shl(1).sub(&fk1));
        if m & 1 == 0 { p.add(&two) } else { p.sub(&two) }
    }
}

#[cfg(feature = "peers-bignum")]
impl Arith for num_bigint::BigUint {
    fn small(v: u64) -> Self {
        v.into()
    }
    fn sqr(&self) -> Self {
        self * self
    }
    fn mul(&self, o: &Self) -> Self {
        self * o
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn shl(&self, bits: u32) -> Self {
        self << bits
    }
    fn decimal(&self) -> String {
        self.to_string()
    }
}

#[cfg(feature = "peers-bignum")]
impl Arith for malachite_nz::natural::Natural {
    fn small(v: u64) -> Self {
        v.into()
    }
    fn sqr(&self) -> Self {
        malachite_base::num::arithmetic::traits::Square::square(self)
    }
    fn mul(&self, o: &Self) -> Self {
        self * o
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn shl(&self, bits: u32) -> Self {
        self << bits
    }
    fn decimal(&self) -> String {
        self.to_string()
    }
    fn fib(n: u64) -> Self {
        <Self as malachite_base::num::arithmetic::traits::Fibonacci>::fibonacci(n)
    }
}

#[cfg(feature = "peers-bignum")]
impl Arith for dashu_int::UBig {
    fn small(v: u64) -> Self {
        v.into()
    }
    fn sqr(&self) -> Self {
        dashu_int::UBig::sqr(self)
    }
    fn mul(&self, o: &Self) -> Self {
        self * o
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn shl(&self, bits: u32) -> Self {
        self << bits as usize
    }
    fn decimal(&self) -> String {
        self.to_string()
    }
}

/// n = 10^4 … 10^7 (every other one under `--quick`).
fn ns() -> Vec<u64> {
    benches::sizes(&[10_000, 100_000, 1_000_000, 10_000_000])
        .into_iter()
        .map(|n| n as u64)
        .collect()
}

fn bench_fib(c: &mut Criterion) {
    let mut g = c.benchmark_group("bignum-fib/fib");
    g.warm_up_time(Duration::from_millis(500));
    for n in ns() {
        if n >= 10_000_000 {
            g.sample_size(10);
        }
        // Results must agree before they are timed.
        let ours = bignum_fib::fib(n).to_string();
        g.bench_with_input(BenchmarkId::new("bignum-fib", n), &n, |b, &n| {
            b.iter(|| bignum_fib::fib(black_box(n)))
        });
        #[cfg(feature = "peers-bignum")]
        {
            assert_eq!(<malachite_nz::natural::Natural as Arith>::fib(n).decimal(), ours);
            g.bench_with_input(BenchmarkId::new("malachite-nz", n), &n, |b, &n| {
                b.iter(|| <malachite_nz::natural::Natural as Arith>::fib(black_box(n)))
            });
            g.bench_with_input(BenchmarkId::new("num-bigint", n), &n, |b, &n| {
                b.iter(|| <num_bigint::BigUint as Arith>::fib(black_box(n)))
            });
            g.bench_with_input(BenchmarkId::new("dashu-int", n), &n, |b, &n| {
                b.iter(|| <dashu_int::UBig as Arith>::fib(black_box(n)))
            });
        }
        #[cfg(feature = "gmp")]
        {
            assert_eq!(gmp::fib(n).to_string(), ours);
            g.bench_with_input(BenchmarkId::new(gmp::NAME, n), &n, |b, &n| {
                b.iter(|| gmp::fib(black_box(n)))
            });
        }
        let _ = ours;
    }
    g.finish();
}

fn bench_fib_decimal(c: &mut Criterion) {
    let mut g = c.benchmark_group("bignum-fib/fib+decimal");
    g.warm_up_time(Duration::from_millis(500));
    for n in ns() {
        if n >= 1_000_000 {
            g.sample_size(10);
        }
        g.bench_with_input(BenchmarkId::new("bignum-fib", n), &n, |b, &n| {
            b.iter(|| bignum_fib::fib(black_box(n)).to_string())
        });
        #[cfg(feature = "peers-bignum")]
        {
            g.bench_with_input(BenchmarkId::new("malachite-nz", n), &n, |b, &n| {
                b.iter(|| <malachite_nz::natural::Natural as Arith>::fib(black_box(n)).decimal())
            });
            g.bench_with_input(BenchmarkId::new("num-bigint", n), &n, |b, &n| {
                b.iter(|| <num_bigint::BigUint as Arith>::fib(black_box(n)).decimal())
            });
            g.bench_with_input(BenchmarkId::new("dashu-int", n), &n, |b, &n| {
                b.iter(|| <dashu_int::UBig as Arith>::fib(black_box(n)).decimal())
            });
        }
        #[cfg(feature = "gmp")]
        g.bench_with_input(BenchmarkId::new(gmp::NAME, n), &n, |b, &n| {
            b.iter(|| gmp::fib(black_box(n)).to_string_radix(10))
        });
    }
    g.finish();
}

/// Conversion to decimal alone, of a number computed once.
fn bench_decimal(c: &mut Criterion) {
    let mut g = c.benchmark_group("bignum-fib/decimal");
    g.warm_up_time(Duration::from_millis(500)).sample_size(10);
    for n in benches::sizes(&[1_000_000, 10_000_000]) {
        let n = n as u64;
        let ours = bignum_fib::fib(n);
        g.bench_with_input(BenchmarkId::new("bignum-fib", n), &ours, |b, x| {
            b.iter(|| black_box(x).to_string())
        });
        #[cfg(feature = "peers-bignum")]
        {
            let theirs = <malachite_nz::natural::Natural as Arith>::fib(n);
            g.bench_with_input(BenchmarkId::new("malachite-nz", n), &theirs, |b, x| {
                b.iter(|| black_box(x).decimal())
            });
        }
        #[cfg(feature = "gmp")]
        {
            let x = gmp::fib(n);
            g.bench_with_input(BenchmarkId::new(gmp::NAME, n), &x, |b, x| {
                b.iter(|| black_box(x).to_string_radix(10))
            });
        }
    }
    g.finish();
}

/// F(10^8): compute, and decimal conversion, ours against malachite and GMP (full runs only).
fn bench_1e8(c: &mut Criterion) {
    if benches::quick() {
        return;
    }
    const N: u64 = 100_000_000;
    let mut g = c.benchmark_group("bignum-fib/fib-1e8");
    g.warm_up_time(Duration::from_millis(100))
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let ours = bignum_fib::fib(N);
    // Rows `compute` and `decimal`, a column per implementation.
    let id = BenchmarkId::new;
    g.bench_function(id("bignum-fib", "compute"), |b| b.iter(|| bignum_fib::fib(black_box(N))));
    g.bench_function(id("bignum-fib", "decimal"), |b| b.iter(|| black_box(&ours).to_string()));
    #[cfg(feature = "peers-bignum")]
    {
        let theirs = <malachite_nz::natural::Natural as Arith>::fib(N);
        g.bench_function(id("malachite-nz", "compute"), |b| {
            b.iter(|| <malachite_nz::natural::Natural as Arith>::fib(black_box(N)))
        });
        g.bench_function(id("malachite-nz", "decimal"), |b| {
            b.iter(|| black_box(&theirs).decimal())
        });
    }
    #[cfg(feature = "gmp")]
    {
        let x = gmp::fib(N);
        assert_eq!(x.to_string_radix(10), ours.to_string());
        g.bench_function(id(gmp::NAME, "compute"), |b| b.iter(|| gmp::fib(black_box(N))));
        g.bench_function(id(gmp::NAME, "decimal"), |b| {
            b.iter(|| black_box(&x).to_string_radix(10))
        });
    }
    g.finish();
}

/// F(10^7), the first call in a fresh process (what a command-line tool or a one-shot caller
/// pays: tables, buffers, first-touch pages): each iteration starts the `fib-first-call`
/// helper (`src/bin/fib-first-call.rs`), which computes F(10^7) once and prints the time
/// of that call; the process start is not counted. Ours against GMP's `mpz_fib_ui`.
fn bench_first_call(c: &mut Criterion) {
    const N: u64 = 10_000_000;
    let mut g = c.benchmark_group("bignum-fib/fib-first-call");
    g.warm_up_time(Duration::from_millis(100))
        .sample_size(10)
        .measurement_time(Duration::from_secs(if benches::quick() { 2 } else { 6 }));
    // The helper beside this executable where `cargo xtask bench` copied both (the build's
    // own path is overwritten by the next tier build, whose helper has no GMP), else cargo's.
    let helper = std::env::current_exe()
        .ok()
        .map(|e| e.with_file_name("fib-first-call"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_fib-first-call").into());
    let run = |which: &str, iters: u64| -> Duration {
        (0..iters)
            .map(|_| {
                let out = std::process::Command::new(&helper)
                    .args([which, &N.to_string()])
                    .output()
                    .expect("fib-first-call runs");
                assert!(out.status.success(), "fib-first-call {which}: {out:?}");
                let ns: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("ns");
                Duration::from_nanos(ns)
            })
            .sum()
    };
    g.bench_with_input(BenchmarkId::new("bignum-fib", N), &N, |b, _| {
        b.iter_custom(|iters| run("bignum-fib", iters))
    });
    #[cfg(feature = "gmp")]
    g.bench_with_input(BenchmarkId::new(gmp::NAME, N), &N, |b, _| {
        b.iter_custom(|iters| run("gmp", iters))
    });
    g.finish();
}

/// F(n) computed and converted to decimal with one thread and with two
/// (`bignum_fib::with_threads`): `bignum-fib` and `bignum-fib-2-threads`; F(10^8) in full
/// runs only.
fn bench_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("bignum-fib/fib+decimal-threads");
    g.warm_up_time(Duration::from_millis(200)).sample_size(10);
    let ns: &[u64] = if benches::quick() { &[10_000_000] } else { &[10_000_000, 100_000_000] };
    for &n in ns {
        g.measurement_time(Duration::from_secs(if n >= 100_000_000 { 20 } else { 4 }));
        for (name, threads) in [("bignum-fib", 1), ("bignum-fib-2-threads", 2)] {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| {
                    bignum_fib::with_threads(threads, || bignum_fib::fib(black_box(n)).to_string())
                })
            });
        }
    }
    g.finish();
}

/// GMP through rug (Debian's libgmp 6.2).
#[cfg(feature = "gmp")]
mod gmp {
    pub const NAME: &str = "gmp-6.2";

    /// `mpz_fib_ui`.
    pub fn fib(n: u64) -> rug::Integer {
        rug::Integer::from(rug::Integer::fibonacci(u32::try_from(n).expect("n fits u32")))
    }
}

criterion_group!(
    benches,
    bench_fib,
    bench_fib_decimal,
    bench_decimal,
    bench_1e8,
    bench_first_call,
    bench_threads
);
criterion_main!(benches);
