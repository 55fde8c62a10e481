//! Backends. Each exposes the same operations as an [`Ops`] table (`memmove`, `memset`,
//! `memcmp`, `bcmp`, `memchr`, `memrchr`, `count`); all but riscv64's RVV loops are the
//! algorithms of [`generic`] instantiated over one vector type.

pub(crate) mod generic;
pub(crate) mod scalar;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) mod riscv64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// One backend's entry points. Every function has the contract of its C namesake: pointers
/// valid for `n` bytes of the access made (writes through `dst`, reads elsewhere); `memmove`
/// allows overlap. A table exists only for a backend the CPU supports.
#[derive(Debug)]
pub(crate) struct Ops {
    pub(crate) name: &'static str,
    pub(crate) memmove: unsafe fn(*mut u8, *const u8, usize),
    pub(crate) memset: unsafe fn(*mut u8, u8, usize),
    pub(crate) memcmp: unsafe fn(*const u8, *const u8, usize) -> i32,
    pub(crate) bcmp: unsafe fn(*const u8, *const u8, usize) -> bool,
    pub(crate) memchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) memrchr: unsafe fn(*const u8, usize, u8) -> Option<usize>,
    pub(crate) count: unsafe fn(*const u8, usize, u8) -> usize,
}

/// Defines the seven entry points of a backend over vector type `$v`, each carrying
/// `#[target_feature(enable = $feat)]` (or none), and the `Ops` table `$table` naming them.
macro_rules! backend {
    ($table:ident, $name:literal, $v:ty $(, $feat:literal)?) => {
        /// The backend's operations.
        pub(crate) static $table: $crate::arch::Ops = {
            use $crate::arch::generic as g;
            $(#[target_feature(enable = $feat)])?
            unsafe fn memmove(dst: *mut u8, src: *const u8, n: usize) {
                // SAFETY: the caller upholds `memmove`'s contract and the CPU check.
                unsafe { g::memmove::<$v>(dst, src, n) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memset(dst: *mut u8, b: u8, n: usize) {
                // SAFETY: the caller upholds `memset`'s contract and the CPU check.
                unsafe { g::memset::<$v>(dst, b, n) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
                // SAFETY: the caller upholds `memcmp`'s contract and the CPU check.
                unsafe { g::memcmp::<$v>(a, b, n) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn bcmp(a: *const u8, b: *const u8, n: usize) -> bool {
                // SAFETY: the caller upholds `bcmp`'s contract and the CPU check.
                unsafe { g::equal::<$v>(a, b, n) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
                // SAFETY: the caller upholds `memchr`'s contract and the CPU check.
                unsafe { g::memchr::<$v>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn memrchr(p: *const u8, n: usize, b: u8) -> Option<usize> {
                // SAFETY: the caller upholds `memrchr`'s contract and the CPU check.
                unsafe { g::memrchr::<$v>(p, n, b) }
            }
            $(#[target_feature(enable = $feat)])?
            unsafe fn count(p: *const u8, n: usize, b: u8) -> usize {
                // SAFETY: the caller upholds the contract and the CPU check.
                unsafe { g::count::<$v>(p, n, b) }
            }
            $crate::arch::Ops { name: $name, memmove, memset, memcmp, bcmp, memchr, memrchr, count }
        };
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use backend;

backend!(PORTABLE, "portable", scalar::Word);

/// The backend fixed at compile time, if the target features decide it: NEON on aarch64 (part
/// of the base ISA), RVV on riscv64 built with `+v`, AVX-512 on x86_64 built with it, the
/// portable words wherever there is nothing else (mips64, riscv64 without V). `None` on x86_64
/// without AVX-512 at compile time: detected at run time.
#[cfg(target_arch = "x86_64")]
pub(crate) const FIXED: Option<&Ops> = x86_64::FIXED;
/// See above.
#[cfg(target_arch = "aarch64")]
pub(crate) const FIXED: Option<&Ops> = Some(&aarch64::NEON);
/// See above.
#[cfg(all(target_arch = "riscv64", memops_rvv))]
pub(crate) const FIXED: Option<&Ops> = Some(&riscv64::RVV);
/// See above.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "riscv64", memops_rvv)
)))]
pub(crate) const FIXED: Option<&Ops> = Some(&PORTABLE);

/// Every backend this CPU supports, most preferred first, the portable one last.
pub(crate) fn supported() -> impl Iterator<Item = &'static Ops> {
    #[cfg(target_arch = "x86_64")]
    let arch = x86_64::supported();
    #[cfg(not(target_arch = "x86_64"))]
    let arch = FIXED.into_iter().filter(|o| o.name != PORTABLE.name);
    arch.chain(core::iter::once(&PORTABLE))
}
