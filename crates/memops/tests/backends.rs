//! Every backend the CPU supports against a byte-at-a-time oracle: every length 0..=512 and
//! random larger ones, every src/dst misalignment 0..64, overlapping moves both ways, guard
//! bytes around the destination, and searches with the needle at every position, absent and
//! repeated. Exhaustive loops shrink under emulation (`XTASK_EMULATED`) and Miri; proptest case
//! counts follow `PROPTEST_CASES`.

use std::cmp::Ordering;

use memops::{Backend, backends};
use proptest::prelude::*;

mod oracle;
mod strategies;
use oracle::{naive_find, naive_find_all, naive_rfind, naive_rfind_all};

/// Under qemu-user or Miri, the exhaustive loops take a sample.
fn reduced() -> bool {
    cfg!(miri) || std::env::var_os("XTASK_EMULATED").is_some()
}

/// Lengths to test exhaustively.
fn lengths() -> Vec<usize> {
    if cfg!(miri) {
        vec![0, 1, 3, 7, 8, 9, 16, 17, 33, 63, 65, 100, 129]
    } else if reduced() {
        (0..=160).chain([191, 255, 256, 257, 300, 383, 384, 385, 511, 512]).collect()
    } else {
        (0..=512).collect()
    }
}

/// Misalignments to test for a given length (all 64, or a sample that still varies).
fn offsets(len: usize) -> Vec<usize> {
    if cfg!(miri) {
        vec![0, 5]
    } else if reduced() {
        vec![0, 1, 7, 8, 15, 31, 33, 63, len % 64]
    } else {
        (0..64).collect()
    }
}

/// A buffer of `len` bytes whose index 0 is 64-byte aligned, plus that many bytes of slack.
struct Aligned {
    v: Vec<u8>,
    start: usize,
}

impl Aligned {
    fn new(len: usize, fill: impl Fn(usize) -> u8) -> Self {
        let mut v: Vec<u8> = (0..len + 64).map(&fill).collect();
        let start = v.as_ptr().align_offset(64);
        for (i, x) in v.iter_mut().enumerate() {
            *x = fill(i.wrapping_sub(start));
        }
        Aligned { v, start }
    }
    fn get(&self) -> &[u8] {
        &self.v[self.start..self.start + self.v.len() - 64]
    }
    fn get_mut(&mut self) -> &mut [u8] {
        let end = self.start + self.v.len() - 64;
        &mut self.v[self.start..end]
    }
}

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(131) ^ (i >> 7)).wrapping_add(17) as u8
}
fn guard(i: usize) -> u8 {
    (i.wrapping_mul(7) as u8) ^ 0xa5
}

const GUARD: usize = 64;

#[test]
fn copy_every_length_and_misalignment() {
    for b in backends() {
        let src = Aligned::new(512 + 64, pattern);
        let mut dst = Aligned::new(GUARD + 512 + 64 + GUARD, guard);
        for len in lengths() {
            for so in offsets(len) {
                for d in offsets(len + 1) {
                    let s = &src.get()[so..so + len];
                    let region = dst.get_mut();
                    b.copy(&mut region[GUARD + d..GUARD + d + len], s);
                    for (i, &x) in region.iter().enumerate() {
                        let want = if (GUARD + d..GUARD + d + len).contains(&i) {
                            s[i - GUARD - d]
                        } else {
                            guard(i)
                        };
                        assert_eq!(x, want, "{} len {len} src+{so} dst+{d} byte {i}", b.name());
                    }
                    region[GUARD + d..GUARD + d + len].copy_from_slice(
                        &(GUARD + d..GUARD + d + len).map(guard).collect::<Vec<_>>(),
                    );
                }
            }
        }
    }
}

/// `copy_within` against `slice::copy_within`-by-hand (a byte loop through a temporary).
fn check_move(b: Backend, buf: &mut [u8], src: usize, dst: usize, len: usize) {
    let mut want = buf.to_vec();
    let tmp: Vec<u8> = want[src..src + len].to_vec();
    for (i, &x) in tmp.iter().enumerate() {
        want[dst + i] = x;
    }
    b.copy_within(buf, src..src + len, dst);
    if buf != &want[..] {
        let i = (0..buf.len()).find(|&i| buf[i] != want[i]).unwrap();
        panic!("{} move len {len} src {src} dst {dst}: first bad byte {i}", b.name());
    }
}

