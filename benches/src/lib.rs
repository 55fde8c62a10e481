//! Shared helpers of the comparison benches (`cargo xtask bench`); the benches live in `benches/`.

/// Deterministic, incompressible-looking input of `len` bytes (a 64-bit LCG), so every
/// implementation hashes the same bytes.
pub fn input(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}
