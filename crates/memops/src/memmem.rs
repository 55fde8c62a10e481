//! Substring search (`memmem`): a [`Finder`] built once per needle and reused, with a SIMD
//! prefilter and a worst-case-linear fallback, `no_std` and allocation-free, on every backend.
//!
//! ```
//! use memops::memmem::Finder;
//!
//! let finder = Finder::new(b"needle");
//! let hay = b"haystack with a needle and another needle";
//! assert_eq!(finder.find(hay), Some(16));
//! assert_eq!(finder.rfind(hay), Some(35));
//! assert_eq!(finder.find_iter(hay).collect::<Vec<_>>(), [16, 35]);
//! assert_eq!(memops::memmem::rfind_iter(hay, b"needle").collect::<Vec<_>>(), [35, 16]);
//! assert_eq!(memops::memmem::find(hay, b"hay"), Some(0));
//! ```
//!
//! # How it works
//!
//! The finder picks the two bytes of the needle that are rarest in typical text (by a
//! frequency rank measured once, see the private `RANK` table in the source) at two different offsets. The prefilter (the
//! memchr crate's "packed pair" idea) compares one vector of the haystack at each offset with
//! the matching byte and ANDs the two: a start position survives only when both bytes are
//! there, and only survivors are compared with the whole needle (SIMD `bcmp`). Needles of one
//! byte are a [`find_byte`](crate::find_byte).
//!
//! The prefilter alone is quadratic on adversarial input (needle `aaaa`, haystack of `aaab`
//! runs: every position survives and each comparison runs long). So it counts the bytes it
//! verifies (a whole needle per candidate), and once they exceed 4 per haystack byte passed
//! (after 4 free needle lengths of at least 64 bytes) it hands the rest of the haystack to
//! Two-Way (Crochemore–Perrin), which is linear with constant space whatever the needle: the
//! whole search is then linear. Two-Way also moves a whole needle length when the last byte
//! of its window does not occur in the needle. Reverse searches run the same way from the
//! end, with Two-Way on the reversed needle. The scan of the prefilter (`pair_scan`) tests
//! two vectors of start positions per iteration.

use core::iter::FusedIterator;

use crate::arch::table::{Pair, PairResult};
use crate::dispatch::Backend;

/// The first occurrence of `needle` in `haystack` (C `memmem`); `Some(0)` for an empty
/// needle. Builds a [`Finder`]; reuse one to search for the same needle many times.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    Finder::new(needle).find(haystack)
}

/// The last occurrence of `needle` in `haystack`; `Some(haystack.len())` for an empty needle.
pub fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    Finder::new(needle).rfind(haystack)
}

/// The non-overlapping occurrences of `needle` in `haystack`, from the front.
pub fn find_iter<'h, 'n, N: 'n + ?Sized + AsRef<[u8]>>(
    haystack: &'h [u8],
    needle: &'n N,
) -> FindIter<'h, 'n> {
    Finder::new(needle).into_find_iter(haystack)
}

/// The non-overlapping occurrences of `needle` in `haystack`, from the back.
pub fn rfind_iter<'h, 'n, N: 'n + ?Sized + AsRef<[u8]>>(
    haystack: &'h [u8],
    needle: &'n N,
) -> FindRevIter<'h, 'n> {
    Finder::new(needle).into_rfind_iter(haystack)
}

/// A substring searcher for one needle: the prefilter's byte pair and both Two-Way
/// factorizations computed once. Cheap to copy; borrows the needle.
#[derive(Clone, Copy, Debug)]
pub struct Finder<'n> {
    backend: Backend,
    needle: &'n [u8],
    pair: Pair,
    fwd: TwoWay,
    rev: TwoWay,
}

impl<'n> Finder<'n> {
    /// A finder for `needle` (anything that is bytes: `&[u8]`, `&str`, `&[u8; N]`,
    /// `&Vec<u8>`, ...) using the dispatched backend.
    pub fn new<B: ?Sized + AsRef<[u8]>>(needle: &'n B) -> Self {
        Self::with_backend(Backend::detect(), needle.as_ref())
    }

    fn with_backend(backend: Backend, needle: &'n [u8]) -> Self {
        Finder {
            backend,
            needle,
            pair: choose_pair(needle),
            fwd: TwoWay::new(Fwd(needle)),
            rev: TwoWay::new(Rev(needle)),
        }
    }

