//! memops against glibc (through `libc`, what every user already has), `compiler_builtins`'
//! portable Rust loops (their shape reproduced below, with attribution) and the memchr crate.
//!
//! Per size class of the spec (0–16, 17–64, 65–256, 257 B–4 KiB, 4–64 KiB, 64 KiB–1 MiB,
//! 8 MiB), every iteration uses the next of 4096 sizes drawn at random within the class, so a
//! size dispatch cannot learn the pattern (branch prediction is honest). The parameter of each
//! `BenchmarkId` is the class; the throughput is the mean size of the class's draws.
//!
//! This bench crate is `#![no_builtins]` so that LLVM cannot turn the reproduced
//! `compiler_builtins` loops into calls to glibc's `memcpy`/`memset` (compiler_builtins itself
//! is built that way).

#![no_builtins]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// The spec's classes: label, smallest and largest size.
const CLASSES: [(&str, usize, usize); 7] = [
    ("0-16", 0, 16),
    ("17-64", 17, 64),
    ("65-256", 65, 256),
    ("257-4K", 257, 4 << 10),
    ("4K-64K", (4 << 10) + 1, 64 << 10),
    ("64K-1M", (64 << 10) + 1, 1 << 20),
    ("8M", 8 << 20, 8 << 20),
];

const DRAWS: usize = 4096;

/// 4096 sizes drawn uniformly in `lo..=hi` (a fixed xorshift, so every run draws the same).
fn draws(lo: usize, hi: usize) -> Vec<usize> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ (lo as u64) ^ ((hi as u64) << 20);
    (0..DRAWS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            lo + (x % (hi - lo + 1) as u64) as usize
        })
        .collect()
}

fn classes() -> Vec<(&'static str, Vec<usize>)> {
    let all: Vec<usize> = (0..CLASSES.len()).collect();
    benches::sizes(&all)
        .into_iter()
        .map(|i| (CLASSES[i].0, draws(CLASSES[i].1, CLASSES[i].2)))
        .collect()
}

fn mean(sizes: &[usize]) -> u64 {
    (sizes.iter().sum::<usize>() / sizes.len()).max(1) as u64
}

/// `compiler_builtins`' portable loops (`compiler-builtins/src/mem/impls.rs`, rust-lang,
/// MIT/Apache-2.0), reproduced in shape: bytes until the destination is word-aligned, a word
/// loop, bytes for the tail; `memcmp` is a byte loop. Only the misaligned-source word path
/// differs (it reads unaligned words here; upstream shifts aligned words): the benches use
/// aligned buffers, so it is not measured.
mod compiler_builtins_shape {
    const WORD_SIZE: usize = core::mem::size_of::<usize>();
    const WORD_MASK: usize = WORD_SIZE - 1;
    const WORD_COPY_THRESHOLD: usize = if 2 * WORD_SIZE > 16 { 2 * WORD_SIZE } else { 16 };

    #[inline(always)]
    unsafe fn copy_forward_bytes(mut dest: *mut u8, mut src: *const u8, n: usize) {
        let dest_end = dest.wrapping_add(n);
        while dest < dest_end {
            // SAFETY: inside the caller's buffers.
            unsafe { *dest = *src };
            dest = dest.wrapping_add(1);
            src = src.wrapping_add(1);
        }
    }

    #[inline(always)]
    unsafe fn copy_forward_words(dest: *mut u8, src: *const u8, n: usize) {
        let mut d = dest.cast::<usize>();
        let mut s = src.cast::<usize>();
        let dest_end = dest.wrapping_add(n).cast::<usize>();
        while d < dest_end {
            // SAFETY: inside the caller's buffers; `d` is aligned.
            unsafe { *d = s.read_unaligned() };
            d = d.wrapping_add(1);
            s = s.wrapping_add(1);
        }
    }

