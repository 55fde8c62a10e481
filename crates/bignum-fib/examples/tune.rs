//! Measures the crossovers of the multiplication and squaring ladders (how the threshold
//! constants in `src/mul.rs` were chosen): for each size, the time of each rung with the
//! higher rungs switched off.
//!
//! `cargo run --release -p bignum-fib --example tune [kernels|mul|sqr|ntt|decimal|threads]`

use std::hint::black_box;
use std::time::Instant;

use bignum_fib::{Backend, Nat, Thresholds};

/// The fastest of 15 batches (each ~2 ms) of `f`, in nanoseconds per call: the minimum,
/// not the median, because the machine is shared and interference only adds time.
fn time(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut reps = 0u64;
    while start.elapsed().as_micros() < 2000 {
        f();
        reps += 1;
    }
    let mut samples: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_nanos() as f64 / reps as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[0]
}

fn nat(n: usize, seed: u64) -> Nat {
    let mut x = seed;
    Nat::from_limbs(
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x | 1
            })
            .collect(),
    )
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let k = Backend::detect();
    println!("backend {}", k.name());
    if what == "all" || what == "kernels" {
        for n in [8usize, 32, 128, 1024] {
            let a = nat(n, 1).limbs().to_vec();
            let mut r = nat(n, 2).limbs().to_vec();
            for b in bignum_fib::backends() {
                let t = time(|| {
                    black_box(b.addmul_1(&mut r, black_box(&a), 0x1234_5678_9abc_def1));
                });
                let t2 = time(|| {
                    black_box(b.add_assign_n(&mut r, black_box(&a)));
                });
                let mut sq = vec![0u64; 2 * n];
                let t3 = time(|| b.sqr_basecase(&mut sq, black_box(&a)));
                println!(
                    "{n:5} limbs {:9}: addmul_1 {:.3} ns/limb, add_n {:.3} ns/limb, sqr_basecase {:.3} ns/limb²",
                    b.name(),
                    t / n as f64,
                    t2 / n as f64,
                    t3 / (n * n) as f64
                );
            }
        }
    }
    let max = usize::MAX;
    let only = |kara: usize, toom: usize| Thresholds {
        mul_karatsuba: kara,
        mul_toom3: toom,
        sqr_karatsuba: kara,
        sqr_toom3: toom,
        mul_ntt: max,
        sqr_ntt: max,
    };
    let sizes = [
        8usize, 12, 16, 20, 24, 28, 32, 40, 48, 64, 80, 100, 120, 150, 200, 300, 500, 1000, 3000,
        6000,
    ];
    if what == "all" || what == "mul" {
        println!("mul n×n: ns for schoolbook / karatsuba / toom3 (lower rungs from 1 limb up)");
        for n in sizes {
            let (a, b) = (nat(n, 3), nat(n, 4));
            let tb = if n <= 1000 {
                time(|| drop(black_box(a.mul_with(&b, k, &Thresholds::SCHOOLBOOK))))
            } else {
                f64::NAN
            };
            let tk = time(|| {
                drop(black_box(a.mul_with(&b, k, &only(bignum_fib::MUL_KARATSUBA_THRESHOLD, max))))
            });
            let tt =
                time(|| drop(black_box(a.mul_with(&b, k, &Thresholds::DEFAULT.with_toom_from(n)))));
            println!("{n:6} {tb:12.0} {tk:12.0} {tt:12.0}");
        }
    }
    if what == "all" || what == "decimal" {
        println!("decimal conversion of F(n): ns");
        for n in [10_000u64, 100_000, 1_000_000] {
            let f = bignum_fib::fib(n);
            println!("{n:9} {:12.0}", time(|| drop(black_box(f.to_string()))));
        }
    }
    if what == "all" || what == "ntt" {
        ntt_crossover();
    }
    if what == "threads" {
        threads();
    }
    if what == "all" || what == "sqr" {
        println!("sqr n: ns for schoolbook / karatsuba / toom3");
        for n in sizes {
            let a = nat(n, 5);
            let tb = if n <= 1000 {
                time(|| drop(black_box(a.square_with(k, &Thresholds::SCHOOLBOOK))))
            } else {
                f64::NAN
            };
            let tk = time(|| {
                drop(black_box(a.square_with(k, &only(bignum_fib::SQR_KARATSUBA_THRESHOLD, max))))
            });
            let tt =
                time(|| drop(black_box(a.square_with(k, &Thresholds::DEFAULT.with_toom_from(n)))));
            println!("{n:6} {tb:12.0} {tk:12.0} {tt:12.0}");
        }
    }
}

/// The thresholds of the threaded splits (`src/par.rs`): what starting and joining a scoped
/// thread costs, against the work on each side of a split at the sizes around them: an
/// n-limb square (the Fibonacci step's halves, `FIB_PAR_MIN_LIMBS`), F(k) to decimal (the
/// radix conversion's halves, `RADIX_PAR_MIN_LIMBS`).
fn threads() {
    println!(
        "scoped thread start + join: {:.0} ns",
        time(|| std::thread::scope(|s| drop(s.spawn(|| ()))))
    );
    println!("n limbs: ns for an n-limb square / n-limb F(k) to decimal, one thread");
    for n in [1024usize, 2048, 4096, 8192, 16384, 65536] {
        let a = nat(n, 7);
        let f = bignum_fib::fib((n as u64 * 64 * 1000) / 694);
        println!(
            "{n:6} {:12.0} {:12.0}",
            time(|| drop(black_box(a.square()))),
            time(|| drop(black_box(f.to_string())))
        );
    }
}

/// Toom-3 (over the tuned lower rungs) against the NTT, n×n products and n-limb squares.
fn ntt_crossover() {
    let toom = Thresholds { mul_ntt: usize::MAX, sqr_ntt: usize::MAX, ..Thresholds::DEFAULT };
    let ntt = Thresholds { mul_ntt: 1, sqr_ntt: 1, ..Thresholds::DEFAULT };
    let k = Backend::detect();
    println!("n: ns for mul toom3 / mul ntt / sqr toom3 / sqr ntt");
    for n in [100usize, 150, 200, 250, 300, 400, 500, 750, 1000, 2000, 4000, 16000, 64000] {
        let (a, b) = (nat(n, 3), nat(n, 4));
        let t = [
            time(|| drop(black_box(a.mul_with(&b, k, &toom)))),
            time(|| drop(black_box(a.mul_with(&b, k, &ntt)))),
            time(|| drop(black_box(a.square_with(k, &toom)))),
            time(|| drop(black_box(a.square_with(k, &ntt)))),
        ];
        println!("{n:6} {:12.0} {:12.0} {:12.0} {:12.0}", t[0], t[1], t[2], t[3]);
    }
}

/// The tuned ladder with Toom-3 from `n` limbs (so the top rung at `n` is Toom-3).
trait WithToom {
    fn with_toom_from(self, n: usize) -> Thresholds;
}

impl WithToom for Thresholds {
    fn with_toom_from(self, n: usize) -> Thresholds {
        Thresholds {
            mul_toom3: n.min(self.mul_toom3),
            sqr_toom3: n.min(self.sqr_toom3),
            mul_ntt: usize::MAX,
            sqr_ntt: usize::MAX,
            ..self
        }
    }
}
