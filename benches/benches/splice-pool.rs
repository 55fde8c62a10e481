//! Benches of `splice-pool` against its peers: being built.

fn main() {}
