//! The `backend!` macro: one backend's entry points and [`Ops`](super::table::Ops) table,
//! instantiated from the generic algorithms over one vector type.

/// Defines the seven entry points of a backend over vector type `$v`, each carrying
/// `#[target_feature(enable = $feat)]` (or none), and the `Ops` table `$table` naming them.
macro_rules! backend {
    ($table:ident, $v:ty $(, $feat:literal)?) => {
        /// The backend's operations. A `const`, not a `static`: where the backend is fixed
        /// at compile time, callers in other crates see the table's contents and call the
        /// kernels directly instead of through a loaded pointer.
        pub(crate) const $table: $crate::arch::table::Ops = {
            use $crate::arch::generic as g;
            // Three tiers. With `INLINE_SMALL` (AVX-512), sizes up to one vector are handled
            // by `#[inline]` entry points: where the backend is fixed at compile time, that
            // code inlines into the caller and a short call makes no call at all. The sizes up
            // to 8 vectors are in `*_mid`, a leaf; the loops are out of
            // line in `*_large`, so the mid sizes run without the loops' register saves (about
            // 0.7 ns a call).
            // Without `INLINE_SMALL` the table names the `*_mid` functions directly.
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memmove(dst: *mut u8, src: *const u8, n: usize) {
                // SAFETY: the caller upholds `memmove`'s contract and the CPU check.
                unsafe {
                    if n <= <$v as g::Vector>::W {
                        <$v as g::Vector>::copy_small(dst, src, n)
                    } else {
                        memmove_mid(dst, src, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memmove_mid(dst: *mut u8, src: *const u8, n: usize) {
                // SAFETY: the caller upholds `memmove`'s contract and the CPU check.
                unsafe {
                    if n <= 8 * <$v as g::Vector>::W {
                        g::memmove_small::<$v>(dst, src, n)
                    } else {
                        memmove_large(dst, src, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn memmove_large(dst: *mut u8, src: *const u8, n: usize) {
                // SAFETY: as in `memmove`; `n > 8W`.
                unsafe { g::memmove_large::<$v>(dst, src, n, &<$v as g::Vector>::strategy()) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memmove_with(
                dst: *mut u8,
                src: *const u8,
                n: usize,
                s: &$crate::arch::table::Strategy,
            ) {
                // SAFETY: forwarded contract; each arm's size precondition holds.
                unsafe {
                    if n <= <$v as g::Vector>::W {
                        <$v as g::Vector>::copy_small(dst, src, n)
                    } else if n <= 8 * <$v as g::Vector>::W {
                        g::memmove_small::<$v>(dst, src, n)
                    } else {
                        g::memmove_large::<$v>(dst, src, n, s)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memset(dst: *mut u8, b: u8, n: usize) {
                // SAFETY: the caller upholds `memset`'s contract and the CPU check.
                unsafe {
                    if n <= <$v as g::Vector>::W {
                        <$v as g::Vector>::set_small(dst, b, n)
                    } else {
                        memset_mid(dst, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memset_mid(dst: *mut u8, b: u8, n: usize) {
                // SAFETY: the caller upholds `memset`'s contract and the CPU check.
                unsafe {
                    if n <= 8 * <$v as g::Vector>::W {
                        g::memset_small::<$v>(dst, b, n)
                    } else {
                        memset_large(dst, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn memset_large(dst: *mut u8, b: u8, n: usize) {
                // SAFETY: as in `memset`; `n > 8W`.
                unsafe { g::memset_large::<$v>(dst, b, n, &<$v as g::Vector>::strategy()) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memset_with(dst: *mut u8, b: u8, n: usize, s: &$crate::arch::table::Strategy) {
                // SAFETY: forwarded contract; each arm's size precondition holds.
                unsafe {
                    if n <= <$v as g::Vector>::W {
                        <$v as g::Vector>::set_small(dst, b, n)
                    } else if n <= 8 * <$v as g::Vector>::W {
                        g::memset_small::<$v>(dst, b, n)
                    } else {
                        g::memset_large::<$v>(dst, b, n, s)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
                // SAFETY: the caller upholds `memcmp`'s contract and the CPU check.
                unsafe {
                    if n < <$v as g::Vector>::W {
                        <$v as g::Vector>::cmp_small(a, b, n)
                    } else {
                        memcmp_mid(a, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn memcmp_mid(a: *const u8, b: *const u8, n: usize) -> i32 {
                // SAFETY: the caller upholds `memcmp`'s contract and the CPU check.
                unsafe {
                    // The small sizes first: the fewest branches before the shortest path
                    // (`n == 0` wraps, so one compare also sends it to `g::memcmp`, which
                    // hands it to `cmp_small` again: the fast path never tests for it).
                    if n.wrapping_sub(1) < <$v as g::Vector>::CMP_SMALL_MAX {
                        <$v as g::Vector>::cmp_small(a, b, n)
                    } else if n <= <$v as g::Vector>::CMP_NO_LOOP_MAX {
                        g::memcmp::<$v>(a, b, n)
                    } else {
                        memcmp_large(a, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn memcmp_large(a: *const u8, b: *const u8, n: usize) -> i32 {
                // SAFETY: as in `memcmp`; `n > CMP_NO_LOOP_MAX >= CMP_BLOCKS * W`.
                unsafe { <$v as g::Vector>::cmp_large(a, b, n) }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn bcmp(a: *const u8, b: *const u8, n: usize) -> bool {
                // SAFETY: the caller upholds `bcmp`'s contract and the CPU check.
                unsafe {
                    if n < <$v as g::Vector>::W {
                        <$v as g::Vector>::eq_small(a, b, n)
                    } else {
                        bcmp_mid(a, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline]
            unsafe fn bcmp_mid(a: *const u8, b: *const u8, n: usize) -> bool {
                // SAFETY: the caller upholds `bcmp`'s contract and the CPU check.
                unsafe {
                    if n <= <$v as g::Vector>::CMP_BLOCKS * <$v as g::Vector>::W {
                        g::equal::<$v>(a, b, n)
                    } else {
                        bcmp_large(a, b, n)
                    }
                }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn bcmp_large(a: *const u8, b: *const u8, n: usize) -> bool {
                // SAFETY: as in `bcmp`; `n > CMP_BLOCKS * W`.
                unsafe { <$v as g::Vector>::eq_large(a, b, n) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
                // SAFETY: the caller upholds `memchr`'s contract and the CPU check.
                unsafe { g::memchr::<$v>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memrchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
                // SAFETY: the caller upholds `memrchr`'s contract and the CPU check.
                unsafe { g::memrchr::<$v>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn count(p: *const u8, n: usize, b: u8) -> usize {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::count::<$v>(p, n, b) }
            }
            // The two- and three-byte searches, forward and backward: `K` bytes, `U` vectors
            // a loop iteration (the table names `find_any::<2, 2>`, ...).
            $(#[target_feature(enable = $feat)])?
            unsafe fn find_any<const K: usize, const U: usize>(
                p: *const u8,
                n: usize,
                b: [u8; K],
            ) -> Option<usize> {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::find::<$v, K, U>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn rfind_any<const K: usize, const U: usize>(
                p: *const u8,
                n: usize,
                b: [u8; K],
            ) -> Option<usize> {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::rfind::<$v, K, U>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn pair_scan(
                h1: *const u8,
                h2: *const u8,
                b1: u8,
                b2: u8,
                pos: usize,
                last: usize,
            ) -> (usize, u64) {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_scan::<$v>(h1, h2, b1, b2, pos, last) }
            }
            $(#[target_feature(enable = $feat)])?
            #[inline(never)]
            unsafe fn pair_rscan(
                h1: *const u8,
                h2: *const u8,
                b1: u8,
                b2: u8,
                end: usize,
            ) -> (usize, u64) {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_rscan::<$v>(h1, h2, b1, b2, end) }
            }
            const PAIR: g::PairKernels =
                g::PairKernels { scan: pair_scan, rscan: pair_rscan };
            $(#[target_feature(enable = $feat)])?
            unsafe fn pair_find(
                h: *const u8,
                n: usize,
                s: *const u8,
                m: usize,
                pair: &$crate::arch::table::Pair,
            ) -> $crate::arch::table::PairResult {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_find::<$v>(h, n, s, m, pair, PAIR) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn pair_rfind(
                h: *const u8,
                n: usize,
                s: *const u8,
                m: usize,
                pair: &$crate::arch::table::Pair,
            ) -> $crate::arch::table::PairResult {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_rfind::<$v>(h, n, s, m, pair, PAIR) }
            }
            let inline = <$v as g::Vector>::INLINE_SMALL;
            $crate::arch::table::Ops {
                memmove: if inline { memmove } else { memmove_mid },
                memset: if inline { memset } else { memset_mid },
                memmove_with,
                memset_with,
                memcmp: if inline { memcmp } else { memcmp_mid },
                bcmp: if inline { bcmp } else { bcmp_mid },
                memchr,
                memrchr,
                count,
                memchr2: find_any::<2, 2>,
                memchr3: find_any::<3, 2>,
                memrchr2: rfind_any::<2, 2>,
                memrchr3: rfind_any::<3, 2>,
                pair_find,
                pair_rfind,
            }
        };
    };
}
pub(crate) use backend;
