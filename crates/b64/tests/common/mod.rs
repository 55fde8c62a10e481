//! The test vectors of `tests/data/`, read by `testkit::vectors` (STYLE.md rule 6), plus shared
//! input generators. The files are compiled in, so the tests run unchanged under qemu-user.

#![allow(dead_code)]

use b64::DecodeError;
use b64::engine::general_purpose::PAD;
use b64::engine::{DecodeMode, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use b64::prelude::*;
use testkit::vectors::{unescape, unhex};

/// `(data, standard padded encoding)` pairs of RFC 4648 section 10.
pub fn rfc4648() -> Vec<(Vec<u8>, String)> {
    testkit::data_file!("rfc4648.txt")
        .rows(2)
        .iter()
        .map(|f| {
            let unquote = |s: &str| if s == "-" { String::new() } else { s.to_owned() };
            (unquote(&f[0]).into_bytes(), unquote(&f[1]))
        })
        .collect()
}

/// One line of `errors.txt`: engine, input, expected result.
pub type ErrorCase = (GeneralPurpose<'static>, Vec<u8>, Result<Vec<u8>, DecodeError>);

/// The lines of `errors.txt`.
pub fn error_cases() -> Vec<ErrorCase> {
    testkit::data_file!("errors.txt")
        .rows(3)
        .iter()
        .map(|f| {
            let engine = engine(&f[0]);
            let input = unescape(&f[1]);
            let parts: Vec<&str> = f[2].split(':').collect();
            let num = |i: usize| parts[i].parse::<usize>().expect("offset");
            let byte = || u8::from_str_radix(parts[2], 16).expect("hex byte");
            let want = match parts[0] {
                "ok" => Ok(unhex(parts[1])),
                "byte" => Err(DecodeError::InvalidByte { offset: num(1), byte: byte() }),
                "length" => Err(DecodeError::InvalidLength { len: num(1) }),
                "padding" => Err(DecodeError::InvalidPadding { offset: num(1) }),
                "last" => Err(DecodeError::InvalidLastSymbol { offset: num(1), byte: byte() }),
                other => panic!("{}: unknown expectation {other}", f.at),
            };
            (engine, input, want)
        })
        .collect()
}

pub fn engine(name: &str) -> GeneralPurpose<'static> {
    match name {
        "std" => BASE64_STANDARD,
        "nopad" => BASE64_STANDARD_NO_PAD,
        "indiff" => reconfig(BASE64_STANDARD, |c| {
            c.with_decode_padding_mode(DecodePaddingMode::Indifferent)
        }),
        "url" => BASE64_URL_SAFE,
        "forg" => BASE64_FORGIVING,
        other => panic!("unknown engine {other}"),
    }
}

/// An alphabet in no order that the x86 kernels' nibble tables fit (too many symbols leave
/// their high nibble's common offset), so it runs on their general six-table lookup.
pub static SCRAMBLED: b64::alphabet::Alphabet = match b64::alphabet::Alphabet::new(
    "/+9876543210zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA",
) {
    Ok(a) => a,
    Err(_) => panic!("a valid alphabet"),
};

/// Every engine configuration the property tests cover; each decodes its own encoding.
pub fn engines() -> Vec<GeneralPurpose<'static>> {
    use b64::alphabet::{BCRYPT, BIN_HEX, CRYPT, IMAP_MUTF7, STANDARD, URL_SAFE};
    let mut v = Vec::new();
    for a in [&STANDARD, &URL_SAFE, &CRYPT, &BCRYPT, &IMAP_MUTF7, &BIN_HEX, &SCRAMBLED] {
        for (pad, p) in [
            (true, DecodePaddingMode::RequireCanonical),
            (true, DecodePaddingMode::Indifferent),
            (false, DecodePaddingMode::RequireNone),
            (false, DecodePaddingMode::Indifferent),
        ] {
            let config = PAD.with_encode_padding(pad).with_decode_padding_mode(p);
            v.push(GeneralPurpose::new(a, config));
        }
        v.push(GeneralPurpose::new(a, PAD.with_decode_mode(DecodeMode::Forgiving)));
        v.push(GeneralPurpose::new(a, PAD.with_decode_allow_trailing_bits(true)));
    }
    v
}

/// Deterministic pseudo-random bytes (xorshift).
pub fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Whether the host-sized exhaustive loops should shrink (emulation or Miri).
pub fn small() -> bool {
    cfg!(miri) || std::env::var_os("XTASK_EMULATED").is_some()
}

/// `engine` with its configuration changed by `f`, on the same backend.
pub fn reconfig<'a>(
    engine: GeneralPurpose<'a>,
    f: impl FnOnce(GeneralPurposeConfig) -> GeneralPurposeConfig,
) -> GeneralPurpose<'a> {
    GeneralPurpose::new(engine.alphabet(), f(*engine.config())).with_backend(engine.backend())
}
