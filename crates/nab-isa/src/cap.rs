//! The cap: `NAB_MAX_ISA` (with `std`) or [`set_cap`], decided once per process.

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::Tier;

/// The environment variable that caps run-time detection.
pub const ENV_VAR: &str = "NAB_MAX_ISA";

/// The cap in force, as decided at the first capped detection (or by [`set_cap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cap {
    /// No cap: everything the CPU has (`NAB_MAX_ISA` unset or empty, or no `std`).
    Unset,
    /// Capped at a tier.
    Tier(Tier),
    /// `NAB_MAX_ISA` holds something that is not a tier name: ignored, as if unset. Libraries
    /// stay silent; command-line tools should warn (see [`Cap::is_recognised`]).
    Unrecognised,
}

impl Cap {
    /// `false` only for [`Cap::Unrecognised`]: what a CLI checks before warning.
    #[must_use]
    pub const fn is_recognised(self) -> bool {
        !matches!(self, Cap::Unrecognised)
    }

    /// The tier, if capped.
    #[must_use]
    pub const fn tier(self) -> Option<Tier> {
        match self {
            Cap::Tier(t) => Some(t),
            _ => None,
        }
    }

    /// Parses a value of `NAB_MAX_ISA` (empty means unset).
    #[must_use]
    pub fn parse(value: &[u8]) -> Cap {
        if value.is_empty() {
            return Cap::Unset;
        }
        Tier::from_name(value).map_or(Cap::Unrecognised, Cap::Tier)
    }

    const fn encode(self) -> u8 {
        match self {
            Cap::Unset => 1,
            Cap::Unrecognised => 2,
            Cap::Tier(t) => 3 + t as u8,
        }
    }

    fn decode(v: u8) -> Cap {
        match v {
            1 => Cap::Unset,
            2 => Cap::Unrecognised,
            _ => Cap::Tier(Tier::ALL[usize::from(v - 3)]),
        }
    }
}

/// 0 until decided, then [`Cap::encode`].
static CAP: AtomicU8 = AtomicU8::new(0);

/// The cap in force. The first call decides it: with the `std` feature from
/// [`ENV_VAR`] (read with `std::env::var_os`), without it [`Cap::Unset`] unless [`set_cap`]
/// came first. Later calls load one atomic.
pub fn cap() -> Cap {
    match CAP.load(Ordering::Relaxed) {
        0 => decide(from_env()),
        v => Cap::decode(v),
    }
}

/// Stores `cap` unless a cap is already decided; returns the one in force.
fn decide(cap: Cap) -> Cap {
    // Threads racing here read the same environment, so whichever stores first stores the
    // same value; `set_cap` racing with a first detection wins or loses as a whole.
    match CAP.compare_exchange(0, cap.encode(), Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => cap,
        Err(v) => Cap::decode(v),
    }
}

#[cfg(feature = "std")]
fn from_env() -> Cap {
    std::env::var_os(ENV_VAR).map_or(Cap::Unset, |v| Cap::parse(v.as_encoded_bytes()))
}

/// For command-line tools (this crate never prints): the warning to show when
/// `NAB_MAX_ISA` holds a value that is not a tier name, which the crates ignore; `None`
/// otherwise. Decides the cap if nothing did yet.
#[cfg(feature = "std")]
pub fn cap_warning() -> Option<std::string::String> {
    (cap() == Cap::Unrecognised).then(|| {
        let value = std::env::var_os(ENV_VAR).unwrap_or_default();
        std::format!(
            "{ENV_VAR}={} is not one of portable, x86-64-v2, x86-64-v3, x86-64-v4: ignored",
            value.to_string_lossy()
        )
    })
}

#[cfg(not(feature = "std"))]
fn from_env() -> Cap {
    Cap::Unset
}

/// Sets the cap for this process (`None`: no cap, whatever `NAB_MAX_ISA` says), for programs
/// without `std` and for tools that take the tier as an option. Only before the cap is decided:
/// call it first thing in `main`, before anything dispatches.
///
/// # Errors
///
/// [`CapDecided`] (with the cap in force) when a detection or [`cap`] came first.
pub fn set_cap(tier: Option<Tier>) -> Result<(), CapDecided> {
    let want = tier.map_or(Cap::Unset, Cap::Tier);
    // Asking for the cap already in force is not an error.
    match decide(want) {
        got if got == want => Ok(()),
        got => Err(CapDecided(got)),
    }
}

/// [`set_cap`] came after the cap was decided; holds the cap in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapDecided(pub Cap);

impl fmt::Display for CapDecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the ISA cap was already decided ({:?}) before set_cap", self.0)
    }
}

impl core::error::Error for CapDecided {}
