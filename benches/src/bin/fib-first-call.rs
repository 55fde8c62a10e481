//! A helper of `benches/bignum-fib.rs` (its first-call rows): computes F(N) in this fresh
//! process with one implementation and prints how long each call took, in nanoseconds, one
//! line per call. The first line is what a command-line tool or a one-shot caller pays
//! (twiddle tables, buffers, first-touch pages); with `--calls K` the later lines show the
//! warm time in the same process.
//!
//! ```text
//! fib-first-call bignum-fib|malachite-nz|gmp N [--calls K]
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(which), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse::<u64>().ok()))
    else {
        eprintln!("usage: fib-first-call bignum-fib|malachite-nz|gmp N [--calls K]");
        return ExitCode::from(2);
    };
    let calls = match args.get(2).map(String::as_str) {
        Some("--calls") => args.get(3).and_then(|k| k.parse().ok()).unwrap_or(1),
        _ => 1,
    };
    for _ in 0..calls {
        let t = Instant::now();
        match which.as_str() {
            "bignum-fib" => drop(black_box(bignum_fib::fib(black_box(n)))),
            #[cfg(feature = "peers-bignum")]
            "malachite-nz" => drop(black_box(
                <malachite_nz::natural::Natural as malachite_base::num::arithmetic::traits::Fibonacci>::fibonacci(black_box(n)),
            )),
            #[cfg(feature = "gmp")]
            "gmp" => drop(black_box(rug::Integer::from(rug::Integer::fibonacci(
                u32::try_from(n).expect("n fits u32"),
            )))),
            _ => {
                eprintln!("fib-first-call: unknown implementation '{which}'");
                return ExitCode::from(2);
            }
        }
        println!("{}", t.elapsed().as_nanos());
    }
    ExitCode::SUCCESS
}