    /// The needle this finder looks for.
    pub fn needle(&self) -> &'n [u8] {
        self.needle
    }

    /// This finder with the shorter lifetime of the borrow (memchr's `Finder::as_ref`; a
    /// `Finder` is `Copy`, so this is a copy).
    pub fn as_ref(&self) -> Finder<'_> {
        *self
    }

    /// The first occurrence of the needle in `hay`; `Some(0)` for an empty needle.
    #[inline]
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        let needle = self.needle;
        match needle.len() {
            0 => return Some(0),
            m if m > hay.len() => return None,
            1 => return self.backend.find_byte(hay, needle[0]),
            _ => {}
        }
        match self.backend.pair_find(hay, needle, &self.pair) {
            PairResult::Found(p) => Some(p),
            PairResult::NotFound => None,
            PairResult::GaveUp(s) => self.find_two_way(hay, s),
        }
    }

    /// [`Finder::find`] after the prefilter gave up at `s`: Two-Way on `hay[s..]`. Out of
    /// line, so that the inlined `find` keeps its registers free for the common case.
    #[cold]
    #[inline(never)]
    fn find_two_way(&self, hay: &[u8], s: usize) -> Option<usize> {
        let rest = hay.get(s..)?;
        self.fwd.find(Fwd(rest), Fwd(self.needle)).map(|p| p + s)
    }

    /// The last occurrence of the needle in `hay`; `Some(hay.len())` for an empty needle.
    #[inline]
    pub fn rfind(&self, hay: &[u8]) -> Option<usize> {
        let needle = self.needle;
        match needle.len() {
            0 => return Some(hay.len()),
            m if m > hay.len() => return None,
            1 => return self.backend.rfind_byte(hay, needle[0]),
            _ => {}
        }
        match self.backend.pair_rfind(hay, needle, &self.pair) {
            PairResult::Found(p) => Some(p),
            PairResult::NotFound => None,
            PairResult::GaveUp(e) => self.rfind_two_way(hay, e),
        }
    }

    /// [`Finder::rfind`] after the prefilter gave up at `e`: Two-Way on the reversed
    /// `hay[..e]`, out of line as [`Finder::find_two_way`].
    #[cold]
    #[inline(never)]
    fn rfind_two_way(&self, hay: &[u8], e: usize) -> Option<usize> {
        let rest = hay.get(..e)?;
        let p = self.rev.find(Rev(rest), Rev(self.needle))?;
        Some(rest.len() - p - self.needle.len())
    }

    /// The non-overlapping occurrences of the needle in `hay`, from the front (an empty
    /// needle matches at every position `0..=hay.len()`). The iterator borrows the finder
    /// (as memchr's `Finder::find_iter` does): a copy of it in the iterator, read back
    /// right after being written, cost about 6 ns a call (1 KiB of text, `self` as the
    /// needle: 39 ns against 33 ns borrowed).
    #[inline]
    pub fn find_iter<'a, 'h>(&'a self, hay: &'h [u8]) -> FindIter<'h, 'a> {
        FindIter { finder: Held::Borrowed(self), hay, pos: 0 }
    }

    /// The non-overlapping occurrences of the needle in `hay`, from the back (borrowing the
    /// finder, as [`Finder::find_iter`]).
    #[inline]
    pub fn rfind_iter<'a, 'h>(&'a self, hay: &'h [u8]) -> FindRevIter<'h, 'a> {
        FindRevIter { finder: Held::Borrowed(self), hay, end: Some(hay.len()) }
    }

    fn into_find_iter<'h>(self, hay: &'h [u8]) -> FindIter<'h, 'n> {
        FindIter { finder: Held::Owned(self), hay, pos: 0 }
    }

    fn into_rfind_iter<'h>(self, hay: &'h [u8]) -> FindRevIter<'h, 'n> {
        FindRevIter { finder: Held::Owned(self), hay, end: Some(hay.len()) }
    }
}

impl Backend {
    /// A substring searcher for `needle` with this backend ([`Finder::new`] uses
    /// [`Backend::detect`]).
    pub fn finder(self, needle: &[u8]) -> Finder<'_> {
        Finder::with_backend(self, needle)
    }
}

/// A substring searcher for one needle, from the back: the memchr crate's `FinderRev`. A
/// [`Finder`] searches both ways; this type is for code written against memchr.
#[derive(Clone, Copy, Debug)]
pub struct FinderRev<'n>(Finder<'n>);

impl<'n> FinderRev<'n> {
    /// A reverse finder for `needle` using the dispatched backend.
    pub fn new<B: ?Sized + AsRef<[u8]>>(needle: &'n B) -> Self {
        FinderRev(Finder::new(needle))
    }

