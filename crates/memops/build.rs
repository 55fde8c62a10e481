//! Sets `cfg(memops_rvv)` when building for riscv64 with the V extension enabled at compile
//! time. Stable rustc leaves unstable target features such as `v` out of
//! `cfg(target_feature)` even when `-C target-feature=+v` enables them, so the flags are read
//! as well (what `cargo xtask test` passes for the RVV rows).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(memops_rvv)");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("riscv64") {
        return;
    }
    let mut v =
        std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default().split(',').any(|f| f == "v");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut flags = flags.split('\x1f').peekable();
    while let Some(flag) = flags.next() {
        let value = if flag == "-C" || flag == "--codegen" {
            flags.peek().copied().unwrap_or("")
        } else {
            flag.strip_prefix("-C").unwrap_or("")
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
        println!("cargo::rustc-cfg=memops_rvv");
    }
}
