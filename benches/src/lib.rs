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

/// `all`, or every other size (the first and the last kept) under `--quick`; in the quick
/// run's tier processes (`XTASK_BENCH_QUICK=tier`), every other size without the last (the
/// largest sizes take the longest).
pub fn sizes(all: &[usize]) -> Vec<usize> {
    if !quick() {
        return all.to_vec();
    }
    let tier = std::env::var_os("XTASK_BENCH_QUICK").is_some_and(|v| v == "tier");
    let last = all.len().saturating_sub(1);
    all.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0 || (*i == last && !tier))
        .map(|(_, s)| *s)
        .collect()
}

/// memops' size classes (the spec's): label, smallest and largest size; shared by the
/// criterion bench and the `memops-glibc` example so both draw the same sizes.
pub const MEMOPS_CLASSES: [(&str, usize, usize); 8] = [
    ("0-16", 0, 16),
    ("17-64", 17, 64),
    ("65-256", 65, 256),
    ("257-4K", 257, 4 << 10),
    ("4K-64K", (4 << 10) + 1, 64 << 10),
    ("64K-1M", (64 << 10) + 1, 1 << 20),
    ("8M", 8 << 20, 8 << 20),
    ("64M", 64 << 20, 64 << 20),
];

/// How many sizes [`memops_draws`] draws per class.
pub const MEMOPS_DRAWS: usize = 4096;

/// [`MEMOPS_DRAWS`] sizes drawn uniformly in `lo..=hi` (a fixed xorshift, so every run draws
/// the same).
pub fn memops_draws(lo: usize, hi: usize) -> Vec<usize> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ (lo as u64) ^ ((hi as u64) << 20);
    (0..MEMOPS_DRAWS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            lo + (x % (hi - lo + 1) as u64) as usize
        })
        .collect()
}

/// User + system CPU time of the calling thread so far (`getrusage(RUSAGE_THREAD)`): the
/// splice-pool benches' CPU-per-byte figures, which a busy 2-core VM moves far less than wall
/// clock.
#[cfg(target_os = "linux")]
pub fn thread_cpu() -> std::time::Duration {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a valid out-pointer for one `rusage`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, ru.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_THREAD)");
    // SAFETY: `getrusage` succeeded and filled `ru`.
    let ru = unsafe { ru.assume_init() };
    let tv = |t: libc::timeval| std::time::Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}
