//! The API as the spec gives it: vectors, every error with its offset, padding modes,
//! forgiving decoding, wrapped encoding, slices and in-place decoding, custom alphabets.

mod common;

use b64::alphabet::{Alphabet, AlphabetError};
use b64::engine::general_purpose::{NO_PAD, PAD};
use b64::engine::{GeneralPurpose, LineEnding, LineWrap};
use b64::prelude::*;
use b64::{BufferTooSmall, DecodeError, DecodeSliceError};

#[test]
fn rfc4648_vectors() {
    for (data, text) in common::rfc4648() {
        assert_eq!(BASE64_STANDARD.encode(&data), text);
        assert_eq!(BASE64_STANDARD.decode(&text).unwrap(), data);
        let unpadded = text.trim_end_matches('=');
        assert_eq!(BASE64_STANDARD_NO_PAD.encode(&data), unpadded);
        assert_eq!(BASE64_STANDARD_NO_PAD.decode(unpadded).unwrap(), data);
        assert_eq!(b64::encoded_len(data.len(), true), Some(text.len()));
        assert_eq!(b64::encoded_len(data.len(), false), Some(unpadded.len()));
        assert!(b64::decoded_len_estimate(text.len()) >= data.len());
        assert!(b64::decoded_len_estimate(unpadded.len()) >= data.len());
    }
}

#[test]
fn error_vectors() {
    for (engine, input, want) in common::error_cases() {
        let got = engine.decode(&input);
        assert_eq!(got, want, "{engine:?} {:?}", String::from_utf8_lossy(&input));
        let mut buf = input.clone();
        let in_place = engine.decode_in_place(&mut buf).map(|n| buf[..n].to_vec());
        assert_eq!(in_place, want, "in place {:?}", String::from_utf8_lossy(&input));
    }
}

#[test]
fn encode_slice_checks_room_and_writes_nothing_when_short() {
    let mut out = [b'#'; 7];
    let short: BufferTooSmall = BASE64_STANDARD.encode_slice(b"hello", &mut out).unwrap_err();
    assert_eq!((short.needed, short.available), (8, 7));
    assert_eq!(out, [b'#'; 7]);
    assert_eq!(BASE64_STANDARD_NO_PAD.encode_slice(b"hello", &mut out), Ok(7));
    assert_eq!(&out, b"aGVsbG8");
    let mut big = [b'#'; 12];
    assert_eq!(BASE64_STANDARD.encode_slice(b"hello", &mut big), Ok(8));
    assert_eq!(&big, b"aGVsbG8=####");
}

#[test]
fn decode_slice_reports_a_short_output() {
    let mut out = [0u8; 4];
    assert_eq!(
        BASE64_STANDARD.decode_slice_unchecked("aGVsbG8=", &mut out),
        Err(DecodeError::OutputTooSmall { offset: 6 })
    );
    assert_eq!(
        BASE64_STANDARD.decode_slice("aGVsbG8=", &mut out),
        Err(DecodeSliceError::OutputSliceTooSmall)
    );
    assert_eq!(
        BASE64_STANDARD.decode_slice("aGVsbG8", &mut out),
        Err(DecodeSliceError::DecodeError(DecodeError::InvalidPadding { offset: 7 }))
    );
    let mut out = [0u8; 5];
    assert_eq!(BASE64_STANDARD.decode_slice_unchecked("aGVsbG8=", &mut out), Ok(5));
    assert_eq!(&out, b"hello");
    assert_eq!(BASE64_STANDARD.decode_slice("aGVsbG8=", &mut out), Ok(5));
    assert_eq!(&out, b"hello");
    let text = BASE64_STANDARD.encode(common::bytes(3000, 5));
    let mut out = vec![0u8; 2249];
    assert!(matches!(
        BASE64_STANDARD.decode_slice_unchecked(&text, &mut out),
        Err(DecodeError::OutputTooSmall { .. })
    ));
}

