//! Sets two cfgs:
//! - `cfg(b64_cli_map)`: the `b64` binary maps regular input files (Linux on x86_64, aarch64
//!   and riscv64, where the truncation (SIGBUS) handling is tested; under qemu-user on mips64
//!   the signal never reaches the handler, so mips64 and the others read their input);
//! - `cfg(b64_rvv)`: building for riscv64 with the V extension enabled.
//!
//! On stable Rust `v` is an unstable target feature: `-C target-feature=+v` enables it for code
//! generation and the assembler, but `cfg(target_feature = "v")` stays false. So the flag is
//! read from the build's RUSTFLAGS (and from the target features cargo reports, which include
//! `v` on nightly), by `nab_isa::build_script`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(b64_rvv)");
    println!("cargo::rustc-check-cfg=cfg(b64_cli_map)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" && matches!(arch.as_str(), "x86_64" | "aarch64" | "riscv64") {
        println!("cargo::rustc-cfg=b64_cli_map");
    }
    if nab_isa::build_script::build_enables("v") && arch == "riscv64" {
        println!("cargo::rustc-cfg=b64_rvv");
    }
}