    /// The last occurrence of the needle in `haystack`; `Some(haystack.len())` for an empty
    /// needle.
    #[inline]
    pub fn rfind<B: AsRef<[u8]>>(&self, haystack: B) -> Option<usize> {
        self.0.rfind(haystack.as_ref())
    }

    /// The non-overlapping occurrences of the needle in `haystack`, from the back.
    #[inline]
    pub fn rfind_iter<'a, 'h>(&'a self, haystack: &'h [u8]) -> FindRevIter<'h, 'a> {
        self.0.rfind_iter(haystack)
    }

    /// This finder with the shorter lifetime of the borrow (memchr's `FinderRev::as_ref`).
    pub fn as_ref(&self) -> FinderRev<'_> {
        *self
    }

    /// The needle this finder looks for.
    pub fn needle(&self) -> &'n [u8] {
        self.0.needle
    }
}

/// The finder of a [`FindIter`] or [`FindRevIter`]: borrowed from the caller's
/// ([`Finder::find_iter`]), or owned (the free [`find_iter`], which builds one).
#[derive(Clone, Debug)]
enum Held<'n> {
    Borrowed(&'n Finder<'n>),
    Owned(Finder<'n>),
}

impl<'n> Held<'n> {
    #[inline(always)]
    fn get(&self) -> &Finder<'n> {
        match self {
            Held::Borrowed(f) => f,
            Held::Owned(f) => f,
        }
    }
}

/// The non-overlapping occurrences of a needle, from the front: see [`Finder::find_iter`].
/// `'n` is the needle's lifetime, or the finder's when the iterator borrows it.
#[derive(Clone, Debug)]
pub struct FindIter<'h, 'n> {
    finder: Held<'n>,
    hay: &'h [u8],
    /// Where the next search starts (past `hay.len()` when done).
    pos: usize,
}

impl Iterator for FindIter<'_, '_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let rest = self.hay.get(self.pos..)?;
        let finder = self.finder.get();
        let Some(i) = finder.find(rest) else {
            self.pos = usize::MAX;
            return None;
        };
        let p = self.pos + i;
        self.pos = p + finder.needle.len().max(1);
        Some(p)
    }
}

impl FusedIterator for FindIter<'_, '_> {}

/// The non-overlapping occurrences of a needle, from the back: see [`Finder::rfind_iter`].
/// `'n` as for [`FindIter`].
#[derive(Clone, Debug)]
pub struct FindRevIter<'h, 'n> {
    finder: Held<'n>,
    hay: &'h [u8],
    /// The search continues in `hay[..end]`; `None` when done.
    end: Option<usize>,
}

impl Iterator for FindRevIter<'_, '_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let end = self.end?;
        let rest = self.hay.get(..end)?;
        let Some(p) = self.finder.get().rfind(rest) else {
            self.end = None;
            return None;
        };
        // An empty needle matches at `end` itself: step past it.
        self.end = if p == end { end.checked_sub(1) } else { Some(p) };
        Some(p)
    }
}

impl FusedIterator for FindRevIter<'_, '_> {}

/// The prefilter's pair: the rarest byte of `needle` by [`RANK`] and, at another offset, the
/// rarest byte of a different value (of the same value if the needle has only one). Any pair
/// of offsets is correct; rarer bytes leave fewer positions to verify.
fn choose_pair(needle: &[u8]) -> Pair {
    let rank = |i: usize| RANK[usize::from(needle[i])];
    let Some(i1) = (0..needle.len()).min_by_key(|&i| rank(i)) else {
        return Pair { i1: 0, i2: 0, b1: 0, b2: 0 };
    };
    let b1 = needle[i1];
    let other = (0..needle.len()).filter(|&i| needle[i] != b1).min_by_key(|&i| rank(i));
    let i2 = other.unwrap_or(if i1 == 0 { needle.len().min(2) - 1 } else { 0 });
    Pair { i1, i2, b1, b2: needle[i2] }
}

