//! Calls each kernel `cargo xtask mca` models once, through the public API, so that every
//! backend the dispatch can pick (and each peer's) is linked into the binary, where the
//! xtask finds it by its symbol. Each call sits in its own `probe_*` function, never inlined,
//! so that a kernel inlined into its caller still has a symbol to be found under. Never run
//! for its output.

use b64::Engine as _;
use std::hash::BuildHasher;
use std::hint::black_box;

#[inline(never)]
fn probe_b64_encode(data: &[u8], text: &mut [u8]) -> usize {
    b64::engine::general_purpose::STANDARD.encode_slice(data, text).unwrap_or(0)
}

#[inline(never)]
fn probe_b64_decode(text: &[u8], out: &mut [u8]) -> usize {
    b64::engine::general_purpose::STANDARD.decode_slice_unchecked(text, out).unwrap_or(0)
}

#[inline(never)]
fn probe_base64_simd_encode(data: &[u8], text: &mut [u8]) -> usize {
    base64_simd::STANDARD.encode(data, base64_simd::Out::from_slice(text)).len()
}

#[inline(never)]
fn probe_base64_simd_decode(text: &[u8], out: &mut [u8]) -> usize {
    base64_simd::STANDARD.decode(text, base64_simd::Out::from_slice(out)).map_or(0, |o| o.len())
}

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn probe_simdutf_encode(data: &[u8], text: &mut [u8]) -> usize {
    let opt = simdutf::Base64Options::Default;
    if text.len() < simdutf::base64_length_from_binary(data.len(), opt) {
        return 0;
    }
    // SAFETY: `text` holds the encoding's length (checked above).
    unsafe { simdutf::binary_to_base64(data.as_ptr(), data.len(), text.as_mut_ptr(), opt) }
}

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn probe_simdutf_decode(text: &[u8], out: &mut [u8]) -> usize {
    let mut len = out.len();
    // SAFETY: `out` holds `len` bytes; the safe variant writes at most `len`.
    let r = unsafe {
        simdutf::base64_to_binary_safe(
            text.as_ptr(),
            text.len(),
            out.as_mut_ptr(),
            &mut len,
            simdutf::Base64Options::Default,
            simdutf::LastChunkHandlingOptions::Loose,
            false,
        )
    };
    if r.error == simdutf::ErrorCode::Success { len } else { 0 }
}

#[inline(never)]
fn probe_memops_memmove(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    // SAFETY: both buffers hold at least `n` bytes and do not overlap (two borrows).
    unsafe { memops::raw::memmove(dst.as_mut_ptr(), src.as_ptr(), n) };
}

#[inline(never)]
fn probe_memops_find_byte(hay: &[u8], b: u8) -> Option<usize> {
    memops::find_byte(hay, b)
}

#[inline(never)]
fn probe_memchr_memchr(hay: &[u8], b: u8) -> Option<usize> {
    memchr::memchr(b, hay)
}

#[inline(never)]
fn probe_nabhash_v1(data: &[u8]) -> [u8; 16] {
    nabhash::hash(data)
}

#[inline(never)]
fn probe_nabhash_v2(data: &[u8]) -> [u8; 16] {
    nabhash::v2::hash(data, 0)
}

#[inline(never)]
fn probe_xxh3_64(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

#[inline(never)]
fn probe_xxh3_128(data: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(data)
}

#[cfg(target_feature = "aes")]
#[inline(never)]
fn probe_gxhash128(data: &[u8]) -> u128 {
    gxhash::gxhash128(data, 0)
}

#[inline(never)]
fn probe_foldhash_quality(data: &[u8]) -> u64 {
    foldhash::quality::FixedState::with_seed(0).hash_one(data)
}

#[inline(never)]
fn probe_bignum_fib(n: u64) -> usize {
    bignum_fib::fib(n).to_string().len()
}

fn main() {
    let n = black_box(65536usize);
    let data = vec![black_box(7u8); n];
    let mut text = vec![0u8; n * 2];
    let mut back = vec![0u8; n];

    let k = probe_b64_encode(&data, &mut text);
    black_box(probe_b64_decode(&text[..k], &mut back));
    black_box(probe_base64_simd_encode(&data, &mut text));
    black_box(probe_base64_simd_decode(&text[..k], &mut back));
    #[cfg(target_arch = "x86_64")]
    {
        black_box(probe_simdutf_encode(&data, &mut text));
        black_box(probe_simdutf_decode(&text[..k], &mut back));
    }
    probe_memops_memmove(&mut back, &data);
    black_box(probe_memops_find_byte(&data, black_box(1)));
    black_box(probe_memchr_memchr(&data, black_box(1)));
    black_box(probe_nabhash_v1(&data));
    black_box(probe_nabhash_v2(&data));
    black_box(probe_xxh3_64(&data));
    black_box(probe_xxh3_128(&data));
    #[cfg(target_feature = "aes")]
    black_box(probe_gxhash128(&data));
    black_box(probe_foldhash_quality(&data));
    black_box(probe_bignum_fib(black_box(1_000_000)));
}
