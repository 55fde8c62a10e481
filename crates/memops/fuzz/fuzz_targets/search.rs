//! Substring and byte searches against naive oracles, on every backend: the first byte splits
//! the input into needle and haystack (its low 5 bits are the needle's length, capped by the
//! input) and picks a haystack offset (its top 3 bits: 0..8, to vary the alignment); the
//! needle is also the byte set of `find_byte*`. `Finder::{find, rfind, find_iter,
//! rfind_iter}`, `find_byte`, `find_byte2/3` and their reverse forms, the byte iterators (both
//! directions) and `count_byte` must agree with the oracles and never panic.
//!
//! Small alphabets make matches and near-matches common: a libFuzzer dictionary is not
//! needed, the mutator finds repeated bytes quickly.

#![no_main]

use libfuzzer_sys::fuzz_target;
use memops::backends;

#[path = "../../tests/oracle/mod.rs"]
mod oracle;
use oracle::{naive_find, naive_find_all, naive_rfind, naive_rfind_all};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let m = usize::from(sel & 31).min(rest.len());
    let (needle, hay) = rest.split_at(m);
    let off = usize::from(sel >> 5).min(hay.len());
    let hay = &hay[off..];

    let want = naive_find(hay, needle);
    let want_r = naive_rfind(hay, needle);
    let want_all = naive_find_all(hay, needle);
    let want_rall = naive_rfind_all(hay, needle);
    let set = [
        needle.first().copied().unwrap_or(0),
        needle.get(1).copied().unwrap_or(1),
        needle.get(2).copied().unwrap_or(2),
    ];
    let pos = |k: usize| hay.iter().position(|c| set[..k].contains(c));
    let rpos = |k: usize| hay.iter().rposition(|c| set[..k].contains(c));
    let all = |k: usize| {
        hay.iter()
            .enumerate()
            .filter(|(_, c)| set[..k].contains(c))
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };

    for b in backends() {
        let name = b.name();
        let f = b.finder(needle);
        assert_eq!(f.find(hay), want, "find on {name}");
        assert_eq!(f.rfind(hay), want_r, "rfind on {name}");
        assert_eq!(f.find_iter(hay).collect::<Vec<_>>(), want_all, "find_iter on {name}");
        assert_eq!(f.rfind_iter(hay).collect::<Vec<_>>(), want_rall, "rfind_iter on {name}");

        assert_eq!(b.find_byte(hay, set[0]), pos(1), "find_byte on {name}");
        assert_eq!(b.rfind_byte(hay, set[0]), rpos(1), "rfind_byte on {name}");
        assert_eq!(b.count_byte(hay, set[0]), all(1).len(), "count_byte on {name}");
        assert_eq!(b.find_byte2(hay, set[0], set[1]), pos(2), "find_byte2 on {name}");
        assert_eq!(b.rfind_byte2(hay, set[0], set[1]), rpos(2), "rfind_byte2 on {name}");
        assert_eq!(b.find_byte3(hay, set[0], set[1], set[2]), pos(3), "find_byte3 on {name}");
        assert_eq!(b.rfind_byte3(hay, set[0], set[1], set[2]), rpos(3), "rfind_byte3 on {name}");

        assert_eq!(
            b.find_byte_iter(hay, set[0]).collect::<Vec<_>>(),
            all(1),
            "find_byte_iter on {name}"
        );
        assert_eq!(
            b.find_byte2_iter(hay, set[0], set[1]).collect::<Vec<_>>(),
            all(2),
            "find_byte2_iter on {name}"
        );
        let mut back: Vec<usize> = b.find_byte3_iter(hay, set[0], set[1], set[2]).rev().collect();
        back.reverse();
        assert_eq!(back, all(3), "find_byte3_iter backward on {name}");
        // Both ends at once: alternate front and back.
        let mut it = b.find_byte2_iter(hay, set[0], set[1]);
        let (mut front, mut tail) = (Vec::new(), Vec::new());
        loop {
            match it.next() {
                Some(i) => front.push(i),
                None => break,
            }
            match it.next_back() {
                Some(i) => tail.push(i),
                None => break,
            }
        }
        tail.reverse();
        front.extend(tail);
        assert_eq!(front, all(2), "find_byte2_iter both ends on {name}");
    }
    assert_eq!(memops::memmem::find(hay, needle), want, "memmem::find");
    assert_eq!(memops::memmem::rfind(hay, needle), want_r, "memmem::rfind");
});