    /// `compiler_builtins::mem::impls::copy_forward` (what its `memcpy` runs).
    ///
    /// # Safety
    ///
    /// As `memcpy`.
    pub unsafe fn memcpy(mut dest: *mut u8, mut src: *const u8, mut n: usize) {
        // SAFETY: (whole body) the accesses stay in the caller's buffers.
        unsafe {
            if n >= WORD_COPY_THRESHOLD {
                let dest_misalignment = (dest as usize).wrapping_neg() & WORD_MASK;
                copy_forward_bytes(dest, src, dest_misalignment);
                dest = dest.wrapping_add(dest_misalignment);
                src = src.wrapping_add(dest_misalignment);
                n -= dest_misalignment;
                let n_words = n & !WORD_MASK;
                copy_forward_words(dest, src, n_words);
                dest = dest.wrapping_add(n_words);
                src = src.wrapping_add(n_words);
                n -= n_words;
            }
            copy_forward_bytes(dest, src, n);
        }
    }

    /// `compiler_builtins::mem::impls::set_bytes` (what its `memset` runs).
    ///
    /// # Safety
    ///
    /// As `memset`.
    pub unsafe fn memset(mut s: *mut u8, c: u8, mut n: usize) {
        #[inline(always)]
        unsafe fn set_bytes_bytes(mut s: *mut u8, c: u8, n: usize) {
            let end = s.wrapping_add(n);
            while s < end {
                // SAFETY: inside the caller's buffer.
                unsafe { *s = c };
                s = s.wrapping_add(1);
            }
        }
        // SAFETY: (whole body) the accesses stay in the caller's buffer.
        unsafe {
            if n >= WORD_COPY_THRESHOLD {
                let misalignment = (s as usize).wrapping_neg() & WORD_MASK;
                set_bytes_bytes(s, c, misalignment);
                s = s.wrapping_add(misalignment);
                n -= misalignment;
                let n_words = n & !WORD_MASK;
                let mut broadcast = c as usize;
                let mut bits = 8;
                while bits < WORD_SIZE * 8 {
                    broadcast |= broadcast << bits;
                    bits *= 2;
                }
                let mut w = s.cast::<usize>();
                let end = s.wrapping_add(n_words).cast::<usize>();
                while w < end {
                    *w = broadcast;
                    w = w.wrapping_add(1);
                }
                s = s.wrapping_add(n_words);
                n -= n_words;
            }
            set_bytes_bytes(s, c, n);
        }
    }

    /// `compiler_builtins::mem::impls::compare_bytes` (what its `memcmp` runs).
    ///
    /// # Safety
    ///
    /// As `memcmp`.
    pub unsafe fn memcmp(s1: *const u8, s2: *const u8, n: usize) -> i32 {
        let mut i = 0;
        while i < n {
            // SAFETY: `i < n`.
            let (a, b) = unsafe { (*s1.add(i), *s2.add(i)) };
            if a != b {
                return a as i32 - b as i32;
            }
            i += 1;
        }
        0
    }
}

/// Buffers big enough for the largest class, and a cursor over the class's sizes.
struct Bufs {
    src: Vec<u8>,
    dst: Vec<u8>,
}

fn bufs() -> Bufs {
    let len = (8 << 20) + 64;
    Bufs { src: benches::input(len), dst: vec![0u8; len] }
}

type MoveFn = unsafe fn(*mut u8, *const u8, usize);

fn memmove_impls() -> Vec<(&'static str, MoveFn)> {
    unsafe fn glibc(d: *mut u8, s: *const u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { libc::memmove(d.cast(), s.cast(), n) };
    }
    unsafe fn ours(d: *mut u8, s: *const u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { memops::memmove(d, s, n) }
    }
    /// Does nothing: its time is the harness's own cost per call (the size draw, the indirect
    /// call, criterion's loop), which every other row includes too.
    unsafe fn call_floor(_: *mut u8, _: *const u8, _: usize) {}
    let mut v: Vec<(&'static str, MoveFn)> = vec![
        ("memops", ours),
        ("glibc", glibc),
        ("compiler-builtins", compiler_builtins_shape::memcpy),
        ("call-floor", call_floor),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        /// A bare forward `rep movsb` (the spec's reference for the ERMS/FSRM window).
        unsafe fn rep_movsb(d: *mut u8, s: *const u8, n: usize) {
            // SAFETY: disjoint buffers valid for `n` bytes; DF = 0 by the ABI.
            unsafe {
                core::arch::asm!("rep movsb", inout("rcx") n => _, inout("rdi") d => _,
                    inout("rsi") s => _, options(nostack, preserves_flags));
            }
        }
        v.push(("rep-movsb", rep_movsb));
    }
    v
}

