//! v2 of inputs of up to 64 bytes that end at the last byte before an inaccessible page,
//! and that start at the page's last 16 bytes: the AES-NI short kernel reads up to 16 bytes
//! with one 16-byte load where that load stays in the page (a read past the input, never past
//! the page), the AVX-512 BW kernels with a masked load. Every backend, the one-shot and the
//! keyed (`Seeded`) entry points, against the portable backend, with the bytes past the input
//! set so that reading them as input would change the digest.

#![cfg(all(unix, not(miri)))]

use nabhash::v2::{Seeded, hash_with};
use testkit::page::GuardedPage;

#[test]
fn short_inputs_at_a_page_end() {
    let mut g = GuardedPage::new();
    let page = g.page();
    let bytes = g.bytes();
    for (i, x) in bytes.iter_mut().enumerate() {
        *x = (i.wrapping_mul(167) >> 3) as u8 ^ 0x5a;
    }
    let seed = 0x5eed_u64;
    let seeded = Seeded::new(seed);
    let portable = nabhash::Backend::PORTABLE;
    for n in 0..=64 {
        // Ending at the page's end, and starting 1..=16 bytes before it (running past the
        // input into the page's last bytes, which are not the input's).
        let mut starts = vec![page - n];
        starts.extend((1..=16).map(|k| page - k).filter(|&s| s + n <= page));
        for start in starts {
            let data = &bytes[start..start + n];
            let want = hash_with(portable, data, seed);
            assert_eq!(nabhash::v2::hash(data, seed), want, "v2::hash, n = {n} at {start}");
            assert_eq!(seeded.hash(data), want, "Seeded, n = {n} at {start}");
            for b in nabhash::backends() {
                assert_eq!(hash_with(b, data, seed), want, "{}, n = {n} at {start}", b.name());
            }
        }
    }
}
