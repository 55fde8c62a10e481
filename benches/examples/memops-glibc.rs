//! memops against glibc, alternated in one process: the acceptance check of the memops spec's
//! classes (`memmove`, `memset`, `memcmp`, backward overlapping moves; `memchr` on request),
//! apart from criterion; and on request (`search`) the byte searches against the memchr crate
//! (an example, so that it may use the benches' dev-dependencies).
//!
//! Per class, 4096 sizes drawn at random within it (the criterion bench's classes and
//! draws); every round times two batches of calls of ours and two of glibc's on the same
//! sizes, ABBA (BAAB in odd rounds), and keeps the ratio of the sums. The
//! report per class is the median of the rounds' ratios (ours / glibc, below 1 is ours
//! faster) with its 95 % confidence interval (the order statistics of the median), the two
//! median times, and per operation the geometric mean of the classes' medians.
//!
//! ```text
//! cargo run --release -p benches --example memops-glibc -- [--rounds N] [memmove|memset|memcmp|backward|memchr|search]...
//! ```
//!
//! `NAB_MAX_ISA` caps ours as everywhere; cap glibc alike with `GLIBC_TUNABLES` (the strings
//! `cargo xtask bench` uses are in `xtask/src/bench/plan.rs`).

use std::hint::black_box;
use std::time::Instant;

use benches::{MEMOPS_CLASSES as CLASSES, MEMOPS_DRAWS as DRAWS, memops_draws as draws};

/// The backward moves' sizes (the destination 2064 bytes into the source).
const BACKWARD: [(&str, usize); 3] = [("64K", 64 << 10), ("1M", 1 << 20), ("8M", 8 << 20)];
const BACKWARD_D: usize = 2064;

const BUF_LEN: usize = (64 << 20) + 64;

