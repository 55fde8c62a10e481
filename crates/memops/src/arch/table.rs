//! The types every backend shares: the [`Ops`] table of one backend's entry points, the large
//! moves' and fills' [`Strategy`], and the substring prefilter's [`Pair`] and [`PairResult`]. A leaf: the backends, the generic
//! algorithms and the dispatch all import it, and it imports none of them.

/// One backend's entry points. Every function has the contract of its C namesake: pointers
/// valid for `n` bytes of the access made (writes through `dst`, reads elsewhere); `memmove`
/// allows overlap. A table exists only for a backend the CPU supports; its name is in the
/// dispatch list (`dispatch.rs`).
#[derive(Debug)]
pub(crate) struct Ops {
    pub(crate) memmove: unsafe fn(*mut u8, *const u8, usize),
    pub(crate) memset: unsafe fn(*mut u8, u8, usize),
    /// `memmove` with the given strategy instead of the CPU's (tests and benches force each).
    pub(crate) memmove_with: unsafe fn(*mut u8, *const u8, usize, &Strategy),
    /// `memset` with the given strategy instead of the CPU's.
    pub(crate) memset_with: unsafe fn(*mut u8, u8, usize, &Strategy),
    pub(crate) memcmp: unsafe fn(*const u8, *const u8, usize) -> i32,
    pub(crate) bcmp: unsafe fn(*const u8, *const u8, usize) -> bool,
    pub(crate) memchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) memrchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) count: unsafe fn(*const u8, usize, u8) -> usize,
    pub(crate) memchr2: unsafe fn(*const u8, usize, [u8; 2]) -> Option<usize>,
    pub(crate) memchr3: unsafe fn(*const u8, usize, [u8; 3]) -> Option<usize>,
    pub(crate) memrchr2: unsafe fn(*const u8, usize, [u8; 2]) -> Option<usize>,
    pub(crate) memrchr3: unsafe fn(*const u8, usize, [u8; 3]) -> Option<usize>,
    /// `(hay, n, needle, m, pair)`: see `generic::pair_find` (`2 <= m <= n`, pair offsets
    /// below `m`). The pair by reference, to the finder's own copy: passed by value, the
    /// 24-byte `Pair` was copied to the caller's stack and read back at once by the kernel,
    /// a store-to-load forwarding stall that cost a whole short search (AVX2, 8-byte needle
    /// absent from random bytes, medians of 41 alternated rounds: 1 KiB 25.1 to
    /// 21.5 ns, 128 B 10.7 to 7.6 ns, against memchr's `Finder` 24.9 and 7.3 ns).
    pub(crate) pair_find: unsafe fn(*const u8, usize, *const u8, usize, &Pair) -> PairResult,
    /// See `generic::pair_rfind`.
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

/// How large moves and fills are done: the `rep movsb`/`rep stosb` windows and the
/// non-temporal thresholds, chosen once from the CPU (on x86_64 by the rules of
/// `arch::x86_64::strategy`, glibc's `dl-cacheinfo.h` rules and this crate's measurements) and
/// cached. Every strategy is correct for every size and overlap; they differ only in speed.
/// Moves and fills up to eight vectors never consult it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// Forward, non-overlapping moves of `rep_movsb_min..rep_movsb_max` bytes use `rep movsb`
    /// (AVX2 and AVX-512 backends). `usize::MAX` without ERMS/FSRM: never.
    pub rep_movsb_min: usize,
    /// [`Strategy::rep_movsb_min`] for the SSE2 backend (16-byte loop).
    pub rep_movsb_min_sse2: usize,
    /// The window's upper end (exclusive).
    pub rep_movsb_max: usize,
    /// Fills of at least this many bytes use `rep stosb` (AVX2 and AVX-512 backends).
    pub rep_stosb_min: usize,
    /// [`Strategy::rep_stosb_min`] for the SSE2 backend.
    pub rep_stosb_min_sse2: usize,
    /// Non-overlapping moves of at least this many bytes that `rep movsb` does not take use
    /// non-temporal stores.
    pub nt_threshold: usize,
    /// Fills of at least this many bytes that `rep stosb` does not take use non-temporal
    /// stores.
    pub nt_memset_threshold: usize,
    /// Moves and fills on the AVX-512 backend use its 256-bit (AVX2) kernels: glibc's
    /// `Prefer_No_AVX512`, for Intel parts whose clock drops under 512-bit stores.
    pub narrow_moves: bool,
}

impl Strategy {
    /// No `rep movsb`/`rep stosb`, no non-temporal stores: the vector loops for every size
    /// (the portable, NEON and RVV backends, which have nothing else).
    pub const LOOPS_ONLY: Strategy = Strategy {
        rep_movsb_min: usize::MAX,
        rep_movsb_min_sse2: usize::MAX,
        rep_movsb_max: usize::MAX,
        rep_stosb_min: usize::MAX,
        rep_stosb_min_sse2: usize::MAX,
        nt_threshold: usize::MAX,
        nt_memset_threshold: usize::MAX,
        narrow_moves: false,
    };
}