#[test]
fn overlapping_moves_both_ways() {
    for b in backends() {
        let mut buf = Aligned::new(3 * 512 + 256, pattern);
        for len in lengths() {
            // dst before, inside and after src, by small and by len-sized distances.
            let deltas: Vec<isize> = if cfg!(miri) {
                vec![-(len as isize) - 1, -1, 0, 1, 3, len as isize]
            } else {
                let l = len as isize;
                let near = if reduced() { 9 } else { 70 };
                (-near..=near).chain([-l - 1, -l, -l + 1, l - 1, l, l + 1, l / 2, -l / 2]).collect()
            };
            for (k, delta) in deltas.into_iter().enumerate() {
                let src = 512 + 64 + (k * 13 + len) % 64;
                let dst = src.checked_add_signed(delta).unwrap();
                check_move(b, buf.get_mut(), src, dst, len);
            }
        }
    }
}

#[test]
fn fill_every_length_and_misalignment() {
    for b in backends() {
        let mut dst = Aligned::new(GUARD + 512 + 64 + GUARD, guard);
        for len in lengths() {
            for d in offsets(len) {
                let byte = (len as u8) ^ 0x3c;
                let region = dst.get_mut();
                b.fill(&mut region[GUARD + d..GUARD + d + len], byte);
                for (i, &x) in region.iter().enumerate() {
                    let want =
                        if (GUARD + d..GUARD + d + len).contains(&i) { byte } else { guard(i) };
                    assert_eq!(x, want, "{} fill len {len} dst+{d} byte {i}", b.name());
                }
                for (i, x) in region.iter_mut().enumerate().skip(GUARD + d).take(len) {
                    *x = guard(i);
                }
            }
        }
    }
}

fn sign(o: Ordering) -> i32 {
    o as i32
}

#[test]
fn compare_with_difference_at_every_position() {
    // Past 8 vectors of AVX-512 (512 bytes) too: the loop and its tail of four blocks.
    let mut lens = lengths();
    if !cfg!(miri) {
        lens.extend([513, 577, 640, 700, 1000, 1025]);
    }
    for b in backends() {
        let a_buf = Aligned::new(1025 + 64, pattern);
        let mut b_buf = Aligned::new(1025 + 64, pattern);
        for &len in &lens {
            let (oa, ob) = ((len * 7) % 64, (len * 13) % 64);
            // Same bytes at both offsets: copy a's window into b's.
            let a = &a_buf.get()[oa..oa + len];
            b_buf.get_mut()[ob..ob + len].copy_from_slice(a);
            assert!(b.equal(a, &b_buf.get()[ob..ob + len]), "{} equal len {len}", b.name());
            assert_eq!(b.compare(a, &b_buf.get()[ob..ob + len]), Ordering::Equal);
            let positions: Vec<usize> = if cfg!(miri) {
                (0..len).step_by(1 + len / 6).chain(len.checked_sub(1)).collect()
            } else if reduced() {
                (0..len).step_by(1 + len / 24).chain(len.checked_sub(1)).collect()
            } else {
                (0..len).collect()
            };
            for pos in positions {
                for delta in [1u8, 0x80, 0xff] {
                    let bb = &mut b_buf.get_mut()[ob..ob + len];
                    bb[pos] = a[pos].wrapping_add(delta);
                    let bb = &b_buf.get()[ob..ob + len];
                    let want = a.cmp(bb);
                    assert_eq!(b.compare(a, bb), want, "{} cmp len {len} pos {pos}", b.name());
                    assert_eq!(b.compare(bb, a), want.reverse());
                    assert!(!b.equal(a, bb), "{} equal len {len} pos {pos}", b.name());
                    // SAFETY: both slices hold `len` bytes.
                    let raw = unsafe { b.memcmp(a.as_ptr(), bb.as_ptr(), len) };
                    assert_eq!(raw.signum(), sign(want));
                }
                b_buf.get_mut()[ob + pos] = a[pos];
            }
            // Prefixes order by length.
            if len > 0 {
                assert_eq!(b.compare(&a[..len - 1], a), Ordering::Less);
                assert_eq!(b.compare(a, &a[..len - 1]), Ordering::Greater);
                assert!(!b.equal(&a[..len - 1], a));
            }
        }
        // Every pair of misalignments for a few lengths.
        for len in [5, 16, 31, 64, 65, 200, 500] {
            if cfg!(miri) && len > 65 {
                continue;
            }
            for oa in offsets(len) {
                for ob in offsets(len) {
                    let a = &a_buf.get()[oa..oa + len];
                    b_buf.get_mut()[ob..ob + len].copy_from_slice(a);
                    b_buf.get_mut()[ob + len - 1] ^= 1;
                    let bb = &b_buf.get()[ob..ob + len];
                    assert_eq!(b.compare(a, bb), a.cmp(bb), "{} {len} {oa} {ob}", b.name());
                    assert!(!b.equal(a, bb));
                }
            }
        }
    }
}

