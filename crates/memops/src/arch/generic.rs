//! The algorithms, written once over a small [`Vector`] trait (memchr's shape): a 64-bit word
//! (the portable backend), SSE2/AVX2/AVX-512 registers on x86_64 and NEON on aarch64.
//!
//! Every operation dispatches on size class first:
//!
//! - `n <= W` (one vector): the type's own `*_small` routine (overlapping scalar words,
//!   half vectors or masked loads);
//! - `n <= 2W`, `n <= 4W`, `n <= 8W`: two, four or eight blocks, half from the start and half
//!   ending at `n` (they overlap), one branch per doubling as glibc's
//!   `memmove-vec-unaligned-erms` and `memcmp-avx2-movbe`; a move does every load first, then
//!   every store, so no loop, no byte tail, and it is correct whatever the overlap;
//! - larger: a 4-vector loop on an aligned destination (forward, or backward when `dst` lies
//!   inside `(src, src + n)`), the first and last blocks loaded up front and stored last; the
//!   compares' loop ends with the four blocks ending at `n`.
//!
//! Blocks at computed offsets (`cmov`, no branch on the size) were tried for `W < n <= 4W`
//! and lost where the upper half of a class needs twice the stores of the lower: random
//! 65–256 B moves on the Zen 4 (min of 21 alternated rounds against glibc's
//! `__memmove_avx512_unaligned_erms`) went from 1.09x glibc's time to 0.93x.
//!
//! All functions are `unsafe` with the contract of their C namesake: `dst`/`src`/`a`/`b`/`p`
//! valid for `n` bytes of the access they make (`dst` writes, the others reads).

/// A register-sized block of bytes and the few operations the algorithms need.
///
/// # Safety (for implementors)
///
/// The methods may only be called when the CPU has the instructions they use; the backends
/// guarantee that by calling the generic algorithms only from `#[target_feature]` entry points
/// reached after detection.
pub(crate) trait Vector: Copy {
    /// Bytes in one vector (a power of two, at most 64).
    const W: usize;
    /// Bits each byte occupies in a mask from [`Vector::cmp_bits`].
    const BITS_PER_BYTE: u32;
    /// Set bits each matching byte contributes to a mask (for counting).
    const ONES_PER_BYTE: u32;
    /// Masks list bytes from the most significant end (big-endian SWAR words).
    const REVERSED: bool;
    /// The mask of a comparison where every byte matched.
    const FULL: u64;
    /// The `*_small` routines are a few instructions with no branch on the size (AVX-512's
    /// masked loads and stores), worth inlining into every caller: the backend's entry points
    /// then handle `n < W` (`n <= W` for `memmove`/`memset`) before any call. See
    /// `arch::backend!`.
    const INLINE_SMALL: bool = false;
    /// `memcmp`/`bcmp` compare up to this many vectors without a loop (4 or 8).
    const CMP_BLOCKS: usize = 8;
    /// `memcmp` hands sizes up to this one (at least `W - 1`, below `4W`) to
    /// [`Vector::cmp_small`].
    const CMP_SMALL_MAX: usize = Self::W - 1;
    /// `memcmp` compares `8W < n <= 16W` bytes without a loop too: twelve blocks up to
    /// `12W`, sixteen above ([`memcmp_eight_and_tail`]). For SSE2, where that is 129–256 B.
    const CMP_SIXTEEN: bool = false;
    /// `memcmp` sizes above this one go to [`Vector::cmp_large`] (the loop).
    const CMP_NO_LOOP_MAX: usize =
        if Self::CMP_SIXTEEN { 16 * Self::W } else { Self::CMP_BLOCKS * Self::W };
    /// The result of a byte-wise comparison (a vector, a mask register or a SWAR word).
    type Cmp: Copy;

    /// Loads `W` bytes from `p` (any alignment).
    unsafe fn load(p: *const u8) -> Self;
    /// Loads `W` bytes from `p`, aligned to `W`.
    unsafe fn load_aligned(p: *const u8) -> Self;
    /// Stores `W` bytes at `p` (any alignment).
    unsafe fn store(p: *mut u8, v: Self);
    /// Stores `W` bytes at `p`, aligned to `W`.
    unsafe fn store_aligned(p: *mut u8, v: Self);
    /// Non-temporal store of `W` bytes at `p`, aligned to `W`.
    #[inline(always)]
    unsafe fn store_nt(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { Self::store_aligned(p, v) }
    }
    /// Orders the non-temporal stores before later stores.
    #[inline(always)]
    unsafe fn nt_fence() {}
    /// `W` copies of `b`.
    unsafe fn splat(b: u8) -> Self;
    /// Byte-wise equality.
    unsafe fn cmpeq(a: Self, b: Self) -> Self::Cmp;
    /// Union of two comparison results.
    unsafe fn cmp_or(a: Self::Cmp, b: Self::Cmp) -> Self::Cmp;
    /// Intersection of two comparison results.
    unsafe fn cmp_and(a: Self::Cmp, b: Self::Cmp) -> Self::Cmp;
    /// The comparison as a mask (see the `BITS_PER_BYTE`/`REVERSED` constants).
    unsafe fn cmp_bits(c: Self::Cmp) -> u64;

    /// Copies `n <= W` bytes, every load before any store.
    #[inline(always)]
    unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
        // SAFETY: same contract; `n <= W <= 64`.
        unsafe { super::scalar::copy_le64(dst, src, n) }
    }
    /// Sets `n <= W` bytes.
    #[inline(always)]
    unsafe fn set_small(dst: *mut u8, b: u8, n: usize) {
        // SAFETY: same contract; `n <= W <= 64`.
        unsafe { super::scalar::set_le64(dst, b, n) }
    }
    /// `memcmp` of `n <= CMP_SMALL_MAX` bytes.
    #[inline(always)]
    unsafe fn cmp_small(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: same contract.
        unsafe { super::scalar::memcmp(a, b, n) }
    }
    /// Equality of `n < W` bytes.
    #[inline(always)]
    unsafe fn eq_small(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: same contract.
        unsafe { super::scalar::equal(a, b, n) }
    }
    /// `memcmp` of `W <= n <= 4W` bytes.
    #[inline(always)]
    unsafe fn cmp_mid(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: same contract.
        unsafe { memcmp_four_blocks::<Self>(a, b, n) }
    }
    /// Equality of `W <= n <= 4W` bytes.
    #[inline(always)]
    unsafe fn eq_mid(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: same contract.
        unsafe { equal_four_blocks::<Self>(a, b, n) }
    }
    /// `memcmp` of `n > CMP_BLOCKS * W` bytes.
    #[inline(always)]
    unsafe fn cmp_large(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: same contract.
        unsafe { memcmp_large::<Self>(a, b, n) }
    }
    /// Equality of `n > CMP_BLOCKS * W` bytes.
    #[inline(always)]
    unsafe fn eq_large(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: same contract.
        unsafe { equal_large::<Self>(a, b, n) }
    }
    /// The first byte of `p[..n]` (`n < W`) equal to any of the `K` needles. (No default:
    /// the portable words' search, `portable::find`, is itself built on this module.)
    unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize>;
    /// The last byte of `p[..n]` (`n < W`) equal to any of the `K` needles.
    unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize>;
    /// Count of `b` in `n < W` bytes.
    unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize;
    /// The strategy of large moves and fills on this CPU (cached; see [`Strategy`]).
    #[inline(always)]
    fn strategy() -> Strategy {
        Strategy::LOOPS_ONLY
    }
    /// The loop of [`move_backward`]: copies the `4W`-byte blocks ending at `i`, `i - 4W`,
    /// ... from `src` to `dst` while the block starts above 0 (`i > 4W`), highest block
    /// first, each block's loads before its stores (`dst + i` is `W`-aligned, so the stores
    /// are aligned). The bytes below the last block are the caller's.
    ///
    /// # Safety
    ///
    /// `src[..i]` readable, `dst[..i]` writable, `dst + i` aligned to `W`, `i >= 4W`;
    /// `dst >= src` or the ranges disjoint.
    #[inline(always)]
    unsafe fn move_backward_blocks(dst: *mut u8, src: *const u8, i: usize) {
        let w = Self::W;
        let mut i = i;
        // SAFETY: every block lies in `[0, i)`; a block's loads precede its stores, and with
        // `dst >= src` its stores land at or above the lowest source byte read so far.
        unsafe {
            while i > 4 * w {
                i -= 4 * w;
                let a = Self::load(src.add(i));
                let b = Self::load(src.add(i + w));
                let c = Self::load(src.add(i + 2 * w));
                let d = Self::load(src.add(i + 3 * w));
                Self::store_aligned(dst.add(i + 3 * w), d);
                Self::store_aligned(dst.add(i + 2 * w), c);
                Self::store_aligned(dst.add(i + w), b);
                Self::store_aligned(dst.add(i), a);
            }
        }
    }
    /// A whole large forward copy done another way (`rep movsb`) under `s`; `false` if not
    /// taken.
    #[inline(always)]
    unsafe fn copy_forward_large(_dst: *mut u8, _src: *const u8, _n: usize, _s: &Strategy) -> bool {
        false
    }
    /// A whole large fill done another way (`rep stosb`) under `s`; `false` if not taken.
    #[inline(always)]
    unsafe fn set_large(_dst: *mut u8, _b: u8, _n: usize, _s: &Strategy) -> bool {
        false
    }
    /// `p`, hidden from the optimizer where the ISA allows (an empty `asm!` on x86_64), so
    /// that a loop stepping it keeps base-plus-displacement addresses: LLVM otherwise rewrites
    /// the pointer as a base plus a counted index.
    #[inline(always)]
    fn opaque(p: *const u8) -> *const u8 {
        p
    }
}