/// How common each byte value is (255 = most common), the order of their counts in 610 MB
/// of text: the Rust toolchain's `rust-src` library sources (`.rs`, `.md`) and its
/// `rust-docs` HTML, counted by a one-off script (ties, among the bytes never seen, by
/// value).
const RANK: [u8; 256] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 144, 222, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
    24, 25, 26, 27, 28, 29, 255, 189, 248, 211, 162, 198, 204, 190, 212, 213, 170, 202, 215, 234,
    243, 240, 223, 231, 230, 226, 224, 219, 220, 210, 218, 214, 229, 209, 241, 237, 242, 160, 157,
    200, 184, 203, 183, 196, 199, 165, 175, 205, 97, 152, 186, 195, 179, 193, 185, 112, 197, 206,
    201, 177, 173, 172, 163, 171, 155, 192, 187, 191, 138, 225, 188, 252, 227, 245, 239, 253, 233,
    228, 236, 249, 180, 207, 244, 235, 247, 246, 238, 178, 250, 251, 254, 232, 221, 216, 208, 217,
    194, 182, 164, 181, 79, 30, 167, 158, 151, 147, 132, 111, 123, 96, 137, 98, 119, 140, 129, 95,
    83, 114, 124, 87, 115, 128, 156, 139, 107, 121, 145, 161, 126, 86, 142, 141, 118, 149, 148,
    103, 80, 82, 127, 109, 106, 174, 120, 108, 101, 88, 150, 99, 113, 116, 130, 89, 84, 110, 122,
    90, 85, 166, 133, 92, 91, 102, 134, 104, 93, 100, 31, 32, 176, 81, 71, 68, 65, 66, 33, 64, 34,
    35, 69, 36, 78, 76, 75, 73, 62, 63, 37, 38, 39, 72, 67, 70, 40, 41, 42, 43, 44, 45, 77, 74,
    168, 169, 136, 153, 143, 131, 125, 105, 117, 154, 159, 135, 46, 94, 146, 47, 48, 49, 50, 51,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
];

/// A needle or haystack read front to back or back to front, so one Two-Way serves both
/// directions.
trait Bytes: Copy {
    fn len(self) -> usize;
    fn at(self, i: usize) -> u8;
}

#[derive(Clone, Copy)]
struct Fwd<'a>(&'a [u8]);

impl Bytes for Fwd<'_> {
    #[inline(always)]
    fn len(self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> u8 {
        self.0[i]
    }
}

#[derive(Clone, Copy)]
struct Rev<'a>(&'a [u8]);

impl Bytes for Rev<'_> {
    #[inline(always)]
    fn len(self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> u8 {
        self.0[self.0.len() - 1 - i]
    }
}

/// Two-Way (Crochemore and Perrin, "Two-way string-matching", J. ACM 38(3), 1991), in the
/// shape of glibc's `str-two-way.h`: the needle split at a critical factorization
/// `u v` (`v` starts at `crit`), `v` matched left to right and then `u` right to left; a
/// mismatch in `v` shifts past it, a mismatch in `u` shifts by the period. When `u` is a
/// suffix of a prefix of period length (a periodic needle), the matched period is
/// remembered so that no byte is compared twice. Linear time, constant space.
#[derive(Clone, Copy, Debug)]
struct TwoWay {
    crit: usize,
    period: usize,
    /// Whether `needle[..crit] == needle[period..period + crit]` (use the memory).
    periodic: bool,
    /// The byte values of the needle, a bit each. A window whose last byte is not among
    /// them cannot hold an occurrence, nor can any window containing that byte: the search
    /// moves a whole needle length (Boyer–Moore's bad-character rule on one byte).
    bytes: [u64; 4],
}