/// Two differences of opposite sign: the first decides. Kernels that test several blocks at
/// once (and blocks that overlap) must report the lowest differing byte, not the first block
/// they happened to test.
#[test]
fn compare_first_of_two_differences_decides() {
    for b in backends() {
        let a: Vec<u8> = (0..512).map(pattern).collect();
        for len in lengths().into_iter().filter(|&l| l >= 2) {
            let a = &a[..len];
            let step = if cfg!(miri) || reduced() { 1 + len / 12 } else { 1 };
            for p in (0..len - 1).step_by(step) {
                for q in [p + 1, (p + 33).min(len - 1), (p + 64).min(len - 1), len - 1] {
                    if q <= p {
                        continue;
                    }
                    let mut c = a.to_vec();
                    c[p] = a[p].wrapping_add(1);
                    c[q] = a[q].wrapping_sub(1);
                    let want = a.cmp(&c[..]);
                    assert_eq!(b.compare(a, &c), want, "{} len {len} diffs {p} {q}", b.name());
                    assert_eq!(b.compare(&c, a), want.reverse());
                    // SAFETY: both hold `len` bytes.
                    let raw = unsafe { b.memcmp(a.as_ptr(), c.as_ptr(), len) };
                    assert_eq!(
                        raw.signum(),
                        sign(want),
                        "{} raw len {len} diffs {p} {q}",
                        b.name()
                    );
                }
            }
        }
    }
}

/// The oracle for the three searches.
fn oracle(hay: &[u8], x: u8) -> (Option<usize>, Option<usize>, usize) {
    (
        hay.iter().position(|&c| c == x),
        hay.iter().rposition(|&c| c == x),
        hay.iter().filter(|&&c| c == x).count(),
    )
}

fn check_search(b: Backend, hay: &[u8], x: u8, what: &str) {
    let got = (b.find_byte(hay, x), b.rfind_byte(hay, x), b.count_byte(hay, x));
    assert_eq!(got, oracle(hay, x), "{} {what} len {} needle {x:#x}", b.name(), hay.len());
}

#[test]
fn search_needle_at_every_position() {
    let mut lens = lengths();
    if !cfg!(miri) {
        lens.extend([1000, 4095, 4096, 4097, 5000]);
    }
    for b in backends() {
        let mut buf = Aligned::new(8192, |_| 0);
        for &len in &lens {
            let off = (len * 11) % 64;
            let hay = &mut buf.get_mut()[off..off + len];
            hay.fill(0);
            check_search(b, hay, 7, "absent");
            let step = if cfg!(miri) {
                1 + len / 6
            } else if reduced() || len > 512 {
                1 + len / 40
            } else {
                1
            };
            let positions: Vec<usize> = (0..len).step_by(step).chain(len.checked_sub(1)).collect();
            for &pos in &positions {
                hay[pos] = 7;
                check_search(b, hay, 7, "one");
                check_search(b, hay, 0, "zeros");
                // A second needle a vector or so later.
                let gaps: &[usize] = if cfg!(miri) { &[1, 33] } else { &[1, 15, 33, 64, 127] };
                for &gap in gaps {
                    if pos + gap < len {
                        hay[pos + gap] = 7;
                        check_search(b, hay, 7, "two");
                        hay[pos + gap] = 0;
                    }
                }
                hay[pos] = 0;
            }
            hay.fill(7);
            check_search(b, hay, 7, "all");
        }
        // Every misalignment with the needle in the last byte and the first.
        for len in [8, 16, 17, 32, 63, 64, 65, 200, 300] {
            for off in offsets(len) {
                let hay = &mut buf.get_mut()[off..off + len];
                hay.fill(1);
                hay[len - 1] = 9;
                check_search(b, hay, 9, "last");
                hay[0] = 9;
                check_search(b, hay, 9, "first+last");
            }
        }
    }
}