/// Nanoseconds per call of `calls` calls of `f`, each with the next size.
fn time<R>(sizes: &[usize], calls: usize, f: &mut impl FnMut(usize) -> R) -> f64 {
    let start = Instant::now();
    for k in 0..calls {
        black_box(f(sizes[k % DRAWS]));
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// Calls per batch: about 8 MB of work, at least 2.
fn calls_for(sizes: &[usize]) -> usize {
    let mean = sizes.iter().sum::<usize>() / sizes.len();
    (8_000_000 / (mean + 64)).max(2)
}

struct Row {
    op: &'static str,
    class: &'static str,
    ratio: f64,
    lo: f64,
    hi: f64,
    ours: f64,
    glibc: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Ours against glibc on one class, alternated over `rounds` rounds.
fn compare<R1, R2>(
    op: &'static str,
    class: &'static str,
    sizes: &[usize],
    rounds: usize,
    mut ours: impl FnMut(usize) -> R1,
    mut glibc: impl FnMut(usize) -> R2,
) -> Row {
    let calls = calls_for(sizes);
    time(sizes, calls, &mut ours);
    time(sizes, calls, &mut glibc);
    let (mut ratios, mut to, mut tg) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        // ABBA (BAAB in odd rounds): a drift within the round cancels out.
        let (o, g) = if r % 2 == 0 {
            let o1 = time(sizes, calls, &mut ours);
            let g1 = time(sizes, calls, &mut glibc);
            let g2 = time(sizes, calls, &mut glibc);
            (o1 + time(sizes, calls, &mut ours), g1 + g2)
        } else {
            let g1 = time(sizes, calls, &mut glibc);
            let o1 = time(sizes, calls, &mut ours);
            let o2 = time(sizes, calls, &mut ours);
            (o1 + o2, g1 + time(sizes, calls, &mut glibc))
        };
        ratios.push(o / g);
        to.push(o / 2.0);
        tg.push(g / 2.0);
    }
    let ratio = median(&mut ratios);
    // The 95 % interval of a median: ranks n/2 -+ 0.98 sqrt(n) of the sorted ratios.
    let n = ratios.len() as f64;
    let half = 0.98 * n.sqrt();
    let lo = ratios[((n / 2.0 - half).floor().max(0.0)) as usize];
    let hi = ratios[((n / 2.0 + half).ceil() as usize).min(ratios.len() - 1)];
    Row { op, class, ratio, lo, hi, ours: median(&mut to), glibc: median(&mut tg) }
}

fn main() {
    let mut rounds = 61;
    let mut ops: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--rounds" {
            rounds = args.next().and_then(|v| v.parse().ok()).expect("--rounds N");
        } else if a.starts_with("--") {
            // cargo bench passes `--bench`; ignore unknown flags.
        } else {
            ops.push(a);
        }
    }
    if ops.is_empty() {
        ops = ["memmove", "memset", "memcmp", "backward"].map(String::from).to_vec();
    }
    let src = benches::input(BUF_LEN);
    let other = src.clone();
    let mut dst = vec![0u8; BUF_LEN + 4096];
    // The destination half a page from the source (clear of 4K aliasing, as the bench).
    let off = ((src.as_ptr() as usize + 2048) % 4096 + 4096 - dst.as_ptr() as usize % 4096) % 4096;
    let (s, d, o) = black_box((src.as_ptr(), dst.as_mut_ptr().wrapping_add(off), other.as_ptr()));
    let mut rows = Vec::new();
    for op in &ops {
        match op.as_str() {
            "memmove" | "memset" | "memcmp" => {
                for (class, lo, hi) in CLASSES {
                    let sizes = draws(lo, hi);
                    let row = match op.as_str() {
                        "memmove" => compare(
                            "memmove",
                            class,
                            &sizes,
                            rounds,
                            // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
                            |n| unsafe { memops::raw::memmove(d, s, n) },
                            // SAFETY: as above.
                            |n| unsafe { libc::memmove(d.cast(), s.cast(), n) },
                        ),
                        "memset" => compare(
                            "memset",
                            class,
                            &sizes,
                            rounds,
                            // SAFETY: the buffer holds 64 MiB + 64 bytes and `n <= 64 MiB`.
                            |n| unsafe { memops::raw::memset(d, 0x5a, n) },
                            // SAFETY: as above.
                            |n| unsafe { libc::memset(d.cast(), 0x5a, n) },
                        ),
                        _ => compare(
                            "memcmp",
                            class,
                            &sizes,
                            rounds,
                            // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`
                            // (equal contents, so every byte is compared).
                            |n| unsafe { memops::raw::memcmp(s, o, n) },
                            // SAFETY: as above.
                            |n| unsafe { libc::memcmp(s.cast(), o.cast(), n) },
                        ),
                    };
                    print_row(&row);
                    rows.push(row);
                }
            }
            "memchr" => {
                // An absent byte (the bytes are below 0x80): every call scans its whole size.
                let hay: Vec<u8> = src.iter().map(|x| x & 0x7f).collect();
                let h = black_box(&hay[..]);
                for (class, lo, hi) in CLASSES {
                    let sizes = draws(lo, hi);
                    let row = compare(
                        "memchr",
                        class,
                        &sizes,
                        rounds,
                        |n| memops::find_byte(&h[..n], 0xff),
                        // SAFETY: `h` holds at least `n` bytes.
                        |n| unsafe { libc::memchr(h.as_ptr().cast(), 0xff, n) },
                    );
                    print_row(&row);
                    rows.push(row);
                }
            }
            "search" => {
                // Absent needles (the bytes are below 0x80): every call scans its whole size.
                let hay: Vec<u8> = src.iter().map(|x| x & 0x7f).collect();
                let h = black_box(&hay[..]);
                let (x, y, z) = black_box((0xfd_u8, 0xfe_u8, 0xff_u8));
                let sets: [(&'static str, Vec<usize>); 4] = [
                    ("1K", vec![1 << 10; DRAWS]),
                    ("4K-64K", draws((4 << 10) + 1, 64 << 10)),
                    ("256K", vec![256 << 10; DRAWS]),
                    ("4M", vec![4 << 20; DRAWS]),
                ];
                for (class, sizes) in &sets {
                    let mut one =
                        |op,
                         a: &dyn Fn(usize) -> Option<usize>,
                         b: &dyn Fn(usize) -> Option<usize>| {
                            let row = compare(op, class, sizes, rounds, a, b);
                            print_row(&row);
                            rows.push(row);
                        };
                    one("find1", &|n| memops::find_byte(&h[..n], z), &|n| {
                        memchr::memchr(z, &h[..n])
                    });
                    one("rfind1", &|n| memops::rfind_byte(&h[..n], z), &|n| {
                        memchr::memrchr(z, &h[..n])
                    });
                    one("find2", &|n| memops::find_byte2(&h[..n], x, y), &|n| {
                        memchr::memchr2(x, y, &h[..n])
                    });
                    one("find3", &|n| memops::find_byte3(&h[..n], x, y, z), &|n| {
                        memchr::memchr3(x, y, z, &h[..n])
                    });
                    one("rfind2", &|n| memops::rfind_byte2(&h[..n], x, y), &|n| {
                        memchr::memrchr2(x, y, &h[..n])
                    });
                    one("rfind3", &|n| memops::rfind_byte3(&h[..n], x, y, z), &|n| {
                        memchr::memrchr3(x, y, z, &h[..n])
                    });
                }
            }
            "backward" => {
                let p = black_box(dst.as_mut_ptr());
                for (class, n) in BACKWARD {
                    let sizes = vec![n; DRAWS];
                    let row = compare(
                        "backward",
                        class,
                        &sizes,
                        rounds,
                        // SAFETY: the buffer holds 64 MiB + 4160 bytes, `D + n` fewer.
                        |n| unsafe { memops::raw::memmove(p.add(BACKWARD_D), p, n) },
                        // SAFETY: as above.
                        |n| unsafe { libc::memmove(p.add(BACKWARD_D).cast(), p.cast(), n) },
                    );
                    print_row(&row);
                    rows.push(row);
                }
            }
            other => panic!("unknown operation {other}"),
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for r in &rows {
        if !names.contains(&r.op) {
            names.push(r.op);
        }
    }
    for op in names {
        let r: Vec<f64> = rows.iter().filter(|r| r.op == op).map(|r| r.ratio.ln()).collect();
        let over: Vec<&str> =
            rows.iter().filter(|r| r.op == op && r.lo > 1.03).map(|r| r.class).collect();
        println!(
            "{op:9} geomean {:.3}  classes whose whole interval is over 1.03: {over:?}",
            (r.iter().sum::<f64>() / r.len() as f64).exp()
        );
    }
}

fn print_row(r: &Row) {
    println!(
        "{:9} {:7} ours/peer {:.3} [{:.3}, {:.3}]  ours {:>12.2} ns  peer {:>12.2} ns",
        r.op, r.class, r.ratio, r.lo, r.hi, r.ours, r.glibc
    );
}