/// Index (in bytes) of the first byte set in `m` (non-zero).
#[inline(always)]
fn first<V: Vector>(m: u64) -> usize {
    let bit = if V::REVERSED { m.leading_zeros() } else { m.trailing_zeros() };
    (bit / V::BITS_PER_BYTE) as usize
}

/// Index (in bytes) of the last byte set in `m` (non-zero).
#[inline(always)]
fn last<V: Vector>(m: u64) -> usize {
    let bit = if V::REVERSED { 63 - m.trailing_zeros() } else { 63 - m.leading_zeros() };
    (bit / V::BITS_PER_BYTE) as usize
}

/// Bytes set in `m`.
#[inline(always)]
fn count_bits<V: Vector>(m: u64) -> usize {
    (m.count_ones() / V::ONES_PER_BYTE) as usize
}

/// `m` without its first `k < W` bytes.
#[inline(always)]
fn skip_first<V: Vector>(m: u64, k: usize) -> u64 {
    let s = k as u32 * V::BITS_PER_BYTE;
    if V::REVERSED { m & (u64::MAX >> s) } else { m & (u64::MAX << s) }
}

/// Offsets of four `W`-byte blocks covering `W < n <= 4W` in increasing order, with no branch
/// on the size: 0, min(W, n - W), min(2W, n - W), n - W. A block's bytes that an earlier block
/// also covers were already checked, so the first hit in the first block with one is the first
/// hit overall (and the mirror image holds for the last hit).
#[inline(always)]
fn four_blocks(n: usize, w: usize) -> [usize; 4] {
    [0, (n - w).min(w), (n - w).min(2 * w), n - w]
}

/// `memmove` of `n <= 8W` bytes (every load before any store, so any overlap is fine).
/// Backends call this inline and [`memmove_large`] out of line, so the small classes run
/// without the large path's register saves.
#[inline(always)]
pub(crate) unsafe fn memmove_small<V: Vector>(dst: *mut u8, src: *const u8, n: usize) {
    let w = V::W;
    // SAFETY: (whole body) every access is inside `src[..n]` or `dst[..n]`, which the caller
    // guarantees valid; all loads precede all stores.
    unsafe {
        if n <= w {
            V::copy_small(dst, src, n);
        } else if n <= 2 * w {
            // Two blocks, at 0 and n - W (glibc's `memmove-vec-unaligned-erms` shape: a
            // branch per doubling of the size rather than blocks at computed offsets, so
            // the shorter half of a class stores half as much).
            let a = V::load(src);
            let b = V::load(src.add(n - w));
            V::store(dst, a);
            V::store(dst.add(n - w), b);
        } else if n <= 4 * w {
            let a = V::load(src);
            let b = V::load(src.add(w));
            let c = V::load(src.add(n - 2 * w));
            let d = V::load(src.add(n - w));
            V::store(dst, a);
            V::store(dst.add(w), b);
            V::store(dst.add(n - 2 * w), c);
            V::store(dst.add(n - w), d);
        } else if n <= 8 * w {
            let a = V::load(src);
            let b = V::load(src.add(w));
            let c = V::load(src.add(2 * w));
            let d = V::load(src.add(3 * w));
            let e = V::load(src.add(n - 4 * w));
            let f = V::load(src.add(n - 3 * w));
            let g = V::load(src.add(n - 2 * w));
            let h = V::load(src.add(n - w));
            V::store(dst, a);
            V::store(dst.add(w), b);
            V::store(dst.add(2 * w), c);
            V::store(dst.add(3 * w), d);
            V::store(dst.add(n - 4 * w), e);
            V::store(dst.add(n - 3 * w), f);
            V::store(dst.add(n - 2 * w), g);
            V::store(dst.add(n - w), h);
        }
    }
}

/// `memmove` of `n > 8W` bytes: forward, or backward when `dst` lies inside `(src, src + n)`.
#[inline(always)]
pub(crate) unsafe fn memmove_large<V: Vector>(
    dst: *mut u8,
    src: *const u8,
    n: usize,
    s: &Strategy,
) {
    // SAFETY: forwarded contract; `n > 8W`.
    unsafe {
        if dst.addr().wrapping_sub(src.addr()) < n {
            // `dst` inside `(src, src + n)`: a forward copy would overwrite unread source.
            move_backward::<V>(dst, src, n);
        } else {
            move_forward::<V>(dst, src, n, s);
        }
    }
}

/// Forward copy of `n > 8W` bytes; correct when `dst <= src` or the ranges are disjoint.
#[inline(always)]
unsafe fn move_forward<V: Vector>(dst: *mut u8, src: *const u8, n: usize, s: &Strategy) {
    let w = V::W;
    // SAFETY: (whole body) accesses stay in `src[..n]`/`dst[..n]`. Each loop iteration loads
    // before it stores, and its stores land below the next unread source byte when
    // `dst < src`; the head and tail blocks are loaded before anything is stored.
    unsafe {
        if V::copy_forward_large(dst, src, n, s) {
            return;
        }
        let head = V::load(src);
        let t0 = V::load(src.add(n - 4 * w));
        let t1 = V::load(src.add(n - 3 * w));
        let t2 = V::load(src.add(n - 2 * w));
        let t3 = V::load(src.add(n - w));
        // First `W`-aligned destination byte, in 1..=W.
        let mut i = w - (dst.addr() & (w - 1));
        let end = n - 4 * w;
        if n >= s.nt_threshold && dst.addr().abs_diff(src.addr()) >= n {
            while i < end {
                let a = V::load(src.add(i));
                let b = V::load(src.add(i + w));
                let c = V::load(src.add(i + 2 * w));
                let d = V::load(src.add(i + 3 * w));
                V::store_nt(dst.add(i), a);
                V::store_nt(dst.add(i + w), b);
                V::store_nt(dst.add(i + 2 * w), c);
                V::store_nt(dst.add(i + 3 * w), d);
                i += 4 * w;
            }
            V::nt_fence();
        } else {
            while i < end {
                let a = V::load(src.add(i));
                let b = V::load(src.add(i + w));
                let c = V::load(src.add(i + 2 * w));
                let d = V::load(src.add(i + 3 * w));
                V::store_aligned(dst.add(i), a);
                V::store_aligned(dst.add(i + w), b);
                V::store_aligned(dst.add(i + 2 * w), c);
                V::store_aligned(dst.add(i + 3 * w), d);
                i += 4 * w;
            }
        }
        V::store(dst.add(n - 4 * w), t0);
        V::store(dst.add(n - 3 * w), t1);
        V::store(dst.add(n - 2 * w), t2);
        V::store(dst.add(n - w), t3);
        V::store(dst, head);
    }
}

