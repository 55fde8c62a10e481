//! v1's state and its constants, shared by every backend (`portable`, `arch/`), the
//! `Kernels` trait and the streaming [`Digest`](super::Digest). A leaf: it imports nothing of
//! the crate.

/// The v1 state: four 16-byte lanes in memory order.
pub(crate) type State = [[u8; 16]; 4];

/// v1's initial lane value: the SHA-1 round constants 5a827999 6ed9eba1 8f1bbcdc ca62c1d6,
/// big-endian (spec, "The v1 algorithm").
pub(crate) const IV_LANE: [u8; 16] = [
    0x5a, 0x82, 0x79, 0x99, 0x6e, 0xd9, 0xeb, 0xa1, 0x8f, 0x1b, 0xbc, 0xdc, 0xca, 0x62, 0xc1, 0xd6,
];

/// Block size of v1 in bytes: four lanes of 16.
pub(crate) const BLOCK: usize = 64;
