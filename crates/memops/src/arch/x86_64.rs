//! x86_64: SSE2 (baseline), AVX2 and AVX-512BW vector types for the generic algorithms,
//! `rep movsb`/`rep stosb` and non-temporal stores for large moves and fills in the windows
//! of the CPU's [`strategy`] (vendor, model and caches from `cpuid`, glibc's rules).

use core::arch::asm;
use core::arch::x86_64::*;

use nab_isa::Features;

use super::generic::{self, Vector};
use super::scalar;

pub(crate) mod strategy;

use super::table::Strategy;

/// What the AVX2 backend needs.
const AVX2_NEEDS: Features = Features::AVX2.union(Features::POPCNT).union(Features::BMI1);
/// What the AVX-512 backend needs (BMI2 for `bzhi`).
const AVX512_NEEDS: Features = AVX2_NEEDS
    .union(Features::AVX512F)
    .union(Features::AVX512BW)
    .union(Features::AVX512VL)
    .union(Features::BMI2);

/// The extensions dispatch may use, from `nab-isa` (detected once per process, cached in an
/// atomic): under the `NAB_MAX_ISA` cap, except with `c-symbols`. Then this crate is the
/// program's `memcpy`, which may run before `main` (before the environment can be read) and
/// which reading the environment calls, so it takes `nab_isa::cpu_bare`: `cpuid`/`xgetbv`
/// only, nothing copied or compared (no call back into our own `memcpy`/`memcmp`), nothing
/// allocated, and no cap.
#[inline]
fn features() -> Features {
    #[cfg(feature = "c-symbols")]
    return nab_isa::cpu_bare();
    #[cfg(not(feature = "c-symbols"))]
    nab_isa::available()
}

/// `rep movsb` when `n` is in `min..max` (the strategy's window, empty without ERMS/FSRM) and
/// the ranges do not overlap (forward only: the direction flag is never set). Not overlapping
/// also keeps glibc's `Avoid_Short_Distance_REP_MOVSB` case (a distance under 64 bytes, slow
/// on Intel parts with FSRM) out of the window.
#[inline(always)]
unsafe fn rep_movsb_window(dst: *mut u8, src: *const u8, n: usize, min: usize, max: usize) -> bool {
    if (min..max).contains(&n) && dst.addr().abs_diff(src.addr()) >= n {
        // SAFETY: `dst`/`src` valid for `n` bytes and disjoint (caller and check above); the
        // ABI guarantees DF = 0, so this copies forward.
        unsafe {
            asm!("rep movsb", inout("rcx") n => _, inout("rdi") dst => _, inout("rsi") src => _,
                 options(nostack, preserves_flags));
        }
        true
    } else {
        false
    }
}

/// `rep stosb` when `n` is at least `min` (the strategy's, `usize::MAX` without ERMS/FSRM).
#[inline(always)]
unsafe fn rep_stosb_window(dst: *mut u8, b: u8, n: usize, min: usize) -> bool {
    if n >= min {
        // SAFETY: `dst` valid for `n` bytes (caller); DF = 0 by the ABI, so this fills forward.
        unsafe {
            asm!("rep stosb", inout("rcx") n => _, inout("rdi") dst => _, in("al") b,
                 options(nostack, preserves_flags));
        }
        true
    } else {
        false
    }
}

/// Bytes one page holds (x86_64's smallest page): a load of `k` bytes from an address whose
/// offset in its page is at most `PAGE - k` stays inside that page.
const PAGE: usize = 4096;

/// Whether `k`-byte loads at `a` and at `b` both stay in the page of their first byte: the OR
/// of the addresses bounds both page offsets, so one compare answers for both (glibc's test).
#[inline(always)]
fn loads_stay_in_page(a: *const u8, b: *const u8, k: usize) -> bool {
    (a.addr() | b.addr()) & (PAGE - 1) <= PAGE - k
}

/// `memcmp` of `n <= 16` bytes with one 16-byte load from each side when neither can cross
/// into the next page (glibc's shape for short compares, on SSE2), the word compares of the
/// portable layer otherwise.
///
/// Random 0–16 B compares (`NAB_MAX_ISA=x86-64-v2`, against `__memcmp_sse2`, min of 15–25
/// alternated rounds): 0.84–0.92x glibc's time with the word compares alone,
/// 0.60–0.76x with this.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n <= 16` bytes; SSE2.
#[inline(always)]
unsafe fn cmp_le16_sse2(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n == 0 || !loads_stay_in_page(a, b, 16) {
        // SAFETY: same contract (`n == 0` reads nothing, and the pointers may dangle).
        return unsafe { scalar::memcmp(a, b, n) };
    }
    // SAFETY: `1 <= n <= 16` and both 16-byte loads stay in their first byte's page.
    unsafe { cmp_le16_in_page(a, b, n) }
}

/// The offset of the first byte where `a[..n]` and `b[..n]` differ, `n` when they are equal,
/// for `1 <= n <= 16` and 16-byte loads that stay in a page: one SSE2 compare, its mask's
/// lowest clear bit (bit `n` set first, so `bsf` finds `n` when all are equal).
///
/// # Safety
///
/// `1 <= n <= 16`, `a` and `b` valid for reads of `n` bytes, and
/// `loads_stay_in_page(a, b, 16)`.
#[inline(always)]
unsafe fn first_ne_le16_in_page(a: *const u8, b: *const u8, n: usize) -> usize {
    let j: usize;
    // SAFETY: `n >= 1`, so `a` and `b` each point at a readable byte, and the 16 bytes from
    // each lie in the same page as that byte (the caller's page check), so the loads cannot
    // fault. The bytes past `n` are read in this `asm!` block only, never by Rust code, and do
    // not affect the result (bit `n` is set before the scan, so nothing at or past `n`
    // counts); a concurrent write to them, outside the caller's buffers, changes nothing.
    // SSE2 is in the x86_64 baseline.
    unsafe {
        asm!(
            "movdqu {x}, [{a}]",
            "movdqu {y}, [{b}]",
            "pcmpeqb {x}, {y}",
            "pmovmskb {j:e}, {x}",
            "xor {j:e}, 0xffff",
            "bts {j:e}, {n:e}",
            "bsf {j:e}, {j:e}",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, j = out(reg) j,
            x = out(xmm_reg) _, y = out(xmm_reg) _,
            options(nostack, readonly, pure),
        );
    }
    j
}

/// [`cmp_le16_sse2`] after its checks.
///
/// # Safety
///
/// As [`first_ne_le16_in_page`].
#[inline(always)]
unsafe fn cmp_le16_in_page(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract.
    let j = unsafe { first_ne_le16_in_page(a, b, n) };
    if j == n {
        return 0;
    }
    // SAFETY: `j < n`, inside both buffers.
    unsafe { i32::from(*a.add(j)) - i32::from(*b.add(j)) }
}

/// `memcmp` of `1 <= n <= 16` bytes whose 16-byte loads stay in their page, done at the call
/// site (SSE2, the x86_64 baseline: no detection, no call); `None` for every other case, which
/// the dispatched kernel takes. The crate's functions and the `c-symbols` `memcmp` run this
/// before the cached pointer: glibc's short compares cost a call through the GOT to a kernel
/// that starts on its size tests; this costs no call. A size test on `n <= 16` sits before
/// the kernel's own, so it is predicted whenever the kernel's is.
///
/// Random 0–16 B compares on AMD Zen 5 (`memops-glibc` in the benches, 61 rounds, two runs,
/// glibc capped alike), our time / glibc's, before → after: default build 0.98–1.06 →
/// 0.53–0.55, `x86-64-v3` 1.14–1.16 → 0.42–0.45, `x86-64-v4` 1.05–1.16 → 0.56–0.60; the
/// other classes unchanged within their intervals.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[inline(always)]
pub(crate) unsafe fn cmp_inline(a: *const u8, b: *const u8, n: usize) -> Option<i32> {
    if n.wrapping_sub(1) < 16 && loads_stay_in_page(a, b, 16) {
        // SAFETY: `1 <= n <= 16` and the page check, as `cmp_le16_in_page` needs.
        Some(unsafe { cmp_le16_in_page(a, b, n) })
    } else {
        None
    }
}