impl TwoWay {
    fn new<S: Bytes>(needle: S) -> Self {
        let m = needle.len();
        let (s1, p1) = max_suffix(needle, |a, b| a < b);
        let (s2, p2) = max_suffix(needle, |a, b| a > b);
        // The later of the two maximal suffixes gives a critical factorization.
        let (crit, period) = if s2.wrapping_add(1) < s1.wrapping_add(1) {
            (s1.wrapping_add(1), p1)
        } else {
            (s2.wrapping_add(1), p2)
        };
        let periodic =
            crit + period <= m && (0..crit).all(|i| needle.at(i) == needle.at(i + period));
        let mut bytes = [0u64; 4];
        for i in 0..m {
            let b = needle.at(i);
            bytes[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        TwoWay { crit, period, periodic, bytes }
    }

    /// Whether `b` occurs in the needle.
    #[inline(always)]
    fn has(&self, b: u8) -> bool {
        self.bytes[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// The first occurrence of `needle` (the one this was built for) in `hay`.
    fn find<S: Bytes>(&self, hay: S, needle: S) -> Option<usize> {
        let (n, m, crit) = (hay.len(), needle.len(), self.crit);
        if m > n {
            return None;
        }
        if m == 0 {
            return Some(0);
        }
        let mut j = 0;
        if self.periodic {
            let mut memory = 0;
            while j <= n - m {
                if !self.has(hay.at(j + m - 1)) {
                    j += m;
                    memory = 0;
                    continue;
                }
                let mut i = crit.max(memory);
                while i < m && needle.at(i) == hay.at(i + j) {
                    i += 1;
                }
                if i < m {
                    j += i - crit + 1;
                    memory = 0;
                    continue;
                }
                let mut i = crit;
                while i > memory && needle.at(i - 1) == hay.at(i - 1 + j) {
                    i -= 1;
                }
                if i <= memory {
                    return Some(j);
                }
                j += self.period;
                memory = m - self.period;
            }
        } else {
            let shift = crit.max(m - crit) + 1;
            while j <= n - m {
                if !self.has(hay.at(j + m - 1)) {
                    j += m;
                    continue;
                }
                let mut i = crit;
                while i < m && needle.at(i) == hay.at(i + j) {
                    i += 1;
                }
                if i < m {
                    j += i - crit + 1;
                    continue;
                }
                let mut i = crit;
                while i > 0 && needle.at(i - 1) == hay.at(i - 1 + j) {
                    i -= 1;
                }
                if i == 0 {
                    return Some(j);
                }
                j += shift;
            }
        }
        None
    }
}

/// The maximal suffix of `needle` under the order `less` and its period: returns (start - 1,
/// period), the start minus one wrapping to `usize::MAX` for the whole needle (glibc's
/// `critical_factorization`, one ordering).
fn max_suffix<S: Bytes>(needle: S, less: impl Fn(u8, u8) -> bool) -> (usize, usize) {
    let m = needle.len();
    let (mut ms, mut j, mut k, mut p) = (usize::MAX, 0, 1, 1);
    while j + k < m {
        let a = needle.at(j + k);
        let b = needle.at(ms.wrapping_add(k));
        if less(a, b) {
            j += k;
            k = 1;
            p = j.wrapping_sub(ms);
        } else if a == b {
            if k != p {
                k += 1;
            } else {
                j += p;
                k = 1;
            }
        } else {
            ms = j;
            j += 1;
            k = 1;
            p = 1;
        }
    }
    (ms, p)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn naive(hay: &[u8], needle: &[u8]) -> Option<usize> {
        (0..=hay.len().checked_sub(needle.len())?).find(|&i| &hay[i..i + needle.len()] == needle)
    }

    fn naive_rev(hay: &[u8], needle: &[u8]) -> Option<usize> {
        (0..=hay.len().checked_sub(needle.len())?).rfind(|&i| &hay[i..i + needle.len()] == needle)
    }

    /// Every string of `len` letters from `alphabet` (as the digits of `k`).
    fn word(k: usize, len: usize, alphabet: &[u8]) -> Vec<u8> {
        let r = alphabet.len();
        (0..len).map(|i| alphabet[k / r.pow(i as u32) % r]).collect()
    }

    /// Two-Way alone (no prefilter), both directions, against the naive search: every needle
    /// up to 6 letters and every haystack up to 11 over {a, b} (2 and 5 under Miri), and over
    /// {a, b, c} up to 4 and 7.
    #[test]
    fn two_way_every_small_needle_and_haystack() {
        let cases: &[(&[u8], usize, usize)] =
            if cfg!(miri) { &[(b"ab", 2, 5)] } else { &[(b"ab", 6, 11), (b"abc", 4, 7)] };
        for &(alphabet, max_m, max_n) in cases {
            let r = alphabet.len();
            for m in 1..=max_m {
                for kn in 0..r.pow(m as u32) {
                    let needle = word(kn, m, alphabet);
                    let (fwd, rev) = (TwoWay::new(Fwd(&needle)), TwoWay::new(Rev(&needle)));
                    for n in 0..=max_n {
                        for kh in 0..r.pow(n as u32) {
                            let hay = word(kh, n, alphabet);
                            let f = fwd.find(Fwd(&hay), Fwd(&needle));
                            assert_eq!(f, naive(&hay, &needle), "{hay:?} {needle:?}");
                            let r = rev.find(Rev(&hay), Rev(&needle)).map(|p| n - p - m);
                            assert_eq!(r, naive_rev(&hay, &needle), "rev {hay:?} {needle:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn pair_offsets_differ_and_lie_in_the_needle() {
        for needle in [&b"ab"[..], b"aa", b"aaaa", b"zq", b"the quick", b"\x00\x00\x01"] {
            let p = choose_pair(needle);
            assert!(p.i1 != p.i2 && p.i1 < needle.len() && p.i2 < needle.len(), "{needle:?}");
            assert_eq!((needle[p.i1], needle[p.i2]), (p.b1, p.b2));
        }
        // The rarer byte first: `q` is rarer than `e` in text.
        let p = choose_pair(b"eeqee");
        assert_eq!((p.i1, p.b1, p.b2), (2, b'q', b'e'));
    }
}
