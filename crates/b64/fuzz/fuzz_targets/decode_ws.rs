//! Forgiving decode of valid text with whitespace at chosen places: the input is a selector
//! byte, a count `k` of insertions, `k` insertions of 3 bytes (a 16-bit position, a byte
//! picking one of `\t \n \x0c \r`, space, or `\x0b`, which is not whitespace and must be
//! rejected), then the data. The data is encoded (padded or not), the bytes inserted, and
//! every backend, every entry point (`decode`, `decode_in_place`, `decode_slice`,
//! `DecoderReader` in chunks) must equal the reference machine; without `\x0b` the result
//! must be the data. Also skipping `\n` alone (the CLI's rules).

#![no_main]

use std::io::Read;

use b64::engine::general_purpose::{FORGIVING, STANDARD};
use b64::engine::{DecodeMode, GeneralPurpose, GeneralPurposeConfig};
use b64::{Backend, Engine as _, backends};
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

const KINDS: &[u8] = b"\t\n\x0c\r  \n\n\x0b";

fn check(engine: GeneralPurpose<'_>, text: &[u8], chunk: usize) -> Result<Vec<u8>, b64::DecodeError> {
    let mut reference = vec![0u8; b64::decoded_len_estimate(text.len())];
    let want = engine.decode_reference(text, &mut reference).map(|n| reference[..n].to_vec());
    assert_eq!(engine.with_backend(Backend::PORTABLE).decode(text), want, "portable");
    for backend in backends() {
        let e = engine.with_backend(backend);
        assert_eq!(e.decode(text), want, "decode on {}", backend.name());
        let mut buf = text.to_vec();
        assert_eq!(e.decode_in_place(&mut buf).map(|n| buf[..n].to_vec()), want, "in place on {}", backend.name());
        if let Ok(v) = &want {
            let mut out = vec![0u8; v.len()];
            assert_eq!(e.decode_slice(text, &mut out), Ok(v.len()), "exact slice on {}", backend.name());
            assert_eq!(&out, v);
            if let Some(short) = v.len().checked_sub(1) {
                let mut want_short = vec![0u8; short];
                let want_short = engine.decode_reference(text, &mut want_short);
                let mut out = vec![0u8; short];
                assert_eq!(e.decode_slice_unchecked(text, &mut out), want_short, "short slice on {}", backend.name());
            }
        }
        let mut reader = b64::read::DecoderReader::new(Chunks { data: text, chunk }, &e);
        let mut streamed = Vec::new();
        let got = match reader.read_to_end(&mut streamed) {
            Ok(_) => Ok(streamed),
            Err(err) => Err(*err.get_ref().and_then(|x| x.downcast_ref::<b64::DecodeError>()).expect("DecodeError")),
        };
        assert_eq!(got, want, "reader in chunks of {chunk} on {}", backend.name());
    }
    want
}

fuzz_target!(|input: &[u8]| {
    let Some((&sel, rest)) = input.split_first() else { return };
    let Some((&k, rest)) = rest.split_first() else { return };
    let k = usize::from(k).min(rest.len() / 3);
    let (ins, data) = rest.split_at(3 * k);
    let mut text = if sel & 1 == 0 { STANDARD.encode_to_vec(data) } else { b64::engine::general_purpose::STANDARD_NO_PAD.encode_to_vec(data) };
    let mut vt = false;
    // Half the inputs as lines of one width (16 to 112 symbols) with a separator of the
    // first insertions' whitespace (1 to 3 bytes) and indentation: the line paths.
    if sel & 0x80 != 0 && !ins.is_empty() {
        let w = 16 * (1 + usize::from(sel >> 3 & 7));
        let seps = (1 + usize::from(ins[0]) % 3).min(ins.len());
        let sep: Vec<u8> = ins[..seps].iter().map(|&b| KINDS[usize::from(b) % (KINDS.len() - 1)]).collect();
        let mut t = sep[1..].to_vec();
        for (n, line) in text.chunks(w).enumerate() {
            if n > 0 {
                t.extend_from_slice(&sep);
            }
            t.extend_from_slice(line);
        }
        text = t;
    }
    for i in ins.chunks_exact(3) {
        let pos = usize::from(u16::from_le_bytes([i[0], i[1]])) % (text.len() + 1);
        let b = KINDS[usize::from(i[2]) % KINDS.len()];
        vt |= b == 0x0b;
        text.insert(pos, b);
    }
    let chunk = [1, 3, 7, 64, 1000, 4096, 16 * 1024][usize::from(sel >> 1 & 3) + usize::from(sel & 0x40 != 0) * 3];
    let got = check(FORGIVING, &text, chunk);
    if vt {
        assert!(got.is_err(), "\\x0b accepted");
    } else {
        assert_eq!(got.as_deref(), Ok(data));
    }
    let lf = GeneralPurpose::new(
        &b64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_mode(DecodeMode::Forgiving).with_newlines_only(true),
    );
    let _ = check(lf, &text, chunk);
});
