//! The algorithms `nabsum` computes, each behind the same small streaming trait.

use std::io::{self, Read};

/// Bytes in a digest of every algorithm (v1 and v2 are both 128-bit).
pub const DIGEST_LEN: usize = 16;

/// Size of the buffer files are read into, one `read` per chunk. Measured with a 1 GiB file
/// in the page cache (AES-NI backend, AMD EPYC with 1 MiB of L2 per core, median of 12 runs):
/// 64 KiB 11.5 GB/s, 128 KiB 12.1, 256 KiB 10.5, 1 MiB 11.1, 4 MiB 11.9 (a shared machine:
/// read the spread as noise around a flat curve above 64 KiB). A chunk that stays
/// in L2 is still cached when the hash reads what the kernel just copied in, and at 128 KiB
/// the syscalls cost little; the kernel's copy itself (17 GB/s for `dd bs=1M`) is the limit.
/// GNU coreutils settled on the same size (`IO_BUFSIZE`, ioblksize.h).
pub const READ_CHUNK: usize = 128 * 1024;

/// An algorithm selected with `-a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// NABHash v1, the published algorithm (the default).
    V1,
    /// NABHash v2.
    V2,
}

impl Algorithm {
    /// Every algorithm, in the order `--help` lists them.
    pub const ALL: [Algorithm; 2] = [Algorithm::V1, Algorithm::V2];

    /// The `-a` value naming this algorithm.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::V1 => "v1",
            Algorithm::V2 => "v2",
        }
    }

    /// The algorithm an `-a` value names.
    pub fn from_name(name: &[u8]) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name().as_bytes() == name)
    }

    /// A fresh streaming digest (v2 with seed 0).
    pub fn new_digest(self) -> Box<dyn StreamingDigest> {
        match self {
            Algorithm::V1 => Box::new(nabhash::Digest::new()),
            Algorithm::V2 => Box::new(nabhash::v2::Digest::new()),
        }
    }
}

/// The streaming contract every NABHash digest type has (`nabhash::Digest`, `nabhash::v2::Digest`).
pub trait StreamingDigest {
    /// Appends `data` to the input.
    fn update(&mut self, data: &[u8]);
    /// The digest of the input so far.
    fn finalize(&self) -> [u8; DIGEST_LEN];
    /// Forgets all input.
    fn reset(&mut self);
}

/// Implements [`StreamingDigest`] by forwarding to the type's inherent methods of the same names.
macro_rules! streaming_digest {
    ($($ty:ty),+ $(,)?) => {$(
        impl StreamingDigest for $ty {
            fn update(&mut self, data: &[u8]) {
                <$ty>::update(self, data);
            }
            fn finalize(&self) -> [u8; DIGEST_LEN] {
                <$ty>::finalize(self)
            }
            fn reset(&mut self) {
                <$ty>::reset(self);
            }
        }
    )+};
}

streaming_digest!(nabhash::Digest, nabhash::v2::Digest);

/// Resets `digest` and feeds it everything `reader` yields, reading into `buf` (one `read` per
/// chunk, straight into `update`); returns the digest.
pub fn hash_reader(
    digest: &mut dyn StreamingDigest,
    reader: &mut dyn Read,
    buf: &mut [u8],
) -> io::Result<[u8; DIGEST_LEN]> {
    digest.reset();
    loop {
        match reader.read(buf) {
            Ok(0) => return Ok(digest.finalize()),
            // `Read` promises `n <= buf.len()`; `get` keeps a reader that breaks it from panicking.
            Ok(n) => digest.update(buf.get(..n).unwrap_or(buf)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
