//! Deterministic random bit generators (`rng` type: `stdrng`, `drbg_nopr_sha256`,
//! `jitterentropy_rng`).

use crate::error::Result;
use crate::socket::Socket;

/// The kernel hands out at most this much per read (algif_rng's `MAXSIZE`).
const MAX_READ: usize = 128;

/// A seeded kernel RNG.
#[derive(Debug)]
pub struct Rng {
    sock: Socket,
    name: String,
}

impl Rng {
    /// Binds `name` and seeds it with an empty seed (a DRBG then instantiates from the
    /// kernel's entropy): an rng must be seeded before its first read.
    pub fn new(name: &str) -> Result<Self> {
        Self::with_seed(name, &[])
    }

    /// Binds `name` and seeds it with `seed` (mixed in as personalization by a DRBG).
    pub fn with_seed(name: &str, seed: &[u8]) -> Result<Self> {
        Ok(Rng { sock: Socket::open("rng", name, Some(seed), None)?, name: name.into() })
    }

    /// Reseeds. The kernel refuses a new seed on a transform that has an operation socket,
    /// so this binds a fresh one.
    pub fn seed(&mut self, seed: &[u8]) -> Result<()> {
        *self = Self::with_seed(&self.name, seed)?;
        Ok(())
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        for chunk in buf.chunks_mut(MAX_READ) {
            self.sock.read_exact(chunk)?;
        }
        Ok(())
    }

    /// Another handle on the same seeded transform (`accept` again).
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Rng { sock: self.sock.try_clone()?, name: self.name.clone() })
    }
}

impl std::io::Read for Rng {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.fill(buf).map_err(std::io::Error::from)?;
        Ok(buf.len())
    }
}

/// RustCrypto's `rand_core` 0.6 traits: the kernel's DRBGs (`stdrng`, `drbg_*`) and
/// `jitterentropy_rng` are cryptographic generators.
///
/// ```no_run
/// use kcapi::RngCore;
///
/// let mut rng = kcapi::Rng::new("stdrng")?;
/// let mut nonce = [0u8; 12];
/// rng.try_fill_bytes(&mut nonce)?; // or fill_bytes, which panics on a kernel error
/// let x = rng.next_u64();
/// # let _ = x;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "rand_core")]
impl rand_core::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }

    fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    /// Panics when the kernel fails the read (the trait has no error path here);
    /// `try_fill_bytes` reports it.
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        if let Err(e) = self.fill(dest) {
            panic!("kcapi rng {}: {e}", self.name);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> std::result::Result<(), rand_core::Error> {
        self.fill(dest).map_err(rand_core::Error::new)
    }
}

#[cfg(feature = "rand_core")]
impl rand_core::CryptoRng for Rng {}
