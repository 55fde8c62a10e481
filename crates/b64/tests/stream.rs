//! The streaming adapters: any chunking of reads and writes equals the one-shot calls,
//! errors included (same offsets into the whole stream).

mod common;

use std::io::{Read, Write};

use b64::prelude::*;
use b64::read::DecoderReader;
use b64::write::EncoderWriter;
use proptest::prelude::*;

/// Longest input: short under Miri, which interprets every byte.
const MAX: usize = if cfg!(miri) { 200 } else { 5000 };

/// A reader that returns at most the next chunk size per read.
struct Chunky<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    k: usize,
}

impl Read for Chunky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes.get(self.k % self.sizes.len().max(1)).copied().unwrap_or(7).max(1);
        self.k += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn read_all(
    engine: b64::engine::GeneralPurpose<'_>,
    text: &[u8],
    sizes: Vec<usize>,
) -> Result<Vec<u8>, b64::DecodeError> {
    let mut r = DecoderReader::new(Chunky { data: text, sizes, k: 0 }, &engine);
    let mut out = Vec::new();
    match r.read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(e) => Err(*e
            .get_ref()
            .and_then(|e| e.downcast_ref::<b64::DecodeError>())
            .expect("a DecodeError")),
    }
}

proptest! {
    #[test]
    fn writer_equals_encode(data in proptest::collection::vec(any::<u8>(), 0..MAX), sizes in proptest::collection::vec(1..700usize, 1..10), engine in any::<proptest::sample::Index>()) {
        let engines = common::engines();
        let engine = engines[engine.index(engines.len())];
        let mut w = EncoderWriter::new(Vec::new(), &engine);
        let mut rest = &data[..];
        let mut k = 0;
        while !rest.is_empty() {
            let n = sizes[k % sizes.len()].min(rest.len());
            w.write_all(&rest[..n]).unwrap();
            rest = &rest[n..];
            k += 1;
        }
        prop_assert_eq!(w.finish().unwrap(), engine.encode_to_vec(&data));
    }

    #[test]
    fn reader_equals_decode(data in proptest::collection::vec(any::<u8>(), 0..MAX), sizes in proptest::collection::vec(1..700usize, 1..10), engine in any::<proptest::sample::Index>(), corrupt in proptest::option::of((any::<usize>(), proptest::sample::select(b"= \n!\x80".to_vec())))) {
        let engines = common::engines();
        let engine = engines[engine.index(engines.len())];
        let mut text = engine.encode_to_vec(&data);
        if let Some((p, c)) = corrupt
            && !text.is_empty()
        {
            let p = p % text.len();
            text[p] = c;
        }
        prop_assert_eq!(read_all(engine, &text, sizes), engine.decode(&text));
    }
}

#[test]
#[cfg_attr(miri, ignore)] // 40 kB through the interpreter
fn reader_error_is_sticky_and_offsets_are_global() {
    let text = [b"QUJD".repeat(10_000), b"!QUJD".to_vec()].concat();
    assert_eq!(
        read_all(BASE64_STANDARD, &text, vec![4096]),
        Err(b64::DecodeError::InvalidByte { offset: 40_000, byte: b'!' })
    );
}

proptest! {
    /// Whitespace anywhere, straddling the reader's chunk boundaries: the same bytes and
    /// errors as the one-shot forgiving decode.
    #[test]
    fn reader_with_whitespace_equals_decode(data in proptest::collection::vec(any::<u8>(), 0..MAX), sizes in proptest::collection::vec(1..700usize, 1..10), ws in proptest::collection::vec((any::<usize>(), proptest::sample::select(b" \t\n\r\x0c\x0b=".to_vec())), 0..200)) {
        let engine = BASE64_FORGIVING;
        let mut text = engine.encode_to_vec(&data);
        for (p, c) in ws {
            let p = p % (text.len() + 1);
            text.insert(p, c);
        }
        prop_assert_eq!(read_all(engine, &text, sizes), engine.decode(&text));
    }
}
