//! Backends. Each exposes the same operations as an [`Ops`] table (`memmove`, `memset`,
//! `memcmp`, `bcmp`, `memchr`, `memrchr`, `count`, the two- and three-byte searches and the
//! substring prefilter); all but riscv64's RVV loops are the
//! algorithms of [`generic`] instantiated over one vector type.

pub(crate) mod generic;
pub(crate) mod scalar;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) mod riscv64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// One backend's entry points. Every function has the contract of its C namesake: pointers
/// valid for `n` bytes of the access made (writes through `dst`, reads elsewhere); `memmove`
/// allows overlap. A table exists only for a backend the CPU supports.
#[derive(Debug)]
pub(crate) struct Ops {
    pub(crate) name: &'static str,
    pub(crate) memmove: unsafe fn(*mut u8, *const u8, usize),
    pub(crate) memset: unsafe fn(*mut u8, u8, usize),
    pub(crate) memcmp: unsafe fn(*const u8, *const u8, usize) -> i32,
    pub(crate) bcmp: unsafe fn(*const u8, *const u8, usize) -> bool,
    pub(crate) memchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) memrchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) count: unsafe fn(*const u8, usize, u8) -> usize,
    pub(crate) memchr2: unsafe fn(*const u8, usize, [u8; 2]) -> Option<usize>,
    pub(crate) memchr3: unsafe fn(*const u8, usize, [u8; 3]) -> Option<usize>,
    pub(crate) memrchr2: unsafe fn(*const u8, usize, [u8; 2]) -> Option<usize>,
    pub(crate) memrchr3: unsafe fn(*const u8, usize, [u8; 3]) -> Option<usize>,
    /// `(hay, n, needle, m, pair)`: see [`generic::pair_find`] (`2 <= m <= n`, pair offsets
    /// below `m`). The pair by reference, to the finder's own copy: passed by value, the
    /// 24-byte `Pair` was copied to the caller's stack and read back at once by the kernel,
    /// a store-to-load forwarding stall that cost a whole short search (AVX2, 8-byte needle
    /// absent from random bytes, medians of 41 alternated rounds, load 7: 1 KiB 25.1 to
    /// 21.5 ns, 128 B 10.7 to 7.6 ns, against memchr's `Finder` 24.9 and 7.3 ns).
    pub(crate) pair_find: unsafe fn(*const u8, usize, *const u8, usize, &Pair) -> PairResult,
    /// See [`generic::pair_rfind`].
    pub(crate) pair_rfind: unsafe fn(*const u8, usize, *const u8, usize, &Pair) -> PairResult,
}

/// Two bytes of a substring and their offsets in it, the prefilter of a substring search:
/// only start positions `p` with `hay[p + i1] == b1` and `hay[p + i2] == b2` are verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    pub(crate) i1: usize,
    pub(crate) i2: usize,
    pub(crate) b1: u8,
    pub(crate) b2: u8,
}

/// The answer of a prefiltered substring search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairResult {
    /// The needle starts here.
    Found(usize),
    /// It does not occur.
    NotFound,
    /// The prefilter stopped paying for itself. Forward: no occurrence starts before this
    /// position. Backward: none ends after this length (search the prefix of this length).
    GaveUp(usize),
}

/// Defines the seven entry points of a backend over vector type `$v`, each carrying
/// `#[target_feature(enable = $feat)]` (or none), and the `Ops` table `$table` naming them.
macro_rules! backend {
    ($table:ident, $name:literal, $v:ty $(, $feat:literal)?) => {
        /// The backend's operations. A `const`, not a `static`: where the backend is fixed
        /// at compile time, callers in other crates see the table's contents and call the
        /// kernels directly instead of through a loaded pointer.
        pub(crate) const $table: $crate::arch::Ops = {
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
                unsafe { g::memmove_large::<$v>(dst, src, n) }
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
                unsafe { g::memset_large::<$v>(dst, b, n) }
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
                pair: &$crate::arch::Pair,
            ) -> $crate::arch::PairResult {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_find::<$v>(h, n, s, m, pair, PAIR) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn pair_rfind(
                h: *const u8,
                n: usize,
                s: *const u8,
                m: usize,
                pair: &$crate::arch::Pair,
            ) -> $crate::arch::PairResult {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::pair_rfind::<$v>(h, n, s, m, pair, PAIR) }
            }
            let inline = <$v as g::Vector>::INLINE_SMALL;
            $crate::arch::Ops {
                name: $name,
                memmove: if inline { memmove } else { memmove_mid },
                memset: if inline { memset } else { memset_mid },
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
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use backend;

backend!(PORTABLE, "portable", scalar::Word);

/// The backend fixed at compile time, if the target features decide it: NEON on aarch64 (part
/// of the base ISA), RVV on riscv64 built with `+v`, AVX-512 on x86_64 built with it, the
/// portable words wherever there is nothing else (mips64, riscv64 without V). `None` on x86_64
/// without AVX-512 at compile time: detected at run time.
#[cfg(target_arch = "x86_64")]
pub(crate) const FIXED: Option<&Ops> = x86_64::FIXED;
/// See above.
#[cfg(target_arch = "aarch64")]
pub(crate) const FIXED: Option<&Ops> = Some(&aarch64::NEON);
/// See above.
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) const FIXED: Option<&Ops> = Some(&riscv64::RVV);
/// See above.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "riscv64", memops_rvv)
)))]
pub(crate) const FIXED: Option<&Ops> = Some(&PORTABLE);

/// Every backend this CPU supports, most preferred first, the portable one last.
pub(crate) fn supported() -> impl Iterator<Item = &'static Ops> {
    #[cfg(target_arch = "x86_64")]
    let arch = x86_64::supported();
    #[cfg(not(target_arch = "x86_64"))]
    let arch = FIXED.into_iter().filter(|o| o.name != PORTABLE.name);
    arch.chain(core::iter::once(&PORTABLE))
}
