//! base64 0.22.1's examples, ported by changing only the crate name (`base64` -> `b64`): what
//! a user of base64 writes compiles and runs here. Each test is one example, in the order of
//! the source; its hidden lines (`# ...`) are written out; an example that is a `fn main` in
//! base64 is one here too, called at the end.
//!
//! base64's README.md has no Rust example (its code blocks are shell and `perf` output): the
//! examples its docs.rs front page shows are the crate docs (`src/lib.rs`), ported first, then
//! every example of the `Engine` trait (`src/engine/mod.rs`), then the other items' (prelude,
//! display, read, write, alphabet, config, `decoded_len_estimate`).
//!
//! Lines that differ from base64's beyond the crate name (our errors carry an offset):
//!
//! | test | base64 0.22 | here | why |
//! | --- | --- | --- | --- |
//! | `lib_no_pad_rejects_padding` | `Err(base64::DecodeError::InvalidPadding)` | `Err(b64::DecodeError::InvalidPadding { offset: 3 })` | `InvalidPadding` says where: the `=` at offset 3 |
//!
//! Not run, only compiled (they are base64's examples unchanged, but they read stdin and write
//! stdout, which a test must not do): `lib_decoding_stdin`, `lib_encoding_stdout`.
//!
//! Not ported: `alphabet::Alphabet`'s "Building lazily" example, which needs the `once_cell`
//! crate (not a dependency of ours; `std::sync::LazyLock` would be a change beyond the crate
//! name).

// The examples are base64's, verbatim: their style is not ours to change.
#![allow(clippy::uninlined_format_args, clippy::slow_vector_initialization)]

// ---- src/lib.rs (the crate docs) ----

#[test]
fn lib_prelude() {
    use b64::prelude::*;

    fn main() -> Result<(), b64::DecodeError> {
        assert_eq!(BASE64_STANDARD.decode(b"+uwgVQA=")?, b"\xFA\xEC\x20\x55\0");
        assert_eq!(BASE64_STANDARD.encode(b"\xFF\xEC\x20\x55\0"), "/+wgVQA=");
        Ok(())
    }
    main().unwrap();
}

#[test]
fn lib_url_safe() {
    use b64::{Engine as _, engine::general_purpose::URL_SAFE};

    fn main() -> Result<(), b64::DecodeError> {
        assert_eq!(URL_SAFE.decode(b"-uwgVQA=")?, b"\xFA\xEC\x20\x55\0");
        assert_eq!(URL_SAFE.encode(b"\xFF\xEC\x20\x55\0"), "_-wgVQA=");
        Ok(())
    }
    main().unwrap();
}

#[test]
fn lib_padding() {
    use b64::{Engine as _, engine::general_purpose::STANDARD};

    assert_eq!(STANDARD.encode(b""), "");
    assert_eq!(STANDARD.encode(b"f"), "Zg==");
    assert_eq!(STANDARD.encode(b"fo"), "Zm8=");
    assert_eq!(STANDARD.encode(b"foo"), "Zm9v");
}

#[test]
fn lib_no_pad() {
    use b64::{Engine as _, engine::general_purpose::STANDARD_NO_PAD};

    assert_eq!(STANDARD_NO_PAD.encode(b""), "");
    assert_eq!(STANDARD_NO_PAD.encode(b"f"), "Zg");
    assert_eq!(STANDARD_NO_PAD.encode(b"fo"), "Zm8");
    assert_eq!(STANDARD_NO_PAD.encode(b"foo"), "Zm9v");
}

#[test]
fn lib_no_pad_rejects_padding() {
    use b64::{Engine as _, engine::general_purpose::STANDARD_NO_PAD};
    // Differs: base64 has `Err(base64::DecodeError::InvalidPadding)` (a unit variant).
    assert_eq!(
        STANDARD_NO_PAD.decode(b"Zm8="),
        Err(b64::DecodeError::InvalidPadding { offset: 3 })
    );
}