fn big_len() -> usize {
    if cfg!(miri) {
        300
    } else if reduced() {
        20_000
    } else {
        300_000
    }
}

proptest! {
    #[test]
    fn random_large_copies(len in 0..big_len(), so in 0usize..64, d in 0usize..64, seed: u8) {
        let src: Vec<u8> = (0..len + so).map(|i| pattern(i) ^ seed).collect();
        let mut dst = vec![0x5au8; len + d + 2 * GUARD];
        for b in backends() {
            b.copy(&mut dst[GUARD + d..GUARD + d + len], &src[so..]);
            prop_assert!(dst[..GUARD + d].iter().all(|&x| x == 0x5a), "{} head guard", b.name());
            prop_assert!(dst[GUARD + d + len..].iter().all(|&x| x == 0x5a), "{} tail guard", b.name());
            prop_assert!(dst[GUARD + d..GUARD + d + len] == src[so..], "{} len {len}", b.name());
            dst.fill(0x5a);
        }
        memops::copy(&mut dst[GUARD + d..GUARD + d + len], &src[so..]);
        prop_assert!(dst[GUARD + d..GUARD + d + len] == src[so..]);
    }

    #[test]
    fn random_large_moves(len in 0..big_len(), a in 0usize..200_000, c in 0usize..200_000) {
        let (a, c) = (a % (len / 2 + 64), c % (len / 2 + 64));
        let mut buf: Vec<u8> = (0..len + len / 2 + 64).map(pattern).collect();
        for b in backends() {
            check_move(b, &mut buf, a, c, len);
            check_move(b, &mut buf, c, a, len);
        }
    }

    #[test]
    fn random_fill(len in 0..big_len(), d in 0usize..64, byte: u8) {
        let mut dst = vec![!byte; len + d + 2 * GUARD];
        for b in backends() {
            b.fill(&mut dst[GUARD + d..GUARD + d + len], byte);
            prop_assert!(dst[..GUARD + d].iter().all(|&x| x == !byte));
            prop_assert!(dst[GUARD + d..GUARD + d + len].iter().all(|&x| x == byte), "{}", b.name());
            prop_assert!(dst[GUARD + d + len..].iter().all(|&x| x == !byte));
            dst.fill(!byte);
        }
    }

    #[test]
    fn random_compare(len in 0..big_len() / 8, pos: usize, x: u8, short in 0usize..3) {
        let a: Vec<u8> = (0..len).map(pattern).collect();
        let mut c = a.clone();
        if len > 0 {
            c[pos % len] = x;
        }
        c.truncate(len.saturating_sub(short));
        for b in backends() {
            prop_assert_eq!(b.compare(&a, &c), a.cmp(&c), "{}", b.name());
            prop_assert_eq!(b.compare(&c, &a), c.cmp(&a), "{}", b.name());
            prop_assert_eq!(b.equal(&a, &c), a == c, "{}", b.name());
        }
        prop_assert_eq!(memops::compare(&a, &c), a.cmp(&c));
        prop_assert_eq!(memops::equal(&a, &c), a == c);
    }

    #[test]
    fn random_search(hay in proptest::collection::vec(0u8..4, 0..big_len() / 16), off in 0usize..64, x in 0u8..5) {
        let off = off.min(hay.len());
        for b in backends() {
            check_search(b, &hay[off..], x, "random");
        }
        let (f, r, n) = oracle(&hay[off..], x);
        prop_assert_eq!(memops::find_byte(&hay[off..], x), f);
        prop_assert_eq!(memops::rfind_byte(&hay[off..], x), r);
        prop_assert_eq!(memops::count_byte(&hay[off..], x), n);
    }
}

#[test]
fn raw_functions_match_the_safe_ones() {
    let src: Vec<u8> = (0..300).map(pattern).collect();
    let mut dst = vec![0u8; 300];
    // SAFETY: both buffers hold 300 bytes.
    unsafe {
        memops::raw::memcpy(dst.as_mut_ptr(), src.as_ptr(), 300);
        assert_eq!(dst, src);
        assert_eq!(memops::raw::memcmp(dst.as_ptr(), src.as_ptr(), 300), 0);
        assert!(memops::raw::bcmp(dst.as_ptr(), src.as_ptr(), 300));
        memops::raw::memset(dst.as_mut_ptr(), 3, 300);
        assert!(dst.iter().all(|&x| x == 3));
        assert!(memops::raw::memcmp(dst.as_ptr(), src.as_ptr(), 300) != 0);
        memops::raw::memmove(dst.as_mut_ptr().add(1), dst.as_ptr(), 299);
        assert_eq!(
            memops::raw::memchr(src.as_ptr(), src[250], 300),
            src.iter().position(|&c| c == src[250])
        );
        assert_eq!(
            memops::raw::memrchr(src.as_ptr(), src[3], 300),
            src.iter().rposition(|&c| c == src[3])
        );
    }
}

