//! Sets `cfg(memops_rvv)` when building for riscv64 with the V extension enabled at compile
//! time. Stable rustc leaves unstable target features such as `v` out of
//! `cfg(target_feature)` even when `-C target-feature=+v` enables them, so the flags are read
//! as well (what `cargo xtask test` passes for the RVV rows), by `nab_isa::build_script`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(memops_rvv)");
    let riscv64 = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("riscv64");
    if nab_isa::build_script::build_enables("v") && riscv64 {
        println!("cargo::rustc-cfg=memops_rvv");
    }
}
