//! b64 against the base64 codecs a user would otherwise pick, and a `copy_from_slice` of the
//! same size (the speed of light of the same harness), at 16 B … 1 MiB.
//!
//! Sizes are of the *input*: `encode` reads `size` bytes of data, `decode` reads `size`
//! bytes of base64 text (the encoding of `size / 4 * 3` bytes). Throughput is input bytes per
//! second, so each codec's ratio to `memcpy` at the same size is read off directly. Every
//! codec writes into a preallocated slice.
//!
//! Peers: `base64` 0.22 (`GeneralPurpose`), `base64` 0.23 (`Simd` engine, AVX2/NEON picked at
//! run time), `base64-simd` 0.8, and simdutf (C++, the base64 of Node.js and Bun; through the
//! `simdutf` crate with the `peers-simdutf` feature; it picks its kernel at run time, and
//! `SIMDUTF_FORCE_IMPLEMENTATION` pins it).
//!
//! Input shapes besides the unbroken, unpadded text of `b64/decode`:
//!
//! - `b64/encode-tail`, `b64/decode-padded`, `b64/decode-unpadded`: data lengths of every
//!   residue mod 3 (the parameter is the *data* length; throughput counts the input bytes);
//! - `b64/decode-wrapped-76lf`, `b64/decode-wrapped-64crlf`: text wrapped at 76 columns with LF
//!   and at 64 with CRLF (PEM), decoded by the forgiving (WHATWG) decoders: b64's `FORGIVING`,
//!   simdutf, and `base64-simd`'s `forgiving_decode`; the parameter is the text length.

use std::hint::black_box;

use b64::prelude::*;
use base64::Engine as _;
use base64_023::Engine as _;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};

const SIZES: [usize; 8] = [16, 64, 256, 1024, 4096, 16384, 65536, 1 << 20];
/// Data lengths of every residue mod 3 (1, 2, 0), short and long; 16 and 18 (and 64 and 66)
/// encode to texts of the same length, 24 (88), padded with `==` and unpadded.
const TAILS: [usize; 10] = [16, 18, 64, 66, 100, 101, 102, 4096, 4097, 4098];

/// [`TAILS`], or under `--quick` one length of each residue (100, 4097, 4098).
fn tails() -> Vec<usize> {
    if benches::quick() { vec![TAILS[4], TAILS[8], TAILS[9]] } else { TAILS.to_vec() }
}
/// Wrapped text lengths (about; the text is the wrapping of `size / 4 * 3` data bytes).
const WRAPPED: [usize; 3] = [1024, 65536, 1 << 20];

/// simdutf's base64 through the `simdutf` crate.
#[cfg(feature = "peers-simdutf")]
mod simdutf_b64 {
    use simdutf::{Base64Options, ErrorCode, LastChunkHandlingOptions};

    pub const NAME: &str = "simdutf";

    /// Encodes `data` into `out` (which must hold the encoding); returns the length.
    pub fn encode(data: &[u8], out: &mut [u8], pad: bool) -> usize {
        let opt = if pad { Base64Options::Default } else { Base64Options::DefaultNoPadding };
        assert!(out.len() >= simdutf::base64_length_from_binary(data.len(), opt));
        // SAFETY: `out` holds the encoding's length (checked above).
        unsafe { simdutf::binary_to_base64(data.as_ptr(), data.len(), out.as_mut_ptr(), opt) }
    }

