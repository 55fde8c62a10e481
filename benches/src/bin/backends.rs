//! Prints `crate=backend` for each crate of the workspace: the kernels the benches measure on
//! this machine with these build flags (`cargo xtask bench` puts them in the report).

fn main() {
    println!("nabhash={}", nabhash::Backend::detect().name());
    println!("b64={}", b64::Backend::detect().name());
    println!("memops={}", memops::Backend::detect().name());
    println!(
        "bignum-fib={}, NTT {}",
        bignum_fib::Backend::detect().name(),
        bignum_fib::ntt_engine()
    );
    println!("splice-pool=syscalls (splice, sendfile, copy_file_range)");
    println!("kcapi=AF_ALG (needs a kernel with it: `cargo xtask vm-test --bench`)");
}
