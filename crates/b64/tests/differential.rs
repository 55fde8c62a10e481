//! Differential tests against the `base64` crate (0.22): same text on encode, same verdict
//! and bytes on decode, for the standard and URL-safe alphabets with and without padding.

mod common;

use b64::prelude::*;
use base64::Engine as _;
use base64::engine::general_purpose as gp;
use proptest::prelude::*;

/// Longest input: short under Miri, which interprets every byte.
const MAX: usize = if cfg!(miri) { 48 } else { 3000 };

fn pairs() -> Vec<(b64::engine::GeneralPurpose<'static>, base64::engine::GeneralPurpose)> {
    vec![
        (BASE64_STANDARD, gp::STANDARD),
        (BASE64_URL_SAFE, gp::URL_SAFE),
        (BASE64_STANDARD_NO_PAD, gp::STANDARD_NO_PAD),
        (BASE64_URL_SAFE_NO_PAD, gp::URL_SAFE_NO_PAD),
    ]
}

proptest! {
    #[test]
    fn encode_matches(data in proptest::collection::vec(any::<u8>(), 0..MAX)) {
        for (ours, theirs) in pairs() {
            prop_assert_eq!(ours.encode(&data), theirs.encode(&data));
        }
    }

    #[test]
    fn decode_matches(text in proptest::collection::vec(
        proptest::sample::select(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \x80".to_vec()), 0..120)) {
        for (ours, theirs) in pairs() {
            let a = ours.decode(&text);
            let b = theirs.decode(&text);
            prop_assert_eq!(a.is_ok(), b.is_ok(), "{:?}: ours {:?} theirs {:?}", String::from_utf8_lossy(&text), a, b);
            if let (Ok(a), Ok(b)) = (a, b) {
                prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn valid_text_round_trips(data in proptest::collection::vec(any::<u8>(), 0..MAX)) {
        for (ours, theirs) in pairs() {
            let text = theirs.encode(&data);
            prop_assert_eq!(ours.decode(&text).unwrap(), data.clone());
        }
    }
}
