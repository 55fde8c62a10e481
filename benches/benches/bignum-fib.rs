//! Benches of `bignum-fib` against its peers: being built.

fn main() {}