/// [`cmp_inline`] for `bcmp`: whether the bytes are equal.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes.
#[inline(always)]
pub(crate) unsafe fn eq_inline(a: *const u8, b: *const u8, n: usize) -> Option<bool> {
    if n.wrapping_sub(1) < 16 && loads_stay_in_page(a, b, 16) {
        // SAFETY: `1 <= n <= 16` and the page check.
        Some(unsafe { first_ne_le16_in_page(a, b, n) } == n)
    } else {
        None
    }
}

/// `memcmp` of `n <= 64` bytes with two 32-byte loads from each side when none can cross
/// into the next page (glibc's `__memcmp_avx2_movbe` over-reads the same way below 32 bytes;
/// here one path serves every size up to 64, with no branch on the size), the 16-byte kernel
/// (below 32 bytes) or two overlapping 32-byte blocks otherwise.
///
/// Random compares (`NAB_MAX_ISA=x86-64-v3`, against `__memcmp_avx2_movbe`, min of 21
/// alternated rounds), our time / glibc's: before, with the word compares below 16
/// bytes, two 16-byte blocks below 32 and two 32-byte blocks above, 0–16 B 1.06, 17–64 B
/// between 0.80 and 1.00 depending on code layout alone (three branches on the size); with
/// this, 0.83 and 0.83.
///
/// Tools that track every byte's validity see the bytes past `n` being read: Valgrind's
/// memcheck, which replaces glibc's `memcmp` with its own, reports this one's over-read of a
/// heap buffer's end as an invalid read (a false positive: see the SAFETY comment).
///
/// # Safety
///
/// `a` and `b` valid for reads of `n <= 64` bytes; AVX2 and BMI1.
#[inline]
#[target_feature(enable = "avx,avx2,bmi1")]
unsafe fn cmp_le64_avx2(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n == 0 || !loads_stay_in_page(a, b, 64) {
        // SAFETY: (both arms) same contract (`n == 0` reads nothing, and the pointers may
        // dangle); `32 <= n <= 64` for the two blocks.
        return unsafe {
            if n < 32 {
                generic::memcmp::<__m128i>(a, b, n)
            } else {
                generic::memcmp_four_blocks::<__m256i>(a, b, n)
            }
        };
    }
    let r: i32;
    // SAFETY: `n >= 1`, so `a` and `b` each point at a readable byte, and the 64 bytes from
    // each lie in the same page as that byte (the OR of the addresses bounds both page
    // offsets by `PAGE - 64`), so the loads cannot fault. The bytes past `n` are read in this
    // `asm!` block only, never by Rust code, and do not affect the result: the lowest set bit
    // of the 64-bit mismatch mask (`tzcnt` gives 64 for none) counts only below `n`, and no
    // byte is loaded for a result at or past `n`. This is the over-read glibc's `memcmp` does;
    // the values are not used, so a concurrent write to them (outside the caller's buffers)
    // changes nothing. `vzeroupper` before leaving (the ymm registers are dead; the
    // compiler is told every register it changes is overwritten).
    unsafe {
        asm!(
            "vmovdqu ymm0, [{a}]",
            "vmovdqu ymm1, [{a} + 32]",
            "vpcmpeqb ymm0, ymm0, [{b}]",
            "vpcmpeqb ymm1, ymm1, [{b} + 32]",
            "vpmovmskb {j:e}, ymm0",
            "vpmovmskb {h:e}, ymm1",
            "vzeroupper",
            "shl {h}, 32",
            "or {j}, {h}",
            "not {j}",
            "tzcnt {j}, {j}",
            "xor {r:e}, {r:e}",
            "cmp {j}, {n}",
            "jae 2f",
            "movzx {r:e}, byte ptr [{a} + {j}]",
            "movzx {j:e}, byte ptr [{b} + {j}]",
            "sub {r:e}, {j:e}",
            "2:",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, j = out(reg) _, h = out(reg) _,
            r = out(reg) r,
            // `vzeroupper` changes every register from ymm0 to ymm15.
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _,
            out("ymm5") _, out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _,
            out("ymm10") _, out("ymm11") _, out("ymm12") _, out("ymm13") _, out("ymm14") _,
            out("ymm15") _,
            options(nostack, readonly, pure),
        );
    }
    r
}

/// Where the one vector load of a short search (`1 <= n < k` bytes at `p`, `k` the vector
/// size) starts, and how far its mask shifts down: at `p` when the `k` bytes from `p` stay in
/// `p`'s page, else the `k` bytes ending at `p + n` (glibc's `memchr` does the same), which
/// start `k - n` bytes before `p` but still in `p`'s page (its offset exceeds `PAGE - k`).
#[inline(always)]
fn short_load_at(p: *const u8, n: usize, k: usize) -> (*const u8, u32) {
    let s = if p.addr() & (PAGE - 1) <= PAGE - k { 0 } else { k - n };
    (p.wrapping_sub(s), s as u32)
}

/// Bit `j` set where `p[j]` (`j < n < 32`) equals any of the `K` needles: one 32-byte load
/// that stays in a page known to be readable (see [`short_load_at`]), instead of word and
/// byte loops.
///
/// Random 0–16 B searches for an absent byte (4096 sizes a round, medians of 15 alternated
/// rounds), our speed / glibc's `memchr` (its EVEX variant): with the word and byte
/// loops 0.77 (AVX2 backend) and 0.81 (SSE2, with [`eq_mask_lt16`]), with these 1.04 and
/// 0.96; `find_byte3` 1.7x faster than before, `rfind_byte` 1.4x.
///
/// Valgrind's memcheck reports the bytes read past `p + n` (or before `p`) as invalid reads
/// when they lie outside the heap block, as for [`cmp_le64_avx2`] (a false positive).
///
/// # Safety
///
/// `p` valid for reads of `n < 32` bytes; AVX2.
#[inline]
#[target_feature(enable = "avx,avx2")]
unsafe fn eq_mask_lt32<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> u32 {
    if n == 0 {
        // `p` may dangle: nothing is read.
        return 0;
    }
    let (at, s) = short_load_at(p, n, 32);
    let x: __m256i;
    // SAFETY: `n >= 1`, so `p`'s page is readable, and the 32 bytes from `at` lie in it (see
    // `short_load_at`). The load is in `asm!` so that no Rust code reads past the caller's
    // bytes; the bytes outside `p[..n]` are masked off below and never reach the result (a
    // concurrent write to them, outside the caller's buffer, changes nothing).
    unsafe {
        asm!(
            "vmovdqu {x}, ymmword ptr [{at}]",
            at = in(reg) at, x = out(ymm_reg) x,
            options(nostack, readonly, pure, preserves_flags),
        );
    }
    // SAFETY: AVX2 (the caller's contract).
    let m = unsafe { _mm256_movemask_epi8(generic::eq_any_splat::<__m256i, K>(x, b)) } as u32;
    (m >> s) & ((1u32 << n) - 1)
}

/// [`eq_mask_lt32`] with one 16-byte load, for `n < 16`, on SSE2.
///
/// # Safety
///
/// `p` valid for reads of `n < 16` bytes; SSE2.
#[inline(always)]
unsafe fn eq_mask_lt16<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> u32 {
    if n == 0 {
        // `p` may dangle: nothing is read.
        return 0;
    }
    let (at, s) = short_load_at(p, n, 16);
    let x: __m128i;
    // SAFETY: as in `eq_mask_lt32`, with 16 bytes.
    unsafe {
        asm!(
            "movdqu {x}, xmmword ptr [{at}]",
            at = in(reg) at, x = out(xmm_reg) x,
            options(nostack, readonly, pure, preserves_flags),
        );
    }
    // SAFETY: SSE2 (the caller's contract).
    let m = unsafe { _mm_movemask_epi8(generic::eq_any_splat::<__m128i, K>(x, b)) } as u32;
    (m >> s) & ((1u32 << n) - 1)
}

/// `p` through an empty `asm!`: the optimizer no longer knows it as `base + offset` (see
/// `Vector::opaque`).
#[inline(always)]
fn opaque_ptr(p: *const u8) -> *const u8 {
    let mut a = p.addr();
    // SAFETY: an empty instruction string (a comment naming the register); the address comes
    // back unchanged and `with_addr` keeps `p`'s provenance.
    unsafe { asm!("/* {0} */", inout(reg) a, options(nomem, nostack, preserves_flags, pure)) };
    p.with_addr(a)
}