/// Backward copy of `n > 8W` bytes; correct when `dst >= src` or the ranges are disjoint.
#[inline(always)]
unsafe fn move_backward<V: Vector>(dst: *mut u8, src: *const u8, n: usize) {
    let w = V::W;
    // SAFETY: (whole body) mirror image of `move_forward`.
    unsafe {
        let h0 = V::load(src);
        let h1 = V::load(src.add(w));
        let h2 = V::load(src.add(2 * w));
        let h3 = V::load(src.add(3 * w));
        let tail = V::load(src.add(n - w));
        // Offset of the last `W`-aligned destination boundary, in (n - W, n].
        let i = n - (dst.addr().wrapping_add(n) & (w - 1));
        V::move_backward_blocks(dst, src, i);
        V::store(dst, h0);
        V::store(dst.add(w), h1);
        V::store(dst.add(2 * w), h2);
        V::store(dst.add(3 * w), h3);
        V::store(dst.add(n - w), tail);
    }
}

/// `memset` of `n <= 8W` bytes (see [`memmove_small`] for the split).
#[inline(always)]
pub(crate) unsafe fn memset_small<V: Vector>(dst: *mut u8, b: u8, n: usize) {
    let w = V::W;
    // SAFETY: (whole body) every store is inside `dst[..n]`.
    unsafe {
        if n <= w {
            return V::set_small(dst, b, n);
        }
        let v = V::splat(b);
        if n <= 2 * w {
            // As in `memmove_small`: a branch per doubling of the size.
            V::store(dst, v);
            V::store(dst.add(n - w), v);
        } else if n <= 4 * w {
            V::store(dst, v);
            V::store(dst.add(w), v);
            V::store(dst.add(n - 2 * w), v);
            V::store(dst.add(n - w), v);
        } else if n <= 8 * w {
            V::store(dst, v);
            V::store(dst.add(w), v);
            V::store(dst.add(2 * w), v);
            V::store(dst.add(3 * w), v);
            V::store(dst.add(n - 4 * w), v);
            V::store(dst.add(n - 3 * w), v);
            V::store(dst.add(n - 2 * w), v);
            V::store(dst.add(n - w), v);
        }
    }
}

/// `memset` of `n > 8W` bytes.
#[inline(always)]
pub(crate) unsafe fn memset_large<V: Vector>(dst: *mut u8, b: u8, n: usize, s: &Strategy) {
    let w = V::W;
    // SAFETY: (whole body) every store is inside `dst[..n]`; `n > 8W`.
    unsafe {
        if V::set_large(dst, b, n, s) {
            return;
        }
        let v = V::splat(b);
        V::store(dst, v);
        let mut i = w - (dst.addr() & (w - 1));
        let end = n - 4 * w;
        if n >= s.nt_memset_threshold {
            while i < end {
                V::store_nt(dst.add(i), v);
                V::store_nt(dst.add(i + w), v);
                V::store_nt(dst.add(i + 2 * w), v);
                V::store_nt(dst.add(i + 3 * w), v);
                i += 4 * w;
            }
            V::nt_fence();
        } else {
            while i < end {
                V::store_aligned(dst.add(i), v);
                V::store_aligned(dst.add(i + w), v);
                V::store_aligned(dst.add(i + 2 * w), v);
                V::store_aligned(dst.add(i + 3 * w), v);
                i += 4 * w;
            }
        }
        V::store(dst.add(n - 4 * w), v);
        V::store(dst.add(n - 3 * w), v);
        V::store(dst.add(n - 2 * w), v);
        V::store(dst.add(n - w), v);
    }
}

/// The sign of `a[j] - b[j]` at the first byte `j` where the `W` bytes at `a`/`b` differ,
/// given `eq`, their equality mask (not [`Vector::FULL`]).
#[inline(always)]
unsafe fn diff_at<V: Vector>(a: *const u8, b: *const u8, eq: u64) -> i32 {
    let j = first::<V>(!eq & V::FULL);
    // SAFETY: `j < W` and the caller's blocks are readable.
    unsafe { i32::from(*a.add(j)) - i32::from(*b.add(j)) }
}

/// `memcmp` of `W <= n <= 4W` bytes: two blocks (at 0 and `n - W`) up to `2W`, four (at 0,
/// `W`, `n - 2W`, `n - W`) above, one test of all of them (glibc's `memcmp-avx2-movbe` splits
/// the sizes the same way). The blocks are checked in that order when some byte differs: a
/// block's bytes below its first difference are equal, and the bytes below it that it does not
/// cover are covered by the blocks checked before it, so its first difference is the first.
///
/// The loads are written out, not mapped over an array of offsets: a closure passed to
/// `array::map` is not inlined into a `#[target_feature]` caller, and its out-of-line call
/// went through the stack (AVX2: 36 ns for 17–64 B compares, glibc 2.6 ns).
#[inline(always)]
pub(crate) unsafe fn memcmp_four_blocks<V: Vector>(a: *const u8, b: *const u8, n: usize) -> i32 {
    let w = V::W;
    // SAFETY: (whole body) every block lies inside `a[..n]`/`b[..n]` as `W <= n`, and the
    // middle two are read only when `n > 2W`.
    unsafe {
        let e0 = V::cmpeq(V::load(a), V::load(b));
        let e3 = V::cmpeq(V::load(a.add(n - w)), V::load(b.add(n - w)));
        if n <= 2 * w {
            if V::cmp_bits(V::cmp_and(e0, e3)) != V::FULL {
                let m = V::cmp_bits(e0);
                if m != V::FULL {
                    return diff_at::<V>(a, b, m);
                }
                return diff_at::<V>(a.add(n - w), b.add(n - w), V::cmp_bits(e3));
            }
            return 0;
        }
        let e1 = V::cmpeq(V::load(a.add(w)), V::load(b.add(w)));
        let e2 = V::cmpeq(V::load(a.add(n - 2 * w)), V::load(b.add(n - 2 * w)));
        let all = V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3));
        if V::cmp_bits(all) != V::FULL {
            for (o, e) in [(0, e0), (w, e1), (n - 2 * w, e2), (n - w, e3)] {
                let m = V::cmp_bits(e);
                if m != V::FULL {
                    return diff_at::<V>(a.add(o), b.add(o), m);
                }
            }
        }
        0
    }
}

/// Equality of `W <= n <= 4W` bytes, the blocks of [`memcmp_four_blocks`].
#[inline(always)]
unsafe fn equal_four_blocks<V: Vector>(a: *const u8, b: *const u8, n: usize) -> bool {
    let w = V::W;
    // SAFETY: as in `memcmp_four_blocks`.
    unsafe {
        let e0 = V::cmpeq(V::load(a), V::load(b));
        let e3 = V::cmpeq(V::load(a.add(n - w)), V::load(b.add(n - w)));
        if n <= 2 * w {
            return V::cmp_bits(V::cmp_and(e0, e3)) == V::FULL;
        }
        let e1 = V::cmpeq(V::load(a.add(w)), V::load(b.add(w)));
        let e2 = V::cmpeq(V::load(a.add(n - 2 * w)), V::load(b.add(n - 2 * w)));
        V::cmp_bits(V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3))) == V::FULL
    }
}

/// `memcmp` of `4W < n <= 8W` bytes: the blocks at 0, `W`, `2W`, `3W` and the four ending at
/// `n`, one test of all eight, no loop (glibc's AVX2/EVEX `memcmp` handles up to 8 vectors
/// the same way). The first four cover `[0, 4W)` and the last four `[n - 4W, n)`, each run in
/// address order, so the first block with a difference holds the first difference (see
/// [`memcmp_four_blocks`]).
#[inline(always)]
unsafe fn memcmp_eight_blocks<V: Vector>(a: *const u8, b: *const u8, n: usize) -> i32 {
    let w = V::W;
    // SAFETY: (whole body) every block lies inside `a[..n]`/`b[..n]` as `4W < n`.
    unsafe {
        let o = [0, w, 2 * w, 3 * w, n - 4 * w, n - 3 * w, n - 2 * w, n - w];
        let e0 = V::cmpeq(V::load(a.add(o[0])), V::load(b.add(o[0])));
        let e1 = V::cmpeq(V::load(a.add(o[1])), V::load(b.add(o[1])));
        let e2 = V::cmpeq(V::load(a.add(o[2])), V::load(b.add(o[2])));
        let e3 = V::cmpeq(V::load(a.add(o[3])), V::load(b.add(o[3])));
        let e4 = V::cmpeq(V::load(a.add(o[4])), V::load(b.add(o[4])));
        let e5 = V::cmpeq(V::load(a.add(o[5])), V::load(b.add(o[5])));
        let e6 = V::cmpeq(V::load(a.add(o[6])), V::load(b.add(o[6])));
        let e7 = V::cmpeq(V::load(a.add(o[7])), V::load(b.add(o[7])));
        let lo = V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3));
        let hi = V::cmp_and(V::cmp_and(e4, e5), V::cmp_and(e6, e7));
        if V::cmp_bits(V::cmp_and(lo, hi)) != V::FULL {
            // Masks, not vectors, in the array: an array of vectors is kept on the stack,
            // and the stack frame it needs (realigned for 32-byte vectors) was set up on
            // every call, the equal ones too.
            let m = [e0, e1, e2, e3, e4, e5, e6, e7].map(|e| V::cmp_bits(e));
            for (o, m) in o.into_iter().zip(m) {
                if m != V::FULL {
                    return diff_at::<V>(a.add(o), b.add(o), m);
                }
            }
        }
        0
    }
}

