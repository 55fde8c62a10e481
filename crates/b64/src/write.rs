//! Streaming encode: [`EncoderWriter`].

use std::io::{self, Write};

use crate::config::Engine;

/// Input bytes encoded per write to the inner writer (a multiple of 3).
const CHUNK: usize = 3 * 1024;

/// Encodes the bytes written to it and writes the text to `W`. Any split of the input into
/// writes gives the same text as [`Engine::encode`] of the whole; call
/// [`finish`](EncoderWriter::finish) to write the last group and padding (dropping the
/// writer does it too, ignoring errors).
///
/// ```
/// use std::io::Write;
///
/// let mut w = b64::write::EncoderWriter::new(Vec::new(), b64::STANDARD);
/// w.write_all(b"hello ")?;
/// w.write_all(b"world")?;
/// assert_eq!(w.finish()?, b"aGVsbG8gd29ybGQ=");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EncoderWriter<'e, W: Write> {
    inner: Option<W>,
    engine: Engine<'e>,
    /// Input bytes not yet encoded (fewer than 3 between calls).
    pending: [u8; 3],
    npending: usize,
    text: Vec<u8>,
}

impl<'e, W: Write> EncoderWriter<'e, W> {
    /// A writer that encodes with `engine` into `inner`.
    pub fn new(inner: W, engine: Engine<'e>) -> Self {
        EncoderWriter {
            inner: Some(inner),
            engine,
            pending: [0; 3],
            npending: 0,
            text: vec![0; CHUNK / 3 * 4],
        }
    }

    /// Writes the last group (with padding if the engine pads) and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.write_final()?;
        Ok(self.inner.take().expect("the inner writer is present until finish"))
    }

    fn write_final(&mut self) -> io::Result<()> {
        let Some(inner) = self.inner.as_mut() else { return Ok(()) };
        let n = self.npending;
        self.npending = 0;
        let len = self.engine.encode_to_slice(&self.pending[..n], &mut self.text).unwrap_or(0);
        inner.write_all(&self.text[..len])
    }

    fn inner(&mut self) -> io::Result<&mut W> {
        self.inner.as_mut().ok_or_else(|| io::Error::other("EncoderWriter used after finish"))
    }
}

impl<W: Write> Write for EncoderWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner()?;
        if buf.is_empty() {
            return Ok(0);
        }
        if self.npending > 0 {
            // Complete the pending group first (one byte at a time keeps this simple).
            self.pending[self.npending] = buf[0];
            self.npending += 1;
            if self.npending == 3 {
                let len = self.engine.encode_to_slice(self.pending, &mut self.text).unwrap_or(0);
                self.npending = 0;
                let (text, inner) = (&self.text[..len], self.inner.as_mut());
                inner.expect("checked above").write_all(text)?;
            }
            return Ok(1);
        }
        let take = buf.len().min(CHUNK);
        let whole = take / 3 * 3;
        if whole == 0 {
            self.pending[..take].copy_from_slice(&buf[..take]);
            self.npending = take;
            return Ok(take);
        }
        let len = self.engine.encode_to_slice(&buf[..whole], &mut self.text).unwrap_or(0);
        let (text, inner) = (&self.text[..len], self.inner.as_mut());
        inner.expect("checked above").write_all(text)?;
        Ok(whole)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner()?.flush()
    }
}

impl<W: Write> Drop for EncoderWriter<'_, W> {
    fn drop(&mut self) {
        let _ = self.write_final();
    }
}