#[test]
#[should_panic(expected = "differs from source length")]
fn copy_of_unequal_lengths_panics() {
    memops::copy(&mut [0u8; 3], &[1u8; 4]);
}

#[test]
#[should_panic(expected = "out of bounds")]
fn copy_within_out_of_bounds_panics() {
    memops::copy_within(&mut [0u8; 8], 2..6, 5);
}

#[test]
fn every_backend_is_listed_once_and_portable_last() {
    let names: Vec<&str> = backends().map(|b| b.name()).collect();
    assert_eq!(names.last(), Some(&"portable"));
    let mut dedup = names.clone();
    dedup.dedup();
    assert_eq!(dedup, names);
    assert!(names.contains(&Backend::detect().name()));
    for n in &names {
        assert_eq!(Backend::by_name(n).map(|b| b.name()), Some(*n));
    }
}

/// The oracle for the two- and three-byte searches: every position of any of `set`.
fn positions(hay: &[u8], set: &[u8]) -> Vec<usize> {
    (0..hay.len()).filter(|&i| set.contains(&hay[i])).collect()
}

/// `find_byte2/3`, `rfind_byte2/3` and the three iterators (forward, backward, and the two
/// ends alternated) against [`positions`].
fn check_multi(b: Backend, hay: &[u8], set: [u8; 3], what: &str) {
    let ctx = || format!("{} {what} len {} set {set:?}", b.name(), hay.len());
    for k in 1..=3 {
        let s = &set[..k];
        let want = positions(hay, s);
        let (first, last) = (want.first().copied(), want.last().copied());
        let it = match k {
            1 => b.find_byte_iter(hay, s[0]),
            2 => {
                assert_eq!(b.find_byte2(hay, s[0], s[1]), first, "find2 {}", ctx());
                assert_eq!(b.rfind_byte2(hay, s[0], s[1]), last, "rfind2 {}", ctx());
                b.find_byte2_iter(hay, s[0], s[1])
            }
            _ => {
                assert_eq!(b.find_byte3(hay, s[0], s[1], s[2]), first, "find3 {}", ctx());
                assert_eq!(b.rfind_byte3(hay, s[0], s[1], s[2]), last, "rfind3 {}", ctx());
                b.find_byte3_iter(hay, s[0], s[1], s[2])
            }
        };
        assert_eq!(it.clone().collect::<Vec<_>>(), want, "iter{k} {}", ctx());
        assert_eq!(it.clone().count(), want.len(), "iter{k} count {}", ctx());
        let mut back = want.clone();
        back.reverse();
        assert_eq!(it.clone().rev().collect::<Vec<_>>(), back, "iter{k} rev {}", ctx());
        // Both ends alternated meet in the middle without losing or repeating a position.
        let (mut it, mut front, mut rear) = (it, Vec::new(), Vec::new());
        loop {
            match (it.next(), it.next_back()) {
                (None, None) => break,
                (f, r) => {
                    front.extend(f);
                    rear.extend(r);
                }
            }
        }
        rear.reverse();
        front.extend(rear);
        assert_eq!(front, want, "iter{k} both ends {}", ctx());
    }
}