/// `Vector` for a `movemask` register type (SSE2's `__m128i`, AVX2's `__m256i`): the methods
/// that differ only in the intrinsic's name, plus `$extra` (the size-specific overrides).
macro_rules! movemask_vector {
    ($t:ty, $w:literal, $full:literal, $movsb_min:ident, $stosb_min:ident, $loadu:ident, $load:ident, $storeu:ident, $store:ident,
     $stream:ident, $set1:ident, $cmpeq:ident, $or:ident, $and:ident, $movemask:ident,
     { $($extra:tt)* }) => {
        impl Vector for $t {
            const W: usize = $w;
            const BITS_PER_BYTE: u32 = 1;
            const ONES_PER_BYTE: u32 = 1;
            const REVERSED: bool = false;
            const FULL: u64 = $full;
            type Cmp = $t;

            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: same contract.
                unsafe { $loadu(p.cast()) }
            }
            #[inline(always)]
            unsafe fn load_aligned(p: *const u8) -> Self {
                // SAFETY: same contract.
                unsafe { $load(p.cast()) }
            }
            #[inline(always)]
            unsafe fn store(p: *mut u8, v: Self) {
                // SAFETY: same contract.
                unsafe { $storeu(p.cast(), v) }
            }
            #[inline(always)]
            unsafe fn store_aligned(p: *mut u8, v: Self) {
                // SAFETY: same contract.
                unsafe { $store(p.cast(), v) }
            }
            #[inline(always)]
            unsafe fn store_nt(p: *mut u8, v: Self) {
                // SAFETY: same contract.
                unsafe { $stream(p.cast(), v) }
            }
            #[inline(always)]
            unsafe fn nt_fence() {
                // SAFETY: the CPU has the instructions (trait contract).
                unsafe { _mm_sfence() }
            }
            #[inline(always)]
            unsafe fn splat(b: u8) -> Self {
                // SAFETY: the CPU has the instructions (trait contract).
                unsafe { $set1(b as i8) }
            }
            #[inline(always)]
            unsafe fn cmpeq(a: Self, b: Self) -> Self {
                // SAFETY: the CPU has the instructions (trait contract).
                unsafe { $cmpeq(a, b) }
            }
            #[inline(always)]
            unsafe fn cmp_or(a: Self, b: Self) -> Self {
                // SAFETY: the CPU has the instructions (trait contract).
                unsafe { $or(a, b) }
            }
            #[inline(always)]
            unsafe fn cmp_and(a: Self, b: Self) -> Self {
                // SAFETY: the CPU has the instructions (trait contract).
                unsafe { $and(a, b) }
            }
            #[inline(always)]
            unsafe fn cmp_bits(c: Self) -> u64 {
                // SAFETY: the CPU has the instructions (trait contract).
                u64::from(unsafe { $movemask(c) } as u32)
            }
            #[inline(always)]
            fn strategy() -> Strategy {
                strategy::current()
            }
            #[inline(always)]
            unsafe fn copy_forward_large(dst: *mut u8, src: *const u8, n: usize, s: &Strategy) -> bool {
                // SAFETY: same contract.
                unsafe { rep_movsb_window(dst, src, n, s.$movsb_min, s.rep_movsb_max) }
            }
            #[inline(always)]
            unsafe fn set_large(dst: *mut u8, b: u8, n: usize, s: &Strategy) -> bool {
                // SAFETY: same contract.
                unsafe { rep_stosb_window(dst, b, n, s.$stosb_min) }
            }
            #[inline(always)]
            fn opaque(p: *const u8) -> *const u8 {
                opaque_ptr(p)
            }
            $($extra)*
        }
    };
}

movemask_vector!(
    __m128i,
    16,
    0xffff,
    rep_movsb_min_sse2,
    rep_stosb_min_sse2,
    _mm_loadu_si128,
    _mm_load_si128,
    _mm_storeu_si128,
    _mm_store_si128,
    _mm_stream_si128,
    _mm_set1_epi8,
    _mm_cmpeq_epi8,
    _mm_or_si128,
    _mm_and_si128,
    _mm_movemask_epi8,
    {
        #[inline(always)]
        unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
            // SAFETY: same contract; `n <= 16`.
            unsafe { scalar::copy_le16(dst, src, n) }
        }
        #[inline(always)]
        unsafe fn set_small(dst: *mut u8, b: u8, n: usize) {
            // SAFETY: same contract; `n <= 16`.
            unsafe { scalar::set_le16(dst, b, n) }
        }
        const CMP_SMALL_MAX: usize = 16;
        // 129–256 B without the loop (see `generic::memcmp_eight_and_tail`).
        const CMP_SIXTEEN: bool = true;
        #[inline(always)]
        unsafe fn cmp_small(a: *const u8, b: *const u8, n: usize) -> i32 {
            // SAFETY: same contract; `n <= CMP_SMALL_MAX = 16`.
            unsafe { cmp_le16_sse2(a, b, n) }
        }
        #[inline(always)]
        unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
            // SAFETY: same contract; `n < 16`.
            let m = unsafe { eq_mask_lt16(p, n, b) };
            (m != 0).then(|| m.trailing_zeros() as usize)
        }
        #[inline(always)]
        unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
            // SAFETY: same contract; `n < 16`.
            let m = unsafe { eq_mask_lt16(p, n, b) };
            (m != 0).then(|| 31 - m.leading_zeros() as usize)
        }
        #[inline(always)]
        unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize {
            // SAFETY: same contract; `n < 16`.
            unsafe { eq_mask_lt16(p, n, [b]) }.count_ones() as usize
        }
    }
);

movemask_vector!(
    __m256i,
    32,
    0xffff_ffff,
    rep_movsb_min,
    rep_stosb_min,
    _mm256_loadu_si256,
    _mm256_load_si256,
    _mm256_storeu_si256,
    _mm256_store_si256,
    _mm256_stream_si256,
    _mm256_set1_epi8,
    _mm256_cmpeq_epi8,
    _mm256_or_si256,
    _mm256_and_si256,
    _mm256_movemask_epi8,
    {
        #[inline(always)]
        unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
            // SAFETY: (both arms) same contract; `n <= 32`.
            unsafe {
                if n <= 16 {
                    scalar::copy_le16(dst, src, n)
                } else {
                    let a = _mm_loadu_si128(src.cast());
                    let b = _mm_loadu_si128(src.add(n - 16).cast());
                    _mm_storeu_si128(dst.cast(), a);
                    _mm_storeu_si128(dst.add(n - 16).cast(), b);
                }
            }
        }
        #[inline(always)]
        unsafe fn set_small(dst: *mut u8, b: u8, n: usize) {
            // SAFETY: (both arms) same contract; `n <= 32`.
            unsafe {
                if n <= 16 {
                    scalar::set_le16(dst, b, n)
                } else {
                    let v = _mm_set1_epi8(b as i8);
                    _mm_storeu_si128(dst.cast(), v);
                    _mm_storeu_si128(dst.add(n - 16).cast(), v);
                }
            }
        }
        const CMP_SMALL_MAX: usize = 64;
        #[inline(always)]
        unsafe fn cmp_small(a: *const u8, b: *const u8, n: usize) -> i32 {
            // SAFETY: same contract; `n <= CMP_SMALL_MAX = 64`.
            unsafe { cmp_le64_avx2(a, b, n) }
        }
        #[inline(always)]
        unsafe fn eq_small(a: *const u8, b: *const u8, n: usize) -> bool {
            // SAFETY: same contract.
            unsafe { generic::equal::<__m128i>(a, b, n) }
        }
        #[inline(always)]
        unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
            // SAFETY: same contract; `n < 32`.
            let m = unsafe { eq_mask_lt32(p, n, b) };
            (m != 0).then(|| m.trailing_zeros() as usize)
        }
        #[inline(always)]
        unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
            // SAFETY: same contract; `n < 32`.
            let m = unsafe { eq_mask_lt32(p, n, b) };
            (m != 0).then(|| 31 - m.leading_zeros() as usize)
        }
        #[inline(always)]
        unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize {
            // SAFETY: same contract; `n < 32`.
            unsafe { eq_mask_lt32(p, n, [b]) }.count_ones() as usize
        }
        #[inline(always)]
        unsafe fn move_backward_blocks(dst: *mut u8, src: *const u8, i: usize) {
            // SAFETY: same contract; AVX2 (the trait's contract).
            unsafe { backward_blocks_avx2(dst, src, i) }
        }
    }
);

