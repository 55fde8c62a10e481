//! Threads (`with_threads`): the results with 2, 3 and 7 threads are those of one thread,
//! with the size thresholds lowered so that small inputs take the threaded paths, and the
//! split counter shows that they did.

mod common;

use bignum_fib::{Nat, fib, ntt_engines, with_threads, with_threads_counted};
use common::{Rng, emulated};
use proptest::prelude::*;

/// The thread counts the results are checked with (1 is the reference).
const THREADS: [usize; 3] = [2, 3, 7];

/// A threshold small enough that every split site splits at these sizes.
const MIN: usize = 1;

fn cases() -> u32 {
    if emulated() { 3 } else { 12 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// `F(n)` and its decimal digits: the squarings of each step split, the transforms'
    /// quarters above `2¹⁴` points, the decimal conversion's halves.
    #[test]
    fn fib_and_decimal_match_one_thread(n in 20_000u64..if emulated() { 60_000 } else { 400_000 }) {
        let f = fib(n);
        let text = f.to_string();
        for t in THREADS {
            let ((g, s), splits) = with_threads_counted(t, MIN, || {
                let g = fib(n);
                let s = g.to_string();
                (g, s)
            });
            prop_assert_eq!(&g, &f, "F({}) with {} threads", n, t);
            prop_assert_eq!(&s, &text, "F({}) in decimal with {} threads", n, t);
            prop_assert!(splits > 0, "F({}) with {} threads made no split", n, t);
        }
    }
}

/// Products long enough for the transforms' quarters to split (`2¹⁵` points and more), on
/// every engine: only the transforms split there, so the counter shows that they did.
#[test]
fn ntt_products_match_one_thread() {
    let mut rng = Rng(44);
    let sizes: &[usize] = if emulated() { &[9_000] } else { &[9_000, 20_000, 40_000] };
    for &len in sizes {
        let a = rng.limbs(len);
        let b = rng.limbs(len - 7);
        for e in ntt_engines() {
            let (p, q) = (e.mul(&a, &b), e.sqr(&a));
            for t in THREADS {
                let ((pt, qt), splits) =
                    with_threads_counted(t, MIN, || (e.mul(&a, &b), e.sqr(&a)));
                assert!(pt == p && qt == q, "{} limbs, {} engine, {t} threads", len, e.name());
                assert!(splits > 0, "{} limbs, {} engine, {t} threads: no split", len, e.name());
            }
        }
    }
}

/// The default is one thread: nothing splits without `with_threads`, and `with_threads(1)`
/// splits nothing even with the thresholds lowered.
#[test]
fn one_thread_unless_asked() {
    let (_, splits) = with_threads_counted(1, MIN, || fib(200_000).to_string());
    assert_eq!(splits, 0);
}

/// Calls from inside several busy threads (as a user's pool would make them) finish, with the
/// same results: no split waits on a shared pool.
#[test]
fn calls_from_busy_threads_finish() {
    let n = if emulated() { 50_000 } else { 300_000 };
    let expected = fib(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let expected = &expected;
                s.spawn(move || {
                    for t in [2, 3] {
                        let f = with_threads(t, || fib(n + i) - fib(n + i - 1) - fib(n + i - 2));
                        assert_eq!(f, Nat::zero());
                        let g = with_threads_counted(t, MIN, || fib(n)).0;
                        assert_eq!(&g, expected);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}