fn memmove(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memmove");
    let mut b = bufs();
    let (src, dst) = (b.src.as_ptr(), b.dst.as_mut_ptr());
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        for (name, f) in memmove_impls() {
            group.bench_function(BenchmarkId::new(name, class), |bch| {
                let mut i = 0;
                bch.iter(|| {
                    let n = sizes[i % DRAWS];
                    i += 1;
                    // SAFETY: both buffers hold 8 MiB + 64 bytes, `n <= 8 MiB`.
                    unsafe { f(black_box(dst), black_box(src), n) }
                })
            });
        }
    }
    group.finish();
}

/// Fixed sizes from 2 KiB to 32 MiB: where `rep movsb` and non-temporal stores start to pay
/// (the measurements behind `REP_MOVSB_MIN` and `NT_THRESHOLD` in `memops/src/arch/x86_64.rs`).
/// Runs only with `MEMOPS_BENCH_THRESHOLDS=1`.
fn memmove_thresholds(c: &mut Criterion) {
    if std::env::var_os("MEMOPS_BENCH_THRESHOLDS").is_none() {
        return;
    }
    let mut group = c.benchmark_group("memops/memmove-fixed");
    let len = (32 << 20) + 64;
    let src = benches::input(len);
    let mut dst = vec![0u8; len];
    for kib in [2usize, 4, 8, 16, 32, 64, 128, 256, 1024, 4096, 8192, 16384, 32768] {
        let n = kib << 10;
        group.throughput(Throughput::Bytes(n as u64));
        for (name, f) in memmove_impls() {
            if name == "compiler-builtins" {
                continue;
            }
            group.bench_function(BenchmarkId::new(name, format!("{kib}K")), |bch| {
                // SAFETY: both buffers hold 32 MiB + 64 bytes.
                bch.iter(|| unsafe { f(black_box(dst.as_mut_ptr()), black_box(src.as_ptr()), n) })
            });
        }
    }
    group.finish();
}

fn memset(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memset");
    let mut b = bufs();
    let dst = b.dst.as_mut_ptr();
    type SetFn = unsafe fn(*mut u8, u8, usize);
    unsafe fn glibc(d: *mut u8, c: u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { libc::memset(d.cast(), c.into(), n) };
    }
    unsafe fn ours(d: *mut u8, c: u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { memops::memset(d, c, n) }
    }
    #[allow(unused_mut)]
    let mut impls: Vec<(&str, SetFn)> = vec![
        ("memops", ours),
        ("glibc", glibc),
        ("compiler-builtins", compiler_builtins_shape::memset),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        /// A bare `rep stosb` (the reference for memops' `REP_STOSB_MIN`).
        unsafe fn rep_stosb(d: *mut u8, c: u8, n: usize) {
            // SAFETY: the buffer is valid for `n` bytes; DF = 0 by the ABI.
            unsafe {
                core::arch::asm!("rep stosb", inout("rcx") n => _, inout("rdi") d => _,
                    in("al") c, options(nostack, preserves_flags));
            }
        }
        impls.push(("rep-stosb", rep_stosb));
    }
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        for &(name, f) in &impls {
            group.bench_function(BenchmarkId::new(name, class), |bch| {
                let mut i = 0;
                bch.iter(|| {
                    let n = sizes[i % DRAWS];
                    i += 1;
                    // SAFETY: the buffer holds 8 MiB + 64 bytes, `n <= 8 MiB`.
                    unsafe { f(black_box(dst), black_box(0x5a), n) }
                })
            });
        }
    }
    group.finish();
}