/// `Vector::move_backward_blocks` in `asm!`, two pointers stepping down by `4W` (glibc's
/// `loop_4x_vec_backward`: each block's four loads from the top down, then its four aligned
/// stores, both addressed base plus displacement). The Rust loop compiles to base-plus-index
/// addresses from one counter.
macro_rules! backward_blocks_asm {
    ($(#[$m:meta])* $name:ident, $feat:literal, $class:ident, $w:literal) => {
        $(#[$m])*
        /// # Safety
        ///
        /// `Vector::move_backward_blocks`'s contract; the CPU has the target features.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn $name(dst: *mut u8, src: *const u8, i: usize) {
            // SAFETY: the loop runs while `d > dst + 4W`, so every block `[d - 4W, d)` lies in
            // `dst[..i]` (and its source in `src[..i]`), and the stores are aligned (`dst + i`
            // is); each block's loads come before its stores, so with `dst >= src` no store
            // overwrites a source byte not yet read. The vector registers are declared
            // clobbered.
            unsafe {
                asm!(
                    "cmp {d}, {stop}",
                    "jbe 3f",
                    ".p2align 4",
                    "2:",
                    "vmovups {x0}, [{s} - {w1}]",
                    "vmovups {x1}, [{s} - {w2}]",
                    "vmovups {x2}, [{s} - {w3}]",
                    "vmovups {x3}, [{s} - {w4}]",
                    "sub {s}, {w4}",
                    "vmovaps [{d} - {w1}], {x0}",
                    "vmovaps [{d} - {w2}], {x1}",
                    "vmovaps [{d} - {w3}], {x2}",
                    "vmovaps [{d} - {w4}], {x3}",
                    "sub {d}, {w4}",
                    "cmp {d}, {stop}",
                    "ja 2b",
                    "3:",
                    d = inout(reg) dst.add(i) => _,
                    s = inout(reg) src.add(i) => _,
                    stop = in(reg) dst.add(4 * $w),
                    w1 = const $w,
                    w2 = const 2 * $w,
                    w3 = const 3 * $w,
                    w4 = const 4 * $w,
                    x0 = out($class) _,
                    x1 = out($class) _,
                    x2 = out($class) _,
                    x3 = out($class) _,
                    options(nostack),
                );
            }
        }
    };
}

backward_blocks_asm!(
    /// Backward blocks of 4 × 32 bytes (AVX2 backend).
    backward_blocks_avx2, "avx,avx2", ymm_reg, 32
);
backward_blocks_asm!(
    /// Backward blocks of 4 × 64 bytes (AVX-512 backend).
    backward_blocks_avx512, "avx512f", zmm_reg, 64
);

/// The mask of the first `n < 64` bytes.
#[inline(always)]
fn low_mask(n: usize) -> u64 {
    (1u64 << n) - 1
}

/// Bit `j` set where `a[j] != b[j]`, for `j < n < 64` (bits of the overlap between the two
/// halves may repeat; the lowest set bit is the first difference).
///
/// 32-byte vectors, as glibc's EVEX `memcmp`: a masked load up to 32 bytes, two overlapping
/// plain loads above. `memops/memcmp` medians for random 17–64 byte compares: 1.79 ns with one
/// 64-byte masked load for every `n < 64` (glibc 1.61 ns), 1.64 ns with this (glibc 1.62 ns).
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes; AVX-512BW/VL and BMI2.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
unsafe fn ne_small(a: *const u8, b: *const u8, n: usize) -> u64 {
    let ne: u64;
    // SAFETY: the masked load and compare read only the first `n <= 32` bytes (fault
    // suppression for the rest); the plain loads read `[0, 32)` and `[n - 32, n)` when
    // `32 < n < 64`. In `asm!` for its registers: ymm16 and up are EVEX-only and leave the
    // SSE/AVX transition state clean, so this path returns without a `vzeroupper`, as glibc's.
    unsafe {
        if n <= 32 {
            asm!(
                "bzhi {m:e}, {ones:e}, {n:e}",
                "kmovd {k}, {m:e}",
                "vmovdqu8 ymm16 {{{k}}}{{z}}, [{b}]",
                "vpcmpneqb {k} {{{k}}}, ymm16, [{a}]",
                "kmovd {m:e}, {k}",
                a = in(reg) a, b = in(reg) b, n = in(reg) n, ones = in(reg) u32::MAX,
                m = out(reg) ne, k = out(kreg) _, out("ymm16") _,
                options(nostack, readonly, pure),
            );
        } else {
            asm!(
                "vmovdqu64 ymm16, [{b}]",
                "vmovdqu64 ymm17, [{b} + {n} - 32]",
                "vpcmpneqb {k1}, ymm16, [{a}]",
                "vpcmpneqb {k2}, ymm17, [{a} + {n} - 32]",
                "kmovd {m:e}, {k1}",
                "kmovd {h:e}, {k2}",
                "lea {s:e}, [{n} - 32]",
                "shlx {h}, {h}, {s}",
                "or {m}, {h}",
                a = in(reg) a, b = in(reg) b, n = in(reg) n,
                m = out(reg) ne, h = out(reg) _, s = out(reg) _, k1 = out(kreg) _,
                k2 = out(kreg) _, out("ymm16") _, out("ymm17") _,
                options(nostack, readonly, pure),
            );
        }
    }
    ne
}

/// Whether `64 <= n <= 256` bytes differ, in 32-byte blocks (glibc's EVEX `memcmp` shape):
/// 0, 32, `n - 64`, `n - 32`, and for `n > 128` also 64, 96, `n - 128`, `n - 96`, XORed
/// with `b`'s and ORed (`vpternlog`) into one test.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes, `64 <= n <= 256`; AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn ne_mid(a: *const u8, b: *const u8, n: usize) -> bool {
    let ne: u32;
    // SAFETY: every block lies inside the `n >= 64` readable bytes (the second four only for
    // `n > 128`). EVEX-only registers, so no `vzeroupper` (see `ne_small`).
    unsafe {
        asm!(
            "vmovdqu64 ymm16, [{a}]",
            "vmovdqu64 ymm17, [{a} + 32]",
            "vmovdqu64 ymm18, [{a} + {n} - 64]",
            "vmovdqu64 ymm19, [{a} + {n} - 32]",
            "vpxorq ymm16, ymm16, [{b}]",
            "vpxorq ymm17, ymm17, [{b} + 32]",
            "vpxorq ymm18, ymm18, [{b} + {n} - 64]",
            "vpxorq ymm19, ymm19, [{b} + {n} - 32]",
            "vpternlogq ymm16, ymm17, ymm18, 0xfe",
            "cmp {n}, 128",
            "jbe 2f",
            "vmovdqu64 ymm20, [{a} + 64]",
            "vmovdqu64 ymm21, [{a} + 96]",
            "vmovdqu64 ymm22, [{a} + {n} - 128]",
            "vmovdqu64 ymm23, [{a} + {n} - 96]",
            "vpxorq ymm20, ymm20, [{b} + 64]",
            "vpxorq ymm21, ymm21, [{b} + 96]",
            "vpxorq ymm22, ymm22, [{b} + {n} - 128]",
            "vpxorq ymm23, ymm23, [{b} + {n} - 96]",
            "vpternlogq ymm20, ymm21, ymm22, 0xfe",
            "vpternlogq ymm16, ymm20, ymm23, 0xfe",
            "2:",
            "vptestmb k1, ymm16, ymm16",
            "vptestmb k2, ymm19, ymm19",
            "kord k1, k1, k2",
            "kmovd {m:e}, k1",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, m = out(reg) ne, out("k1") _,
            out("k2") _, out("ymm16") _, out("ymm17") _, out("ymm18") _, out("ymm19") _,
            out("ymm20") _, out("ymm21") _, out("ymm22") _, out("ymm23") _,
            options(nostack, readonly, pure),
        );
    }
    ne != 0
}

