//! The memchr crate's (2.8) doc examples, from its crate root, its `memchr` functions and its
//! `memmem` module, each body as memchr has it with only `memchr::` changed to `memops::`: code
//! written against memchr's top level and `memmem` compiles and answers the same here.
//! (memchr's examples of `FinderBuilder`, `Prefilter` and the `alloc` feature's `into_owned`
//! have no counterpart: the crate docs name them as not provided.)

// ---- crate root ----

#[test]
fn root_using_memchr() {
    use memops::memchr;

    let haystack = b"foo bar baz quuz";
    assert_eq!(Some(10), memchr(b'z', haystack));
}

#[test]
fn root_matching_one_of_three_possible_bytes() {
    use memops::memchr3_iter;

    let haystack = b"xyzaxyzbxyzc";

    let mut it = memchr3_iter(b'a', b'b', b'c', haystack).rev();
    assert_eq!(Some(11), it.next());
    assert_eq!(Some(7), it.next());
    assert_eq!(Some(3), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn root_iterating_over_substring_matches() {
    use memops::memmem;

    let haystack = b"foo bar foo baz foo";

    let mut it = memmem::find_iter(haystack, "foo");
    assert_eq!(Some(0), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(16), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn root_repeating_a_search_for_the_same_needle() {
    use memops::memmem;

    let finder = memmem::Finder::new("foo");

    assert_eq!(Some(4), finder.find(b"baz foo quux"));
    assert_eq!(None, finder.find(b"quux baz bar"));
}

#[test]
fn root_why_use_this_crate() {
    // The two one-liners memchr's docs compare itself with (no crate item in them).
    fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
        haystack.iter().position(|&b| b == needle)
    }
    fn search(haystack: &str, needle: &str) -> Option<usize> {
        haystack.find(needle)
    }
    // Not in memchr's docs: the one-liners agree with ours.
    assert_eq!(memchr(b'z', b"foo bar baz"), memops::memchr(b'z', b"foo bar baz"));
    assert_eq!(search("foo bar", "bar"), memops::memmem::find(b"foo bar", b"bar"));
}

// ---- the `memchr` functions ----

#[test]
fn fn_memchr() {
    use memops::memchr;

    let haystack = b"the quick brown fox";
    assert_eq!(memchr(b'k', haystack), Some(8));
}

#[test]
fn fn_memrchr() {
    use memops::memrchr;

    let haystack = b"the quick brown fox";
    assert_eq!(memrchr(b'o', haystack), Some(17));
}

#[test]
fn fn_memchr2() {
    use memops::memchr2;

    let haystack = b"the quick brown fox";
    assert_eq!(memchr2(b'k', b'q', haystack), Some(4));
}

#[test]
fn fn_memrchr2() {
    use memops::memrchr2;

    let haystack = b"the quick brown fox";
    assert_eq!(memrchr2(b'k', b'o', haystack), Some(17));
}

#[test]
fn fn_memchr3() {
    use memops::memchr3;

    let haystack = b"the quick brown fox";
    assert_eq!(memchr3(b'k', b'q', b'u', haystack), Some(4));
}

#[test]
fn fn_memrchr3() {
    use memops::memrchr3;

    let haystack = b"the quick brown fox";
    assert_eq!(memrchr3(b'k', b'o', b'n', haystack), Some(17));
}

// ---- the `memmem` module ----

#[test]
fn memmem_module_iterating_over_substring_matches() {
    use memops::memmem;

    let haystack = b"foo bar foo baz foo";

    let mut it = memmem::find_iter(haystack, "foo");
    assert_eq!(Some(0), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(16), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn memmem_module_iterating_over_substring_matches_in_reverse() {
    use memops::memmem;

    let haystack = b"foo bar foo baz foo";

    let mut it = memmem::rfind_iter(haystack, "foo");
    assert_eq!(Some(16), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(0), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn memmem_module_repeating_a_search_for_the_same_needle() {
    use memops::memmem;

    let finder = memmem::Finder::new("foo");

    assert_eq!(Some(4), finder.find(b"baz foo quux"));
    assert_eq!(None, finder.find(b"quux baz bar"));
}

#[test]
fn memmem_find_iter() {
    use memops::memmem;

    let haystack = b"foo bar foo baz foo";
    let mut it = memmem::find_iter(haystack, b"foo");
    assert_eq!(Some(0), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(16), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn memmem_rfind_iter() {
    use memops::memmem;

    let haystack = b"foo bar foo baz foo";
    let mut it = memmem::rfind_iter(haystack, b"foo");
    assert_eq!(Some(16), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(0), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn memmem_find() {
    use memops::memmem;

    let haystack = b"foo bar baz";
    assert_eq!(Some(0), memmem::find(haystack, b"foo"));
    assert_eq!(Some(4), memmem::find(haystack, b"bar"));
    assert_eq!(None, memmem::find(haystack, b"quux"));
}

#[test]
fn memmem_rfind() {
    use memops::memmem;

    let haystack = b"foo bar baz";
    assert_eq!(Some(0), memmem::rfind(haystack, b"foo"));
    assert_eq!(Some(4), memmem::rfind(haystack, b"bar"));
    assert_eq!(Some(8), memmem::rfind(haystack, b"ba"));
    assert_eq!(None, memmem::rfind(haystack, b"quux"));
}

#[test]
fn memmem_finder_find() {
    use memops::memmem::Finder;

    let haystack = b"foo bar baz";
    assert_eq!(Some(0), Finder::new("foo").find(haystack));
    assert_eq!(Some(4), Finder::new("bar").find(haystack));
    assert_eq!(None, Finder::new("quux").find(haystack));
}

#[test]
fn memmem_finder_find_iter() {
    use memops::memmem::Finder;

    let haystack = b"foo bar foo baz foo";
    let finder = Finder::new(b"foo");
    let mut it = finder.find_iter(haystack);
    assert_eq!(Some(0), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(16), it.next());
    assert_eq!(None, it.next());
}

#[test]
fn memmem_finder_rev_rfind() {
    use memops::memmem::FinderRev;

    let haystack = b"foo bar baz";
    assert_eq!(Some(0), FinderRev::new("foo").rfind(haystack));
    assert_eq!(Some(4), FinderRev::new("bar").rfind(haystack));
    assert_eq!(None, FinderRev::new("quux").rfind(haystack));
}

#[test]
fn memmem_finder_rev_rfind_iter() {
    use memops::memmem::FinderRev;

    let haystack = b"foo bar foo baz foo";
    let finder = FinderRev::new(b"foo");
    let mut it = finder.rfind_iter(haystack);
    assert_eq!(Some(16), it.next());
    assert_eq!(Some(8), it.next());
    assert_eq!(Some(0), it.next());
    assert_eq!(None, it.next());
}

// ---- what a user of memchr also writes (not memchr's doc examples) ----

/// The iterators are double-ended as memchr's, the reverse helpers return `Rev<_>`, and the
/// types carry memchr's names and constructors.
#[test]
fn iterator_types_and_reverse_helpers() {
    use core::iter::Rev;

    let hay = b"a,b;c,d;e";
    let fwd: Vec<usize> = memops::memchr_iter(b',', hay).collect();
    assert_eq!(fwd, [1, 5]);
    let rev: Rev<memops::Memchr<'_>> = memops::memrchr_iter(b',', hay);
    assert_eq!(rev.collect::<Vec<_>>(), [5, 1]);
    let mut it: memops::Memchr2<'_> = memops::Memchr2::new(b',', b';', hay);
    assert_eq!((it.next(), it.next_back()), (Some(1), Some(7)));
    assert_eq!(it.collect::<Vec<_>>(), [3, 5]);
    assert_eq!(memops::memrchr2_iter(b',', b';', hay).collect::<Vec<_>>(), [7, 5, 3, 1]);
    let it = memops::Memchr3::new(b'a', b'e', b'd', hay);
    assert_eq!(it.count(), 3);
    assert_eq!(memops::memrchr3_iter(b'a', b'e', b'd', hay).next(), Some(8));
    assert_eq!(memops::memchr_iter(b'x', hay).count(), 0);
    assert_eq!(memops::Memchr::new(b';', hay).count(), 2);
}

/// `Finder::new` and the free iterators take anything that is bytes, as memchr's do.
#[test]
fn needles_as_ref_bytes() {
    let owned: Vec<u8> = b"ba".to_vec();
    let text = String::from("ba");
    let hay = b"foo bar baz";
    assert_eq!(memops::memmem::Finder::new(&owned).find(hay), Some(4));
    assert_eq!(memops::memmem::Finder::new(&text).find(hay), Some(4));
    assert_eq!(memops::memmem::Finder::new(&owned[..]).needle(), b"ba");
    assert_eq!(memops::memmem::find_iter(hay, &text).collect::<Vec<_>>(), [4, 8]);
    assert_eq!(memops::memmem::rfind_iter(hay, &owned).collect::<Vec<_>>(), [8, 4]);
    let f = memops::memmem::Finder::new("ba");
    assert_eq!(f.as_ref().find(hay), Some(4));
    let r = memops::memmem::FinderRev::new("ba");
    assert_eq!(
        (r.rfind(hay), r.rfind(&owned), r.as_ref().needle()),
        (Some(8), Some(0), &b"ba"[..])
    );
}

/// Compiles only if the argument is `Send`.
fn assert_send<T: Send>(_: &T) {}

/// Every public iterator of the crate is `Send` (and so is a `Finder`): they may move to
/// another thread with their haystack.
#[test]
fn iterators_are_send() {
    let hay = b"abc";
    assert_send(&memops::find_byte_iter(hay, b'a'));
    assert_send(&memops::find_byte2_iter(hay, b'a', b'b'));
    assert_send(&memops::find_byte3_iter(hay, b'a', b'b', b'c'));
    assert_send(&memops::memchr_iter(b'a', hay));
    assert_send(&memops::memrchr_iter(b'a', hay));
    assert_send(&memops::memchr2_iter(b'a', b'b', hay));
    assert_send(&memops::memrchr2_iter(b'a', b'b', hay));
    assert_send(&memops::memchr3_iter(b'a', b'b', b'c', hay));
    assert_send(&memops::memrchr3_iter(b'a', b'b', b'c', hay));
    let finder = memops::memmem::Finder::new("b");
    let finder_rev = memops::memmem::FinderRev::new("b");
    assert_send(&finder);
    assert_send(&finder_rev);
    assert_send(&finder.find_iter(hay));
    assert_send(&finder.rfind_iter(hay));
    assert_send(&finder_rev.rfind_iter(hay));
    assert_send(&memops::memmem::find_iter(hay, "b"));
    assert_send(&memops::memmem::rfind_iter(hay, "b"));
    assert_send(&memops::backends());
}
