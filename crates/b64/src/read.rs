//! Streaming decode: [`DecoderReader`].

use std::io::{self, Read};

use crate::decode::State;
use crate::engine::Engine;
use crate::error::DecodeError;
use crate::io::Split;

/// Input bytes read from the inner reader per refill.
const CHUNK: usize = 16 * 1024;

/// Decodes base64 text read from `R`, yielding the bytes. Any chunking of the inner reader
/// gives the same bytes, and the same [`DecodeError`] (offsets into the whole stream) as
/// [`Engine::decode`] of the whole text; the error comes as an [`io::Error`] of kind
/// `InvalidData` whose inner error is the `DecodeError`. base64's `read::DecoderReader`.
///
/// ```
/// use std::io::Read;
/// use b64::engine::general_purpose::STANDARD;
///
/// let mut r = b64::read::DecoderReader::new(&b"aGVsbG8gd29ybGQ="[..], &STANDARD);
/// let mut out = String::new();
/// r.read_to_string(&mut out)?;
/// assert_eq!(out, "hello world");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DecoderReader<'e, E: Engine, R: Read> {
    inner: R,
    engine: &'e E,
    state: State,
    input: Vec<u8>,
    output: Vec<u8>,
    /// Unread decoded bytes are `output[out_pos..out_end]`.
    out_pos: usize,
    out_end: usize,
    /// Text bytes consumed so far (the stream offset of the next byte).
    consumed: usize,
    done: bool,
    error: Option<DecodeError>,
}

impl<'e, E: Engine, R: Read> DecoderReader<'e, E, R> {
    /// A reader of the bytes that `inner`'s text decodes to with `engine`.
    pub fn new(inner: R, engine: &'e E) -> Self {
        DecoderReader {
            inner,
            engine,
            state: State::default(),
            input: vec![0; CHUNK],
            output: vec![0; CHUNK / 4 * 3 + 3],
            out_pos: 0,
            out_end: 0,
            consumed: 0,
            done: false,
            error: None,
        }
    }

    /// The inner reader (what it has read past the bytes returned so far is lost).
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads and decodes until there are decoded bytes, the end, or an error.
    fn fill(&mut self) -> io::Result<()> {
        while self.out_pos == self.out_end && !self.done {
            if let Some(e) = self.error {
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
            let n = match self.inner.read(&mut self.input) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let mut io = Split { src: &self.input[..n], dst: &mut self.output };
            let engine = self.engine.internal_general_purpose();
            let result = if n == 0 {
                self.done = true;
                self.state.finish(engine, &mut io, 0, self.consumed)
            } else {
                self.state.feed(engine, &mut io, self.consumed, 0)
            };
            self.consumed += n;
            match result {
                Ok(end) => (self.out_pos, self.out_end) = (0, end),
                Err(e) => {
                    self.error = Some(e);
                    self.done = false;
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                }
            }
        }
        Ok(())
    }
}

impl<E: Engine, R: Read> Read for DecoderReader<'_, E, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.fill()?;
        let n = buf.len().min(self.out_end - self.out_pos);
        buf[..n].copy_from_slice(&self.output[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

impl<E: Engine, R: Read> std::fmt::Debug for DecoderReader<'_, E, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecoderReader")
            .field("consumed", &self.consumed)
            .field("buffered", &(self.out_end - self.out_pos))
            .field("done", &self.done)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}