/// [`ne_mid`] for `bcmp`, with the size test before the loads. Random 65–256 B `bcmp`s
/// (our time / glibc's, medians of 21 alternated rounds, amd-zen5): 1.07–1.08 with
/// [`ne_mid`], 0.99–1.00 with this; the same change in `memcmp`'s path took it from 1.03
/// to 1.33–1.43 (its equal case branches again after the test). Otherwise as [`ne_mid`]:
/// whether `64 <= n <= 256` bytes differ, in 32-byte blocks (glibc's EVEX `memcmp` shape):
/// 0, 32, `n - 64`, `n - 32`, and for `n > 128` also 64, 96, `n - 128`, `n - 96`, XORed
/// with `b`'s and ORed (`vpternlog`) into one test.
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes, `64 <= n <= 256`; AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn ne_mid_eq(a: *const u8, b: *const u8, n: usize) -> bool {
    let ne: u32;
    // SAFETY: every block lies inside the `n >= 64` readable bytes (the second four only for
    // `n > 128`). EVEX-only registers, so no `vzeroupper` (see `ne_small`).
    unsafe {
        asm!(
            "cmp {n}, 128",
            "ja 3f",
            "vmovdqu64 ymm16, [{a}]",
            "vmovdqu64 ymm17, [{a} + 32]",
            "vmovdqu64 ymm18, [{a} + {n} - 64]",
            "vmovdqu64 ymm19, [{a} + {n} - 32]",
            "vpxorq ymm16, ymm16, [{b}]",
            "vpxorq ymm17, ymm17, [{b} + 32]",
            "vpxorq ymm18, ymm18, [{b} + {n} - 64]",
            "vpxorq ymm19, ymm19, [{b} + {n} - 32]",
            "vpternlogq ymm16, ymm17, ymm18, 0xfe",
            "jmp 2f",
            "3:",
            "vmovdqu64 ymm16, [{a}]",
            "vmovdqu64 ymm17, [{a} + 32]",
            "vmovdqu64 ymm20, [{a} + 64]",
            "vmovdqu64 ymm21, [{a} + 96]",
            "vmovdqu64 ymm22, [{a} + {n} - 128]",
            "vmovdqu64 ymm23, [{a} + {n} - 96]",
            "vmovdqu64 ymm18, [{a} + {n} - 64]",
            "vmovdqu64 ymm19, [{a} + {n} - 32]",
            "vpxorq ymm16, ymm16, [{b}]",
            "vpxorq ymm17, ymm17, [{b} + 32]",
            "vpxorq ymm20, ymm20, [{b} + 64]",
            "vpxorq ymm21, ymm21, [{b} + 96]",
            "vpxorq ymm22, ymm22, [{b} + {n} - 128]",
            "vpxorq ymm23, ymm23, [{b} + {n} - 96]",
            "vpxorq ymm18, ymm18, [{b} + {n} - 64]",
            "vpxorq ymm19, ymm19, [{b} + {n} - 32]",
            "vpternlogq ymm16, ymm17, ymm18, 0xfe",
            "vpternlogq ymm20, ymm21, ymm22, 0xfe",
            "vpternlogq ymm16, ymm20, ymm23, 0xfe",
            "2:",
            "vptestmb k1, ymm16, ymm16",
            "vptestmb k2, ymm19, ymm19",
            "kord k1, k1, k2",
            "kmovd {m:e}, k1",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, m = out(reg) ne, out("k1") _,
            out("k2") _, out("ymm16") _, out("ymm17") _, out("ymm18") _, out("ymm19") _,
            out("ymm20") _, out("ymm21") _, out("ymm22") _, out("ymm23") _,
            options(nostack, readonly, pure),
        );
    }
    ne != 0
}

/// The `asm!` text that tests the 128 bytes at `a + {i}`/`b + {i}` (the caller's operands;
/// `$at` is `{i}` or a constant offset) and jumps to local label 5 when any differ: four
/// 32-byte XORs (the fourth folded into a `vpternlog` with its load, as glibc's EVEX `memcmp`
/// does) ORed into one `vptestmb`.
macro_rules! ne_block_128 {
    ($at:literal) => {
        concat!(
            "vmovdqu64 ymm16, [{a} + ",
            $at,
            "]\n",
            "vmovdqu64 ymm17, [{a} + ",
            $at,
            " + 32]\n",
            "vmovdqu64 ymm18, [{a} + ",
            $at,
            " + 64]\n",
            "vmovdqu64 ymm19, [{a} + ",
            $at,
            " + 96]\n",
            "vpxorq ymm16, ymm16, [{b} + ",
            $at,
            "]\n",
            "vpxorq ymm17, ymm17, [{b} + ",
            $at,
            " + 32]\n",
            "vpxorq ymm18, ymm18, [{b} + ",
            $at,
            " + 64]\n",
            // ymm19 = (ymm19 ^ b[96..128]) | ymm16.
            "vpternlogq ymm19, ymm16, [{b} + ",
            $at,
            " + 96], 0xde\n",
            "vpternlogq ymm19, ymm17, ymm18, 0xfe\n",
            "vptestmb k1, ymm19, ymm19\n",
            "kortestd k1, k1\n",
            "jnz 5f\n",
        )
    };
}

/// The offset of the first 128-byte block of `a[..n]`/`b[..n]` that differs: the block at 0,
/// then blocks from the first 32-byte boundary of `a` past 96 while they fit, then the one
/// ending at `n`; `n` when all are equal. Four 32-byte XORs ORed into one `vptestmb` per
/// block ([`ne_block_128`]), in EVEX registers: the 64-byte kernels' compares into masks
/// chained through `k` registers (LLVM fuses `&` of two compare masks into a masked compare),
/// so each waited for the previous, and a 64-byte load 16 bytes past a line boundary always
/// splits. The loop tests its bound at the bottom (one taken branch an iteration).
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes, `n >= 128`; AVX-512F/BW/VL.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn first_ne_block(a: *const u8, b: *const u8, n: usize) -> usize {
    let at: usize;
    // SAFETY: each block lies inside `[0, n)`: a loop block runs only when `i <= n - 128`,
    // the last block starts at `n - 128 >= 0`. EVEX-only registers (no `vzeroupper`).
    unsafe {
        asm!(
            "xor {i:e}, {i:e}",
            "lea {end}, [{n} - 128]",
            ne_block_128!("0"),
            // From the first 32-byte boundary of `a` after 96 on, `a`'s loads are aligned
            // (no line splits on that side); the bytes before it were found equal.
            "mov {i:e}, {a:e}",
            "and {i:e}, 31",
            "neg {i}",
            "add {i}, 128",
            "cmp {i}, {end}",
            "ja 3f",
            ".p2align 5",
            "2:",
            ne_block_128!("{i}"),
            "add {i}, 128",
            "cmp {i}, {end}",
            "jbe 2b",
            "3:",
            // The rest is shorter than a block: the block ending at `n` (equal below `i`).
            "cmp {i}, {n}",
            "jae 4f",
            "mov {i}, {end}",
            ne_block_128!("{i}"),
            "4:",
            "mov {i}, {n}",
            "5:",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, i = out(reg) at, end = out(reg) _,
            out("k1") _, out("ymm16") _, out("ymm17") _, out("ymm18") _, out("ymm19") _,
            options(nostack, readonly, pure),
        );
    }
    at
}

