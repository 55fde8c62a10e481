//! The test vectors of `tests/data/`, read by `testkit::vectors` (STYLE.md rule 6), plus shared
//! input generators. The files are compiled in, so the tests run unchanged under qemu-user.

#![allow(dead_code)]

use b64::{DecodeError, DecodeMode, DecodePadding, Engine};
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
pub type ErrorCase = (Engine<'static>, Vec<u8>, Result<Vec<u8>, DecodeError>);

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

pub fn engine(name: &str) -> Engine<'static> {
    match name {
        "std" => b64::STANDARD,
        "nopad" => b64::STANDARD_NO_PAD,
        "indiff" => b64::STANDARD.with_decode_padding(DecodePadding::Indifferent),
        "url" => b64::URL_SAFE,
        "forg" => b64::FORGIVING,
        other => panic!("unknown engine {other}"),
    }
}

/// An alphabet in no order that the x86 kernels' nibble tables fit (too many symbols leave
/// their high nibble's common offset), so it runs on their general six-table lookup.
pub static SCRAMBLED: b64::alphabet::Alphabet = match b64::alphabet::Alphabet::new(
    b"/+9876543210zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA",
) {
    Ok(a) => a,
    Err(_) => panic!("a valid alphabet"),
};

/// Every engine configuration the property tests cover; each decodes its own encoding.
pub fn engines() -> Vec<Engine<'static>> {
    use b64::alphabet::{BCRYPT, CRYPT, STANDARD, URL_SAFE};
    let mut v = Vec::new();
    for a in [&STANDARD, &URL_SAFE, &CRYPT, &BCRYPT, &SCRAMBLED] {
        for (pad, p) in [
            (true, DecodePadding::Required),
            (true, DecodePadding::Indifferent),
            (false, DecodePadding::Forbidden),
            (false, DecodePadding::Indifferent),
        ] {
            v.push(Engine::new(a).with_encode_padding(pad).with_decode_padding(p));
        }
        v.push(Engine::new(a).with_decode_mode(DecodeMode::Forgiving));
        v.push(Engine::new(a).with_trailing_bits_allowed(true));
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