#[test]
fn multi_byte_search_needle_at_every_position() {
    // Every length up to 4 AVX-512 vectors and a few beyond (the loops are the single-byte
    // search's, tested at every length above).
    let lens: Vec<usize> = if cfg!(miri) {
        vec![0, 9, 33, 129]
    } else if reduced() {
        (0..=70).chain([127, 128, 129, 130, 255, 256, 257, 300, 1000]).collect()
    } else {
        (0..=257).chain([300, 383, 384, 385, 511, 512, 1000, 4097]).collect()
    };
    let set = [7u8, 0x80, 0xff];
    for b in backends() {
        let mut buf = Aligned::new(8192, |_| 0);
        for &len in &lens {
            let off = (len * 11) % 64;
            let hay = &mut buf.get_mut()[off..off + len];
            hay.fill(0);
            check_multi(b, hay, set, "absent");
            let step = if cfg!(miri) {
                1 + len / 4
            } else if reduced() {
                1 + len / 8
            } else {
                1 + len / 32
            };
            let positions: Vec<usize> = (0..len).step_by(step).chain(len.checked_sub(1)).collect();
            for &pos in &positions {
                // Each of the three bytes alone, then a second match a vector or so later
                // (a different byte of the set).
                for (k, &x) in set.iter().enumerate() {
                    hay[pos] = x;
                    check_multi(b, hay, set, "one");
                    let gaps: &[usize] = if cfg!(miri) || k > 0 { &[1] } else { &[1, 17, 64] };
                    for &gap in gaps {
                        if pos + gap < len {
                            hay[pos + gap] = set[(k + 1) % 3];
                            check_multi(b, hay, set, "two");
                            hay[pos + gap] = 0;
                        }
                    }
                }
                hay[pos] = 0;
            }
        }
        // Every misalignment with matches at both ends and every byte a match.
        let lens: &[usize] = if cfg!(miri) { &[9, 65] } else { &[8, 17, 33, 64, 65, 130, 300] };
        for &len in lens {
            for off in offsets(len) {
                let hay = &mut buf.get_mut()[off..off + len];
                hay.fill(1);
                hay[0] = 0xff;
                hay[len - 1] = 0x80;
                check_multi(b, hay, set, "ends");
                hay.fill(7);
                check_multi(b, hay, set, "all");
            }
        }
    }
}

fn check_memmem(b: Backend, hay: &[u8], needle: &[u8], what: &str) {
    let f = b.finder(needle);
    let ctx = || format!("{} {what} hay len {} needle {:?}", b.name(), hay.len(), needle);
    assert_eq!(f.find(hay), naive_find(hay, needle), "find {}", ctx());
    assert_eq!(f.rfind(hay), naive_rfind(hay, needle), "rfind {}", ctx());
    assert_eq!(f.find_iter(hay).collect::<Vec<_>>(), naive_find_all(hay, needle), "iter {}", ctx());
    assert_eq!(
        f.rfind_iter(hay).collect::<Vec<_>>(),
        naive_rfind_all(hay, needle),
        "rev iter {}",
        ctx()
    );
}

/// The free `memmem` iterators own the finder they build (`Finder`'s methods, which
/// `check_memmem` tests on every backend, borrow theirs): a few cases, for that path.
#[test]
fn memmem_free_iterators() {
    let hay = b"abracadabra, abracadabra; aaaa";
    for needle in [&b"abra"[..], b"a", b"aa", b"", b"zz", b"ra, abr"] {
        let what = format!("needle {needle:?}");
        let all = memops::memmem::find_iter(hay, needle).collect::<Vec<_>>();
        assert_eq!(all, naive_find_all(hay, needle), "{what}");
        let all = memops::memmem::rfind_iter(hay, needle).collect::<Vec<_>>();
        assert_eq!(all, naive_rfind_all(hay, needle), "{what}");
    }
}

/// Needles of several lengths planted at every position (sampled when long) of every length
/// and misalignment, in a haystack of a repeating byte pattern; with a near miss (last byte
/// changed) planted too.
#[test]
fn memmem_needle_at_every_position() {
    let base: Vec<u8> = (0..600).map(|i| b"the quick brown fox "[i % 20]).collect();
    let needles: Vec<Vec<u8>> = [&b"zq"[..], b"x!", b"jumps", b"over the lazy dog", &[b'z'; 40]]
        .iter()
        .map(|n| n.to_vec())
        .chain([(0..70).map(|i| b'A' + (i % 26) as u8).collect()])
        .collect();
    let lens: Vec<usize> = if cfg!(miri) {
        vec![70]
    } else if reduced() {
        lengths().into_iter().filter(|l| l % 7 == 0 || l % 64 < 2 || l % 64 > 62).collect()
    } else {
        lengths().into_iter().filter(|l| l % 3 == 0 || l % 64 < 2 || l % 64 > 62).collect()
    };
    // Under Miri: a short needle and the long one.
    let needles = if cfg!(miri) { vec![needles[2].clone(), needles[5].clone()] } else { needles };
    for b in backends() {
        for needle in &needles {
            for &len in lens.iter().filter(|&&l| l >= needle.len()) {
                let off = (len * 7) % 64;
                let step = if cfg!(miri) {
                    1 + len / 3
                } else if reduced() {
                    1 + len / 8
                } else {
                    1 + len / 32
                };
                let mut hay = base[off..off + len].to_vec();
                check_memmem(b, &hay, needle, "absent");
                for pos in (0..=len - needle.len()).step_by(step) {
                    let keep = hay[pos..pos + needle.len()].to_vec();
                    hay[pos..pos + needle.len()].copy_from_slice(needle);
                    check_memmem(b, &hay, needle, "planted");
                    *hay.last_mut().unwrap() ^= 1;
                    hay[pos + needle.len() - 1] ^= 0x40;
                    check_memmem(b, &hay, needle, "near miss");
                    hay[pos..pos + needle.len()].copy_from_slice(&keep);
                    *hay.last_mut().unwrap() = base[off + len - 1];
                }
            }
        }
    }
}