/// `memcmp` of `64 <= n <= 256` bytes: the blocks at 0 and `n - 64`, and for `n > 128` also
/// those at 64 and `n - 128`, XORed with `b`'s and ORed into one test (glibc's EVEX shape,
/// on 64-byte vectors). Now only the ordering once [`ne_mid`] found a difference: with the
/// buffers 16 bytes past a 64-byte boundary (as `Vec`'s large allocations are), every 64-byte
/// load splits a cache line, and random 65–256 B compares took 1.09–1.14x glibc's time
/// against 1.01–1.03x with `ne_mid`'s 32-byte blocks (0.92x and 0.91x when 64-byte aligned;
/// min of 15 alternated rounds). Earlier measurements: random 65–256 B sizes, min
/// of 30 × 200k calls, glibc = 1, over 3–7 runs, buffers 64-byte aligned or 16 bytes past
/// it: four blocks at offsets chosen
/// by `cmov` (no branch on the size) with `vpcmpeqb` and `kand` 1.16–1.28 (the same in `asm!`
/// with `kor` 1.06–1.28, with XOR and `vpternlog` 1.06–1.29); eight 32-byte blocks
/// 1.20–1.29; glibc's own shape (32-byte blocks, early exits) 0.99–1.00; this branch on
/// `n > 128` 0.86–0.91 (it is predicted well enough, and no load waits for a `cmov`).
///
/// # Safety
///
/// `a` and `b` valid for reads of `n` bytes, `64 <= n <= 256`; AVX-512BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi1")]
unsafe fn cmp_mid(a: *const u8, b: *const u8, n: usize) -> i32 {
    let r: i32;
    // SAFETY: the blocks at 0, 64, `n - 128` and `n - 64` (the middle two only for
    // `n > 128`) lie inside the `n >= 64` readable bytes. EVEX-only registers, so no
    // `vzeroupper` (see `ne_small`). The second part runs only when some byte differs: it
    // finds the first block, in address order, with a nonzero XOR, and its lowest such byte.
    unsafe {
        asm!(
            "vmovdqu64 zmm16, [{a}]",
            "vmovdqu64 zmm19, [{a} + {n} - 64]",
            "vpxorq zmm16, zmm16, [{b}]",
            "vpxorq zmm19, zmm19, [{b} + {n} - 64]",
            "vporq zmm20, zmm16, zmm19",
            "xor {r:e}, {r:e}",
            "cmp {n}, 128",
            "jbe 2f",
            "vmovdqu64 zmm17, [{a} + 64]",
            "vmovdqu64 zmm18, [{a} + {n} - 128]",
            "vpxorq zmm17, zmm17, [{b} + 64]",
            "vpxorq zmm18, zmm18, [{b} + {n} - 128]",
            "vpternlogq zmm20, zmm17, zmm18, 0xfe",
            "2:",
            "vptestmb k1, zmm20, zmm20",
            "kortestq k1, k1",
            "jz 5f",
            "xor {o:e}, {o:e}",
            "vptestmb k1, zmm16, zmm16",
            "kortestq k1, k1",
            "jnz 4f",
            "cmp {n}, 128",
            "jbe 3f",
            "mov {o:e}, 64",
            "vptestmb k1, zmm17, zmm17",
            "kortestq k1, k1",
            "jnz 4f",
            "lea {o}, [{n} - 128]",
            "vptestmb k1, zmm18, zmm18",
            "kortestq k1, k1",
            "jnz 4f",
            "3:",
            "lea {o}, [{n} - 64]",
            "vptestmb k1, zmm19, zmm19",
            "4:",
            "kmovq {m}, k1",
            "tzcnt {m}, {m}",
            "add {o}, {m}",
            "movzx {r:e}, byte ptr [{a} + {o}]",
            "movzx {m:e}, byte ptr [{b} + {o}]",
            "sub {r:e}, {m:e}",
            "5:",
            a = in(reg) a, b = in(reg) b, n = in(reg) n, r = out(reg) r, o = out(reg) _,
            m = out(reg) _, out("k1") _, out("zmm16") _, out("zmm17") _, out("zmm18") _,
            out("zmm19") _, out("zmm20") _,
            options(nostack, readonly, pure),
        );
    }
    r
}

/// `a[j] - b[j]` for the lowest set bit `j` of `ne`, 0 when `ne == 0`. In `asm!` so that the
/// equal case does not branch to a return shared with the 64-byte paths, which needs a
/// `vzeroupper`.
///
/// # Safety
///
/// When `ne != 0`, `a` and `b` are valid for reads at its lowest set bit.
#[inline(always)]
unsafe fn first_diff(a: *const u8, b: *const u8, ne: u64) -> i32 {
    let r: i32;
    // SAFETY: the loads run only for `ne != 0` (`tzcnt` sets CF for a zero source), at the
    // caller's valid offset.
    unsafe {
        asm!(
            "xor {r:e}, {r:e}",
            "tzcnt {j}, {j}",
            "jc 2f",
            "movzx {r:e}, byte ptr [{a} + {j}]",
            "movzx {j:e}, byte ptr [{b} + {j}]",
            "sub {r:e}, {j:e}",
            "2:",
            a = in(reg) a, b = in(reg) b, j = inout(reg) ne => _, r = out(reg) r,
            options(nostack, readonly, pure),
        );
    }
    r
}

/// The mask of the bytes of `p[..n]` (`n < 64`) equal to any of the `K` needles, with one
/// masked load.
///
/// # Safety
///
/// `p` valid for reads of `n` bytes; AVX-512BW. Masked-off bytes are neither read nor faulted
/// on (AVX-512 fault suppression).
#[inline(always)]
unsafe fn masked_eq<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> u64 {
    let k = low_mask(n);
    // SAFETY: as documented above.
    unsafe {
        let x = _mm512_maskz_loadu_epi8(k, p.cast());
        b.iter().fold(0, |m, &b| m | _mm512_mask_cmpeq_epi8_mask(k, x, _mm512_set1_epi8(b as i8)))
    }
}

