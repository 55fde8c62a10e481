//! Compares that end at the last byte before an inaccessible page, with every backend and
//! the crate's free functions (which compare short inputs at the call site): the
//! short-compare kernels may read a whole vector when that cannot leave the page, and must
//! fall back to narrower loads when it could (a read past the end would fault here). Also
//! compares in the middle of a page whose bytes past the end differ: they must not count.
//! Likewise the byte searches, whose short kernels load a whole vector that stays in the page
//! (from the start of the bytes, or ending at their end).

#![cfg(all(unix, not(miri)))]

use std::cmp::Ordering;

use memops::backends;
use testkit::page::GuardedPage;

/// A function of two byte slices.
type Of2<R> = Box<dyn Fn(&[u8], &[u8]) -> R>;

/// One way to compare: a backend's methods, or the crate's free functions (which compare
/// short inputs at the call site, before the dispatched kernel).
struct Comparer {
    name: String,
    compare: Of2<Ordering>,
    equal: Of2<bool>,
    /// Raw `memcmp` of two slices of the same length.
    memcmp: Of2<i32>,
    /// Raw `bcmp` of two slices of the same length.
    bcmp: Of2<bool>,
}

/// Every backend, then the crate's own functions.
fn comparers() -> Vec<Comparer> {
    let mut all: Vec<Comparer> = backends()
        .map(|b| Comparer {
            name: b.name().to_string(),
            compare: Box::new(move |x, y| b.compare(x, y)),
            equal: Box::new(move |x, y| b.equal(x, y)),
            // SAFETY: the callers pass slices of the same length.
            memcmp: Box::new(move |x, y| unsafe { b.memcmp(x.as_ptr(), y.as_ptr(), x.len()) }),
            bcmp: Box::new(move |x, y| b.equal(x, y)),
        })
        .collect();
    all.push(Comparer {
        name: "crate functions".to_string(),
        compare: Box::new(memops::compare),
        equal: Box::new(memops::equal),
        // SAFETY: the callers pass slices of the same length.
        memcmp: Box::new(|x, y| unsafe { memops::raw::memcmp(x.as_ptr(), y.as_ptr(), x.len()) }),
        // SAFETY: as above.
        bcmp: Box::new(|x, y| unsafe { memops::raw::bcmp(x.as_ptr(), y.as_ptr(), x.len()) }),
    });
    all
}

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(151) >> 2) as u8 ^ 0x3c
}

/// Every length up to 80 (past the AVX-512 backend's 64-byte vector), with `a` and/or `b`
/// ending at its page's end or 100 bytes before it; equal, then one difference at every
/// position. The oracle is the slices' own lexicographic order.
#[test]
fn compares_ending_at_an_inaccessible_page() {
    let (mut pa, mut pb) = (GuardedPage::new(), GuardedPage::new());
    let page = pa.page();
    for (i, x) in pa.bytes().iter_mut().enumerate() {
        *x = pattern(i);
    }
    for b in comparers() {
        for len in 0..=80 {
            for (ea, eb) in [(page, page), (page, page - 100), (page - 100, page)] {
                let sa = ea - len;
                let sb = eb - len;
                // `b`'s window holds `a`'s bytes; the rest of its page is different.
                pb.bytes().fill(0xee);
                let src = pa.bytes()[sa..ea].to_vec();
                pb.bytes()[sb..eb].copy_from_slice(&src);
                let x = &pa.bytes()[sa..ea];
                let y = &pb.bytes()[sb..eb];
                let what = format!("{} len {len} ends {ea} {eb}", b.name);
                assert_eq!((b.compare)(x, y), Ordering::Equal, "{what}");
                assert!((b.equal)(x, y), "{what}");
                assert_eq!((b.memcmp)(x, y), 0, "{what}");
                assert!((b.bcmp)(x, y), "{what}");
                for (pos, &orig) in src.iter().enumerate() {
                    for delta in [1u8, 0x80] {
                        pb.bytes()[sb + pos] = orig.wrapping_add(delta);
                        let x = &pa.bytes()[sa..ea];
                        let y = &pb.bytes()[sb..eb];
                        let want = x.cmp(y);
                        let what = format!("{} len {len} ends {ea} {eb} pos {pos}", b.name);
                        assert_eq!((b.compare)(x, y), want, "{what}");
                        assert_eq!((b.compare)(y, x), want.reverse(), "{what}");
                        assert!(!(b.equal)(x, y), "{what}");
                        assert_eq!((b.memcmp)(x, y).signum(), want as i32, "{what}");
                        assert!(!(b.bcmp)(x, y), "{what}");
                    }
                    pb.bytes()[sb + pos] = orig;
                }
            }
        }
    }
}