/// Equality of `4W < n <= 8W` bytes, the blocks of [`memcmp_eight_blocks`].
#[inline(always)]
unsafe fn equal_eight_blocks<V: Vector>(a: *const u8, b: *const u8, n: usize) -> bool {
    let w = V::W;
    // SAFETY: as in `memcmp_eight_blocks`.
    unsafe {
        let e0 = V::cmpeq(V::load(a), V::load(b));
        let e1 = V::cmpeq(V::load(a.add(w)), V::load(b.add(w)));
        let e2 = V::cmpeq(V::load(a.add(2 * w)), V::load(b.add(2 * w)));
        let e3 = V::cmpeq(V::load(a.add(3 * w)), V::load(b.add(3 * w)));
        let e4 = V::cmpeq(V::load(a.add(n - 4 * w)), V::load(b.add(n - 4 * w)));
        let e5 = V::cmpeq(V::load(a.add(n - 3 * w)), V::load(b.add(n - 3 * w)));
        let e6 = V::cmpeq(V::load(a.add(n - 2 * w)), V::load(b.add(n - 2 * w)));
        let e7 = V::cmpeq(V::load(a.add(n - w)), V::load(b.add(n - w)));
        let lo = V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3));
        let hi = V::cmp_and(V::cmp_and(e4, e5), V::cmp_and(e6, e7));
        V::cmp_bits(V::cmp_and(lo, hi)) == V::FULL
    }
}

/// `memcmp`: negative, zero or positive like C's.
#[inline(always)]
pub(crate) unsafe fn memcmp<V: Vector>(a: *const u8, b: *const u8, n: usize) -> i32 {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`.
    unsafe {
        if n <= V::CMP_SMALL_MAX {
            return V::cmp_small(a, b, n);
        }
        if n <= 4 * w {
            return V::cmp_mid(a, b, n);
        }
        if V::CMP_BLOCKS == 8 && n <= 8 * w {
            return memcmp_eight_blocks::<V>(a, b, n);
        }
        if V::CMP_SIXTEEN && n <= 16 * w {
            return if n <= 12 * w {
                memcmp_eight_and_tail::<V, 4>(a, b, n)
            } else {
                memcmp_eight_and_tail::<V, 8>(a, b, n)
            };
        }
        memcmp_large::<V>(a, b, n)
    }
}

/// The equality of the `W` bytes at `a + o` and `b + o`.
///
/// # Safety
///
/// Both blocks readable; the trait contract.
#[inline(always)]
unsafe fn block_eq<V: Vector>(a: *const u8, b: *const u8, o: usize) -> V::Cmp {
    // SAFETY: the caller's contract.
    unsafe { V::cmpeq(V::load(a.add(o)), V::load(b.add(o))) }
}

/// `memcmp` of `8W < n <= (8 + T) * W` bytes (`T` is 4 or 8) with no loop: the eight
/// blocks from 0 and the `T` ending at `n` (they cover `[n - T * W, n)`, which starts at or
/// below `8W`), one test of all of them. For SSE2's 129–256 B (`NAB_MAX_ISA=x86-64-v2`,
/// against glibc 2.36's `__memcmp_sse2`, medians of 31 alternated rounds of 4096 calls, on
/// 2 cores, eight runs): at 144 and 160 bytes the loop of [`memcmp_large`] took
/// 5.4–6.3 ns and this 5.0–5.4 (glibc 4.4–4.6); random 65–256 B 1.02–1.08x glibc's time
/// before, 0.93–0.98x with this.
#[inline(always)]
unsafe fn memcmp_eight_and_tail<V: Vector, const T: usize>(
    a: *const u8,
    b: *const u8,
    n: usize,
) -> i32 {
    let w = V::W;
    // Block `k`'s offset: `kW` for the first eight, then the `T` ending at `n`.
    let at = |k: usize| if k < 8 { k * w } else { n - (8 + T - k) * w };
    // SAFETY: (whole body) the trait contract; every block lies inside `a[..n]`/`b[..n]`:
    // the first eight end at `8W < n`, the last `T` start at `n - T * W >= 0` and end at
    // most at `n`. The loops are unrolled (constant bounds); the loads are in a helper
    // function, not in the closure, so that they are inlined with the caller's target
    // features.
    unsafe {
        // Four independent AND chains (a tree, not one chain of dependent ANDs).
        let (mut e0, mut e1, mut e2, mut e3) = (
            block_eq::<V>(a, b, at(0)),
            block_eq::<V>(a, b, at(1)),
            block_eq::<V>(a, b, at(2)),
            block_eq::<V>(a, b, at(3)),
        );
        let mut k = 4;
        while k < 8 + T {
            e0 = V::cmp_and(e0, block_eq::<V>(a, b, at(k)));
            e1 = V::cmp_and(e1, block_eq::<V>(a, b, at(k + 1)));
            e2 = V::cmp_and(e2, block_eq::<V>(a, b, at(k + 2)));
            e3 = V::cmp_and(e3, block_eq::<V>(a, b, at(k + 3)));
            k += 4;
        }
        if V::cmp_bits(V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3))) == V::FULL {
            return 0;
        }
        // Some byte differs: a loop over the blocks in address order (the last one ending at
        // `n`) finds the first. A loop, not the blocks above again: the compiler would keep
        // their results live from the equal path, and inlining `memcmp_large` here made
        // every call, the short ones too, set up a stack frame.
        let mut i = 0;
        while i < n {
            let o = i.min(n - w);
            let m = V::cmp_bits(block_eq::<V>(a, b, o));
            if m != V::FULL {
                return diff_at::<V>(a.add(o), b.add(o), m);
            }
            i += w;
        }
        0
    }
}

/// `memcmp` of `n > 4W` bytes: the first block, then an 8-block loop and a 4-block step on
/// `a`'s alignment, one test per step, and the first difference found again (blocks
/// reloaded) only in the step that has one.
///
/// Random 257 B–4 KiB compares (alternated harness, medians of 31 rounds), our time
/// / glibc's: AVX2 (`__memcmp_avx2_movbe`) 1.04–1.05 with a 4-block loop that tested
/// `memcmp_four_at`'s result at every iteration, 1.01 with this; SSE2 (`__memcmp_sse2`)
/// 1.00–1.01 and 0.99–1.00, 4–64 KiB 0.98–1.00 and 0.97.
#[inline(always)]
pub(crate) unsafe fn memcmp_large<V: Vector>(a: *const u8, b: *const u8, n: usize) -> i32 {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`; `n > 4W`.
    unsafe {
        let m = V::cmp_bits(V::cmpeq(V::load(a), V::load(b)));
        if m != V::FULL {
            return diff_at::<V>(a, b, m);
        }
        // From the first boundary of `a` on, its loads are aligned (no cache-line splits on
        // one side); the bytes before it were just found equal.
        let mut i = w - (a.addr() & (w - 1));
        while i + 8 * w <= n {
            // A difference: the 4-block step below finds it (its first four blocks or, once
            // they are equal, the next four).
            let e = V::cmp_and(eq_four_at::<V>(a, b, i), eq_four_at::<V>(a, b, i + 4 * w));
            if V::cmp_bits(e) != V::FULL {
                break;
            }
            i += 8 * w;
        }
        while i + 4 * w <= n {
            // The loop of `equal_large`, and the first difference found again (the blocks
            // reloaded) only when there is one: with `memcmp_four_at` in the loop, the compiler
            // tested its result at every iteration, and SSE2 compares of 129–256 B (before
            // `memcmp_eight_and_tail`) took 0.7 ns more than `equal`'s.
            if !equal_four_at::<V>(a, b, i) {
                return memcmp_four_at::<V, true>(a, b, i);
            }
            i += 4 * w;
        }
        // The rest, `[i, n)`, is shorter than `4W`: the four blocks ending at `n` (glibc's
        // tail, instead of a one-vector loop whose trip count mispredicts); the bytes they
        // cover before `i` were found equal.
        if i < n {
            return memcmp_four_at::<V, false>(a, b, n - 4 * w);
        }
        0
    }
}

