//! The one helper that reads the test vectors in `tests/data/` (STYLE.md rule 6).
//! The files are compiled in, so the test binaries run unchanged under qemu-user.

#![allow(dead_code)]

/// `(input, digest)` pairs of NABHash v1 with inputs of at most `max_len` bytes.
pub fn v1_vectors(max_len: usize) -> Vec<(Vec<u8>, [u8; 16])> {
    let mut out = Vec::new();
    let mut records_seen = 0;
    // seed len digest; input byte i = (i*seed + (i>>8)*7 + 1) mod 256.
    for fields in records(include_str!("../data/nabhash-v1.txt"), 3) {
        let seed: usize = fields[0].parse().expect("seed");
        let len: usize = fields[1].parse().expect("len");
        records_seen += 1;
        if len > max_len {
            continue;
        }
        let input = (0..len).map(|i| (i * seed + (i >> 8) * 7 + 1) as u8).collect();
        out.push((input, digest(fields[2])));
    }
    // input-hex digest
    for fields in records(include_str!("../data/nabhash-v1-extra.txt"), 2) {
        records_seen += 1;
        out.push((unhex(fields[0]), digest(fields[1])));
    }
    assert!(records_seen > 270, "vector files look truncated: {records_seen} records");
    out
}

/// `(input, seed, digest)` triples of NABHash v2 with inputs of at most `max_len` bytes.
pub fn v2_vectors(max_len: usize) -> Vec<(Vec<u8>, u64, [u8; 16])> {
    let mut out = Vec::new();
    let mut records_seen = 0;
    // gen len seed digest; input byte i = (i*gen + (i>>8)*7 + 1) mod 256.
    for fields in records(include_str!("../data/nabhash-v2.txt"), 4) {
        let gen_: usize = fields[0].parse().expect("gen");
        let len: usize = fields[1].parse().expect("len");
        let seed: u64 = fields[2].parse().expect("seed");
        records_seen += 1;
        if len <= max_len {
            let input = (0..len).map(|i| (i * gen_ + (i >> 8) * 7 + 1) as u8).collect();
            out.push((input, seed, digest(fields[3])));
        }
    }
    assert!(records_seen > 900, "v2 vector file looks truncated: {records_seen} records");
    out
}

/// The whitespace-separated fields of each non-comment line, which must number `n`.
fn records(text: &str, n: usize) -> impl Iterator<Item = Vec<&str>> {
    text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(move |l| {
        let fields: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(fields.len(), n, "malformed vector line {l:?}");
        fields
    })
}

pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length in {s:?}");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn digest(s: &str) -> [u8; 16] {
    unhex(s).try_into().expect("a digest is 16 bytes")
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `(kind, seed, input, finish_u128)` records of `tests/data/nabhasher.txt`.
pub fn nabhasher_vectors() -> Vec<(&'static str, u64, Vec<u8>, u128)> {
    let out: Vec<_> = records(include_str!("../data/nabhasher.txt"), 4)
        .map(|f| {
            let input = if f[2] == "-" { Vec::new() } else { unhex(f[2]) };
            let want = u128::from_str_radix(f[3], 16).expect("hash");
            (f[0], f[1].parse().expect("seed"), input, want)
        })
        .collect();
    assert!(out.len() > 150, "nabhasher vector file looks truncated: {} records", out.len());
    out
}