/// Mid-page compares whose sides differ in every byte past `len`: only `[0, len)` counts.
#[test]
fn bytes_past_the_end_do_not_count() {
    let (mut pa, mut pb) = (GuardedPage::new(), GuardedPage::new());
    pa.bytes().fill(0x11);
    pb.bytes().fill(0x99);
    for b in comparers() {
        for len in 0..=80 {
            for off in [0, 1, 7, 15, 16, 31, 63] {
                pb.bytes()[off..off + len].fill(0x11);
                let x = &pa.bytes()[off..off + len];
                let y = &pb.bytes()[off..off + len];
                let what = format!("{} len {len} off {off}", b.name);
                assert_eq!((b.compare)(x, y), Ordering::Equal, "{what}");
                assert!((b.equal)(x, y), "{what}");
                assert_eq!((b.memcmp)(x, y), 0, "{what}");
                assert!((b.bcmp)(x, y), "{what}");
                pb.bytes()[off..off + len].fill(0x99);
            }
        }
    }
}

/// Searches of every length up to 80 in a window ending at the page's end (before the
/// inaccessible page) or starting at the page's start, with the needles filling every byte
/// outside the window (a byte read past either end must not count) and one needle at every
/// position inside it, or none. The oracle is a plain scan of the window.
#[test]
fn searches_at_page_ends() {
    let mut pg = GuardedPage::new();
    let page = pg.page();
    let set = [0xa1u8, 0xa2, 0xa3];
    for b in backends() {
        for len in 0..=80 {
            for start in [page - len, 0] {
                for (i, x) in pg.bytes().iter_mut().enumerate() {
                    *x = set[i % 3];
                }
                pg.bytes()[start..start + len].fill(0);
                for hit in (0..len).map(Some).chain([None]) {
                    let k = hit.unwrap_or(0) % 3;
                    if let Some(h) = hit {
                        pg.bytes()[start + h] = set[k];
                    }
                    let w = &pg.bytes()[start..start + len];
                    let what = format!("{} len {len} start {start} hit {hit:?}", b.name());
                    let first = |s: &[u8]| w.iter().position(|x| s.contains(x));
                    let last = |s: &[u8]| w.iter().rposition(|x| s.contains(x));
                    assert_eq!(b.find_byte(w, set[k]), first(&set[k..=k]), "{what}");
                    assert_eq!(b.rfind_byte(w, set[k]), last(&set[k..=k]), "{what}");
                    let count = w.iter().filter(|&&x| x == set[k]).count();
                    assert_eq!(b.count_byte(w, set[k]), count, "{what}");
                    assert_eq!(b.find_byte2(w, set[0], set[k]), first(&[set[0], set[k]]), "{what}");
                    assert_eq!(b.rfind_byte2(w, set[0], set[k]), last(&[set[0], set[k]]), "{what}");
                    assert_eq!(b.find_byte3(w, set[0], set[1], set[2]), first(&set), "{what}");
                    assert_eq!(b.rfind_byte3(w, set[0], set[1], set[2]), last(&set), "{what}");
                    if let Some(h) = hit {
                        pg.bytes()[start + h] = 0;
                    }
                }
            }
        }
    }
}

/// Empty compares read nothing: their pointers may dangle (here at address 1, whose page is
/// never mapped), with every backend and the crate's functions.
#[test]
fn empty_compares_read_nothing() {
    let p = std::ptr::NonNull::<u8>::dangling().as_ptr();
    for b in comparers() {
        // SAFETY: a zero-length slice may have a dangling, non-null, aligned pointer.
        let e = unsafe { std::slice::from_raw_parts(p, 0) };
        assert_eq!((b.compare)(e, e), Ordering::Equal, "{}", b.name);
        assert!((b.equal)(e, e), "{}", b.name);
        assert_eq!((b.memcmp)(e, e), 0, "{}", b.name);
        assert!((b.bcmp)(e, e), "{}", b.name);
    }
}