    /// Decodes (WHATWG forgiving: whitespace skipped, padding optional) `text` into `out`;
    /// returns the length, panics on invalid input.
    pub fn decode(text: &[u8], out: &mut [u8]) -> usize {
        let mut len = out.len();
        // SAFETY: `out` holds `len` bytes; the safe variant writes at most `len`.
        let r = unsafe {
            simdutf::base64_to_binary_safe(
                text.as_ptr(),
                text.len(),
                out.as_mut_ptr(),
                &mut len,
                Base64Options::Default,
                LastChunkHandlingOptions::Loose,
                false,
            )
        };
        assert_eq!(r.error, ErrorCode::Success);
        len
    }
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("b64/encode");
    for size in benches::sizes(&SIZES) {
        let data = benches::input(size);
        let mut out = vec![0u8; size / 3 * 4 + 4];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("b64", size), &data, |b, d| {
            b.iter(|| BASE64_STANDARD.encode_slice(black_box(d), &mut out).unwrap())
        });
        // Every backend separately, except in `--quick` runs (the dispatched one is `b64`).
        for backend in b64::backends().filter(|_| !benches::quick()) {
            let e = BASE64_STANDARD.with_backend(backend);
            let name = format!("b64-{}", backend.name());
            group.bench_with_input(BenchmarkId::new(name, size), &data, |b, d| {
                b.iter(|| e.encode_slice(black_box(d), &mut out).unwrap())
            });
        }
        encode_peers(&mut group, size, &data, &mut out);
        let mut copy = vec![0u8; size];
        group.bench_with_input(BenchmarkId::new("memcpy", size), &data, |b, d| {
            b.iter(|| copy.copy_from_slice(black_box(d)))
        });
    }
    group.finish();
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("b64/decode");
    let simd023 =
        base64_023::engine::Simd::standard(base64_023::engine::GeneralPurposeConfig::new());
    for size in benches::sizes(&SIZES) {
        let mut text = vec![0u8; size];
        let n = BASE64_STANDARD.encode_slice(benches::input(size / 4 * 3), &mut text).unwrap();
        assert_eq!(n, size);
        let mut out = vec![0u8; size / 4 * 3 + 64];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("b64", size), &text, |b, t| {
            b.iter(|| BASE64_STANDARD.decode_slice(black_box(t), &mut out).unwrap())
        });
        // Every backend separately, except in `--quick` runs (the dispatched one is `b64`).
        for backend in b64::backends().filter(|_| !benches::quick()) {
            let e = BASE64_STANDARD.with_backend(backend);
            let name = format!("b64-{}", backend.name());
            group.bench_with_input(BenchmarkId::new(name, size), &text, |b, t| {
                b.iter(|| e.decode_slice(black_box(t), &mut out).unwrap())
            });
        }
        group.bench_with_input(BenchmarkId::new("base64-0.22", size), &text, |b, t| {
            b.iter(|| {
                base64::engine::general_purpose::STANDARD
                    .decode_slice(black_box(t), &mut out)
                    .unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("base64-0.23-simd", size), &text, |b, t| {
            b.iter(|| simd023.decode_slice(black_box(t), &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("base64-simd", size), &text, |b, t| {
            b.iter(|| {
                base64_simd::STANDARD
                    .decode(black_box(t), base64_simd::Out::from_slice(&mut out))
                    .unwrap()
                    .len()
            })
        });
        #[cfg(feature = "peers-simdutf")]
        group.bench_with_input(BenchmarkId::new(simdutf_b64::NAME, size), &text, |b, t| {
            b.iter(|| simdutf_b64::decode(black_box(t), &mut out))
        });
        let mut copy = vec![0u8; size];
        group.bench_with_input(BenchmarkId::new("memcpy", size), &text, |b, t| {
            b.iter(|| copy.copy_from_slice(black_box(t)))
        });
    }
    group.finish();
}

/// Encoding of data lengths of every residue mod 3, padded (the parameter is the data length).
fn encode_tail(c: &mut Criterion) {
    let mut group = c.benchmark_group("b64/encode-tail");
    for n in tails() {
        let data = benches::input(n);
        let mut out = vec![0u8; n / 3 * 4 + 4];
        group.throughput(Throughput::Bytes(n as u64));
        group.bench_with_input(BenchmarkId::new("b64", n), &data, |b, d| {
            b.iter(|| BASE64_STANDARD.encode_slice(black_box(d), &mut out).unwrap())
        });
        encode_peers(&mut group, n, &data, &mut out);
    }
    group.finish();
}

/// The peers' rows of a padded standard-alphabet encoding of `data` into `out`.
fn encode_peers(
    group: &mut BenchmarkGroup<'_, WallTime>,
    param: usize,
    data: &[u8],
    out: &mut [u8],
) {
    let simd023 =
        base64_023::engine::Simd::standard(base64_023::engine::GeneralPurposeConfig::new());
    group.bench_with_input(BenchmarkId::new("base64-0.22", param), data, |b, d| {
        b.iter(|| {
            base64::engine::general_purpose::STANDARD.encode_slice(black_box(d), out).unwrap()
        })
    });
    group.bench_with_input(BenchmarkId::new("base64-0.23-simd", param), data, |b, d| {
        b.iter(|| simd023.encode_slice(black_box(d), out).unwrap())
    });
    group.bench_with_input(BenchmarkId::new("base64-simd", param), data, |b, d| {
        b.iter(|| {
            base64_simd::STANDARD.encode(black_box(d), base64_simd::Out::from_slice(out)).len()
        })
    });
    #[cfg(feature = "peers-simdutf")]
    group.bench_with_input(BenchmarkId::new(simdutf_b64::NAME, param), data, |b, d| {
        b.iter(|| simdutf_b64::encode(black_box(d), out, true))
    });
}

/// Decoding of the padded (`decode-padded`) and unpadded (`decode-unpadded`) encodings of data
/// lengths of every residue mod 3 (the parameter is the data length, the throughput counts the
/// text).
fn decode_tail(c: &mut Criterion) {
    use base64_023::engine::{DecodePaddingMode, GeneralPurposeConfig};
    for pad in [true, false] {
        let name = if pad { "b64/decode-padded" } else { "b64/decode-unpadded" };
        let mut group = c.benchmark_group(name);
        let (ours, gp022) = if pad {
            (BASE64_STANDARD, base64::engine::general_purpose::STANDARD)
        } else {
            (BASE64_STANDARD_NO_PAD, base64::engine::general_purpose::STANDARD_NO_PAD)
        };
        let config =
            GeneralPurposeConfig::new().with_encode_padding(pad).with_decode_padding_mode(if pad {
                DecodePaddingMode::RequireCanonical
            } else {
                DecodePaddingMode::RequireNone
            });
        let simd023 = base64_023::engine::Simd::standard(config);
        let bsimd = if pad { base64_simd::STANDARD } else { base64_simd::STANDARD_NO_PAD };
        for n in tails() {
            let mut text = vec![0u8; ours.encoded_len(n).unwrap()];
            ours.encode_slice(benches::input(n), &mut text).unwrap();
            let mut out = vec![0u8; n + 64];
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new("b64", n), &text, |b, t| {
                b.iter(|| ours.decode_slice(black_box(t), &mut out).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("base64-0.22", n), &text, |b, t| {
                b.iter(|| gp022.decode_slice(black_box(t), &mut out).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("base64-0.23-simd", n), &text, |b, t| {
                b.iter(|| simd023.decode_slice(black_box(t), &mut out).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("base64-simd", n), &text, |b, t| {
                b.iter(|| {
                    bsimd
                        .decode(black_box(t), base64_simd::Out::from_slice(&mut out))
                        .unwrap()
                        .len()
                })
            });
            #[cfg(feature = "peers-simdutf")]
            group.bench_with_input(BenchmarkId::new(simdutf_b64::NAME, n), &text, |b, t| {
                b.iter(|| simdutf_b64::decode(black_box(t), &mut out))
            });
        }
        group.finish();
    }
}

/// Line-wrapped text (76 columns LF; 64 columns CRLF as in PEM) through the forgiving decoders.
fn decode_wrapped(c: &mut Criterion) {
    for (name, wrap) in [
        (
            "b64/decode-wrapped-76lf",
            b64::engine::LineWrap { width: 76, ending: b64::engine::LineEnding::Lf },
        ),
        (
            "b64/decode-wrapped-64crlf",
            b64::engine::LineWrap { width: 64, ending: b64::engine::LineEnding::CrLf },
        ),
    ] {
        let mut group = c.benchmark_group(name);
        for size in benches::sizes(&WRAPPED) {
            let data = benches::input(size / 4 * 3);
            let mut text = vec![0u8; BASE64_STANDARD.wrapped_len(data.len(), wrap).unwrap()];
            BASE64_STANDARD.encode_wrapped_slice(&data, wrap, &mut text).unwrap();
            // base64-simd's `forgiving_decode` wants room for the whole text.
            let mut out = vec![0u8; text.len() + 64];
            assert_eq!(BASE64_FORGIVING.decode_slice(&text, &mut out).unwrap(), data.len());
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new("b64", size), &text, |b, t| {
                b.iter(|| BASE64_FORGIVING.decode_slice(black_box(t), &mut out).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("base64-simd", size), &text, |b, t| {
                b.iter(|| {
                    base64_simd::forgiving_decode(
                        black_box(t),
                        base64_simd::Out::from_slice(&mut out),
                    )
                    .unwrap()
                    .len()
                })
            });
            #[cfg(feature = "peers-simdutf")]
            {
                assert_eq!(simdutf_b64::decode(&text, &mut out), data.len());
                group.bench_with_input(BenchmarkId::new(simdutf_b64::NAME, size), &text, |b, t| {
                    b.iter(|| simdutf_b64::decode(black_box(t), &mut out))
                });
            }
        }
        group.finish();
    }
}

/// Text lengths of `b64/decode-ws-*` (the whitespace included).
const LAYOUT_SIZES: [usize; 4] = [256, 4096, 65536, 8 << 20];

/// The whitespace layouts of `b64/decode-ws-*`: `(name, text)` for `data`'s encoding laid
/// out that way, cut to about `size` bytes of text (whole lines, whole groups).
fn layouts(size: usize) -> Vec<(String, Vec<u8>)> {
    let data = benches::input(size / 4 * 3 + 3);
    let mut text = vec![0u8; BASE64_STANDARD.encoded_len(data.len()).unwrap()];
    BASE64_STANDARD.encode_slice(&data, &mut text).unwrap();
    let mut out = Vec::new();
    // Lines of `w` symbols with `end` after each, `lead` before each.
    let lines = |w: usize, lead: &[u8], end: &[u8]| {
        let mut t = Vec::with_capacity(size + size / 8);
        for line in text.chunks(w) {
            if t.len() + lead.len() + line.len() + end.len() > size {
                break;
            }
            t.extend_from_slice(lead);
            t.extend_from_slice(line);
            t.extend_from_slice(end);
        }
        t
    };
    for w in [40, 64, 76, 100] {
        out.push((format!("{w}lf"), lines(w, b"", b"\n")));
        out.push((format!("{w}crlf"), lines(w, b"", b"\r\n")));
        out.push((format!("{w}sp"), lines(w, b"", b" ")));
    }
    out.push(("indent4".into(), lines(76, b"    ", b"\n")));
    // One whitespace byte every 1 to 17 bytes at random.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut t = Vec::with_capacity(size);
    let mut gap = 0;
    for &b in &text {
        if t.len() + 2 > size {
            break;
        }
        if gap == 0 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t.push(b" \t\n\r"[(x >> 8) as usize % 4]);
            gap = 1 + (x >> 32) as usize % 17;
        }
        t.push(b);
        gap -= 1;
    }
    let groups = t.iter().filter(|b| !b.is_ascii_whitespace()).count() / 4 * 4;
    let mut kept = 0;
    t.retain(|b| {
        let keep = b.is_ascii_whitespace() || kept < groups;
        kept += usize::from(!b.is_ascii_whitespace());
        keep
    });
    out.push(("random1-17".into(), t));
    // The same symbols with no whitespace: our flat decode, the ratio's denominator.
    out.push(("flat".into(), text[..size / 4 * 4].to_vec()));
    out
}

/// Forgiving decode of text with whitespace in every layout of [`layouts`]: b64's
/// `FORGIVING`, simdutf's `base64_to_binary` (default options) and `base64-simd`'s
/// `forgiving_decode` (where it accepts the text: it skips `\n \r \t` and space).
/// Throughput is text bytes, whitespace included.
fn decode_layouts(c: &mut Criterion) {
    let sizes: Vec<usize> =
        if benches::quick() { vec![4096, 65536] } else { LAYOUT_SIZES.to_vec() };
    let only = std::env::var("B64_LAYOUTS").ok();
    for size in sizes {
        for (name, text) in layouts(size) {
            if only.as_deref().is_some_and(|o| !o.split(',').any(|l| l == name)) {
                continue;
            }
            let mut group = c.benchmark_group(format!("b64/decode-ws-{name}"));
            if size >= 1 << 20 {
                group.sample_size(10);
            }
            let mut out = vec![0u8; text.len() + 64];
            let n = BASE64_FORGIVING.decode_slice(&text, &mut out).unwrap();
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new("b64", size), &text, |b, t| {
                b.iter(|| BASE64_FORGIVING.decode_slice(black_box(t), &mut out).unwrap())
            });
            if base64_simd::forgiving_decode(&text, base64_simd::Out::from_slice(&mut out))
                .is_ok_and(|d| d.len() == n)
            {
                group.bench_with_input(BenchmarkId::new("base64-simd", size), &text, |b, t| {
                    b.iter(|| {
                        base64_simd::forgiving_decode(
                            black_box(t),
                            base64_simd::Out::from_slice(&mut out),
                        )
                        .unwrap()
                        .len()
                    })
                });
            }
            #[cfg(feature = "peers-simdutf")]
            {
                assert_eq!(simdutf_b64::decode(&text, &mut out), n);
                group.bench_with_input(BenchmarkId::new(simdutf_b64::NAME, size), &text, |b, t| {
                    b.iter(|| simdutf_b64::decode(black_box(t), &mut out))
                });
            }
            group.finish();
        }
    }
}

criterion_group!(
    b64_benches,
    encode,
    decode,
    encode_tail,
    decode_tail,
    decode_wrapped,
    decode_layouts
);
criterion_main!(b64_benches);
