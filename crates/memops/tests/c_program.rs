//! Feature `c-symbols` from C: a static library whose only code is memops with the feature
//! (built by the `cargo` running this test), a C program compiled and linked with it by the
//! C compiler the `cc` crate finds (`tests/c/check_c_symbols.c`), and `nm` to check that the
//! program's `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` are its own text symbols
//! (memops', not the C library's, which would be undefined here, bound at run time). The
//! program checks each against its own byte loops over every size 0..=300 and a few large
//! ones. Host only: under qemu-user there is no C toolchain for the target.

#![cfg(all(
    target_os = "linux",
    target_env = "gnu",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]

use std::path::{Path, PathBuf};
use std::process::Command;

use link::run;

mod link;

/// The target this test binary was built for: the static library and the program are built
/// for it too.
const TARGET: &str = if cfg!(target_arch = "x86_64") {
    "x86_64-unknown-linux-gnu"
} else {
    "aarch64-unknown-linux-gnu"
};

const LIB_RS: &str = r#"
#![no_std]

// Link memops: its `c-symbols` feature exports the five functions the C program calls.
use memops as _;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// The precompiled `core` refers to it even with `panic = "abort"`; never called.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}
"#;

/// Builds the static library; returns its path.
fn static_library(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let memops = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"memops-c\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[lib]\ncrate-type = [\"staticlib\"]\n\n\
             [dependencies]\nmemops = {{ path = {:?}, features = [\"c-symbols\"] }}\n\n\
             [profile.dev]\npanic = \"abort\"\nopt-level = 1\n\n[workspace]\n",
            memops.display()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), LIB_RS).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = dir.join("target");
    run(Command::new(cargo)
        .current_dir(dir)
        .args(["build", "--quiet", "--target", TARGET, "--target-dir"])
        .arg(&target_dir)
        // The flags of the test build (a backend forced by `--cfg`, linker arguments) are not
        // this library's.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS"));
    target_dir.join(TARGET).join("debug/libmemops_c.a")
}

#[test]
fn c_program_checks_the_exported_functions() {
    // Cross rows run this binary under qemu-user, which cannot run the host's cargo and C
    // compiler for the target: the host stage covers the test.
    if std::env::var_os("XTASK_EMULATED").is_some_and(|v| v == "1") {
        eprintln!("note: c_program skipped under emulation (no C toolchain for the target)");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-symbols-from-c");
    let lib = static_library(&dir);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/check_c_symbols.c");
    let exe = dir.join("check_c_symbols");

    // The C compiler and its flags as a build script would get them.
    let compiler = cc::Build::new()
        .target(TARGET)
        .host(TARGET)
        .opt_level(2)
        .debug(false)
        .cargo_metadata(false)
        .emit_rerun_if_env_changed(false)
        .warnings(true)
        .extra_warnings(true)
        // Calls, not the compiler's own expansions of the five functions.
        .flag("-fno-builtin")
        .try_get_compiler()
        .unwrap_or_else(|e| panic!("no C compiler for {TARGET} (install gcc or clang): {e}"));
    // The library after the program's object, so that it supplies the five symbols before
    // the C library (linked last by the driver) can.
    run(compiler.to_command().arg(&source).arg("-o").arg(&exe).arg(&lib));

    link::assert_defines_c_symbols(&exe);

    let out = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "c-symbols from C ok\n");
}
