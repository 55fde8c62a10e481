//! Not a benchmark. Prints `crate=backend` for each crate of the workspace: the kernels the
//! benches measure on this machine with these build flags and this environment (`NAB_MAX_ISA`),
//! and where glibc's IFUNCs resolved under this `GLIBC_TUNABLES` (`glibc.<function>=<library>+<offset>`, which
//! `cargo xtask bench` turns into the variant's name with the library's debug symbols).
//! `cargo xtask bench` puts them in the report.

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
    glibc_variants();
}

/// The address each of glibc's `memmove`, `memset`, `memcmp`, `memchr` resolved to, as
/// library + offset. Taking a function's address in a position-independent executable loads it
/// from the GOT, which the dynamic loader filled with the IFUNC resolver's choice: the code the
/// benches' calls run.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_variants() {
    let functions: [(&str, usize); 4] = [
        ("memmove", libc::memmove as *const () as usize),
        ("memset", libc::memset as *const () as usize),
        ("memcmp", libc::memcmp as *const () as usize),
        ("memchr", libc::memchr as *const () as usize),
    ];
    for (name, addr) in functions {
        let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
        // SAFETY: `info` is a valid out-pointer; `addr` is only looked up, not dereferenced.
        let found = unsafe { libc::dladdr(addr as *const libc::c_void, info.as_mut_ptr()) };
        if found == 0 {
            println!("glibc.{name}=? {addr:#x}");
            continue;
        }
        // SAFETY: `dladdr` succeeded and filled `info`.
        let info = unsafe { info.assume_init() };
        // SAFETY: `dli_fname` is a NUL-terminated path when `dladdr` succeeds.
        let lib = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy();
        println!("glibc.{name}={lib}+{:#x}", addr - info.dli_fbase as usize);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_variants() {}
