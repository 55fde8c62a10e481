//! Every backend equals the portable one on encode, and the byte-at-a-time reference machine
//! (`Engine::decode_reference`) on decode of valid text, corrupted text (same error, same
//! offset) and line-wrapped text with whitespace and padding in it, through every entry
//! point, for every length 0..=300 and random larger ones. Case counts follow
//! `PROPTEST_CASES`.

mod common;

use b64::engine::{DecodeMode, GeneralPurpose, LineEnding, LineWrap};
use b64::prelude::*;
use b64::{Backend, backends};
use common::reconfig;
use proptest::prelude::*;

/// Bytes that break base64 text in different ways: padding, whitespace, non-ASCII, symbols
/// of other alphabets, controls, a symbol (a non-canonical last symbol when it lands there).
const CORRUPTIONS: &[u8] = b"= \n\r\t\x0b\x00\x80\xff+/-_.!~B";

/// The reference machine's decoding of `text` (into a buffer of `decoded_len_estimate`).
fn reference(engine: GeneralPurpose<'_>, text: &[u8]) -> Result<Vec<u8>, b64::DecodeError> {
    let mut out = vec![0u8; b64::decoded_len_estimate(text.len())];
    engine.decode_reference(text, &mut out).map(|n| out[..n].to_vec())
}

/// Decodes `text` with `engine` on `backend` through every entry point; they must agree
/// with each other and with the reference.
fn decode_all_ways(
    engine: GeneralPurpose<'_>,
    backend: Backend,
    text: &[u8],
) -> Result<Vec<u8>, b64::DecodeError> {
    let e = engine.with_backend(backend);
    let vec = e.decode(text);
    assert_eq!(vec, reference(engine, text), "decode vs the reference on {}", backend.name());
    let mut buf = text.to_vec();
    let in_place = e.decode_in_place(&mut buf).map(|n| buf[..n].to_vec());
    assert_eq!(in_place, vec, "decode_in_place vs decode on {}", backend.name());
    let mut appended = b"kept".to_vec();
    let appended = e.decode_vec(text, &mut appended).map(|()| appended[4..].to_vec());
    assert_eq!(appended, vec, "decode_vec vs decode on {}", backend.name());
    // An exactly sized output slice, with a canary after it.
    if let Ok(v) = &vec {
        let mut out = vec![0xa5u8; v.len() + 1];
        let n = e.decode_slice_unchecked(text, &mut out[..v.len()]).expect("exact slice");
        assert_eq!(&out[..n], &v[..]);
        assert_eq!(out[v.len()], 0xa5, "wrote past the slice");
        assert_eq!(e.decode_slice(text, &mut out[..v.len()]), Ok(n), "decode_slice");
        // One byte short: the same error as the reference's, at the same offset.
        if let Some(short) = v.len().checked_sub(1) {
            let mut want = vec![0u8; short];
            let want = engine.decode_reference(text, &mut want);
            assert!(want.is_err());
            assert_eq!(e.decode_slice_unchecked(text, &mut out[..short]), want, "short slice");
        }
    }
    vec
}

