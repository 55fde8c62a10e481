//! `bignum-fib`: being built.
