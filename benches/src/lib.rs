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

/// Whether `cargo xtask bench --quick` is running (it sets `XTASK_BENCH_QUICK`).
pub fn quick() -> bool {
    std::env::var_os("XTASK_BENCH_QUICK").is_some()
}

/// `all`, or every other size (the first and the last kept) under `--quick`.
pub fn sizes(all: &[usize]) -> Vec<usize> {
    if !quick() {
        return all.to_vec();
    }
    let last = all.len().saturating_sub(1);
    all.iter().enumerate().filter(|(i, _)| i % 2 == 0 || *i == last).map(|(_, s)| *s).collect()
}