/// The worst cases of a prefilter that verifies every candidate: an all-same-byte needle in
/// runs one byte too short, periodic needles in periodic text, and the same with a match at
/// the far end, long enough that the prefilter gives up and Two-Way finishes.
#[test]
fn memmem_pathological_needles() {
    let n = if cfg!(miri) {
        300
    } else if reduced() {
        5_000
    } else {
        40_000
    };
    let run = |m: usize| -> Vec<u8> {
        (0..n).map(|i| if i % m == m - 1 { b'b' } else { b'a' }).collect()
    };
    let mut cases: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let ms: &[usize] = if cfg!(miri) { &[3, 65] } else { &[2, 3, 8, 31, 64, 65, 200] };
    for &m in ms {
        cases.push((run(m), vec![b'a'; m]));
        cases.push((vec![b'a'; n], [vec![b'a'; m - 1], vec![b'b']].concat()));
        cases.push((run(m), [vec![b'a'; m - 1], vec![b'b'], vec![b'a'; m - 1]].concat()));
        let periodic: Vec<u8> = b"ab".iter().cycle().take(2 * m).copied().collect();
        cases.push((
            b"ab".iter().cycle().take(n).copied().collect(),
            [&periodic[..], b"c"].concat(),
        ));
        cases.push((
            b"aab".iter().cycle().take(n).copied().collect(),
            [b"aab".repeat(m), b"aa".to_vec()].concat(),
        ));
    }
    // A match at each end of a haystack that makes the prefilter give up first.
    let mut far = run(64);
    let needle = vec![b'a'; 64];
    far[n - 64..].fill(b'a');
    cases.push((far.clone(), needle.clone()));
    far.reverse();
    cases.push((far, needle));
    for b in backends() {
        for (hay, needle) in &cases {
            check_memmem(b, hay, needle, "pathological");
        }
    }
}

proptest! {
    #[test]
    fn random_memmem(
        hay in proptest::collection::vec(0u8..3, 0..big_len() / 64),
        start: usize,
        len in 0usize..80,
        edit: Option<(usize, u8)>,
    ) {
        // A needle cut from the haystack (so it occurs), sometimes edited (so it may not).
        let start = start % (hay.len() + 1);
        let mut needle = hay[start..(start + len).min(hay.len())].to_vec();
        if let Some((i, x)) = edit.filter(|_| !needle.is_empty()) {
            let i = i % needle.len();
            needle[i] = x % 4;
        }
        for b in backends() {
            check_memmem(b, &hay, &needle, "random");
        }
        prop_assert_eq!(memops::memmem::find(&hay, &needle), naive_find(&hay, &needle));
        prop_assert_eq!(memops::memmem::rfind(&hay, &needle), naive_rfind(&hay, &needle));
    }

    #[test]
    fn random_multi_byte_search(hay in proptest::collection::vec(0u8..8, 0..big_len() / 16), off in 0usize..64, set: [u8; 3]) {
        let off = off.min(hay.len());
        let set = set.map(|x| x % 9);
        for b in backends() {
            check_multi(b, &hay[off..], set, "random");
        }
        let h = &hay[off..];
        prop_assert_eq!(memops::find_byte2(h, set[0], set[1]), positions(h, &set[..2]).first().copied());
        prop_assert_eq!(memops::rfind_byte3(h, set[0], set[1], set[2]), positions(h, &set).last().copied());
    }
}
