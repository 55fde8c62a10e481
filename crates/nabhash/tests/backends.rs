//! Property tests: every backend equals the portable one; any split of the input into
//! `update` calls equals the one-shot digest; `finalize` does not disturb the state.
//! Case counts follow `PROPTEST_CASES` (lower under emulation, set by `cargo xtask test`).

use nabhash::{Backend, Digest, backends, hash_with};
use proptest::prelude::*;

fn data() -> impl Strategy<Value = Vec<u8>> {
    // Under Miri (thousands of times slower) a few blocks are enough to cover the buffering.
    let (small, big) = if cfg!(miri) { (130, 300) } else { (300, 5000) };
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..small),
        proptest::collection::vec(any::<u8>(), small..big),
    ]
}

fn split(data: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c % (data.len() + 1)).collect();
    cuts.sort_unstable();
    let mut parts = Vec::new();
    let mut start = 0;
    for c in cuts.into_iter().chain([data.len()]) {
        parts.push(data[start..c].to_vec());
        start = c;
    }
    parts
}

proptest! {
    #[test]
    fn every_backend_equals_portable(data in data()) {
        let want = hash_with(Backend::PORTABLE, &data);
        for backend in backends() {
            prop_assert_eq!(hash_with(backend, &data), want, "backend {}", backend.name());
        }
        prop_assert_eq!(nabhash::hash(&data), want);
    }

    #[test]
    fn any_split_equals_one_shot(data in data(), cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let want = hash_with(Backend::PORTABLE, &data);
        for backend in backends() {
            let mut d = Digest::with_backend(backend);
            for part in split(&data, &cuts) {
                d.update(&part);
            }
            prop_assert_eq!(d.finalize(), want, "backend {}", backend.name());
        }
    }

    #[test]
    fn finalize_is_non_destructive(a in data(), b in data()) {
        for backend in backends() {
            let mut d = Digest::with_backend(backend);
            d.update(&a);
            prop_assert_eq!(d.finalize(), d.finalize());
            prop_assert_eq!(d.finalize(), hash_with(backend, &a));
            d.update(&b);
            let whole: Vec<u8> = a.iter().chain(&b).copied().collect();
            prop_assert_eq!(d.finalize(), hash_with(Backend::PORTABLE, &whole));
            d.reset();
            prop_assert_eq!(d.finalize(), hash_with(Backend::PORTABLE, &[]));
        }
    }
}

#[test]
fn backends_are_listed_once_and_found_by_name() {
    let all: Vec<Backend> = backends().collect();
    assert_eq!(all[0], Backend::PORTABLE);
    for b in &all {
        assert_eq!(Backend::by_name(b.name()), Some(*b));
        assert_eq!(all.iter().filter(|x| x.name() == b.name()).count(), 1);
    }
    assert!(all.contains(&Backend::detect()));
    assert_eq!(Backend::by_name("no-such-backend"), None);
}

#[cfg(feature = "std")]
#[test]
fn io_write_feeds_update() {
    use std::io::Write;
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 31) as u8).collect();
    let mut d = Digest::new();
    for chunk in data.chunks(37) {
        assert_eq!(d.write(chunk).unwrap(), chunk.len());
    }
    d.flush().unwrap();
    assert_eq!(d.finalize(), nabhash::hash(&data));
}

/// The backend list is an iterator a user may move to another thread.
#[test]
fn backends_iterator_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    assert_send(&nabhash::backends());
}