#[test]
fn wrapped_encoding() {
    // Lengths around and past the encoder's 4096-symbol blocks; widths whose whole-group
    // unit (lcm(width, 4)) is 4 to 4 * 1025 symbols (past the block: the long path).
    // Under Miri (which interprets every byte) one length past the block and fewer widths:
    // the same paths (short, one block, the long path), a fraction of the symbols.
    let lengths: &[(usize, GeneralPurpose)] = if cfg!(miri) {
        &[(200, BASE64_STANDARD), (3100, BASE64_STANDARD), (1, BASE64_STANDARD_NO_PAD)]
    } else {
        &[
            (200, BASE64_STANDARD),
            (3071, BASE64_STANDARD_NO_PAD),
            (9001, BASE64_STANDARD),
            (1, BASE64_STANDARD),
        ]
    };
    let widths: &[usize] = if cfg!(miri) {
        &[0, 3, 76, 1025, 5000]
    } else {
        &[0, 1, 2, 3, 4, 6, 7, 64, 76, 268, 300, 1025, 5000]
    };
    for &(len, engine) in lengths {
        let data = common::bytes(len, 7);
        let plain = engine.encode(&data);
        for &width in widths {
            for ending in [LineEnding::Lf, LineEnding::CrLf] {
                let wrap = LineWrap { width, ending };
                let text = engine.encode_wrapped(&data, wrap);
                let want = if width == 0 {
                    plain.clone()
                } else {
                    let sep = std::str::from_utf8(ending.as_bytes()).unwrap();
                    plain
                        .as_bytes()
                        .chunks(width)
                        .map(|c| std::str::from_utf8(c).unwrap())
                        .collect::<Vec<_>>()
                        .join(sep)
                };
                assert_eq!(text, want, "{len} bytes, width {width}");
                assert_eq!(engine.wrapped_len(data.len(), wrap), Some(text.len()));
                assert_eq!(BASE64_FORGIVING.decode(&text).unwrap(), data);
            }
        }
    }
    let data = common::bytes(200, 7);
    assert_eq!(BASE64_STANDARD.encode_mime(b""), "");
    let mime = BASE64_STANDARD.encode_mime(&data);
    assert!(mime.split("\r\n").all(|l| l.len() <= 76));
    assert_eq!(mime.split("\r\n").next().unwrap().len(), 76);
}

#[test]
fn custom_alphabets() {
    let crypt = GeneralPurpose::new(&b64::alphabet::CRYPT, NO_PAD);
    assert_eq!(crypt.encode([0u8, 0, 0]), "....");
    assert_eq!(crypt.encode([0xffu8, 0xff, 0xff]), "zzzz");
    let mut symbols = *b64::alphabet::STANDARD.symbols();
    symbols[10] = b'=';
    assert_eq!(
        Alphabet::from_symbols(&symbols),
        Err(AlphabetError::InvalidSymbol { index: 10, byte: b'=' })
    );
    symbols[10] = b'A';
    assert_eq!(
        Alphabet::from_symbols(&symbols),
        Err(AlphabetError::Duplicate { index: 10, byte: b'A' })
    );
    symbols[10] = b' ';
    assert!(Alphabet::from_symbols(&symbols).is_err());
    symbols[10] = b'!';
    let text = std::str::from_utf8(&symbols).unwrap();
    let bang = Alphabet::new(text).unwrap();
    assert_eq!(Alphabet::try_from(text), Ok(bang.clone()));
    assert_eq!(bang.as_str(), text);
    assert_eq!(Alphabet::new(&text[1..]), Err(AlphabetError::InvalidLength { len: 63 }));
    let e = GeneralPurpose::new(&bang, PAD);
    let data = common::bytes(999, 3);
    assert_eq!(e.decode(e.encode(&data)).unwrap(), data);
}

#[test]
fn decode_never_panics_on_short_garbage() {
    for e in common::engines() {
        for len in 0..6usize {
            for seed in 0..if cfg!(miri) { 2 } else { 200u64 } {
                let set = b"AZaz09+/-_=. \n\r!\x80";
                let input: Vec<u8> =
                    common::bytes(len, seed).iter().map(|b| set[*b as usize % set.len()]).collect();
                let _ = e.decode(&input);
            }
        }
    }
}

#[test]
fn appending_calls_and_display_match_encode_and_decode() {
    use std::io::Write;

    // Across the 3 KiB blocks of `encode_string` and `Base64Display`.
    for len in [0, 1, 2, 3, 3071, 3072, 3073, 10_000] {
        let data = common::bytes(len, 11);
        for e in [BASE64_STANDARD, BASE64_URL_SAFE_NO_PAD] {
            let want = e.encode(&data);
            let mut s = String::from("x:");
            e.encode_string(&data, &mut s);
            assert_eq!(s.strip_prefix("x:"), Some(&want[..]), "encode_string of {len}");
            let shown = b64::display::Base64Display::new(&data, &e).to_string();
            assert_eq!(shown, want, "Base64Display of {len}");
            let mut w = b64::write::EncoderStringWriter::new(&e);
            for piece in data.chunks(1000) {
                w.write_all(piece).unwrap();
            }
            assert_eq!(w.into_inner(), want, "EncoderStringWriter of {len}");
            let mut v = b"kept".to_vec();
            e.decode_vec(&want, &mut v).unwrap();
            assert_eq!(&v[..4], b"kept");
            assert_eq!(&v[4..], &data[..]);
        }
    }
    let mut v = b"kept".to_vec();
    assert_eq!(
        BASE64_STANDARD.decode_vec("aG!=", &mut v),
        Err(DecodeError::InvalidByte { offset: 2, byte: b'!' })
    );
    assert_eq!(v, b"kept");
}

#[test]
fn encoder_writer_finish_once() {
    use std::io::Write;

    let mut w = b64::write::EncoderWriter::new(Vec::new(), &BASE64_STANDARD);
    w.write_all(b"hi").unwrap();
    assert_eq!(w.finish().unwrap(), b"aGk=");
    assert!(w.finish().is_err());
    assert!(w.write(b"more").is_err());
}
