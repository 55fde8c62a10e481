//! The test vectors of `tests/data/`, read by `testkit::vectors` (STYLE.md rule 6).
//! The files are compiled in, so the test binaries run unchanged under qemu-user.

#![allow(dead_code, unused_imports)]

use testkit::vectors::Row;
pub use testkit::vectors::{hex, unhex};

/// `(input, digest)` pairs of NABHash v1 with inputs of at most `max_len` bytes.
pub fn v1_vectors(max_len: usize) -> Vec<(Vec<u8>, [u8; 16])> {
    let mut out = Vec::new();
    // seed len digest; input byte i = (i*seed + (i>>8)*7 + 1) mod 256.
    let generated = testkit::data_file!("nabhash-v1.txt").rows(3);
    // input-hex digest
    let extra = testkit::data_file!("nabhash-v1-extra.txt").rows(2);
    let records_seen = generated.len() + extra.len();
    assert!(records_seen > 270, "vector files look truncated: {records_seen} records");
    for f in &generated {
        let (seed, len): (usize, usize) = (f.parse(0), f.parse(1));
        if len <= max_len {
            let input = (0..len).map(|i| (i * seed + (i >> 8) * 7 + 1) as u8).collect();
            out.push((input, digest(f, 2)));
        }
    }
    for f in &extra {
        out.push((f.hex(0), digest(f, 1)));
    }
    out
}

/// `(input, seed, digest)` triples of NABHash v2 with inputs of at most `max_len` bytes.
pub fn v2_vectors(max_len: usize) -> Vec<(Vec<u8>, u64, [u8; 16])> {
    // gen len seed digest; input byte i = (i*gen + (i>>8)*7 + 1) mod 256.
    let rows = testkit::data_file!("nabhash-v2.txt").rows(4);
    assert!(rows.len() > 900, "v2 vector file looks truncated: {} records", rows.len());
    rows.iter()
        .filter(|f| f.parse::<usize>(1) <= max_len)
        .map(|f| {
            let (gen_, len): (usize, usize) = (f.parse(0), f.parse(1));
            let input = (0..len).map(|i| (i * gen_ + (i >> 8) * 7 + 1) as u8).collect();
            (input, f.parse(2), digest(f, 3))
        })
        .collect()
}

/// Column `i` of `f`: a 16-byte digest in hex.
fn digest(f: &Row, i: usize) -> [u8; 16] {
    f.hex(i).try_into().unwrap_or_else(|_| panic!("{}: a digest is 16 bytes", f.at))
}

/// `(kind, seed, input, finish_u128)` records of `tests/data/nabhasher.txt`.
pub fn nabhasher_vectors() -> Vec<(&'static str, u64, Vec<u8>, u128)> {
    let out: Vec<_> = testkit::data_file!("nabhasher.txt")
        .rows(4)
        .iter()
        .map(|f| {
            let input = if &f[2] == "-" { Vec::new() } else { f.hex(2) };
            let want = u128::from_str_radix(&f[3], 16).expect("hash");
            (f.fields[0], f.parse(1), input, want)
        })
        .collect();
    assert!(out.len() > 150, "nabhasher vector file looks truncated: {} records", out.len());
    out
}
