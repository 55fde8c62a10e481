//! [`EncoderStringWriter`]: an [`EncoderWriter`] whose text goes to a `String` (or any
//! [`StrConsumer`]) instead of bytes.

use std::io::{self, Write};

use super::encoder::EncoderWriter;
use crate::engine::Engine;

/// Where an [`EncoderStringWriter`] puts the text: base64's `write::StrConsumer`.
pub trait StrConsumer {
    /// Takes the next piece of base64 text.
    fn consume(&mut self, buf: &str);
}

impl<S: StrConsumer + ?Sized> StrConsumer for &mut S {
    fn consume(&mut self, buf: &str) {
        (**self).consume(buf);
    }
}

impl StrConsumer for String {
    fn consume(&mut self, buf: &str) {
        self.push_str(buf);
    }
}

/// Encodes the bytes written to it and appends the text to a `String` (or any
/// [`StrConsumer`]): base64's `write::EncoderStringWriter`.
///
/// ```
/// use std::io::Write;
/// use b64::engine::general_purpose::STANDARD;
///
/// let mut enc = b64::write::EncoderStringWriter::new(&STANDARD);
/// enc.write_all(b"asdf")?;
/// assert_eq!(enc.into_inner(), "YXNkZg==");
///
/// let mut buf = String::from("base64: ");
/// let mut enc = b64::write::EncoderStringWriter::from_consumer(&mut buf, &STANDARD);
/// enc.write_all(b"asdf")?;
/// let _ = enc.into_inner();
/// assert_eq!(buf, "base64: YXNkZg==");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EncoderStringWriter<'e, E: Engine, S: StrConsumer> {
    encoder: EncoderWriter<'e, E, Utf8Sink<S>>,
}

impl<'e, E: Engine, S: StrConsumer> EncoderStringWriter<'e, E, S> {
    /// A writer that encodes with `engine` and hands the text to `consumer`.
    pub fn from_consumer(consumer: S, engine: &'e E) -> Self {
        EncoderStringWriter { encoder: EncoderWriter::new(Utf8Sink { consumer }, engine) }
    }

    /// Encodes the last group (with padding if the engine pads) and returns the consumer.
    pub fn into_inner(mut self) -> S {
        // `Utf8Sink` never fails, and the writer has not been finished before: this cannot
        // fail.
        self.encoder.finish().expect("writing to a StrConsumer cannot fail").consumer
    }
}

impl<'e, E: Engine> EncoderStringWriter<'e, E, String> {
    /// A writer that encodes with `engine` into a new `String`.
    pub fn new(engine: &'e E) -> Self {
        EncoderStringWriter::from_consumer(String::new(), engine)
    }
}

impl<E: Engine, S: StrConsumer> std::fmt::Debug for EncoderStringWriter<'_, E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("EncoderStringWriter").field(&self.encoder).finish()
    }
}

impl<E: Engine, S: StrConsumer> Write for EncoderStringWriter<'_, E, S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.encoder.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.encoder.flush()
    }
}

/// The text as `&str` to a [`StrConsumer`]. The encoder writes only base64 text (printable
/// ASCII), so the UTF-8 check never fails.
struct Utf8Sink<S: StrConsumer> {
    consumer: S,
}

impl<S: StrConsumer> Write for Utf8Sink<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text =
            core::str::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        self.consumer.consume(text);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
