//! Prints `crate=backend` for each crate of the workspace: the kernels the benches measure on
//! this machine with these build flags (`cargo xtask bench` puts them in the report).

fn main() {
    println!("nabhash={}", nabhash::Backend::detect().name());
}
