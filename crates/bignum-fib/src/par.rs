//! Threads for the large operations, on request: [`with_threads`] sets how many threads the
//! calls inside its closure may use (one unless asked), and [`join`] / [`each`] split work
//! above a size threshold between the threads of that budget.
//!
//! The threads are `std::thread::scope` threads, started at each split and joined before it
//! returns: no pool, no dependency, nothing that waits on a queue that another task holds,
//! so a call from inside a user's rayon pool or tokio blocking thread cannot deadlock, and
//! no thread outlives the call. A split is made only where the work on each side takes far
//! longer than starting a thread (tens of microseconds; each threshold says where it comes
//! from). The budget is divided at each split (`t` threads: `t − t/2` stay with the caller,
//! `t/2` go to the new thread), so nested splits never run more than `t` threads at once.
//!
//! Results do not depend on the thread count: a split runs the same computations on
//! disjoint parts, in any order.
//!
//! A worker thread starts with half of the caller's kept transform buffers and hands its own
//! back as it ends (`scratch::lend_half`, `scratch::adopt`), so the buffers are reused across
//! the split as they are on one thread.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::scratch;

/// The threads a call may use, and the tests' hooks.
#[derive(Clone)]
struct Budget {
    /// At least 1.
    threads: usize,
    /// Replaces every size threshold (tests: small inputs take the threaded paths).
    min_override: Option<usize>,
    /// Counts the splits made (tests: the work really was split).
    splits: Option<Arc<AtomicUsize>>,
}

impl Budget {
    const ONE: Budget = Budget { threads: 1, min_override: None, splits: None };

    /// Whether work of `size` (in the unit of its threshold `min`) is split.
    fn splits(&self, size: usize, min: usize) -> bool {
        self.threads >= 2 && size >= self.min_override.unwrap_or(min)
    }
}

thread_local! {
    static BUDGET: RefCell<Budget> = const { RefCell::new(Budget::ONE) };
}

fn current() -> Budget {
    BUDGET.with(|b| b.borrow().clone())
}

/// Runs `f` with the budget `b` on this thread, then restores the previous one (also when
/// `f` panics).
fn with_budget<R>(b: Budget, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Budget>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(b) = self.0.take() {
                BUDGET.with(|c| *c.borrow_mut() = b);
            }
        }
    }
    let _restore = Restore(Some(BUDGET.with(|c| c.replace(b))));
    f()
}

/// See [`crate::with_threads`].
pub(crate) fn with_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    let b = Budget { threads: threads.max(1), ..current() };
    let r = with_budget(b, f);
    scratch::trim();
    r
}

/// [`with_threads`] with every size threshold replaced by `min`; returns `f`'s result and
/// the number of splits made.
pub(crate) fn with_threads_counted<R>(
    threads: usize,
    min: usize,
    f: impl FnOnce() -> R,
) -> (R, usize) {
    let splits = Arc::new(AtomicUsize::new(0));
    let b =
        Budget { threads: threads.max(1), min_override: Some(min), splits: Some(splits.clone()) };
    let r = with_budget(b, f);
    scratch::trim();
    (r, splits.load(Ordering::Relaxed))
}

/// The threads the calls on this thread may use now.
pub(crate) fn threads() -> usize {
    BUDGET.with(|b| b.borrow().threads)
}

/// Whether [`join`] would split work of `size` with the threshold `min` here (for callers
/// whose split itself costs something on one thread).
pub(crate) fn would_split(size: usize, min: usize) -> bool {
    BUDGET.with(|b| b.borrow().splits(size, min))
}

/// `(a(), b())`, on two threads when the budget has two and `size` reaches `min` (or the
/// tests' override), else one after the other.
pub(crate) fn join<RA: Send, RB: Send>(
    size: usize,
    min: usize,
    a: impl FnOnce() -> RA,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    let budget = current();
    if !budget.splits(size, min) {
        return (a(), b());
    }
    if let Some(s) = &budget.splits {
        s.fetch_add(1, Ordering::Relaxed);
    }
    let t = budget.threads;
    let mine = Budget { threads: t - t / 2, ..budget.clone() };
    let theirs = Budget { threads: t / 2, ..budget };
    let lent = scratch::lend_half();
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            scratch::adopt(lent);
            let r = with_budget(theirs, b);
            (r, scratch::drain())
        });
        let ra = with_budget(mine, a);
        let (rb, kept) = worker.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        scratch::adopt(kept);
        (ra, rb)
    })
}

/// `f` on every item, the items divided between the budget's threads in contiguous runs
/// (in proportion to each side's threads) when `size` reaches `min`.
pub(crate) fn each<T: Send, F: Fn(T) + Sync>(mut items: Vec<T>, size: usize, min: usize, f: &F) {
    let t = threads();
    if items.len() < 2 || t < 2 {
        return items.into_iter().for_each(f);
    }
    let mid = (items.len() * (t - t / 2)).div_ceil(t).clamp(1, items.len() - 1);
    let rest = items.split_off(mid);
    join(size, min, || each(items, size, min, f), || each(rest, size, min, f));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_splits_the_budget_and_counts() {
        let ((a, b), n) = with_threads_counted(3, 0, || join(1, 1, threads, threads));
        assert_eq!((a, b, n), (2, 1, 1));
        let ((a, b), n) = with_threads_counted(1, 0, || join(1, 1, threads, threads));
        assert_eq!((a, b, n), (1, 1, 0));
        // Below the threshold without the override: no split.
        let ((a, b), n) =
            with_threads(4, || with_threads_counted(4, 10, || join(5, 10, threads, threads)));
        assert_eq!((a, b, n), (4, 4, 0));
        assert_eq!(threads(), 1, "the budget is restored");
    }

    #[test]
    fn each_visits_every_item_once() {
        for t in [1, 2, 3, 7] {
            let seen: Vec<AtomicUsize> = (0..10).map(|_| AtomicUsize::new(0)).collect();
            let ((), n) = with_threads_counted(t, 0, || {
                each((0..10).collect(), 1, 1, &|i: usize| {
                    seen[i].fetch_add(1, Ordering::Relaxed);
                })
            });
            assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
            assert_eq!(n, t.min(10) - 1, "{t} threads");
        }
    }
}
