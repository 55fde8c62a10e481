//! Decode in every mode: the first byte picks the alphabet, padding mode, strict/forgiving,
//! trailing bits and the read chunk size; the rest is the text. Every backend, every entry
//! point (`decode`, `decode_vec`, `decode_in_place`, `decode_slice`, `DecoderReader` in chunks) must give
//! the same result as the byte-at-a-time reference machine (`decode_reference`), never
//! panic, and valid input must round-trip through `encode`. Forgiving engines also run
//! skipping `\n` alone (`with_newlines_only`, the CLI's rules).

#![no_main]

use std::io::Read;

use b64::alphabet::{BCRYPT, CRYPT, STANDARD, URL_SAFE};
use b64::engine::general_purpose::PAD;
use b64::engine::{DecodeMode, DecodePaddingMode, GeneralPurpose};
use b64::{Backend, DecodeSliceError, Engine as _, backends};
use libfuzzer_sys::fuzz_target;

/// A reader that hands out at most `chunk` bytes per read.
struct Chunks<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, text)) = data.split_first() else { return };
    let alphabet = [&STANDARD, &URL_SAFE, &CRYPT, &BCRYPT][usize::from(sel & 3)];
    let padding =
        [DecodePaddingMode::RequireCanonical, DecodePaddingMode::RequireNone, DecodePaddingMode::Indifferent, DecodePaddingMode::Indifferent]
            [usize::from(sel >> 2 & 3)];
    let mode = if sel & 0x10 != 0 { DecodeMode::Forgiving } else { DecodeMode::Strict };
    let config = PAD
        .with_decode_padding_mode(padding)
        .with_decode_mode(mode)
        .with_decode_allow_trailing_bits(sel & 0x20 != 0);
    let engine = GeneralPurpose::new(alphabet, config);
    // The oracle: the byte-at-a-time machine alone (no kernel, no fast path).
    let mut reference = vec![0u8; b64::decoded_len_estimate(text.len())];
    let want = engine.decode_reference(text, &mut reference).map(|n| reference[..n].to_vec());
    assert_eq!(engine.with_backend(Backend::PORTABLE).decode(text), want, "portable");
    for backend in backends() {
        let e = engine.with_backend(backend);
        assert_eq!(e.decode(text), want, "decode on {}", backend.name());
        let mut buf = text.to_vec();
        assert_eq!(e.decode_in_place(&mut buf).map(|n| buf[..n].to_vec()), want, "in place on {}", backend.name());
        let mut appended = vec![7u8];
        assert_eq!(e.decode_vec(text, &mut appended).map(|()| appended[1..].to_vec()), want, "decode_vec on {}", backend.name());
        if let Ok(v) = &want {
            let mut out = vec![0u8; v.len()];
            assert_eq!(e.decode_slice(text, &mut out), Ok(v.len()));
            assert_eq!(&out, v);
        } else if let Err(err) = want {
            let mut out = vec![0u8; b64::decoded_len_estimate(text.len())];
            assert_eq!(e.decode_slice(text, &mut out), Err(DecodeSliceError::DecodeError(err)));
        }
    }
    // Forgiving decoding that skips `\n` alone (the CLI's), against its own reference.
    if mode == DecodeMode::Forgiving {
        let lf = GeneralPurpose::new(alphabet, config.with_newlines_only(true));
        let want = lf.decode_reference(text, &mut reference).map(|n| reference[..n].to_vec());
        for backend in backends() {
            assert_eq!(lf.with_backend(backend).decode(text), want, "newlines only on {}", backend.name());
        }
    }
    let chunk = usize::from(sel >> 6) * 3 + 1;
    let mut reader = b64::read::DecoderReader::new(Chunks { data: text, chunk }, &engine);
    let mut streamed = Vec::new();
    let got = match reader.read_to_end(&mut streamed) {
        Ok(_) => Ok(streamed),
        Err(e) => Err(*e.get_ref().and_then(|e| e.downcast_ref::<b64::DecodeError>()).expect("DecodeError")),
    };
    assert_eq!(got, want, "reader in chunks of {chunk}");
    if let Ok(v) = want {
        let canonical = GeneralPurpose::new(alphabet, PAD.with_encode_padding(padding != DecodePaddingMode::RequireNone));
        let re = canonical.encode_to_vec(&v);
        assert_eq!(engine.decode(&re), Ok(v));
    }
});