/// `V::load_aligned` when `ALIGNED`, else `V::load`.
///
/// # Safety
///
/// As the load it makes.
#[inline(always)]
unsafe fn load_maybe_aligned<V: Vector, const ALIGNED: bool>(p: *const u8) -> V {
    // SAFETY: forwarded contract.
    unsafe { if ALIGNED { V::load_aligned(p) } else { V::load(p) } }
}

/// The `memcmp` of the four blocks from `a + i`/`b + i`, 0 when they are equal (`ALIGNED`:
/// `a + i` is aligned to `W`).
///
/// # Safety
///
/// `a` and `b` valid for reads of `i + 4W` bytes.
#[inline(always)]
unsafe fn memcmp_four_at<V: Vector, const ALIGNED: bool>(
    a: *const u8,
    b: *const u8,
    i: usize,
) -> i32 {
    let w = V::W;
    // SAFETY: (whole body) the four blocks lie inside the caller's `i + 4W` bytes.
    unsafe {
        let e0 = V::cmpeq(load_maybe_aligned::<V, ALIGNED>(a.add(i)), V::load(b.add(i)));
        let e1 = V::cmpeq(load_maybe_aligned::<V, ALIGNED>(a.add(i + w)), V::load(b.add(i + w)));
        let e2 =
            V::cmpeq(load_maybe_aligned::<V, ALIGNED>(a.add(i + 2 * w)), V::load(b.add(i + 2 * w)));
        let e3 =
            V::cmpeq(load_maybe_aligned::<V, ALIGNED>(a.add(i + 3 * w)), V::load(b.add(i + 3 * w)));
        let all = V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3));
        if V::cmp_bits(all) != V::FULL {
            let m = [e0, e1, e2, e3].map(|e| V::cmp_bits(e));
            for (k, m) in m.into_iter().enumerate() {
                if m != V::FULL {
                    return diff_at::<V>(a.add(i + k * w), b.add(i + k * w), m);
                }
            }
        }
        0
    }
}

/// The AND of the equality of the four blocks from `a + i`/`b + i` (`a + i` aligned).
///
/// # Safety
///
/// `a` and `b` valid for reads of `i + 4W` bytes; `a + i` aligned to `W`.
#[inline(always)]
unsafe fn eq_four_at<V: Vector>(a: *const u8, b: *const u8, i: usize) -> V::Cmp {
    let w = V::W;
    // SAFETY: (whole body) the four blocks lie inside the caller's `i + 4W` bytes, and
    // `a + i` (so `a + i + kW`) is aligned.
    unsafe {
        let e0 = V::cmpeq(V::load_aligned(a.add(i)), V::load(b.add(i)));
        let e1 = V::cmpeq(V::load_aligned(a.add(i + w)), V::load(b.add(i + w)));
        let e2 = V::cmpeq(V::load_aligned(a.add(i + 2 * w)), V::load(b.add(i + 2 * w)));
        let e3 = V::cmpeq(V::load_aligned(a.add(i + 3 * w)), V::load(b.add(i + 3 * w)));
        V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3))
    }
}

/// Whether the four blocks from `a + i`/`b + i` are equal (`a + i` aligned to `W`).
///
/// # Safety
///
/// As [`eq_four_at`].
#[inline(always)]
unsafe fn equal_four_at<V: Vector>(a: *const u8, b: *const u8, i: usize) -> bool {
    // SAFETY: the caller's contract.
    unsafe { V::cmp_bits(eq_four_at::<V>(a, b, i)) == V::FULL }
}

