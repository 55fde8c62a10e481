//! Sets two cfgs:
//! - `cfg(b64_cli_map)`: the `b64` binary maps regular input files (Linux on x86_64, aarch64
//!   and riscv64, where the truncation (SIGBUS) handling is tested; under qemu-user on mips64
//!   the signal never reaches the handler, so mips64 and the others read their input);
//! - `cfg(b64_rvv)`: building for riscv64 with the V extension enabled.
//!
//! On stable Rust `v` is an unstable target feature: `-C target-feature=+v` enables it for code
//! generation and the assembler, but `cfg(target_feature = "v")` stays false. So the flag is
//! read from the build's RUSTFLAGS (and from the target features cargo reports, which include
//! `v` on nightly).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(b64_rvv)");
    println!("cargo::rustc-check-cfg=cfg(b64_cli_map)");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" && matches!(arch.as_str(), "x86_64" | "aarch64" | "riscv64") {
        println!("cargo::rustc-cfg=b64_cli_map");
    }
    if arch != "riscv64" {
        return;
    }
    let reported = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let mut v = reported.split(',').any(|f| f == "v");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut args = flags.split('\x1f').peekable();
    while let Some(arg) = args.next() {
        let value = if arg == "-C" || arg == "--codegen" {
            args.next().unwrap_or_default()
        } else {
            arg.strip_prefix("-C").unwrap_or_default()
        };
        if let Some(list) = value.strip_prefix("target-feature=") {
            for f in list.split(',') {
                match f {
                    "+v" => v = true,
                    "-v" => v = false,
                    _ => {}
                }
            }
        }
    }
    if v {
        println!("cargo::rustc-cfg=b64_rvv");
    }
}
