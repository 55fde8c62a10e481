//! NABHash v1 reference vectors, checked with every backend this CPU has, one-shot and
//! streamed in several split patterns.

mod common;

use nabhash::{Backend, Digest, backends, hash_with};

/// Miri interprets the portable path thousands of times slower: small vectors only.
const MAX_LEN: usize = if cfg!(miri) { 130 } else { usize::MAX };

fn check_all(backend: Backend) -> usize {
    let mut checked = 0;
    for (input, want) in common::v1_vectors(MAX_LEN) {
        let ctx = || format!("backend {} len {}", backend.name(), input.len());
        assert_eq!(common::hex(&hash_with(backend, &input)), common::hex(&want), "{}", ctx());

        for chunk in [1, 7, 63, 64, 65, 1000] {
            if chunk == 1 && input.len() > 4096 {
                continue;
            }
            let mut d = Digest::with_backend(backend);
            input.chunks(chunk).for_each(|c| d.update(c));
            assert_eq!(d.finalize(), want, "{} chunk {chunk}", ctx());
        }
        checked += 1;
    }
    checked
}

#[test]
fn v1_vectors_every_backend() {
    for backend in backends() {
        let min = if cfg!(miri) { 130 } else { 270 };
        let checked = check_all(backend);
        assert!(checked > min, "only {checked} vectors checked for {}", backend.name());
    }
}

#[test]
fn v1_vectors_dispatched() {
    for (input, want) in common::v1_vectors(MAX_LEN) {
        assert_eq!(nabhash::hash(&input), want, "len {}", input.len());
    }
}

#[test]
fn empty_input_has_no_blocks() {
    // Empty input: no block is compressed, only the fold of the IV with length 0.
    let want = common::v1_vectors(0).into_iter().find(|(i, _)| i.is_empty()).unwrap().1;
    assert_eq!(nabhash::hash(&[]), want);
    assert_eq!(Digest::new().finalize(), want);
}