impl Vector for __m512i {
    const W: usize = 64;
    const BITS_PER_BYTE: u32 = 1;
    const ONES_PER_BYTE: u32 = 1;
    const REVERSED: bool = false;
    const FULL: u64 = u64::MAX;
    const INLINE_SMALL: bool = true;
    const CMP_BLOCKS: usize = 4;
    type Cmp = u64;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: same contract.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_aligned(p: *const u8) -> Self {
        // SAFETY: same contract.
        unsafe { _mm512_load_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn store_aligned(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { _mm512_store_si512(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn store_nt(p: *mut u8, v: Self) {
        // SAFETY: same contract.
        unsafe { _mm512_stream_si512(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn nt_fence() {
        // SAFETY: the CPU has the instructions (trait contract).
        unsafe { _mm_sfence() }
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: the CPU has the instructions (trait contract).
        unsafe { _mm512_set1_epi8(b as i8) }
    }
    #[inline(always)]
    unsafe fn cmpeq(a: Self, b: Self) -> u64 {
        // SAFETY: the CPU has the instructions (trait contract).
        unsafe { _mm512_cmpeq_epi8_mask(a, b) }
    }
    #[inline(always)]
    unsafe fn cmp_or(a: u64, b: u64) -> u64 {
        a | b
    }
    #[inline(always)]
    unsafe fn cmp_and(a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    unsafe fn cmp_bits(c: u64) -> u64 {
        c
    }
    #[inline(always)]
    unsafe fn copy_small(dst: *mut u8, src: *const u8, n: usize) {
        // One masked load and store for every `n <= 64`: no branch on the size, so random
        // small sizes cannot mispredict (`bzhi` keeps all 64 bits for `n == 64`).
        // SAFETY: masked-off bytes are neither read, written nor faulted on (AVX-512 fault
        // suppression); the first `n` bytes are valid (same contract); BMI2 is part of the
        // backend's features.
        unsafe {
            let k = _bzhi_u64(u64::MAX, n as u32);
            _mm512_mask_storeu_epi8(dst.cast(), k, _mm512_maskz_loadu_epi8(k, src.cast()));
        }
    }
    #[inline(always)]
    unsafe fn set_small(dst: *mut u8, b: u8, n: usize) {
        // SAFETY: as in `copy_small`.
        unsafe {
            let k = _bzhi_u64(u64::MAX, n as u32);
            _mm512_mask_storeu_epi8(dst.cast(), k, _mm512_set1_epi8(b as i8));
        }
    }
    #[inline(always)]
    unsafe fn cmp_small(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: `ne_small`'s contract is this one's.
        let ne = unsafe { ne_small(a, b, n) };
        // SAFETY: `ne_small`'s lowest set bit is a differing byte below `n`.
        unsafe { first_diff(a, b, ne) }
    }
    #[inline(always)]
    unsafe fn eq_small(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: as in `cmp_small`.
        unsafe { ne_small(a, b, n) == 0 }
    }
    #[inline(always)]
    unsafe fn cmp_mid(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: same contract (`W = 64`).
        unsafe { if ne_mid(a, b, n) { cmp_mid(a, b, n) } else { 0 } }
    }
    #[inline(always)]
    unsafe fn eq_mid(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: same contract (`W = 64`).
        unsafe { !ne_mid_eq(a, b, n) }
    }
    #[inline(always)]
    unsafe fn cmp_large(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: `n > 256`; the block found lies inside `[0, n)` and every byte before it is
        // equal, so its first difference is the first; `cmp_mid` takes `64 <= 128 <= 256`.
        unsafe {
            let i = first_ne_block(a, b, n);
            if i < n { cmp_mid(a.add(i), b.add(i), 128) } else { 0 }
        }
    }
    #[inline(always)]
    unsafe fn eq_large(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: `n > 256`.
        unsafe { first_ne_block(a, b, n) == n }
    }
    #[inline(always)]
    unsafe fn find_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract.
        let m = unsafe { masked_eq(p, n, b) };
        (m != 0).then(|| m.trailing_zeros() as usize)
    }
    #[inline(always)]
    unsafe fn rfind_small<const K: usize>(p: *const u8, n: usize, b: [u8; K]) -> Option<usize> {
        // SAFETY: same contract.
        let m = unsafe { masked_eq(p, n, b) };
        (m != 0).then(|| 63 - m.leading_zeros() as usize)
    }
    #[inline(always)]
    unsafe fn count_small(p: *const u8, n: usize, b: u8) -> usize {
        // SAFETY: same contract.
        let m = unsafe { masked_eq(p, n, [b]) };
        m.count_ones() as usize
    }
    #[inline(always)]
    fn strategy() -> Strategy {
        strategy::current()
    }
    #[inline(always)]
    unsafe fn copy_forward_large(dst: *mut u8, src: *const u8, n: usize, s: &Strategy) -> bool {
        // SAFETY: same contract.
        unsafe { rep_movsb_window(dst, src, n, s.rep_movsb_min, s.rep_movsb_max) }
    }
    #[inline(always)]
    unsafe fn set_large(dst: *mut u8, b: u8, n: usize, s: &Strategy) -> bool {
        // SAFETY: same contract.
        unsafe { rep_stosb_window(dst, b, n, s.rep_stosb_min) }
    }
    #[inline(always)]
    unsafe fn move_backward_blocks(dst: *mut u8, src: *const u8, i: usize) {
        // SAFETY: same contract; AVX-512F (the trait's contract).
        unsafe { backward_blocks_avx512(dst, src, i) }
    }
}

super::backend::backend!(SSE2, __m128i);
super::backend::backend!(AVX2_ALL, __m256i, "avx2,popcnt,bmi1");
super::backend::backend!(AVX512_ALL, __m512i, "avx512f,avx512bw,avx512vl,popcnt,bmi1,bmi2");

/// `memmove` on the AVX2 backend: up to 64 bytes in one `asm!` block that branches as
/// glibc's `__memmove_avx_unaligned_erms` (below 32 bytes, then below 16, 8, 4, 2; from 32 to
/// 64 two overlapping 32-byte blocks, with no taken branch), larger sizes in the generic
/// kernel (`ja` straight to it). Every load of a size class comes before its stores, so any
/// overlap is fine.
///
/// Random sizes, our time / glibc's, medians of 21 alternated rounds (amd-zen5,
/// `NAB_MAX_ISA=x86-64-v3` against glibc capped alike): with the generic branch tree (a test
/// on 256, then 32, then 16 first) 0–16 B 1.17–1.30, 17–64 B 1.50–1.72, though each fixed size
/// took no longer than glibc's (the loss is in mispredicted sizes).
///
/// # Safety
///
/// `src` valid for reads and `dst` for writes of `n` bytes; AVX2.
#[inline]
#[target_feature(enable = "avx,avx2")]
unsafe fn memmove_avx2(dst: *mut u8, src: *const u8, n: usize) {
    if n > 64 {
        // SAFETY: same contract.
        return unsafe { (AVX2_ALL.memmove)(dst, src, n) };
    }
    // SAFETY: every access lies in `src[..n]`/`dst[..n]`: each class's two blocks start at 0
    // and end at `n`, and a class is entered only when `n` is at least its block size (`n`
    // is 0 or 1 on the byte path, which reads nothing for 0). All loads of a class precede
    // its stores. `vzeroupper` after the 32-byte blocks; every ymm register is declared
    // clobbered.
    unsafe {
        asm!(
            "cmp {n}, 32",
            "jb 2f",
            "vmovdqu ymm0, [{s}]",
            "vmovdqu ymm1, [{s} + {n} - 32]",
            "vmovdqu [{d}], ymm0",
            "vmovdqu [{d} + {n} - 32], ymm1",
            "vzeroupper",
            "jmp 9f",
            "2:",
            "cmp {n}, 16",
            "jb 3f",
            "vmovdqu xmm0, [{s}]",
            "vmovdqu xmm1, [{s} + {n} - 16]",
            "vmovdqu [{d}], xmm0",
            "vmovdqu [{d} + {n} - 16], xmm1",
            "jmp 9f",
            "3:",
            "cmp {n}, 8",
            "jb 4f",
            "mov {x}, [{s}]",
            "mov {y}, [{s} + {n} - 8]",
            "mov [{d}], {x}",
            "mov [{d} + {n} - 8], {y}",
            "jmp 9f",
            "4:",
            "cmp {n}, 4",
            "jb 5f",
            "mov {x:e}, [{s}]",
            "mov {y:e}, [{s} + {n} - 4]",
            "mov [{d}], {x:e}",
            "mov [{d} + {n} - 4], {y:e}",
            "jmp 9f",
            "5:",
            "cmp {n}, 1",
            "ja 6f",
            "jb 9f",
            "movzx {x:e}, byte ptr [{s}]",
            "mov [{d}], {x:l}",
            "jmp 9f",
            "6:",
            "movzx {x:e}, word ptr [{s}]",
            "movzx {y:e}, word ptr [{s} + {n} - 2]",
            "mov [{d}], {x:x}",
            "mov [{d} + {n} - 2], {y:x}",
            "9:",
            d = in(reg) dst, s = in(reg) src, n = in(reg) n, x = out(reg) _, y = out(reg) _,
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _,
            out("ymm5") _, out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _,
            out("ymm10") _, out("ymm11") _, out("ymm12") _, out("ymm13") _, out("ymm14") _,
            out("ymm15") _,
            options(nostack),
        );
    }
}

/// `memset` on the AVX2 backend: up to 64 bytes in one `asm!` block, branching as glibc's
/// `__memset_avx2_unaligned_erms` (below 32 bytes, then below 16, 8, 4, 2), the stores from
/// one broadcast (its low 16, 8, 4 or 2 bytes below 32); larger sizes in the generic kernel
/// (the same 65–256 B stores in `asm!` measured 1.01–1.09x glibc's time, the generic ones
/// 0.75–0.82x).
/// Random sizes at `x86-64-v3`, our time / glibc's (medians of 21 alternated rounds,
/// amd-zen5): with the generic branch tree 0–16 B 1.12, 17–64 B 1.26–1.32; with this
/// 0.99–1.05 and 1.08–1.14 (each fixed size ties or wins; LLVM makes the sizes up to 64 the
/// taken branch of the first test, which the `movzx` of the generic call's byte precedes).
///
/// # Safety
///
/// `dst` valid for writes of `n` bytes; AVX2.
#[inline]
#[target_feature(enable = "avx,avx2")]
unsafe fn memset_avx2(dst: *mut u8, b: u8, n: usize) {
    if n > 64 {
        // SAFETY: same contract.
        return unsafe { (AVX2_ALL.memset)(dst, b, n) };
    }
    // SAFETY: every store lies in `dst[..n]`, as in `memmove_avx2`. `vzeroupper` after the
    // 32-byte broadcast (glibc's: the shorter sizes broadcast to 16 bytes only); every ymm
    // register is declared clobbered.
    unsafe {
        asm!(
            "vmovd xmm0, {b:e}",
            "cmp {n}, 32",
            "jb 2f",
            "vpbroadcastb ymm0, xmm0",
            "vmovdqu [{d}], ymm0",
            "vmovdqu [{d} + {n} - 32], ymm0",
            "vzeroupper",
            "jmp 9f",
            // Below 32 bytes the broadcast is 16 bytes wide: no upper half to clear.
            "2:",
            "vpbroadcastb xmm0, xmm0",
            "cmp {n}, 16",
            "jb 3f",
            "vmovdqu [{d}], xmm0",
            "vmovdqu [{d} + {n} - 16], xmm0",
            "jmp 9f",
            "3:",
            "cmp {n}, 8",
            "jb 4f",
            "vmovq [{d}], xmm0",
            "vmovq [{d} + {n} - 8], xmm0",
            "jmp 9f",
            "4:",
            "vmovd {x:e}, xmm0",
            "cmp {n}, 4",
            "jb 5f",
            "mov [{d}], {x:e}",
            "mov [{d} + {n} - 4], {x:e}",
            "jmp 9f",
            "5:",
            "cmp {n}, 1",
            "ja 6f",
            "jb 9f",
            "mov [{d}], {x:l}",
            "jmp 9f",
            "6:",
            "mov [{d}], {x:x}",
            "mov [{d} + {n} - 2], {x:x}",
            "9:",
            d = in(reg) dst, b = in(reg) u32::from(b), n = in(reg) n, x = out(reg) _,
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _,
            out("ymm5") _, out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _,
            out("ymm10") _, out("ymm11") _, out("ymm12") _, out("ymm13") _, out("ymm14") _,
            out("ymm15") _,
            options(nostack),
        );
    }
}

/// The AVX2 backend: the generic kernels, with the short moves and fills above.
const AVX2: super::table::Ops =
    super::table::Ops { memmove: memmove_avx2, memset: memset_avx2, ..AVX2_ALL };

/// `memset` on the AVX-512 backend: up to 512 bytes in one `asm!` block whose vector is an
/// EVEX-only register (zmm16), so it returns without a `vzeroupper`, as glibc's
/// `__memset_avx512_unaligned_erms`, and branches as glibc's does (one test splits the sizes
/// up to 64 bytes from the rest, a second 65–128 from 129–512); the stores are the generic
/// ones (a masked store up to 64 bytes, else two, four or eight overlapping 64-byte stores,
/// in address order). Larger fills go to the generic loop and `rep stosb` window, out of
/// line (`#[cold]`, so the short sizes fall through to the `asm!`).
///
/// Random sizes per class, our time / glibc's, medians of 21 alternated rounds (amd-zen5,
/// default build): through the generic entry (zmm0, then `vzeroupper`) 0–16 B 1.20, 17–64 B
/// 1.05, 65–256 B 1.67–1.74; with this 1.00, 0.87–0.98, 0.97–1.05.
///
/// # Safety
///
/// `dst` valid for writes of `n` bytes; AVX-512F/BW/VL and BMI2.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
unsafe fn memset_avx512(dst: *mut u8, b: u8, n: usize) {
    if n > 512 {
        // SAFETY: same contract.
        return unsafe { memset_large_avx512(dst, b, n) };
    }
    // SAFETY: every store lies in `dst[..n]`: the masked store writes only the first
    // `n <= 64` bytes (masked-off bytes are neither written nor faulted on), the plain stores
    // start at 0, 64, 128, 192 and end at `n`, each only when `n` covers it (`n > 128` for
    // the second pair, `n > 256` for the third and fourth). EVEX-only register: no
    // `vzeroupper` needed.
    unsafe {
        asm!(
            "vpbroadcastb zmm16, {b:e}",
            "cmp {n}, 64",
            "jbe 2f",
            "cmp {n}, 128",
            "ja 3f",
            "vmovdqu64 [{d}], zmm16",
            "vmovdqu64 [{d} + {n} - 64], zmm16",
            "jmp 4f",
            "2:",
            "bzhi {m}, {ones}, {n}",
            "kmovq {k}, {m}",
            "vmovdqu8 [{d}] {{{k}}}, zmm16",
            "jmp 4f",
            // Above 128 bytes the stores go up in address order (glibc's order).
            "3:",
            "vmovdqu64 [{d}], zmm16",
            "vmovdqu64 [{d} + 64], zmm16",
            "cmp {n}, 256",
            "jbe 5f",
            "vmovdqu64 [{d} + 128], zmm16",
            "vmovdqu64 [{d} + 192], zmm16",
            "vmovdqu64 [{d} + {n} - 256], zmm16",
            "vmovdqu64 [{d} + {n} - 192], zmm16",
            "5:",
            "vmovdqu64 [{d} + {n} - 128], zmm16",
            "vmovdqu64 [{d} + {n} - 64], zmm16",
            "4:",
            d = in(reg) dst, b = in(reg) u32::from(b), n = in(reg) n,
            ones = in(reg) u64::MAX, m = out(reg) _, k = out(kreg) _, out("zmm16") _,
            options(nostack),
        );
    }
}

/// The fills of [`memset_avx512`] above 512 bytes, out of line (the loop's register saves stay
/// off the short path).
///
/// # Safety
///
/// `dst` valid for writes of `n > 8W` bytes; AVX-512F/BW/VL and BMI2.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
unsafe fn memset_large_avx512(dst: *mut u8, b: u8, n: usize) {
    // SAFETY: same contract (`n > 512 = 8W`).
    unsafe { generic::memset_large::<__m512i>(dst, b, n, &<__m512i as Vector>::strategy()) }
}

/// The AVX-512 backend: its moves, fills, compares and count, with the AVX2 backend's
/// searches (every CPU with the AVX-512 backend's features has AVX2's). On this AMD EPYC
/// (Zen, AVX-512), compares into mask registers and the mask ORs of the 64-byte kernels, or
/// of 32-byte kernels compiled with AVX-512 enabled (LLVM then also compares into masks), are
/// slower than AVX2's `vpcmpeqb`/`vpor`/`vpmovmskb`. Min of 7 alternated runs, ns,
/// AVX-512 / AVX2 / memchr crate: `memchr` 16 KiB 121/79/86; `memchr3` 16 KiB 316/229/203,
/// 256 KiB 4586/3394/3349; 32-byte kernels built with AVX-512: `memchr` 16 KiB 192.
const AVX512: super::table::Ops = super::table::Ops {
    memset: memset_avx512,
    memchr: AVX2.memchr,
    memrchr: AVX2.memrchr,
    memchr2: AVX2.memchr2,
    memchr3: AVX2.memchr3,
    memrchr2: AVX2.memrchr2,
    memrchr3: AVX2.memrchr3,
    pair_find: AVX2.pair_find,
    pair_rfind: AVX2.pair_rfind,
    ..AVX512_ALL
};

/// Whether dispatch may use every extension of `needs`: a constant `true` when the build
/// enables them, else [`features`].
#[inline]
fn supports(needs: Features) -> bool {
    Features::COMPILE_TIME.contains(needs) || features().contains(needs)
}

/// The AVX-512 backend with the AVX2 backend's moves and fills, for CPUs where the strategy
/// prefers 256-bit stores (glibc's `Prefer_No_AVX512`; see `strategy::prefer_no_avx512`).
const AVX512_NARROW_MOVES: super::table::Ops = super::table::Ops {
    memmove: AVX2.memmove,
    memset: AVX2.memset,
    memmove_with: AVX2.memmove_with,
    memset_with: AVX2.memset_with,
    ..AVX512
};

/// The AVX-512 backend's table, if the CPU supports it: with 256-bit moves and fills when the
/// strategy says so (when the build enables AVX-512, [`FIXED`] keeps the 512-bit ones). A
/// detection nested in the strategy's first decision (a `c-symbols` `memcpy` called while the
/// facts are read) gets the 512-bit table; the outer detection then stores the right one.
#[inline]
pub(crate) fn avx512() -> Option<&'static super::table::Ops> {
    supports(AVX512_NEEDS)
        .then(|| if strategy::current().narrow_moves { &AVX512_NARROW_MOVES } else { &AVX512 })
}

/// The AVX2 backend's table, if the CPU supports it.
#[inline]
pub(crate) fn avx2() -> Option<&'static super::table::Ops> {
    supports(AVX2_NEEDS).then_some(&AVX2)
}

/// The SSE2 backend's table (SSE2 is in the x86_64 baseline).
pub(crate) const SSE2_OPS: &super::table::Ops = &SSE2;

/// AVX-512 when the build enables it (e.g. `-C target-cpu=native` on this machine): no
/// detection, and the kernels can inline into the caller.
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vl",
    target_feature = "popcnt",
    target_feature = "bmi1",
    target_feature = "bmi2"
))]
pub(crate) const FIXED: Option<&super::table::Ops> = Some(&AVX512);
/// Otherwise detected at run time.
#[cfg(not(all(
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vl",
    target_feature = "popcnt",
    target_feature = "bmi1",
    target_feature = "bmi2"
)))]
pub(crate) const FIXED: Option<&super::table::Ops> = None;
