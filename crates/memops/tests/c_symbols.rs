//! Feature `c-symbols`: builds a static, `-nostdlib` x86_64 binary (no C library at all, its own
//! `_start`) that uses `memcpy`/`memmove`/`memset`/`memcmp`/`bcmp`, checks with `nm` that they
//! are defined (`T`) in the binary — with no libc linked they can only be this crate's — and runs
//! it. Needs `cargo` (the one running this test) and binutils' `nm`; nothing to install.

#![cfg(all(target_arch = "x86_64", target_os = "linux", not(miri)))]

use std::path::{Path, PathBuf};
use std::process::Command;

use link::run;

mod link;

const MAIN_RS: &str = r#"
#![no_std]
#![no_main]

use core::arch::{asm, naked_asm};

// Link memops: its `c-symbols` feature is the only source of the five functions below.
use memops as _;

unsafe extern "C" {
    fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8;
    fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8;
    fn memset(d: *mut u8, c: i32, n: usize) -> *mut u8;
    fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32;
    fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32;
}

fn exit(code: i32) -> ! {
    // SAFETY: exit_group never returns.
    unsafe { asm!("syscall", in("rax") 231, in("rdi") code, options(noreturn)) }
}

fn write(s: &[u8]) {
    // SAFETY: write(1, s, len) reads `s` only.
    unsafe {
        asm!("syscall", inlateout("rax") 1usize => _, in("rdi") 1, in("rsi") s.as_ptr(),
             in("rdx") s.len(), lateout("rcx") _, lateout("r11") _, options(nostack));
    }
}

/// The precompiled `core` refers to it even with `panic = "abort"`; never called.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    write(b"panic\n");
    exit(101)
}

fn check(ok: bool, what: &[u8]) {
    if !ok {
        write(what);
        exit(1);
    }
}

/// The kernel enters with an aligned stack and no return address: align and call.
#[unsafe(no_mangle)]
#[unsafe(naked)]
pub extern "C" fn _start() -> ! {
    naked_asm!("xor ebp, ebp", "and rsp, -16", "call {}", "ud2", sym start)
}

extern "C" fn start() -> ! {
    let mut a = [0u8; 1000];
    let mut b = [0u8; 1000];
    for (i, x) in a.iter_mut().enumerate() {
        *x = (i * 7 + 3) as u8;
    }
    let (pa, pb) = (core::hint::black_box(a.as_mut_ptr()), core::hint::black_box(b.as_mut_ptr()));
    // SAFETY: both arrays hold 1000 bytes.
    unsafe {
        for n in [0usize, 1, 7, 16, 33, 100, 257, 1000] {
            // Opaque sizes, so that LLVM emits the calls instead of inlining known-size copies.
            let (n, all) = (core::hint::black_box(n), core::hint::black_box(1000));
            memset(pb, 0, all);
            memcpy(pb, pa, n);
            check(memcmp(pa, pb, n) == 0 && bcmp(pa, pb, n) == 0, b"memcpy/memcmp\n");
            check(n == 1000 || *pb.add(n) == 0, b"memcpy overran\n");
            if n > 0 {
                *pb.add(n - 1) ^= 1;
                // The sign, so that LLVM cannot turn the call into `bcmp`.
                let want = (*pa.add(n - 1)).cmp(&*pb.add(n - 1)) as i32;
                check(memcmp(pa, pb, n).signum() == want, b"memcmp sign\n");
                check(bcmp(pa, pb, n) != 0, b"bcmp missed\n");
            }
        }
        memmove(pa.add(1), pa, core::hint::black_box(999));
        check(*pa.add(1) == 3 && *pa.add(999) == ((998 * 7 + 3) as u8), b"memmove\n");
        memset(pa, 0x41, core::hint::black_box(1000));
        check(*pa == 0x41 && *pa.add(999) == 0x41, b"memset\n");
    }
    write(b"c-symbols ok\n");
    exit(0)
}
"#;

#[test]
fn static_nostdlib_binary_uses_our_symbols() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-symbols-app");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let memops = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"c-symbols-app\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\nmemops = {{ path = {:?}, features = [\"c-symbols\"] }}\n\n\
             [profile.dev]\npanic = \"abort\"\nopt-level = 1\n\n[workspace]\n",
            memops.display()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/main.rs"), MAIN_RS).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = dir.join("target");
    run(Command::new(cargo)
        .current_dir(&dir)
        .args(["build", "--quiet", "--target", "x86_64-unknown-linux-gnu", "--target-dir"])
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env(
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
            "-C panic=abort -C relocation-model=static -C link-arg=-nostartfiles \
             -C link-arg=-nostdlib -C link-arg=-static",
        ));
    let bin = target_dir.join("x86_64-unknown-linux-gnu/debug/c-symbols-app");

    let nm = link::assert_defines_c_symbols(&bin);
    // Nothing else could have supplied them: no C library is linked.
    assert!(!nm.contains("__libc_start_main"), "a C library got linked");
    assert!(nm.contains("memops"), "no memops symbols in the binary");

    let out = run(&mut Command::new(&bin));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "c-symbols ok\n");
}
