//! memops' `c-symbols` as a shared library to preload: the symbols come from memops; this crate
//! only links them into a `cdylib` and supplies what a `no_std` library must (a panic handler;
//! memops never panics on its `c-symbols` paths, so it is never called).
#![no_std]

use memops as _;

/// Never called (see the crate docs); stops the process without unwinding.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // `ud2` raises SIGILL: no unwinding, no allocation, no call back into the C library.
    // SAFETY: `ud2` only traps.
    unsafe { core::arch::asm!("ud2", options(noreturn)) }
}

/// The precompiled `core` refers to it even with `panic = "abort"`; never called.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}
