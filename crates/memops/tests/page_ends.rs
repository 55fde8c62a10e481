//! Compares that end at the last byte before an inaccessible page, with every backend: the
//! short-compare kernels may read a whole vector when that cannot leave the page, and must
//! fall back to narrower loads when it could (a read past the end would fault here). Also
//! compares in the middle of a page whose bytes past the end differ: they must not count.

#![cfg(all(unix, not(miri)))]

use std::cmp::Ordering;

use memops::backends;

/// A readable and writable page followed by an inaccessible one; unmapped on drop.
struct GuardedPage {
    base: *mut u8,
    page: usize,
}

impl GuardedPage {
    fn new() -> Self {
        // SAFETY: `sysconf` has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .expect("sysconf(_SC_PAGESIZE) failed");
        // SAFETY: a fresh anonymous private mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap of two pages failed");
        // SAFETY: the second page lies inside the mapping just made.
        let r =
            unsafe { libc::mprotect(base.cast::<u8>().add(page).cast(), page, libc::PROT_NONE) };
        assert_eq!(r, 0, "mprotect of the guard page failed");
        GuardedPage { base: base.cast(), page }
    }
    /// The accessible page.
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the first page is mapped readable and writable and owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.page) }
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), 2 * self.page) };
    }
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
    let page = pa.page;
    for (i, x) in pa.bytes().iter_mut().enumerate() {
        *x = pattern(i);
    }
    for b in backends() {
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
                assert_eq!(
                    b.compare(x, y),
                    Ordering::Equal,
                    "{} len {len} ends {ea} {eb}",
                    b.name()
                );
                assert!(b.equal(x, y), "{} len {len} ends {ea} {eb}", b.name());
                for (pos, &orig) in src.iter().enumerate() {
                    for delta in [1u8, 0x80] {
                        pb.bytes()[sb + pos] = orig.wrapping_add(delta);
                        let x = &pa.bytes()[sa..ea];
                        let y = &pb.bytes()[sb..eb];
                        let want = x.cmp(y);
                        let what = format!("{} len {len} ends {ea} {eb} pos {pos}", b.name());
                        assert_eq!(b.compare(x, y), want, "{what}");
                        assert_eq!(b.compare(y, x), want.reverse(), "{what}");
                        assert!(!b.equal(x, y), "{what}");
                        // SAFETY: both slices hold `len` bytes.
                        let raw = unsafe { b.memcmp(x.as_ptr(), y.as_ptr(), len) };
                        assert_eq!(raw.signum(), want as i32, "{what}");
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
    for b in backends() {
        for len in 0..=80 {
            for off in [0, 1, 7, 15, 16, 31, 63] {
                pb.bytes()[off..off + len].fill(0x11);
                let x = &pa.bytes()[off..off + len];
                let y = &pb.bytes()[off..off + len];
                assert_eq!(b.compare(x, y), Ordering::Equal, "{} len {len} off {off}", b.name());
                assert!(b.equal(x, y), "{} len {len} off {off}", b.name());
                pb.bytes()[off..off + len].fill(0x99);
            }
        }
    }
}
