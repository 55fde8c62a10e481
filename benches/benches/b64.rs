//! Benches of `b64` against its peers: being built.

fn main() {}
