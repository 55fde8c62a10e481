//! NABHash v1 (the algorithm is in the crate docs): the one-shot [`hash`] and the streaming
//! [`Digest`], re-exported at the crate root. The block function is the backends'
//! ([`Backend`]); the state they share is in [`state`].

pub(crate) mod state;

use self::state::{BLOCK, IV_LANE, State};
use crate::buffer::BlockBuffer;
use crate::dispatch::Backend;

/// The NABHash v1 digest of `data`.
///
/// ```
/// let d = nabhash::hash(&[0xde, 0xad, 0xbe, 0xef]);
/// assert_eq!(d, [0x90, 0x41, 0xd0, 0xd4, 0x40, 0xfe, 0x93, 0xf6,
///                0x95, 0x15, 0xb7, 0x71, 0x61, 0x9a, 0xa5, 0x4c]);
/// ```
#[inline]
pub fn hash(data: &[u8]) -> [u8; 16] {
    hash_with(Backend::detect(), data)
}

/// [`hash`] computed by a given backend (for tests and benches).
#[doc(hidden)]
pub fn hash_with(backend: Backend, data: &[u8]) -> [u8; 16] {
    backend.v1_hash(data)
}

/// Streaming NABHash v1.
///
/// Any split of the input into [`update`](Digest::update) calls gives the same digest as
/// [`hash`] of the whole. [`finalize`](Digest::finalize) does not disturb the state: it can be
/// called at any point, any number of times, and more input may follow.
///
/// ```
/// use std::io::Write;
///
/// let mut d = nabhash::Digest::new();
/// d.write_all(b"abc")?;
/// let first = d.finalize();
/// assert_eq!(first, d.finalize());
/// assert_eq!(first, nabhash::hash(b"abc"));
/// d.update(b"def");
/// assert_eq!(d.finalize(), nabhash::hash(b"abcdef"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Digest {
    state: State,
    buffer: BlockBuffer<BLOCK>,
    /// Total bytes seen (v1 uses the length modulo 2^64).
    len: u64,
    backend: Backend,
}

impl Digest {
    /// A digest of the empty input, using the fastest backend of this CPU.
    pub fn new() -> Self {
        Self::with_backend(Backend::detect())
    }

    /// A digest that uses `backend` (for tests and benches).
    #[doc(hidden)]
    pub fn with_backend(backend: Backend) -> Self {
        Digest { state: [IV_LANE; 4], buffer: BlockBuffer::new(), len: 0, backend }
    }

    /// Appends `data` to the input.
    pub fn update(&mut self, data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        let (state, backend) = (&mut self.state, self.backend);
        self.buffer.update(data, |blocks| backend.compress(state, blocks));
    }

    /// The digest of everything passed to [`update`](Digest::update) so far.
    pub fn finalize(&self) -> [u8; 16] {
        let mut state = self.state;
        let pending = self.buffer.pending();
        if !pending.is_empty() {
            let mut block = [0u8; BLOCK];
            block[..pending.len()].copy_from_slice(pending);
            self.backend.compress(&mut state, &block);
        }
        self.backend.finish(&state, self.len)
    }

    /// Forgets all input, as if newly created (the backend is kept).
    pub fn reset(&mut self) {
        *self = Self::with_backend(self.backend);
    }
}

impl Default for Digest {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl std::io::Write for Digest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.update(buf);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
