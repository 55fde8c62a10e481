//! Benches of `kcapi` against its peers: being built.

fn main() {}
