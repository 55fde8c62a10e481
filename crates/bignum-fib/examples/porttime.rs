//! Local timing helper (not committed).
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}
fn main() {
    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let reps: usize = std::env::args().nth(2).map_or(7, |s| s.parse().unwrap());
    let _ = bignum_fib::fib(n);
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = cpu_ns();
            std::hint::black_box(bignum_fib::fib(std::hint::black_box(n)));
            (cpu_ns() - s) as f64 / 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    println!("F({n}) cpu median {:.2} ms min {:.2} ms", t[reps / 2], t[0]);
}