/// Whether `a[..n] == b[..n]` (`bcmp`).
#[inline(always)]
pub(crate) unsafe fn equal<V: Vector>(a: *const u8, b: *const u8, n: usize) -> bool {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`.
    unsafe {
        if n < w {
            return V::eq_small(a, b, n);
        }
        if n <= 4 * w {
            return V::eq_mid(a, b, n);
        }
        if V::CMP_BLOCKS == 8 && n <= 8 * w {
            return equal_eight_blocks::<V>(a, b, n);
        }
        equal_large::<V>(a, b, n)
    }
}

/// Whether `a[..n] == b[..n]` for `n > 4W`, as [`memcmp_large`].
#[inline(always)]
pub(crate) unsafe fn equal_large<V: Vector>(a: *const u8, b: *const u8, n: usize) -> bool {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `a[..n]`/`b[..n]`; `n > 4W`.
    unsafe {
        if V::cmp_bits(V::cmpeq(V::load(a), V::load(b))) != V::FULL {
            return false;
        }
        // Aligned loads from `a`, as in `memcmp`.
        let mut i = w - (a.addr() & (w - 1));
        while i + 4 * w <= n {
            if !equal_four_at::<V>(a, b, i) {
                return false;
            }
            i += 4 * w;
        }
        // The four blocks ending at `n`, as in `memcmp_large`.
        if i < n {
            let i = n - 4 * w;
            let e0 = V::cmpeq(V::load(a.add(i)), V::load(b.add(i)));
            let e1 = V::cmpeq(V::load(a.add(i + w)), V::load(b.add(i + w)));
            let e2 = V::cmpeq(V::load(a.add(i + 2 * w)), V::load(b.add(i + 2 * w)));
            let e3 = V::cmpeq(V::load(a.add(i + 3 * w)), V::load(b.add(i + 3 * w)));
            return V::cmp_bits(V::cmp_and(V::cmp_and(e0, e1), V::cmp_and(e2, e3))) == V::FULL;
        }
        true
    }
}

/// Byte-wise "equals any of the `K` needles" (`K` is 1, 2 or 3). Written without iterators
/// (here and below): LLVM left `Zip::next` and `array::map` as out-of-line calls in these
/// `#[target_feature]` kernels, spilling every vector to the stack.
#[inline(always)]
unsafe fn eq_any<V: Vector, const K: usize>(x: V, nv: [V; K]) -> V::Cmp {
    // SAFETY: (whole body) the trait contract; `1 <= K <= 3`.
    unsafe {
        let mut c = V::cmpeq(x, nv[0]);
        if K > 1 {
            c = V::cmp_or(c, V::cmpeq(x, nv[1]));
        }
        if K > 2 {
            c = V::cmp_or(c, V::cmpeq(x, nv[2]));
        }
        c
    }
}

/// [`eq_any`] against the needles splatted here (the short searches' one vector).
///
/// # Safety
///
/// The trait contract (the CPU has `V`'s features).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64's short searches only
#[inline(always)]
pub(crate) unsafe fn eq_any_splat<V: Vector, const K: usize>(x: V, b: [u8; K]) -> V::Cmp {
    // SAFETY: the caller's trait contract.
    unsafe { eq_any(x, splat_all::<V, K>(b)) }
}

/// `[splat(b[0]), ..]` for `1 <= K <= 3`.
#[inline(always)]
unsafe fn splat_all<V: Vector, const K: usize>(b: [u8; K]) -> [V; K] {
    // SAFETY: (whole body) the trait contract.
    unsafe {
        let mut nv = [V::splat(b[0]); K];
        if K > 1 {
            nv[1] = V::splat(b[1]);
        }
        if K > 2 {
            nv[2] = V::splat(b[2]);
        }
        nv
    }
}

/// `U` (1 to 4) blocks of `W` bytes at `p`, aligned, compared with [`eq_any`], and the union
/// of the results.
#[inline(always)]
unsafe fn eq_any_blocks<V: Vector, const K: usize, const U: usize>(
    p: *const u8,
    nv: [V; K],
) -> ([V::Cmp; U], V::Cmp) {
    let w = V::W;
    // SAFETY: (whole body) the caller guarantees `U * W` readable aligned bytes at `p`.
    unsafe {
        let mut c = [eq_any(V::load_aligned(p), nv); U];
        let mut any = c[0];
        if U > 1 {
            c[1] = eq_any(V::load_aligned(p.add(w)), nv);
            any = V::cmp_or(any, c[1]);
        }
        if U > 2 {
            c[2] = eq_any(V::load_aligned(p.add(2 * w)), nv);
            any = V::cmp_or(any, c[2]);
        }
        if U > 3 {
            c[3] = eq_any(V::load_aligned(p.add(3 * w)), nv);
            any = V::cmp_or(any, c[3]);
        }
        (c, any)
    }
}

/// The first hit of `U <= 4` compare results whose blocks start at `at[..U]`: `at[k]` plus
/// the first set byte of the first non-empty `c[k]`. Constant indices only (no loop over
/// the arrays: `zip` over them kept the offsets on the stack and gave the kernels a
/// 32-byte-aligned frame, paid on every call).
///
/// # Safety
///
/// The trait contract (the CPU has `V`'s features).
#[inline(always)]
unsafe fn first_hit<V: Vector, const U: usize>(c: [V::Cmp; U], at: [usize; 4]) -> Option<usize> {
    // SAFETY: (whole body) `cmp_bits` under the caller's trait contract; `k % U` is `k`
    // for each `k < U` tested.
    unsafe {
        let m = V::cmp_bits(c[0]);
        if m != 0 {
            return Some(at[0] + first::<V>(m));
        }
        if U > 1 {
            let m = V::cmp_bits(c[1 % U]);
            if m != 0 {
                return Some(at[1] + first::<V>(m));
            }
        }
        if U > 2 {
            let m = V::cmp_bits(c[2 % U]);
            if m != 0 {
                return Some(at[2] + first::<V>(m));
            }
        }
        if U > 3 {
            let m = V::cmp_bits(c[3 % U]);
            if m != 0 {
                return Some(at[3] + first::<V>(m));
            }
        }
        None
    }
}

/// The last hit of `U <= 4` compare results, as [`first_hit`] from the back.
///
/// # Safety
///
/// As [`first_hit`].
#[inline(always)]
unsafe fn last_hit<V: Vector, const U: usize>(c: [V::Cmp; U], at: [usize; 4]) -> Option<usize> {
    // SAFETY: (whole body) as in `first_hit`.
    unsafe {
        if U > 3 {
            let m = V::cmp_bits(c[3 % U]);
            if m != 0 {
                return Some(at[3] + last::<V>(m));
            }
        }
        if U > 2 {
            let m = V::cmp_bits(c[2 % U]);
            if m != 0 {
                return Some(at[2] + last::<V>(m));
            }
        }
        if U > 1 {
            let m = V::cmp_bits(c[1 % U]);
            if m != 0 {
                return Some(at[1] + last::<V>(m));
            }
        }
        let m = V::cmp_bits(c[0]);
        if m != 0 {
            return Some(at[0] + last::<V>(m));
        }
        None
    }
}

/// `memchr`: index of the first `b` in `p[..n]`.
#[inline(always)]
pub(crate) unsafe fn memchr<V: Vector>(p: *const u8, n: usize, b: u8) -> Option<usize> {
    // SAFETY: forwarded contract.
    unsafe { find::<V, 1, 4>(p, n, [b]) }
}

/// `memrchr`: index of the last `b` in `p[..n]`.
#[inline(always)]
pub(crate) unsafe fn memrchr<V: Vector>(p: *const u8, n: usize, b: u8) -> Option<usize> {
    // SAFETY: forwarded contract.
    unsafe { rfind::<V, 1, 4>(p, n, [b]) }
}

/// Index of the first byte of `p[..n]` equal to any of the `K` needles (`memchr`, `memchr2`,
/// `memchr3`), `U` vectors (at most 4) a loop iteration. The memchr crate unrolls its
/// one-byte loop 4 times and its two- and three-byte loops twice (more compares per vector,
/// the same registers); so do we.
#[inline(always)]
pub(crate) unsafe fn find<V: Vector, const K: usize, const U: usize>(
    p: *const u8,
    n: usize,
    b: [u8; K],
) -> Option<usize> {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `p[..n]`.
    unsafe {
        if n < w {
            return V::find_small(p, n, b);
        }
        let nv = splat_all::<V, K>(b);
        if n <= 4 * w {
            let o = four_blocks(n, w);
            let c = [
                eq_any(V::load(p.add(o[0])), nv),
                eq_any(V::load(p.add(o[1])), nv),
                eq_any(V::load(p.add(o[2])), nv),
                eq_any(V::load(p.add(o[3])), nv),
            ];
            if V::cmp_bits(V::cmp_or(V::cmp_or(c[0], c[1]), V::cmp_or(c[2], c[3]))) != 0 {
                // Constant indices only: a loop over `zip(o, c)` kept `o` on the stack and
                // gave the whole kernel a 32-byte-aligned frame, paid on every call.
                return first_hit::<V, 4>(c, o);
            }
            return None;
        }
        let m = V::cmp_bits(eq_any(V::load(p), nv));
        if m != 0 {
            return Some(first::<V>(m));
        }
        // Aligned loads from the first boundary after `p`; bytes before it were just checked.
        // The loop steps a pointer, compared with a bound computed once (`n > 4W >= UW`), and
        // hidden from the optimizer at each step (`Vector::opaque`), so that its loads are
        // addressed base plus displacement, as the memchr crate's. Left to itself LLVM
        // addressed them base plus index, and on AMD Zen 5 (AVX2, absent needles, the
        // `memops-glibc` example's `search`, two runs) `find_byte2` took 1.14-1.48x the
        // memchr crate's time from 1 KiB to 4 MiB, with this 0.87-1.00x; in the criterion
        // bench `find_byte` on random 4-64 KiB sizes went from 1.6-1.8x to 0.72-0.78x, and
        // `rfind_byte3` (the loop below) from 1.17-1.38x to 0.71-0.90x. The three-byte forward
        // loop still runs at 0.95x or 1.3x memchr's time depending on where the linker puts
        // it (the same instructions, 32 bytes apart): its speed is not settled here.
        let mut q = p.add(w - (p.addr() & (w - 1)));
        let last = p.add(n - U * w);
        while q <= last {
            let (c, any) = eq_any_blocks::<V, K, U>(q, nv);
            if V::cmp_bits(any) != 0 {
                let i = q.addr() - p.addr();
                return first_hit::<V, U>(c, [i, i + w, i + 2 * w, i + 3 * w]);
            }
            q = V::opaque(q.add(U * w));
        }
        let mut i = q.addr() - p.addr();
        while i + w <= n {
            let m = V::cmp_bits(eq_any(V::load_aligned(p.add(i)), nv));
            if m != 0 {
                return Some(i + first::<V>(m));
            }
            i += w;
        }
        if i < n {
            // The last block overlaps checked bytes, which held no needle.
            let m = V::cmp_bits(eq_any(V::load(p.add(n - w)), nv));
            if m != 0 {
                return Some(n - w + first::<V>(m));
            }
        }
        None
    }
}

/// Index of the last byte of `p[..n]` equal to any of the `K` needles, as [`find`].
#[inline(always)]
pub(crate) unsafe fn rfind<V: Vector, const K: usize, const U: usize>(
    p: *const u8,
    n: usize,
    b: [u8; K],
) -> Option<usize> {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `p[..n]`.
    unsafe {
        if n < w {
            return V::rfind_small(p, n, b);
        }
        let nv = splat_all::<V, K>(b);
        if n <= 4 * w {
            let o = four_blocks(n, w);
            let c = [
                eq_any(V::load(p.add(o[0])), nv),
                eq_any(V::load(p.add(o[1])), nv),
                eq_any(V::load(p.add(o[2])), nv),
                eq_any(V::load(p.add(o[3])), nv),
            ];
            if V::cmp_bits(V::cmp_or(V::cmp_or(c[0], c[1]), V::cmp_or(c[2], c[3]))) != 0 {
                return last_hit::<V, 4>(c, o);
            }
            return None;
        }
        let m = V::cmp_bits(eq_any(V::load(p.add(n - w)), nv));
        if m != 0 {
            return Some(n - w + last::<V>(m));
        }
        // Aligned loads below the last boundary before `p + n`.
        // A pointer stepped down, hidden from the optimizer, as in `find`.
        let mut q = p.add(n - (p.addr().wrapping_add(n) & (w - 1)));
        let stop = p.add(U * w);
        while q >= stop {
            q = V::opaque(q.sub(U * w));
            let (c, any) = eq_any_blocks::<V, K, U>(q, nv);
            if V::cmp_bits(any) != 0 {
                let i = q.addr() - p.addr();
                return last_hit::<V, U>(c, [i, i + w, i + 2 * w, i + 3 * w]);
            }
        }
        let mut i = q.addr() - p.addr();
        while i >= w {
            i -= w;
            let m = V::cmp_bits(eq_any(V::load_aligned(p.add(i)), nv));
            if m != 0 {
                return Some(i + last::<V>(m));
            }
        }
        if i > 0 {
            // The first block overlaps checked bytes, which held no needle.
            let m = V::cmp_bits(eq_any(V::load(p), nv));
            if m != 0 {
                return Some(last::<V>(m));
            }
        }
        None
    }
}

/// Number of `b` in `p[..n]`.
#[inline(always)]
pub(crate) unsafe fn count<V: Vector>(p: *const u8, n: usize, b: u8) -> usize {
    let w = V::W;
    // SAFETY: (whole body) every load is inside `p[..n]`.
    unsafe {
        if n < w {
            return V::count_small(p, n, b);
        }
        let nv = V::splat(b);
        // The bytes before the first boundary of `p` from one unaligned block, then aligned.
        let mut i = w - (p.addr() & (w - 1));
        let m = V::cmp_bits(V::cmpeq(V::load(p), nv));
        let mut total = count_bits::<V>(if i == w { m } else { m ^ skip_first::<V>(m, i) });
        while i + 4 * w <= n {
            let m0 = V::cmp_bits(V::cmpeq(V::load_aligned(p.add(i)), nv));
            let m1 = V::cmp_bits(V::cmpeq(V::load_aligned(p.add(i + w)), nv));
            let m2 = V::cmp_bits(V::cmpeq(V::load_aligned(p.add(i + 2 * w)), nv));
            let m3 = V::cmp_bits(V::cmpeq(V::load_aligned(p.add(i + 3 * w)), nv));
            total += count_bits::<V>(m0) + count_bits::<V>(m1);
            total += count_bits::<V>(m2) + count_bits::<V>(m3);
            i += 4 * w;
        }
        while i + w <= n {
            total += count_bits::<V>(V::cmp_bits(V::cmpeq(V::load_aligned(p.add(i)), nv)));
            i += w;
        }
        if i < n {
            let m = V::cmp_bits(V::cmpeq(V::load(p.add(n - w)), nv));
            total += count_bits::<V>(skip_first::<V>(m, w - (n - i)));
        }
        total
    }
}

/// `m` with the bytes before `j` (`j < W`, or `2W` for two packed blocks: see [`pack_two`])
/// kept and the rest cleared.
#[inline(always)]
fn keep_before<V: Vector>(m: u64, j: usize) -> u64 {
    let s = j as u32 * V::BITS_PER_BYTE;
    if V::REVERSED { m & !(u64::MAX >> s) } else { m & ((1u64 << s) - 1) }
}

/// `m` with the bytes up to and including `j` (`j < W`, or `2W` as for [`keep_before`])
/// cleared.
#[inline(always)]
fn clear_through<V: Vector>(m: u64, j: usize) -> u64 {
    let s = (j as u32 + 1) * V::BITS_PER_BYTE;
    if V::REVERSED {
        m & u64::MAX.checked_shr(s).unwrap_or(0)
    } else {
        m & u64::MAX.checked_shl(s).unwrap_or(0)
    }
}

/// Verification work (needle bytes compared, counted as the whole needle per candidate) the
/// pair prefilter may spend before its first give-up test can fire, in needle lengths (of at
/// least 64 bytes); afterwards it may spend [`PAIR_WORK_PER_BYTE`] per haystack byte it has
/// passed. Past that it stops and the caller continues with Two-Way, so a search is linear
/// whatever the needle and haystack (at most `4m + 4n + m <= 9n` bytes verified).
pub(crate) const PAIR_FREE_NEEDLES: usize = 4;
/// See [`PAIR_FREE_NEEDLES`].
pub(crate) const PAIR_WORK_PER_BYTE: usize = 4;

/// The positions `pos + j` for the bytes `j` set in `bits` (in increasing order, or
/// decreasing with `rev`), each verified; `Some` when one matched or the
/// verification budget ran out (see [`pair_find`]), else `None` after adding to `work`.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "one inlined helper of the two kernels below")]
unsafe fn candidates<V: Vector>(
    mut bits: u64,
    pos: usize,
    rev: bool,
    hay: *const u8,
    npos: usize,
    needle: *const u8,
    m: usize,
    work: &mut usize,
) -> Option<PairResult> {
    let free = PAIR_FREE_NEEDLES * m.max(64);
    while bits != 0 {
        let j = if rev { last::<V>(bits) } else { first::<V>(bits) };
        let cand = pos + j;
        // SAFETY: `cand < npos`, so `hay[cand..cand + m]` is inside the haystack (caller).
        if unsafe { equal::<V>(hay.add(cand), needle, m) } {
            return Some(PairResult::Found(cand));
        }
        *work += m;
        if rev {
            if *work > free + PAIR_WORK_PER_BYTE * (npos - cand) {
                return Some(PairResult::GaveUp(cand + m - 1));
            }
            bits = keep_before::<V>(bits, j);
        } else {
            if *work > free + PAIR_WORK_PER_BYTE * cand {
                return Some(PairResult::GaveUp(cand + 1));
            }
            bits = clear_through::<V>(bits, j);
        }
    }
    None
}

/// Whether the masks of two blocks fit one `u64` side by side (low bits first, as the scans
/// pack them): 32 bits or fewer per block, not [`Vector::REVERSED`]. Then a scan returns the
/// candidates of both blocks at once and [`first`]/[`last`]/[`clear_through`]/
/// [`keep_before`] read the pair as one block of `2W` positions.
#[inline(always)]
const fn pack_two<V: Vector>() -> bool {
    !V::REVERSED && V::W as u32 * V::BITS_PER_BYTE <= 32
}

/// The start positions `p..p + W` where `v1` (splatted) is at `h1` and `v2` at `h2`.
///
/// # Safety
///
/// `W` bytes readable at `h1 + p` and `h2 + p`; the trait contract.
#[inline(always)]
unsafe fn pair_block<V: Vector>(h1: *const u8, h2: *const u8, v1: V, v2: V, p: usize) -> V::Cmp {
    // SAFETY: the caller's contract.
    unsafe { V::cmp_and(V::cmpeq(V::load(h1.add(p)), v1), V::cmpeq(V::load(h2.add(p)), v2)) }
}

/// The first block of `W` start positions at `pos, pos + W, ..` (up to `last`) where some
/// position has `b1` at `h1` and `b2` at `h2` (`h1`/`h2` are the haystack advanced by the
/// pair's offsets): `(pos, mask)`, or `(past last, 0)`. A leaf with nothing but the scan, so
/// that its vectors stay in registers (with the verification in the same function, LLVM
/// spilled them and reloaded them every iteration).
///
/// Two blocks an iteration, one mask test for both (their ANDs ORed), and with
/// [`pack_two`] both blocks' candidates returned at once: the memchr crate found its
/// two-block unroll of this loop marginally faster; here (AVX2, random haystack, absent
/// needle of 8 bytes, medians of 31 alternated rounds) 4 KiB searches took 67.0 ns
/// against 74.6 with one block an iteration (memchr's `Finder`: 85.6 ns), 1 KiB the same
/// (25.1 and 24.7 ns). Note that `#[inline(never)]` on a backend's `#[target_feature]`
/// instance of this leaf is dropped by rustc (seen in the LLVM IR): the AVX2 scan is inlined
/// into its `pair_find` and only the SSE2 and portable ones stay out of line.
///
/// # Safety
///
/// `W` bytes readable at `h1 + p` and `h2 + p` for every `p <= last`.
#[inline(always)]
pub(crate) unsafe fn pair_scan<V: Vector>(
    h1: *const u8,
    h2: *const u8,
    b1: u8,
    b2: u8,
    mut pos: usize,
    last: usize,
) -> (usize, u64) {
    let w = V::W;
    // SAFETY: (whole body) `pos <= last` at every load (`pos + W <= last` for the second
    // block of an iteration).
    unsafe {
        let (v1, v2) = (V::splat(b1), V::splat(b2));
        // `pos + W <= last`, without overflow: `last` may be below `W`.
        while pos < last.saturating_sub(w - 1) {
            let (a, b) =
                (pair_block::<V>(h1, h2, v1, v2, pos), pair_block::<V>(h1, h2, v1, v2, pos + w));
            if V::cmp_bits(V::cmp_or(a, b)) != 0 {
                let (lo, hi) = (V::cmp_bits(a), V::cmp_bits(b));
                if pack_two::<V>() {
                    return (pos, lo | hi << (w as u32 * V::BITS_PER_BYTE));
                }
                return if lo != 0 { (pos, lo) } else { (pos + w, hi) };
            }
            pos += 2 * w;
        }
        if pos <= last {
            let bits = V::cmp_bits(pair_block::<V>(h1, h2, v1, v2, pos));
            if bits != 0 {
                return (pos, bits);
            }
            pos += w;
        }
        (pos, 0)
    }
}

/// [`pair_scan`] downwards: the last block `end - W.., end - 2W.., ..` (while `end >= W`)
/// with a candidate: `(pos, mask)`, or `(end below W, 0)`. Two blocks an iteration, as
/// [`pair_scan`].
///
/// # Safety
///
/// `W` bytes readable at `h1 + p` and `h2 + p` for every `p <= end - W`.
#[inline(always)]
pub(crate) unsafe fn pair_rscan<V: Vector>(
    h1: *const u8,
    h2: *const u8,
    b1: u8,
    b2: u8,
    mut end: usize,
) -> (usize, u64) {
    let w = V::W;
    // SAFETY: (whole body) `end - W >= 0` at every load, within the caller's range.
    unsafe {
        let (v1, v2) = (V::splat(b1), V::splat(b2));
        while end >= 2 * w {
            let pos = end - 2 * w;
            let (a, b) =
                (pair_block::<V>(h1, h2, v1, v2, pos), pair_block::<V>(h1, h2, v1, v2, pos + w));
            if V::cmp_bits(V::cmp_or(a, b)) != 0 {
                let (lo, hi) = (V::cmp_bits(a), V::cmp_bits(b));
                if pack_two::<V>() {
                    return (pos, lo | hi << (w as u32 * V::BITS_PER_BYTE));
                }
                return if hi != 0 { (pos + w, hi) } else { (pos, lo) };
            }
            end = pos;
        }
        if end >= w {
            let pos = end - w;
            let bits = V::cmp_bits(pair_block::<V>(h1, h2, v1, v2, pos));
            if bits != 0 {
                return (pos, bits);
            }
            end = pos;
        }
        (end, 0)
    }
}

/// A backend's [`pair_scan`]: `(h1, h2, b1, b2, pos, last) -> (pos, mask)`.
pub(crate) type PairScan = unsafe fn(*const u8, *const u8, u8, u8, usize, usize) -> (usize, u64);
/// A backend's [`pair_rscan`]: `(h1, h2, b1, b2, end) -> (pos, mask)`.
pub(crate) type PairRscan = unsafe fn(*const u8, *const u8, u8, u8, usize) -> (usize, u64);

/// The out-of-line scans of a backend's substring kernels: [`pair_scan`], [`pair_rscan`].
#[derive(Clone, Copy)]
pub(crate) struct PairKernels {
    pub(crate) scan: PairScan,
    pub(crate) rscan: PairRscan,
}

/// The first occurrence of `needle[..m]` in `hay[..n]` among the start positions where the
/// two bytes of `pair` match (the memchr crate's "packed pair" prefilter): one vector
/// compare per needle offset per `W` start positions, ANDed (in `k.scan`, out of line so
/// that the scanning loop keeps its vectors in registers), then each surviving position
/// verified. Returns [`PairResult::GaveUp`] when verification has cost more than
/// [`PAIR_WORK_PER_BYTE`] per byte passed (plus [`PAIR_FREE_NEEDLES`] needles).
///
/// # Safety
///
/// `hay` valid for reads of `n` bytes, `needle` of `m`; `2 <= m <= n`; `pair.i1, pair.i2 < m`.
#[inline(always)]
pub(crate) unsafe fn pair_find<V: Vector>(
    hay: *const u8,
    n: usize,
    needle: *const u8,
    m: usize,
    pair: &Pair,
    k: PairKernels,
) -> PairResult {
    let w = V::W;
    // Start positions are `0..npos`; a block of `W` positions at `pos` loads
    // `hay[pos + i .. pos + i + W]`, inside `hay` when `pos + W <= npos` as `i < m`.
    let npos = n - m + 1;
    let mut work = 0usize;
    // SAFETY: (whole body) the loads are in bounds as just said (the tail block starts at
    // `npos - W >= 0`); a verified position `p < npos` reads `hay[p..p + m]`, in bounds.
    unsafe {
        if npos < w {
            for p in 0..npos {
                if *hay.add(p + pair.i1) == pair.b1
                    && *hay.add(p + pair.i2) == pair.b2
                    && equal::<V>(hay.add(p), needle, m)
                {
                    return PairResult::Found(p);
                }
            }
            return PairResult::NotFound;
        }
        let (h1, h2) = (hay.add(pair.i1), hay.add(pair.i2));
        let last = npos - w;
        let mut pos = 0;
        loop {
            let (p, bits) = (k.scan)(h1, h2, pair.b1, pair.b2, pos, last);
            if bits == 0 {
                pos = p;
                break;
            }
            let r = candidates::<V>(bits, p, false, hay, npos, needle, m, &mut work);
            if let Some(r) = r {
                return r;
            }
            // Past the pair of blocks the mask covered (see `pack_two`), or the one block.
            pos = if pack_two::<V>() && p + w <= last { p + 2 * w } else { p + w };
        }
        if pos < npos {
            // The last block overlaps positions already tried: skip them. Inline, as the
            // first block (a search that ends without a match always gets here).
            let c1 = V::cmpeq(V::load(h1.add(last)), V::splat(pair.b1));
            let c2 = V::cmpeq(V::load(h2.add(last)), V::splat(pair.b2));
            let bits = V::cmp_bits(V::cmp_and(c1, c2));
            let bits = clear_through::<V>(bits, pos - last - 1);
            let r = candidates::<V>(bits, last, false, hay, npos, needle, m, &mut work);
            if let Some(r) = r {
                return r;
            }
        }
        PairResult::NotFound
    }
}

/// The last occurrence of `needle[..m]` in `hay[..n]`, as [`pair_find`] from the end.
/// [`PairResult::GaveUp`]`(e)` means no occurrence starts at `e - m + 1` or later (so the
/// caller continues in `hay[..e]`).
///
/// # Safety
///
/// As [`pair_find`].
#[inline(always)]
pub(crate) unsafe fn pair_rfind<V: Vector>(
    hay: *const u8,
    n: usize,
    needle: *const u8,
    m: usize,
    pair: &Pair,
    k: PairKernels,
) -> PairResult {
    let w = V::W;
    let npos = n - m + 1;
    let mut work = 0usize;
    // SAFETY: (whole body) as in `pair_find`.
    unsafe {
        if npos < w {
            for p in (0..npos).rev() {
                if *hay.add(p + pair.i1) == pair.b1
                    && *hay.add(p + pair.i2) == pair.b2
                    && equal::<V>(hay.add(p), needle, m)
                {
                    return PairResult::Found(p);
                }
            }
            return PairResult::NotFound;
        }
        let (h1, h2) = (hay.add(pair.i1), hay.add(pair.i2));
        let mut end = npos;
        loop {
            let (p, bits) = (k.rscan)(h1, h2, pair.b1, pair.b2, end);
            if bits == 0 {
                end = p;
                break;
            }
            let r = candidates::<V>(bits, p, true, hay, npos, needle, m, &mut work);
            if let Some(r) = r {
                return r;
            }
            end = p;
        }
        if end > 0 {
            // The first block overlaps positions already tried: keep those below `end`.
            let (_, bits) = (k.rscan)(h1, h2, pair.b1, pair.b2, w);
            let bits = keep_before::<V>(bits, end);
            let r = candidates::<V>(bits, 0, true, hay, npos, needle, m, &mut work);
            if let Some(r) = r {
                return r;
            }
        }
        PairResult::NotFound
    }
}

use super::table::{Pair, PairResult, Strategy};
