//! Every backend equals the portable one: encode, decode of valid text, and decode of
//! corrupted text (same error, same offset), through every entry point, for every length
//! 0..=300 and random larger ones. Case counts follow `PROPTEST_CASES`.

mod common;

use b64::{Backend, Engine, backends};
use proptest::prelude::*;

/// Bytes that break base64 text in different ways: padding, whitespace, non-ASCII, symbols
/// of other alphabets, controls.
const CORRUPTIONS: &[u8] = b"= \n\r\t\x0b\x00\x80\xff+/-_.!~";

/// Decodes `text` with `engine` on `backend` through every entry point; they must agree.
fn decode_all_ways(
    engine: Engine<'_>,
    backend: Backend,
    text: &[u8],
) -> Result<Vec<u8>, b64::DecodeError> {
    let e = engine.with_backend(backend);
    let vec = e.decode(text);
    let mut buf = text.to_vec();
    let in_place = e.decode_in_place(&mut buf).map(|n| buf[..n].to_vec());
    assert_eq!(in_place, vec, "decode_in_place vs decode on {}", backend.name());
    // An exactly sized output slice, with a canary after it.
    if let Ok(v) = &vec {
        let mut out = vec![0xa5u8; v.len() + 1];
        let n = e.decode_to_slice(text, &mut out[..v.len()]).expect("exact slice");
        assert_eq!(&out[..n], &v[..]);
        assert_eq!(out[v.len()], 0xa5, "wrote past the slice");
    }
    vec
}

fn check(engine: Engine<'_>, data: &[u8], corrupt: Option<(usize, u8)>) {
    let portable = engine.with_backend(Backend::PORTABLE);
    let mut text = portable.encode_to_vec(data);
    for backend in backends() {
        assert_eq!(
            engine.with_backend(backend).encode_to_vec(data),
            text,
            "encode on {} of {} bytes",
            backend.name(),
            data.len()
        );
    }
    if let Some((pos, byte)) = corrupt {
        if text.is_empty() {
            text.push(byte);
        } else {
            let p = pos % text.len();
            text[p] = byte;
        }
    }
    let want = decode_all_ways(engine, Backend::PORTABLE, &text);
    if corrupt.is_none() {
        assert_eq!(want.as_deref(), Ok(data));
    }
    for backend in backends() {
        assert_eq!(
            decode_all_ways(engine, backend, &text),
            want,
            "decode on {} of {:?}",
            backend.name(),
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn every_length_up_to_300() {
    let max = if cfg!(miri) {
        12
    } else if common::small() {
        80
    } else {
        300
    };
    let engines = common::engines();
    for len in 0..=max {
        let data = common::bytes(len, len as u64 + 1);
        for (k, &engine) in engines.iter().enumerate() {
            // Under emulation a rotating subset of engines per length.
            if common::small() && k % 5 != len % 5 {
                continue;
            }
            check(engine, &data, None);
            let text_len = engine.encoded_len(len).unwrap().max(1);
            let positions = if common::small() {
                vec![len * 7, text_len - 1]
            } else {
                (0..text_len).step_by(1 + text_len / 24).chain([text_len - 1]).collect()
            };
            for (n, p) in positions.into_iter().enumerate() {
                check(engine, &data, Some((p, CORRUPTIONS[(n + len) % CORRUPTIONS.len()])));
            }
        }
    }
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    let big = if cfg!(miri) { 400 } else { 5000 };
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300),
        proptest::collection::vec(any::<u8>(), 300..big),
    ]
}

proptest! {
    #[test]
    fn random_inputs(data in data(), engine in any::<proptest::sample::Index>(), corrupt in proptest::option::of((any::<usize>(), 0..CORRUPTIONS.len()))) {
        let engines = common::engines();
        let engine = engines[engine.index(engines.len())];
        check(engine, &data, corrupt.map(|(p, c)| (p, CORRUPTIONS[c])));
    }

    #[test]
    fn random_text(text in proptest::collection::vec(prop_oneof![
        4 => proptest::sample::select(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".to_vec()),
        1 => any::<u8>(),
    ], 0..400), engine in any::<proptest::sample::Index>()) {
        let engines = common::engines();
        let engine = engines[engine.index(engines.len())];
        let want = decode_all_ways(engine, Backend::PORTABLE, &text);
        for backend in backends() {
            prop_assert_eq!(decode_all_ways(engine, backend, &text), want.clone());
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