fn check(engine: GeneralPurpose<'_>, data: &[u8], corrupt: Option<(usize, u8)>) {
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
        // Into a longer slice: nothing past the encoding is touched.
        let mut out = vec![0xa5u8; text.len() + 70];
        let n = engine.with_backend(backend).encode_slice(data, &mut out).unwrap();
        assert_eq!(&out[..n], &text[..], "encode_slice on {}", backend.name());
        assert!(
            out[n..].iter().all(|&b| b == 0xa5),
            "encode_slice on {} of {} bytes wrote past the encoding",
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
fn error_vectors_on_every_backend() {
    for (engine, input, want) in common::error_cases() {
        for backend in backends() {
            assert_eq!(
                decode_all_ways(engine, backend, &input),
                want,
                "{engine:?} on {} {:?}",
                backend.name(),
                String::from_utf8_lossy(&input)
            );
        }
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

/// Encoding into every alignment of the output (the AVX-512 VBMI loop aligns its stores to
/// 64 bytes with a first block stored whole where a whole number of groups gets there) and
/// of the input, at lengths around the loops' thresholds: every backend equals the portable
/// one and writes nothing past the encoding.
#[test]
fn encode_at_every_alignment() {
    // Not under Miri (which runs the portable backend alone, slowly): the emulated runs keep
    // two lengths.
    let lens: &[usize] = if cfg!(miri) {
        &[]
    } else if common::small() {
        &[256, 300]
    } else {
        &[255, 256, 257, 300, 1000]
    };
    for &len in lens {
        let data = common::bytes(len + 64, len as u64);
        for engine in [BASE64_STANDARD, BASE64_STANDARD_NO_PAD] {
            let mut out = vec![0u8; engine.encoded_len(len).unwrap() + 128];
            for backend in backends() {
                let e = engine.with_backend(backend);
                for offset in 0..64 {
                    let src = &data[offset % 7..offset % 7 + len];
                    let want = engine.with_backend(Backend::PORTABLE).encode_to_vec(src);
                    out.fill(0xa5);
                    let n = e.encode_slice(src, &mut out[offset..]).unwrap();
                    assert_eq!(
                        &out[offset..offset + n],
                        &want[..],
                        "encode on {} of {len} bytes at output offset {offset}",
                        backend.name()
                    );
                    assert!(
                        out[..offset].iter().chain(&out[offset + n..]).all(|&b| b == 0xa5),
                        "encode on {} of {len} bytes at output offset {offset} wrote outside it",
                        backend.name()
                    );
                }
            }
        }
    }
}

/// Short encodes (every length to 200, past two 48-byte blocks and the 64-byte loads of the
/// loops, and past the AVX-512 BW backend's 24-byte block path for up to 144 bytes) write
/// exactly their symbols on every backend: that path reads its last block by a masked load
/// and stores it in exact-width pieces, which must stop at the encoding's end.
#[test]
fn short_encodes_write_exactly() {
    let max = if cfg!(miri) { 8 } else { 200 };
    for len in 0..=max {
        let data = common::bytes(len, len as u64 + 7);
        for engine in [BASE64_STANDARD, BASE64_STANDARD_NO_PAD] {
            let want = engine.with_backend(Backend::PORTABLE).encode_to_vec(&data);
            let mut out = vec![0xa5u8; want.len() + 80];
            for backend in backends() {
                out.fill(0xa5);
                let n = engine.with_backend(backend).encode_slice(&data, &mut out[..]).unwrap();
                assert_eq!(&out[..n], &want[..], "encode on {} of {len} bytes", backend.name());
                assert!(
                    out[n..].iter().all(|&b| b == 0xa5),
                    "encode on {} of {len} bytes wrote past its end",
                    backend.name()
                );
            }
        }
    }
}

/// Texts whose last symbol has a non-zero unused bit (each of them in turn), or whose last
/// group is cut short or has its padding doubled: the short paths of every backend judge the
/// last group themselves, so each must give the reference's error (or acceptance, for the
/// engines that allow it) at every length and position in the block.
#[test]
fn last_group_variants_at_every_length() {
    // Past the longest short path (256 symbols, 192 bytes) and into the general one.
    let max = if cfg!(miri) {
        12
    } else if common::small() {
        48
    } else {
        200
    };
    let engines = common::engines();
    for len in 1..=max {
        let data = common::bytes(len, len as u64 + 7);
        for (k, &engine) in engines.iter().enumerate() {
            // Under emulation a rotating subset of engines per length.
            if common::small() && k % 5 != len % 5 {
                continue;
            }
            let text = engine.with_backend(Backend::PORTABLE).encode_to_vec(&data);
            let symbols = engine.alphabet().symbols();
            let Some(last) = text.iter().rposition(|&b| b != b'=') else { continue };
            let value = symbols.iter().position(|&s| s == text[last]).expect("a symbol");
            let mut variants = Vec::new();
            // Each unused bit of the last symbol set (2 or 4 bits; none for whole groups).
            for bit in [1, 2, 4, 8] {
                let mut t = text.clone();
                t[last] = symbols[value ^ bit];
                variants.push(t);
            }
            // Padding removed, doubled, and one symbol dropped from the end.
            let body = &text[..=last];
            variants.push(body.to_vec());
            variants.push([body, b"=="].concat());
            variants.push([body, b"="].concat());
            variants.push(text[..last].to_vec());
            for t in &variants {
                let want = decode_all_ways(engine, Backend::PORTABLE, t);
                for backend in backends() {
                    assert_eq!(
                        decode_all_ways(engine, backend, t),
                        want,
                        "decode on {} of {:?}",
                        backend.name(),
                        String::from_utf8_lossy(t)
                    );
                }
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

/// `data` encoded with `engine` and wrapped at `width` columns with `ending`.
fn wrapped(engine: GeneralPurpose<'_>, data: &[u8], width: usize, ending: LineEnding) -> Vec<u8> {
    let wrap = LineWrap { width, ending };
    let mut text = vec![0u8; engine.wrapped_len(data.len(), wrap).unwrap()];
    engine.encode_wrapped_slice(data, wrap, &mut text).unwrap();
    text
}

/// Forgiving decoding of wrapped text on every backend equals the reference, clean and with
/// one byte replaced or inserted (a break in the shape, a stray byte, padding).
fn check_wrapped(
    engine: GeneralPurpose<'_>,
    data: &[u8],
    width: usize,
    ending: LineEnding,
    edit: Option<(usize, u8, bool)>,
) {
    let engine = reconfig(engine, |c| c.with_decode_mode(DecodeMode::Forgiving));
    let mut text = wrapped(engine, data, width, ending);
    if let Some((pos, byte, insert)) = edit {
        let p = pos % (text.len() + 1);
        if insert || p == text.len() {
            text.insert(p, byte);
        } else {
            text[p] = byte;
        }
    }
    check_forgiving(engine, &text, (edit.is_none() && ending == LineEnding::Lf).then_some(data));
}

/// Forgiving decoding of `text` (which decodes to `data`, if given) on every backend equals
/// the reference, skipping all whitespace and skipping `\n` alone.
fn check_forgiving(engine: GeneralPurpose<'_>, text: &[u8], data: Option<&[u8]>) {
    let engine = reconfig(engine, |c| c.with_decode_mode(DecodeMode::Forgiving));
    // Also skipping `\n` alone (the CLI's coreutils rules): CRLF text then fails at the `\r`.
    for engine in [engine, reconfig(engine, |c| c.with_newlines_only(true))] {
        let want = reference(engine, text);
        if let Some(data) = data {
            assert_eq!(want.as_deref(), Ok(data));
        }
        for backend in backends() {
            assert_eq!(
                decode_all_ways(engine, backend, text),
                want,
                "wrapped decode on {} of {:?}",
                backend.name(),
                String::from_utf8_lossy(text)
            );
        }
    }
}

/// Lines of 76 symbols (decoded two at a time by the AVX2 kernel, the two 16-symbol line
/// tails in one register) with one byte replaced at every offset of the first five lines:
/// a non-symbol in each block of each line of a pair, or a broken line ending.
#[test]
fn lines_of_76_with_a_bad_byte_anywhere() {
    let data = common::bytes(700, 76);
    // Under emulation every third offset.
    let step = if cfg!(miri) {
        41
    } else if common::small() {
        3
    } else {
        1
    };
    for ending in [LineEnding::Lf, LineEnding::CrLf] {
        let text = wrapped(BASE64_STANDARD, &data, 76, ending);
        let stride = 76 + ending.as_bytes().len();
        for (k, p) in (0..5 * stride).step_by(step).enumerate() {
            for byte in [b'!', b'='] {
                let mut bad = text.clone();
                bad[p] = if k % 2 == 0 { byte } else { b' ' };
                check_forgiving(BASE64_STANDARD, &bad, None);
            }
        }
    }
}

/// A first line of a common width (76 or 64, which the decoder tries before anything else)
/// followed by lines of another width, by one line ending only, or by nothing.
#[test]
fn first_line_of_a_common_width_then_others() {
    let text = BASE64_STANDARD.encode(common::bytes(600, 3));
    for (first, rest) in [(76, 64), (64, 76), (76, 60), (64, 100), (76, 76)] {
        for ending in ["\n", "\r\n"] {
            let mut t = text[..first].to_owned();
            for line in text.as_bytes()[first..].chunks(rest) {
                t.push_str(ending);
                t.push_str(std::str::from_utf8(line).unwrap());
            }
            check_forgiving(BASE64_STANDARD, t.as_bytes(), None);
            let one = format!("{}{ending}", &text[..first]);
            check_forgiving(BASE64_STANDARD, one.as_bytes(), None);
            check_forgiving(BASE64_STANDARD, &one.as_bytes()[..first], None);
        }
    }
}

/// Text in lines whose last line is each length 0..=12 symbols, padded and unpadded, followed by nothing, one line ending or other endings and whitespace: the
/// last line after the line kernel goes by the short path only where the reference
/// accepts it the same.
#[test]
fn last_line_of_every_shape_and_ending() {
    let widths: &[usize] = if cfg!(miri) {
        &[16]
    } else if common::small() {
        &[16, 76]
    } else {
        &[16, 64, 76]
    };
    let suffixes: [&[u8]; 10] =
        [b"", b"\n", b"\r\n", b"\r", b" ", b"\n\n", b"\r\r\n", b"=\n", b" \n", b"\n="];
    for &width in widths {
        for ending in [LineEnding::Lf, LineEnding::CrLf] {
            // Three whole lines, then `last` bytes of data: 0 to 12 symbols, padded or not.
            for last in 0..=8 {
                let data = common::bytes(3 * width / 4 * 3 + last, width as u64);
                for engine in [BASE64_STANDARD, BASE64_STANDARD_NO_PAD] {
                    let text = wrapped(engine, &data, width, ending);
                    for suffix in suffixes {
                        let mut t = text.clone();
                        t.extend_from_slice(suffix);
                        check_forgiving(engine, &t, None);
                    }
                }
            }
        }
    }
}

#[test]
fn wrapped_text_of_every_shape() {
    let (lens, widths): (&[usize], &[usize]) = if cfg!(miri) {
        (&[40], &[4, 7])
    } else if common::small() {
        (&[700, 1531], &[1, 5, 64, 76])
    } else {
        (&[0, 5, 97, 700, 3100, 9000], &[1, 2, 3, 4, 5, 7, 16, 17, 32, 57, 63, 64, 76, 100, 128])
    };
    let engines = [BASE64_STANDARD, BASE64_URL_SAFE_NO_PAD];
    for (k, &len) in lens.iter().enumerate() {
        let data = common::bytes(len, len as u64 + 7);
        for (m, &width) in widths.iter().enumerate() {
            for ending in [LineEnding::Lf, LineEnding::CrLf] {
                let engine = engines[(k + m) % 2];
                check_wrapped(engine, &data, width, ending, None);
                let text_len = engine.wrapped_len(len, LineWrap { width, ending }).unwrap();
                for (n, &byte) in CORRUPTIONS.iter().enumerate() {
                    if common::small() && n % 4 != m % 4 {
                        continue;
                    }
                    let pos = (text_len * (n + 1) / (CORRUPTIONS.len() + 1)).wrapping_add(m);
                    check_wrapped(engine, &data, width, ending, Some((pos, byte, n % 2 == 0)));
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn random_wrapped_text(
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        width in prop_oneof![1..20usize, 56..80usize],
        crlf in any::<bool>(),
        engine in any::<proptest::sample::Index>(),
        edit in proptest::option::of((any::<usize>(), 0..CORRUPTIONS.len(), any::<bool>())),
    ) {
        let engines = common::engines();
        let engine = engines[engine.index(engines.len())];
        let ending = if crlf { LineEnding::CrLf } else { LineEnding::Lf };
        check_wrapped(engine, &data, width, ending, edit.map(|(p, c, ins)| (p, CORRUPTIONS[c], ins)));
    }
}

/// Wrapped encoding on every backend (AVX-512 VBMI writes 76- and 64-column lines straight
/// from the input, in blocks of 4 and 9 lines that stop 64 bytes before the end) equals the
/// portable plain encoding cut into lines, at every length around the blocks' thresholds
/// and at every output alignment of a 64-byte store, and writes nothing past the text.
#[test]
fn wrapped_encode_on_every_backend() {
    let widths: &[usize] = &[76, 64, 1, 3, 4, 19, 100];
    let lens: Vec<usize> = if cfg!(miri) {
        vec![0, 300, 600]
    } else if common::small() {
        (0..=1200).step_by(37).chain([4096, 20_000]).collect()
    } else {
        (0..=1200).chain([4095, 4096, 4097, 20_000, 100_003]).collect()
    };
    for &len in &lens {
        let data = common::bytes(len + 8, len as u64 + 3);
        for (k, &width) in widths.iter().enumerate() {
            for ending in [LineEnding::Lf, LineEnding::CrLf] {
                let engine =
                    if (len + k) % 3 == 0 { BASE64_STANDARD_NO_PAD } else { BASE64_STANDARD };
                // Inputs and outputs at shifting offsets.
                let (from, at) = (len % 5, (len / 5 + k) % 64);
                let src = &data[from..from + len];
                let plain = engine.with_backend(Backend::PORTABLE).encode_to_vec(src);
                let want: Vec<u8> = plain.chunks(width).collect::<Vec<_>>().join(ending.as_bytes());
                let wrap = LineWrap { width, ending };
                assert_eq!(engine.wrapped_len(len, wrap), Some(want.len()));
                let mut out = vec![0xa5u8; want.len() + 64 + 64];
                for backend in backends() {
                    out.fill(0xa5);
                    let e = engine.with_backend(backend);
                    let n = e.encode_wrapped_slice(src, wrap, &mut out[at..]).unwrap();
                    assert!(
                        out[at..at + n] == want[..],
                        "wrapped encode on {} of {len} bytes, width {width}, {ending:?}",
                        backend.name()
                    );
                    assert!(
                        out[..at].iter().chain(&out[at + n..]).all(|&b| b == 0xa5),
                        "wrapped encode on {} of {len} bytes, width {width} wrote outside it",
                        backend.name()
                    );
                }
            }
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

/// The backend list is an iterator a user may move to another thread.
#[test]
fn backends_iterator_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    assert_send(&b64::backends());
}

/// Whitespace bytes that forgiving decoding skips, and the one next to them it must not
/// (`\x0b`, vertical tab, is not WHATWG whitespace).
const WHITESPACE: &[u8] = b" \t\n\r\x0c";

/// `text` with bytes of `WHITESPACE` inserted at random (about one every `gap` bytes, runs
/// of 1 to 3), and, if `bad`, one `\x0b`, `=` or invalid byte somewhere.
fn sprinkle(text: &[u8], seed: u64, gap: usize, bad: bool) -> Vec<u8> {
    let r = common::bytes(text.len() * 2 + 16, seed);
    let mut k = 0;
    let mut next = || {
        k += 1;
        r[k % r.len()] as usize
    };
    let mut out = Vec::with_capacity(text.len() * 2);
    for &b in text {
        if next() % gap.max(1) == 0 {
            for _ in 0..1 + next() % 3 {
                out.push(WHITESPACE[next() % WHITESPACE.len()]);
            }
        }
        out.push(b);
    }
    if next() % 2 == 0 {
        out.push(WHITESPACE[next() % WHITESPACE.len()]);
    }
    if bad {
        let p = (next() << 8 | next()) % (out.len() + 1);
        out.insert(p, [0x0b, b'=', b'!', 0x80, b'-'][next() % 5]);
    }
    out
}

/// Forgiving decoding of text with whitespace anywhere (the whitespace path: compaction then
/// the bulk) on every backend equals the reference, at every length 0..=300, with and
/// without a bad byte, at several densities.
#[test]
fn whitespace_anywhere_every_length() {
    let max = if cfg!(miri) {
        12
    } else if common::small() {
        100
    } else {
        300
    };
    let engines = common::engines();
    for len in 0..=max {
        let data = common::bytes(len, len as u64 + 7);
        for (k, &engine) in engines.iter().enumerate() {
            if k % 3 != len % 3 {
                continue;
            }
            let text = engine.encode_to_vec(&data);
            for (n, gap) in [1usize, 2, 7, 17, 64].into_iter().enumerate() {
                if common::small() && n % 2 != len % 2 {
                    continue;
                }
                let seed = (len * 31 + n) as u64;
                check_forgiving(engine, &sprinkle(&text, seed, gap, false), None);
                check_forgiving(engine, &sprinkle(&text, seed + 1, gap, true), None);
            }
        }
    }
}

/// The same at every alignment of the text (0..64) and random lengths up to 64 KiB.
#[test]
fn whitespace_anywhere_random_large_every_alignment() {
    let cases = if cfg!(miri) {
        0
    } else if common::small() {
        6
    } else {
        64
    };
    let engine = common::engine("forg");
    for c in 0..cases {
        let r = common::bytes(8, c as u64 + 99);
        let len = (usize::from(r[0]) << 8 | usize::from(r[1])) % (48 << 10);
        let data = common::bytes(len, c as u64 + 3);
        let text = engine.encode_to_vec(&data);
        let text = sprinkle(&text, c as u64, 1 + usize::from(r[2]) % 40, c % 4 == 3);
        let align = c % 64;
        let mut buf = vec![b' '; text.len() + 64];
        buf[align..align + text.len()].copy_from_slice(&text);
        let t = &buf[align..align + text.len()];
        let want = reference(engine, t);
        if c % 4 != 3 {
            assert_eq!(want.as_deref(), Ok(&data[..]));
        }
        for backend in backends() {
            assert_eq!(decode_all_ways(engine, backend, t), want, "{} case {c}", backend.name());
        }
    }
}

/// Alignments 0..64 at short lengths, every backend.
#[test]
fn whitespace_anywhere_short_every_alignment() {
    let engine = common::engine("forg");
    let step = if common::small() { 7 } else { 1 };
    for len in (0..200).step_by(step) {
        let data = common::bytes(len, len as u64 + 5);
        let text = sprinkle(&engine.encode_to_vec(&data), len as u64, 1 + len % 9, len % 5 == 4);
        let want = reference(engine, &text);
        for align in (0..64).step_by(step) {
            let mut buf = vec![0u8; text.len() + 64];
            buf[align..align + text.len()].copy_from_slice(&text);
            let t = &buf[align..align + text.len()];
            for backend in backends() {
                assert_eq!(
                    decode_all_ways(engine, backend, t),
                    want,
                    "{} len {len}",
                    backend.name()
                );
            }
        }
    }
}

/// Lines of one width separated by a fixed run of whitespace (the separator line path:
/// a space, a tab, an indented line ending), with indentation before the first line, clean
/// and with a byte replaced or inserted at positions across the first lines and the end.
#[test]
fn lines_with_any_separator() {
    let engine = common::engine("forg");
    let seps: &[&[u8]] = &[b" ", b"\t", b"\n    ", b"\r\n\t", b"  ", b"\n\n", b" \r\n", b"\x0c"];
    let widths: &[usize] = if common::small() { &[16, 76] } else { &[16, 20, 40, 64, 76, 100] };
    let lens: &[usize] = if common::small() { &[0, 200] } else { &[0, 1, 2, 3, 100, 700] };
    for &w in widths {
        for (k, &sep) in seps.iter().enumerate() {
            for &len in lens {
                let data = common::bytes(len, (w * 7 + k) as u64);
                let text = engine.encode_to_vec(&data);
                for lead in [0usize, 4] {
                    let mut t = vec![b' '; lead];
                    for (n, line) in text.chunks(w).enumerate() {
                        if n > 0 {
                            t.extend_from_slice(sep);
                        }
                        t.extend_from_slice(line);
                    }
                    if k % 2 == 1 {
                        t.extend_from_slice(sep);
                    }
                    assert_eq!(reference(engine, &t).as_deref(), Ok(&data[..]));
                    check_forgiving(engine, &t, None);
                    let step = if common::small() { 37 } else { 7 };
                    for p in (0..t.len().min(3 * (w + 6)))
                        .step_by(step)
                        .chain([t.len().saturating_sub(1)])
                    {
                        for (b, insert) in
                            [(0x0bu8, true), (b'=', false), (b' ', true), (b'A', true)]
                        {
                            let mut e = t.clone();
                            if insert || p >= e.len() {
                                e.insert(p.min(e.len()), b);
                            } else {
                                e[p] = b;
                            }
                            check_forgiving(engine, &e, None);
                        }
                    }
                }
            }
        }
    }
}
