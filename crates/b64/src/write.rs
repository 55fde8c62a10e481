//! Streaming encode: [`EncoderWriter`] into any [`Write`](std::io::Write),
//! [`EncoderStringWriter`] into a `String` (or any [`StrConsumer`]).

mod encoder;
mod string;

pub use encoder::EncoderWriter;
pub use string::{EncoderStringWriter, StrConsumer};
