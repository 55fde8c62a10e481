//! Buffers of the transforms, kept per thread for the next product: a product's fresh
//! buffers of a few hundred KiB come from `mmap` (or a trimmed heap), and faulting their pages
//! in (zeroed by the kernel) and unmapping them took a tenth of F(10⁷)'s time. At most
//! [`KEPT`] buffers of at most [`MAX_LEN`] values each are kept; `release` frees them.
//!
//! A split onto a second thread (`par::join`) lends that thread half of the pool
//! ([`lend_half`]) and takes its pool back when it ends ([`adopt`]), so that the worker
//! threads, which are new each time, reuse buffers as one thread would; the pool then holds
//! at most [`KEPT`] per thread of the split until [`trim`].

use std::cell::RefCell;

/// At most this many buffers are kept ...
const KEPT: usize = 8;
/// ... each of at most this many values (16 MiB: transforms up to `2²¹`, F(10⁸)'s;
/// longer ones are rare enough to allocate).
const MAX_LEN: usize = 1 << 21;

thread_local! {
    static POOL: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
}

/// A vector with room for `n` values, of any length and contents: a kept one if one is
/// large enough.
pub(crate) fn take(n: usize) -> Vec<u64> {
    let kept = POOL.with(|p| {
        let mut p = p.borrow_mut();
        // The smallest kept buffer that fits.
        let best =
            (0..p.len()).filter(|&i| p[i].capacity() >= n).min_by_key(|&i| p[i].capacity())?;
        Some(p.swap_remove(best))
    });
    // Zeroed by the allocator (fresh pages need no pass over memory), so that a user
    // that needs `n` values does not zero them itself.
    kept.unwrap_or_else(|| vec![0; n])
}

/// Keeps `v` for [`take`] (or frees it: too large, or enough are kept; the
/// smallest kept one makes room for a larger one).
pub(crate) fn give(v: Vec<u64>) {
    if v.capacity() > MAX_LEN || v.capacity() == 0 {
        return;
    }
    // Not cleared: its next user overwrites the values (`Engine::load_into`), and
    // zeroing them would be a pass over memory for nothing.
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < KEPT {
            p.push(v);
        } else if let Some(i) = (0..p.len()).min_by_key(|&i| p[i].capacity())
            && p[i].capacity() < v.capacity()
        {
            p[i] = v;
        }
    });
}

/// Frees every buffer kept by this thread; returns how many bytes they held.
pub(crate) fn release() -> usize {
    POOL.with(|p| {
        let kept = std::mem::take(&mut *p.borrow_mut());
        kept.iter().map(|v| v.capacity() * size_of::<u64>()).sum()
    })
}

/// Keeps every vector of `vs` (see [`give`]).
pub(crate) fn give_all(vs: Vec<Vec<u64>>) {
    vs.into_iter().for_each(give);
}

/// Half of this thread's buffers (every other one by size), for a thread that works beside it.
pub(crate) fn lend_half() -> Vec<Vec<u64>> {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.sort_unstable_by_key(Vec::capacity);
        let all = std::mem::take(&mut *p);
        let mut lent = Vec::with_capacity(all.len() / 2 + 1);
        for (i, v) in all.into_iter().enumerate() {
            if i % 2 == 1 { lent.push(v) } else { p.push(v) }
        }
        lent
    })
}

/// Takes `vs` into this thread's pool, beyond [`KEPT`] (buffers handed back by a worker
/// thread, or lent to one).
pub(crate) fn adopt(vs: Vec<Vec<u64>>) {
    POOL.with(|p| p.borrow_mut().extend(vs));
}

/// All of this thread's buffers (a worker hands them back as it ends).
pub(crate) fn drain() -> Vec<Vec<u64>> {
    POOL.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Drops this thread's buffers beyond the [`KEPT`] largest (after a split's pools came back).
pub(crate) fn trim() {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() > KEPT {
            p.sort_unstable_by_key(|v| std::cmp::Reverse(v.capacity()));
            p.truncate(KEPT);
        }
    });
}
