//! Iterators over every position of one, two or three byte values, double-ended: [`ByteIter`]
//! and, under the memchr crate's names, [`Memchr`], [`Memchr2`] and [`Memchr3`]. Each step is
//! one dispatched search of the bytes not yet visited, from the front or from the back.

use core::iter::FusedIterator;

use crate::dispatch::Backend;

/// The byte values a [`ByteIter`] looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needles {
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
    fn new(backend: Backend, needles: Needles, hay: &'h [u8]) -> Self {
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

impl Backend {
    /// [`crate::find_byte_iter`] with this backend.
    pub fn find_byte_iter(self, hay: &[u8], b: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::One(b), hay)
    }

    /// [`crate::find_byte2_iter`] with this backend.
    pub fn find_byte2_iter(self, hay: &[u8], b1: u8, b2: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::Two(b1, b2), hay)
    }

    /// [`crate::find_byte3_iter`] with this backend.
    pub fn find_byte3_iter(self, hay: &[u8], b1: u8, b2: u8, b3: u8) -> ByteIter<'_> {
        ByteIter::new(self, Needles::Three(b1, b2, b3), hay)
    }

    /// The first byte of `hay` equal to one of `needles`.
    #[inline(always)]
    fn find_any(self, hay: &[u8], needles: Needles) -> Option<usize> {
        match needles {
            Needles::One(b) => self.find_byte(hay, b),
            Needles::Two(b1, b2) => self.find_byte2(hay, b1, b2),
            Needles::Three(b1, b2, b3) => self.find_byte3(hay, b1, b2, b3),
        }
    }

    /// The last byte of `hay` equal to one of `needles`.
    #[inline(always)]
    fn rfind_any(self, hay: &[u8], needles: Needles) -> Option<usize> {
        match needles {
            Needles::One(b) => self.rfind_byte(hay, b),
            Needles::Two(b1, b2) => self.rfind_byte2(hay, b1, b2),
            Needles::Three(b1, b2, b3) => self.rfind_byte3(hay, b1, b2, b3),
        }
    }
}

/// The memchr crate's iterator types: a [`ByteIter`] under each name, with memchr's `new`.
macro_rules! memchr_iter_type {
    ($(#[$doc:meta])* $name:ident($($needle:ident),+) => $variant:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<'h>(ByteIter<'h>);

        impl<'h> $name<'h> {
            /// Every occurrence of the needle bytes in `haystack`, double-ended.
            #[inline]
            pub fn new($($needle: u8,)+ haystack: &'h [u8]) -> $name<'h> {
                $name(ByteIter::new(Backend::detect(), Needles::$variant($($needle),+), haystack))
            }
        }

        impl Iterator for $name<'_> {
            type Item = usize;

            #[inline]
            fn next(&mut self) -> Option<usize> {
                self.0.next()
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }

            fn count(self) -> usize {
                self.0.count()
            }
        }

        impl DoubleEndedIterator for $name<'_> {
            #[inline]
            fn next_back(&mut self) -> Option<usize> {
                self.0.next_back()
            }
        }

        impl FusedIterator for $name<'_> {}
    };
}

memchr_iter_type!(
    /// Every position of one byte value: the memchr crate's `Memchr`, made by
    /// [`memchr_iter`](crate::memchr_iter) and [`memrchr_iter`](crate::memrchr_iter).
    Memchr(needle1) => One
);
memchr_iter_type!(
    /// Every position of either of two byte values: the memchr crate's `Memchr2`, made by
    /// [`memchr2_iter`](crate::memchr2_iter) and [`memrchr2_iter`](crate::memrchr2_iter).
    Memchr2(needle1, needle2) => Two
);
memchr_iter_type!(
    /// Every position of any of three byte values: the memchr crate's `Memchr3`, made by
    /// [`memchr3_iter`](crate::memchr3_iter) and [`memrchr3_iter`](crate::memrchr3_iter).
    Memchr3(needle1, needle2, needle3) => Three
);