fn memcmp(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memcmp");
    let b = bufs();
    // Equal buffers: every implementation compares the whole length.
    let other = b.src.clone();
    let (x, y) = (b.src.as_ptr(), other.as_ptr());
    type CmpFn = unsafe fn(*const u8, *const u8, usize) -> i32;
    unsafe fn glibc(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: forwarded contract.
        unsafe { libc::memcmp(a.cast(), b.cast(), n) }
    }
    unsafe fn ours(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: forwarded contract.
        unsafe { memops::memcmp(a, b, n) }
    }
    let impls: [(&str, CmpFn); 3] = [
        ("memops", ours),
        ("glibc", glibc),
        ("compiler-builtins", compiler_builtins_shape::memcmp),
    ];
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        for (name, f) in impls {
            group.bench_function(BenchmarkId::new(name, class), |bch| {
                let mut i = 0;
                bch.iter(|| {
                    let n = sizes[i % DRAWS];
                    i += 1;
                    // SAFETY: both buffers hold 8 MiB + 64 bytes, `n <= 8 MiB`.
                    unsafe { f(black_box(x), black_box(y), n) }
                })
            });
        }
    }
    group.finish();
}

fn equal(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/equal");
    let b = bufs();
    let other = b.src.clone();
    type EqFn = fn(&[u8], &[u8]) -> bool;
    fn glibc(a: &[u8], b: &[u8]) -> bool {
        // SAFETY: equal lengths checked first; both slices readable.
        a.len() == b.len()
            && unsafe { libc::memcmp(a.as_ptr().cast(), b.as_ptr().cast(), a.len()) } == 0
    }
    let impls: [(&str, EqFn); 2] = [("memops", memops::equal), ("glibc", glibc)];
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        for (name, f) in impls {
            group.bench_function(BenchmarkId::new(name, class), |bch| {
                let mut i = 0;
                bch.iter(|| {
                    let n = sizes[i % DRAWS];
                    i += 1;
                    f(black_box(&b.src[..n]), black_box(&other[..n]))
                })
            });
        }
    }
    group.finish();
}

/// `find_byte`, `rfind_byte` and `count_byte` against memchr and glibc. The finds look for an
/// absent byte (a full scan); the count counts one byte value of the random input.
fn searches(c: &mut Criterion) {
    let hay = benches::input((8 << 20) + 64);
    // `input` draws bytes from the top of an LCG; make sure 0xff never occurs.
    let hay: Vec<u8> = hay.into_iter().map(|x| x & 0x7f).collect();
    type SearchFn = fn(&[u8]) -> usize;
    let groups: [(&str, Vec<(&str, SearchFn)>); 3] = [
        (
            "memops/find_byte",
            vec![
                ("memops", |h| memops::find_byte(h, 0xff).unwrap_or(usize::MAX)),
                ("memchr", |h| memchr::memchr(0xff, h).unwrap_or(usize::MAX)),
                ("glibc", |h| {
                    // SAFETY: `h` is readable for its length.
                    let p = unsafe { libc::memchr(h.as_ptr().cast(), 0xff, h.len()) };
                    if p.is_null() { usize::MAX } else { p as usize - h.as_ptr() as usize }
                }),
            ],
        ),
        (
            "memops/rfind_byte",
            vec![
                ("memops", |h| memops::rfind_byte(h, 0xff).unwrap_or(usize::MAX)),
                ("memchr", |h| memchr::memrchr(0xff, h).unwrap_or(usize::MAX)),
            ],
        ),
        (
            "memops/count_byte",
            vec![
                ("memops", |h| memops::count_byte(h, b'a')),
                ("memchr", |h| memchr::memchr_iter(b'a', h).count()),
            ],
        ),
    ];
    for (group_name, impls) in groups {
        let mut group = c.benchmark_group(group_name);
        for (class, sizes) in classes() {
            group.throughput(Throughput::Bytes(mean(&sizes)));
            for &(name, f) in &impls {
                group.bench_function(BenchmarkId::new(name, class), |bch| {
                    let mut i = 0;
                    bch.iter(|| {
                        let n = sizes[i % DRAWS];
                        i += 1;
                        f(black_box(&hay[..n]))
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, memmove, memmove_thresholds, memset, memcmp, equal, searches);
criterion_main!(benches);