#[test]
#[allow(unused_variables)]
fn lib_further_customization() {
    use b64::{Engine as _, alphabet, engine};

    // bizarro-world base64: +/ as the first symbols instead of the last
    let alphabet =
        alphabet::Alphabet::new("+/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            .unwrap();

    // a very weird config that encodes with padding but requires no padding when decoding...?
    let crazy_config = engine::GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_encode_padding(true)
        .with_decode_padding_mode(engine::DecodePaddingMode::RequireNone);

    let crazy_engine = engine::GeneralPurpose::new(&alphabet, crazy_config);

    let encoded = crazy_engine.encode(b"abc 123");
}

/// Compiled, not run: it decodes stdin to stdout.
#[allow(dead_code)]
fn lib_decoding_stdin() {
    use std::io;

    use b64::{engine::general_purpose::STANDARD, read::DecoderReader};

    fn main() -> Result<(), Box<dyn std::error::Error>> {
        let mut input = io::stdin();
        let mut decoder = DecoderReader::new(&mut input, &STANDARD);
        io::copy(&mut decoder, &mut io::stdout())?;
        Ok(())
    }
    main().unwrap();
}

/// Compiled, not run: it encodes stdin to stdout.
#[allow(dead_code)]
fn lib_encoding_stdout() {
    use std::io;

    use b64::{engine::general_purpose::STANDARD, write::EncoderWriter};

    fn main() -> Result<(), Box<dyn std::error::Error>> {
        let mut output = io::stdout();
        let mut encoder = EncoderWriter::new(&mut output, &STANDARD);
        io::copy(&mut io::stdin(), &mut encoder)?;
        Ok(())
    }
    main().unwrap();
}

#[test]
fn lib_display() {
    use b64::{display::Base64Display, engine::general_purpose::STANDARD};

    let value = Base64Display::new(b"\0\x01\x02\x03", &STANDARD);
    assert_eq!("base64: AAECAw==", format!("base64: {}", value));
}

// ---- src/engine/mod.rs (the `Engine` trait) ----

#[test]
#[allow(unused_variables)]
fn engine_encode() {
    use b64::{
        Engine as _, alphabet,
        engine::{self, general_purpose},
    };

    let b64 = general_purpose::STANDARD.encode(b"hello world~");
    println!("{}", b64);

    const CUSTOM_ENGINE: engine::GeneralPurpose =
        engine::GeneralPurpose::new(&alphabet::URL_SAFE, general_purpose::NO_PAD);

    let b64_url = CUSTOM_ENGINE.encode(b"hello internet~");
}

#[test]
fn engine_encode_string() {
    use b64::{
        Engine as _, alphabet,
        engine::{self, general_purpose},
    };
    const CUSTOM_ENGINE: engine::GeneralPurpose =
        engine::GeneralPurpose::new(&alphabet::URL_SAFE, general_purpose::NO_PAD);

    fn main() {
        let mut buf = String::new();
        general_purpose::STANDARD.encode_string(b"hello world~", &mut buf);
        println!("{}", buf);

        buf.clear();
        CUSTOM_ENGINE.encode_string(b"hello internet~", &mut buf);
        println!("{}", buf);
    }
    main();
}

#[test]
fn engine_encode_slice() {
    use b64::{Engine as _, engine::general_purpose};
    let s = b"hello internet!";
    let mut buf = Vec::new();
    // make sure we'll have a slice big enough for base64 + padding
    buf.resize(s.len() * 4 / 3 + 4, 0);

    let bytes_written = general_purpose::STANDARD.encode_slice(s, &mut buf).unwrap();

    // shorten our vec down to just what was written
    buf.truncate(bytes_written);

    assert_eq!(s, general_purpose::STANDARD.decode(&buf).unwrap().as_slice());
}

#[test]
fn engine_decode() {
    use b64::{
        Engine as _, alphabet,
        engine::{self, general_purpose},
    };

    let bytes = general_purpose::STANDARD.decode("aGVsbG8gd29ybGR+Cg==").unwrap();
    println!("{:?}", bytes);

    // custom engine setup
    let bytes_url = engine::GeneralPurpose::new(&alphabet::URL_SAFE, general_purpose::NO_PAD)
        .decode("aGVsbG8gaW50ZXJuZXR-Cg")
        .unwrap();
    println!("{:?}", bytes_url);
}

#[test]
#[allow(unused_imports)] // base64's `use base64::Engine;` in `main`, already in scope
fn engine_decode_vec() {
    use b64::{
        Engine as _, alphabet,
        engine::{self, general_purpose},
    };
    const CUSTOM_ENGINE: engine::GeneralPurpose =
        engine::GeneralPurpose::new(&alphabet::URL_SAFE, general_purpose::PAD);

    fn main() {
        use b64::Engine;
        let mut buffer = Vec::<u8>::new();
        // with the default engine
        general_purpose::STANDARD.decode_vec("aGVsbG8gd29ybGR+Cg==", &mut buffer).unwrap();
        println!("{:?}", buffer);

        buffer.clear();

        // with a custom engine
        CUSTOM_ENGINE.decode_vec("aGVsbG8gaW50ZXJuZXR-Cg==", &mut buffer).unwrap();
        println!("{:?}", buffer);
    }
    main();
}

// ---- the other items' examples ----

/// `src/prelude.rs`.
#[test]
fn prelude() {
    use b64::prelude::{BASE64_STANDARD_NO_PAD, Engine as _};

    assert_eq!("c29tZSBieXRlcw", &BASE64_STANDARD_NO_PAD.encode(b"some bytes"));
}

/// `src/display.rs`.
#[test]
fn display() {
    use b64::{display::Base64Display, engine::general_purpose::STANDARD};

    let data = vec![0x0, 0x1, 0x2, 0x3];
    let wrapper = Base64Display::new(&data, &STANDARD);

    assert_eq!("base64: AAECAw==", format!("base64: {}", wrapper));
}

/// `src/read/decoder.rs`.
#[test]
fn read_decoder_reader() {
    use b64::engine::general_purpose;
    use std::io::Cursor;
    use std::io::Read;

    // use a cursor as the simplest possible `Read` -- in real code this is probably a file, etc.
    let mut wrapped_reader = Cursor::new(b"YXNkZg==");
    let mut decoder =
        b64::read::DecoderReader::new(&mut wrapped_reader, &general_purpose::STANDARD);

    // handle errors as you normally would
    let mut result = Vec::new();
    decoder.read_to_end(&mut result).unwrap();

    assert_eq!(b"asdf", &result[..]);
}

/// `src/write/encoder.rs`.
#[test]
fn write_encoder_writer() {
    use b64::engine::general_purpose;
    use std::io::Write;

    // use a vec as the simplest possible `Write` -- in real code this is probably a file, etc.
    let mut enc = b64::write::EncoderWriter::new(Vec::new(), &general_purpose::STANDARD);

    // handle errors as you normally would
    enc.write_all(b"asdf").unwrap();

    // could leave this out to be called by Drop, if you don't care
    // about handling errors or getting the delegate writer back
    let delegate = enc.finish().unwrap();

    // base64 was written to the writer
    assert_eq!(b"YXNkZg==", &delegate[..]);
}

/// `src/write/encoder_string_writer.rs`, the first example.
#[test]
fn write_encoder_string_writer_new() {
    use b64::engine::general_purpose;
    use std::io::Write;

    let mut enc = b64::write::EncoderStringWriter::new(&general_purpose::STANDARD);

    enc.write_all(b"asdf").unwrap();

    // get the resulting String
    let b64_string = enc.into_inner();

    assert_eq!("YXNkZg==", &b64_string);
}

/// `src/write/encoder_string_writer.rs`, the second example.
#[test]
fn write_encoder_string_writer_from_consumer() {
    use b64::engine::general_purpose;
    use std::io::Write;

    let mut buf = String::from("base64: ");

    let mut enc =
        b64::write::EncoderStringWriter::from_consumer(&mut buf, &general_purpose::STANDARD);

    enc.write_all(b"asdf").unwrap();

    // release the &mut reference on buf
    let _ = enc.into_inner();

    assert_eq!("base64: YXNkZg==", &buf);
}

/// `src/alphabet.rs`, "Building and using a custom Alphabet".
#[test]
#[allow(unused_variables)]
fn alphabet_custom() {
    let custom = b64::alphabet::Alphabet::new(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    )
    .unwrap();

    let engine = b64::engine::GeneralPurpose::new(&custom, b64::engine::general_purpose::PAD);
}

/// `src/alphabet.rs`, "Building a const".
#[test]
#[allow(dead_code)]
fn alphabet_const() {
    use b64::alphabet::Alphabet;

    static CUSTOM: Alphabet = {
        // Result::unwrap() isn't const yet, but panic!() is OK
        match Alphabet::new("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
            Ok(x) => x,
            Err(_) => panic!("creation of alphabet failed"),
        }
    };
}

/// `src/engine/general_purpose/mod.rs`, `GeneralPurposeConfig`.
#[test]
#[allow(unused_variables)]
fn general_purpose_config() {
    use b64::engine::GeneralPurposeConfig;
    let config = GeneralPurposeConfig::new().with_encode_padding(false);
    // further customize using `.with_*` methods as needed
}

/// `src/decode.rs`, `decoded_len_estimate`.
#[test]
fn decoded_len_estimate() {
    use b64::decoded_len_estimate;

    assert_eq!(3, decoded_len_estimate(1));
    assert_eq!(3, decoded_len_estimate(2));
    assert_eq!(3, decoded_len_estimate(3));
    assert_eq!(3, decoded_len_estimate(4));
    // start of the next quad of encoded symbols
    assert_eq!(6, decoded_len_estimate(5));
}
