//! Backend selection. Detection happens once per process (the `cpufeatures` cache);
//! compile-time `target_feature` skips it. `--cfg nabhash_backend="portable"` forces the
//! portable backend for the whole build (STYLE.md rule 7: a cfg, never a Cargo feature).

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::aesni::AesNi;
use crate::{State, portable};

/// One implementation of NABHash v1's block function. A value exists only for backends the
/// running CPU supports, so any `Backend` may be used without further checks.
///
/// Tests and benches use this to run every backend (see [`backends`]); applications
/// should call [`crate::hash`] and [`crate::Digest`], which pick the fastest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Portable,
    #[cfg(target_arch = "x86_64")]
    AesNi(AesNi),
}

impl Backend {
    /// The portable backend, available everywhere.
    pub const PORTABLE: Backend = Backend(Kind::Portable);

    /// The fastest backend this CPU supports (what [`crate::hash`] uses).
    #[inline]
    pub fn detect() -> Backend {
        #[cfg(all(target_arch = "x86_64", not(nabhash_backend = "portable")))]
        if let Some(t) = AesNi::new() {
            return Backend(Kind::AesNi(t));
        }
        Backend::PORTABLE
    }

    /// The backend called `name` (as returned by [`Backend::name`]), if this CPU supports it.
    pub fn by_name(name: &str) -> Option<Backend> {
        backends().find(|b| b.name() == name)
    }

    /// A short stable name: `"portable"`, `"aesni"`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kind::AesNi(_) => "aesni",
        }
    }

    #[inline]
    pub(crate) fn compress(self, state: &mut State, blocks: &[u8]) {
        match self.0 {
            Kind::Portable => portable::compress(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Kind::AesNi(t) => t.compress(state, blocks),
        }
    }

    #[inline]
    pub(crate) fn finish(self, state: &State, len: u64) -> [u8; 16] {
        match self.0 {
            Kind::Portable => portable::finish(state, len),
            #[cfg(target_arch = "x86_64")]
            Kind::AesNi(t) => t.finish(state, len),
        }
    }
}

/// Every backend usable on this CPU, portable first, then in increasing order of preference.
pub fn backends() -> impl Iterator<Item = Backend> {
    let portable = core::iter::once(Backend::PORTABLE);
    #[cfg(target_arch = "x86_64")]
    let portable = portable.chain(AesNi::new().map(|t| Backend(Kind::AesNi(t))));
    portable
}
