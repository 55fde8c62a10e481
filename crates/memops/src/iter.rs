//! Iterators over every position of one, two or three byte values (`memchr_iter`,
//! `memchr2_iter`, `memchr3_iter` in the memchr crate), double-ended. Each step is one
//! dispatched search of the bytes not yet visited, from the front or from the back.

use core::iter::FusedIterator;

use crate::dispatch::Backend;

/// The byte values a [`ByteIter`] looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Needles {
    One(u8),
    Two(u8, u8),
    Three(u8, u8, u8),
}

/// The positions of one, two or three byte values in a haystack, in increasing order
/// (decreasing from the back: it is a [`DoubleEndedIterator`]). Made by
/// [`find_byte_iter`](crate::find_byte_iter), [`find_byte2_iter`](crate::find_byte2_iter) and
/// [`find_byte3_iter`](crate::find_byte3_iter).
///
/// ```
/// let hay = b"a,b;c,d";
/// let all: Vec<usize> = memops::find_byte2_iter(hay, b',', b';').collect();
/// assert_eq!(all, [1, 3, 5]);
/// assert_eq!(memops::find_byte_iter(hay, b',').rev().collect::<Vec<_>>(), [5, 1]);
/// ```
#[derive(Clone, Debug)]
pub struct ByteIter<'h> {
    backend: Backend,
    needles: Needles,
    hay: &'h [u8],
    /// Positions `start..end` are not yet visited.
    start: usize,
    end: usize,
}

impl<'h> ByteIter<'h> {
    pub(crate) fn new(backend: Backend, needles: Needles, hay: &'h [u8]) -> Self {
        ByteIter { backend, needles, hay, start: 0, end: hay.len() }
    }
}

impl Iterator for ByteIter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let rest = self.hay.get(self.start..self.end)?;
        let pos = self.start + self.backend.find_any(rest, self.needles)?;
        self.start = pos + 1;
        Some(pos)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.end.saturating_sub(self.start)))
    }

    /// One counting pass for a single byte value (no search per match).
    fn count(self) -> usize {
        match (self.needles, self.hay.get(self.start..self.end)) {
            (Needles::One(b), Some(rest)) => self.backend.count_byte(rest, b),
            _ => self.fold(0, |n, _| n + 1),
        }
    }
}

impl DoubleEndedIterator for ByteIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<usize> {
        let rest = self.hay.get(self.start..self.end)?;
        let pos = self.start + self.backend.rfind_any(rest, self.needles)?;
        self.end = pos;
        Some(pos)
    }
}

impl FusedIterator for ByteIter<'_> {}
