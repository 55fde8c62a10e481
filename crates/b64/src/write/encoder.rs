//! [`EncoderWriter`]: encodes what is written to it into any [`Write`].

use std::io::{self, Write};

use crate::engine::Engine;

/// Input bytes encoded per write to the inner writer (a multiple of 3).
const CHUNK: usize = 3 * 1024;

/// Encodes the bytes written to it and writes the text to `W`. Any split of the input into
/// writes gives the same text as [`Engine::encode`] of the whole; call
/// [`finish`](EncoderWriter::finish) to write the last group and padding (dropping the
/// writer does it too, ignoring errors). base64's `write::EncoderWriter`, except that a write
/// or `finish` after `finish` is an error, not a panic.
///
/// ```
/// use std::io::Write;
/// use b64::engine::general_purpose::STANDARD;
///
/// let mut w = b64::write::EncoderWriter::new(Vec::new(), &STANDARD);
/// w.write_all(b"hello ")?;
/// w.write_all(b"world")?;
/// assert_eq!(w.finish()?, b"aGVsbG8gd29ybGQ=");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EncoderWriter<'e, E: Engine, W: Write> {
    inner: Option<W>,
    engine: &'e E,
    /// Input bytes not yet encoded (fewer than 3 between calls).
    pending: [u8; 3],
    npending: usize,
    text: Vec<u8>,
}

impl<'e, E: Engine, W: Write> EncoderWriter<'e, E, W> {
    /// A writer that encodes with `engine` into `inner`.
    pub fn new(inner: W, engine: &'e E) -> Self {
        EncoderWriter {
            inner: Some(inner),
            engine,
            pending: [0; 3],
            npending: 0,
            text: vec![0; CHUNK / 3 * 4],
        }
    }

    /// Writes the last group (with padding if the engine pads) and returns the inner writer.
    /// Later writes, and a second `finish`, are errors.
    pub fn finish(&mut self) -> io::Result<W> {
        self.inner()?;
        self.write_final()?;
        self.inner.take().ok_or_else(|| io::Error::other("EncoderWriter used after finish"))
    }

    fn write_final(&mut self) -> io::Result<()> {
        let Some(inner) = self.inner.as_mut() else { return Ok(()) };
        let n = self.npending;
        self.npending = 0;
        let len = self.engine.encode_slice(&self.pending[..n], &mut self.text).unwrap_or(0);
        inner.write_all(&self.text[..len])
    }

    fn inner(&mut self) -> io::Result<&mut W> {
        self.inner.as_mut().ok_or_else(|| io::Error::other("EncoderWriter used after finish"))
    }
}

impl<E: Engine, W: Write> Write for EncoderWriter<'_, E, W> {
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
                let len = self.engine.encode_slice(self.pending, &mut self.text).unwrap_or(0);
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
        let len = self.engine.encode_slice(&buf[..whole], &mut self.text).unwrap_or(0);
        let (text, inner) = (&self.text[..len], self.inner.as_mut());
        inner.expect("checked above").write_all(text)?;
        Ok(whole)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner()?.flush()
    }
}

impl<E: Engine, W: Write> std::fmt::Debug for EncoderWriter<'_, E, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncoderWriter")
            .field("pending", &&self.pending[..self.npending])
            .field("finished", &self.inner.is_none())
            .finish_non_exhaustive()
    }
}

impl<E: Engine, W: Write> Drop for EncoderWriter<'_, E, W> {
    fn drop(&mut self) {
        let _ = self.write_final();
    }
}
