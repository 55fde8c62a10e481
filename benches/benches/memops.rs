//! Benches of `memops` against its peers: being built.

fn main() {}
