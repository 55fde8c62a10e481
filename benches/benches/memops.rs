//! memops against glibc (through `libc`, what every user already has), `compiler_builtins`'
//! portable Rust loops (their shape reproduced below, with attribution) and the memchr crate.
//!
//! Per size class of the spec (0–16, 17–64, 65–256, 257 B–4 KiB, 4–64 KiB, 64 KiB–1 MiB,
//! 8 MiB, and 64 MiB, beyond both bench CPUs' L3), every iteration uses the next of 4096 sizes drawn at random within the class, so a
//! size dispatch cannot learn the pattern (branch prediction is honest). The parameter of each
//! `BenchmarkId` is the class; the throughput is the mean size of the class's draws.
//!
//! The harness adds as little as it can to each call ([`iter_sizes`], [`row`]): a register
//! loop, a direct call, and a destination half a page away from the source ([`Bufs::dst_ptr`]).
//! The `call-floor` row is what remains.
//!
//! This bench crate is `#![no_builtins]` so that LLVM cannot turn the reproduced
//! `compiler_builtins` loops into calls to glibc's `memcpy`/`memset` (compiler_builtins itself
//! is built that way).

#![no_builtins]

use std::hint::black_box;
use std::time::Instant;

use criterion::measurement::WallTime;
use criterion::{
    Bencher, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};

use benches::{MEMOPS_CLASSES as CLASSES, MEMOPS_DRAWS as DRAWS, memops_draws as draws};

fn classes() -> Vec<(&'static str, Vec<usize>)> {
    let all: Vec<usize> = (0..CLASSES.len()).collect();
    benches::sizes(&all)
        .into_iter()
        .map(|i| (CLASSES[i].0, draws(CLASSES[i].1, CLASSES[i].2)))
        .collect()
}

/// Times `iters` calls of `call`, each with the next of the class's `sizes`.
///
/// The loop counter stays in a register. With `Bencher::iter`, a closure that advanced a
/// captured index (stored and reloaded at every call) and `black_box`ed arguments to a
/// function pointer, the `call-floor` row (an empty function) took 2.0–2.2 ns; with this loop
/// and direct calls, 1.1 ns. That floor is in every row, so it shrank every ratio.
fn iter_sizes<R>(bch: &mut Bencher, sizes: &[usize], mut call: impl FnMut(usize) -> R) {
    bch.iter_custom(|iters| {
        let start = Instant::now();
        for k in 0..iters as usize {
            black_box(call(sizes[k % DRAWS]));
        }
        start.elapsed()
    })
}

fn mean(sizes: &[usize]) -> u64 {
    (sizes.iter().sum::<usize>() / sizes.len()).max(1) as u64
}

/// `compiler_builtins`' portable loops (`compiler-builtins/src/mem/impls.rs`, rust-lang,
/// MIT/Apache-2.0), reproduced in shape and, like them, out of line: bytes until the
/// destination is word-aligned, a word loop, bytes for the tail; `memcmp` is a byte loop. Only
/// the misaligned-source word path differs (it reads unaligned words here; upstream shifts
/// aligned words): the benches use aligned buffers, so it is not measured.
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
    #[inline(never)]
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
    #[inline(never)]
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
    #[inline(never)]
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

/// Buffers big enough for the largest class.
struct Bufs {
    src: Vec<u8>,
    dst: Vec<u8>,
}

/// Bytes a copy's destination may need: the largest class plus 64, plus up to a page for
/// [`Bufs::dst_ptr`]'s offset.
const BUF_LEN: usize = (64 << 20) + 64;

fn bufs() -> Bufs {
    Bufs { src: benches::input(BUF_LEN), dst: vec![0u8; BUF_LEN + 4096] }
}

impl Bufs {
    /// A destination with `BUF_LEN` bytes whose address is half a page away from `src`'s
    /// modulo 4 KiB.
    ///
    /// Two 8 MiB `Vec`s come from `mmap` at the same offset in their pages, so every store of
    /// a copy would share its low 12 address bits with the load of the same index. x86 cores
    /// check a load against earlier stores by those bits first, and a load that matches a
    /// store still in flight waits for it ("4K aliasing"). The next call's first loads then
    /// wait on the previous call's last stores. Copies between unrelated buffers rarely line
    /// up like this. It costs every implementation, not only ours: measured with random
    /// 65–256 B sizes, memops took 3.50 ns with the destination 16 bytes past the source's
    /// page offset and 2.07 ns at 2064 bytes. The benches use the second case.
    fn dst_ptr(&mut self) -> *mut u8 {
        let src = self.src.as_ptr() as usize;
        let dst = self.dst.as_mut_ptr();
        let want = (src + 2048) % 4096;
        let off = (want + 4096 - dst as usize % 4096) % 4096;
        // in bounds: `off < 4096` and `dst` holds `BUF_LEN + 4096` bytes.
        dst.wrapping_add(off)
    }
}

/// One row: `call` with each size of the class, timed by [`iter_sizes`].
fn row<R>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    class: &str,
    sizes: &[usize],
    call: impl FnMut(usize) -> R,
) {
    let mut call = call;
    group.bench_function(BenchmarkId::new(name, class), |bch| iter_sizes(bch, sizes, &mut call));
}

/// Does nothing, out of line: its row is the harness's own cost per call (the size draw, the
/// call, the loop), which every other row includes too.
#[inline(never)]
fn call_floor() {
    black_box(());
}

/// A bare forward `rep movsb` (the spec's reference for the ERMS/FSRM window).
///
/// # Safety
///
/// `src` valid for reads and `dst` for writes of `n` bytes, not overlapping.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
unsafe fn rep_movsb(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract; DF = 0 by the ABI.
    unsafe {
        core::arch::asm!("rep movsb", inout("rcx") n => _, inout("rdi") dst => _,
            inout("rsi") src => _, options(nostack, preserves_flags));
    }
}

/// A bare `rep stosb` (the reference for the `rep stosb` window of memops' strategy).
///
/// # Safety
///
/// `dst` valid for writes of `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
unsafe fn rep_stosb(dst: *mut u8, byte: u8, n: usize) {
    // SAFETY: the caller's contract; DF = 0 by the ABI.
    unsafe {
        core::arch::asm!("rep stosb", inout("rcx") n => _, inout("rdi") dst => _,
            in("al") byte, options(nostack, preserves_flags));
    }
}

// Every row calls its function directly, as a program would: `memops::raw::memmove` inlines its
// dispatch down to a call of the kernel (built with AVX-512, as `cargo xtask bench` builds
// here, sizes up to one vector are handled inline with no call), `libc::memmove` is a call
// through the PLT, and the `compiler_builtins` loops and `rep movsb` are out-of-line
// functions. The buffers go through `black_box` once per class so that no call sees them as
// constants.

fn memmove(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memmove");
    let mut b = bufs();
    let (src, dst) = (b.src.as_ptr(), b.dst_ptr());
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        let (s, d) = black_box((src, dst));
        let g = &mut group;
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "memops", class, &sizes, |n| unsafe { memops::raw::memmove(d, s, n) });
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "glibc", class, &sizes, |n| unsafe { libc::memmove(d.cast(), s.cast(), n) });
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "compiler-builtins", class, &sizes, |n| unsafe {
            compiler_builtins_shape::memcpy(d, s, n)
        });
        row(g, "call-floor", class, &sizes, |_| call_floor());
        #[cfg(target_arch = "x86_64")]
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "rep-movsb", class, &sizes, |n| unsafe { rep_movsb(d, s, n) });
        if mean(&sizes) >= 8 << 20 {
            // The preferred backend with non-temporal stores forced (no `rep movsb`), and with
            // the plain loop: what the strategy's `rep_movsb_max` and `nt_threshold` choose
            // between on this CPU.
            let be = memops::backends().next().expect("the portable backend at least");
            let nt = memops::Strategy {
                rep_movsb_min: usize::MAX,
                rep_movsb_min_sse2: usize::MAX,
                nt_threshold: 0,
                ..memops::strategy()
            };
            row(g, "memops-streaming", class, &sizes, |n| {
                // SAFETY: both buffers hold 64 MiB + 64 bytes, `n <= 64 MiB`, and they are
                // distinct allocations.
                let (dst, src) = unsafe {
                    (std::slice::from_raw_parts_mut(d, n), std::slice::from_raw_parts(s, n))
                };
                be.copy_with_strategy(dst, src, &nt)
            });
            // And with neither: the vector loop with plain stores.
            let loops = memops::Strategy::LOOPS_ONLY;
            row(g, "memops-loop", class, &sizes, |n| {
                // SAFETY: as above.
                let (dst, src) = unsafe {
                    (std::slice::from_raw_parts_mut(d, n), std::slice::from_raw_parts(s, n))
                };
                be.copy_with_strategy(dst, src, &loops)
            });
        }
    }
    group.finish();
}

/// Backward overlapping moves (the destination inside the source, 2064 bytes past it: half a
/// page plus 16, clear of 4K aliasing as in [`Bufs::dst_ptr`]) of 64 KiB, 1 MiB and 8 MiB,
/// where `rep movsb` cannot serve (it would overwrite unread source): the loops against glibc's
/// backward path.
fn memmove_backward(c: &mut Criterion) {
    const D: usize = 2064;
    let mut group = c.benchmark_group("memops/memmove-backward");
    let mut buf = benches::input((8 << 20) + D + 64);
    for (class, n) in [("64K", 64usize << 10), ("1M", 1 << 20), ("8M", 8 << 20)] {
        let sizes = vec![n; DRAWS];
        group.throughput(Throughput::Bytes(n as u64));
        let p = black_box(buf.as_mut_ptr());
        let g = &mut group;
        // SAFETY: the buffer holds 8 MiB + 2128 bytes and `D + n <= 8 MiB + 2064`.
        row(g, "memops", class, &sizes, |n| unsafe { memops::raw::memmove(p.add(D), p, n) });
        // SAFETY: as above.
        row(g, "glibc", class, &sizes, |n| unsafe { libc::memmove(p.add(D).cast(), p.cast(), n) });
    }
    group.finish();
}

/// Fixed sizes from 2 KiB to 32 MiB: where `rep movsb` and non-temporal stores start to pay
/// (the measurements behind the `rep movsb` window and the non-temporal threshold in
/// `memops/src/arch/x86_64/strategy.rs`).
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
        let (s, d) = black_box((src.as_ptr(), dst.as_mut_ptr()));
        let id = format!("{kib}K");
        let g = &mut group;
        g.bench_function(BenchmarkId::new("memops", &id), |bch| {
            // SAFETY: both buffers hold 32 MiB + 64 bytes.
            bch.iter(|| unsafe { memops::raw::memmove(d, s, n) })
        });
        g.bench_function(BenchmarkId::new("glibc", &id), |bch| {
            // SAFETY: both buffers hold 32 MiB + 64 bytes.
            bch.iter(|| unsafe { libc::memmove(d.cast(), s.cast(), n) })
        });
        #[cfg(target_arch = "x86_64")]
        g.bench_function(BenchmarkId::new("rep-movsb", &id), |bch| {
            // SAFETY: both buffers hold 32 MiB + 64 bytes.
            bch.iter(|| unsafe { rep_movsb(d, s, n) })
        });
    }
    group.finish();
}

fn memset(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memset");
    let mut b = bufs();
    let dst = b.dst_ptr();
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        let (d, x) = black_box((dst, 0x5a_u8));
        let g = &mut group;
        // SAFETY: the buffer holds 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "memops", class, &sizes, |n| unsafe { memops::raw::memset(d, x, n) });
        // SAFETY: the buffer holds 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "glibc", class, &sizes, |n| unsafe { libc::memset(d.cast(), x.into(), n) });
        // SAFETY: the buffer holds 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "compiler-builtins", class, &sizes, |n| unsafe {
            compiler_builtins_shape::memset(d, x, n)
        });
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the buffer holds 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "rep-stosb", class, &sizes, |n| unsafe { rep_stosb(d, x, n) });
    }
    group.finish();
}

fn memcmp(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/memcmp");
    let b = bufs();
    // Equal buffers: every implementation compares the whole length.
    let other = b.src.clone();
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        let (x, y) = black_box((b.src.as_ptr(), other.as_ptr()));
        let g = &mut group;
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "memops", class, &sizes, |n| unsafe { memops::raw::memcmp(x, y, n) });
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "glibc", class, &sizes, |n| unsafe { libc::memcmp(x.cast(), y.cast(), n) });
        // SAFETY: both buffers hold 64 MiB + 64 bytes and `n <= 64 MiB`.
        row(g, "compiler-builtins", class, &sizes, |n| unsafe {
            compiler_builtins_shape::memcmp(x, y, n)
        });
    }
    group.finish();
}

fn equal(c: &mut Criterion) {
    let mut group = c.benchmark_group("memops/equal");
    let b = bufs();
    let other = b.src.clone();
    for (class, sizes) in classes() {
        group.throughput(Throughput::Bytes(mean(&sizes)));
        let (x, y) = black_box((&b.src[..], &other[..]));
        let g = &mut group;
        row(g, "memops", class, &sizes, |n| memops::equal(&x[..n], &y[..n]));
        row(g, "glibc", class, &sizes, |n| {
            // Sliced like the memops row, so both pay the same bounds checks.
            let (x, y) = (&x[..n], &y[..n]);
            // SAFETY: both slices hold `n` bytes.
            unsafe { libc::memcmp(x.as_ptr().cast(), y.as_ptr().cast(), n) == 0 }
        });
    }
    group.finish();
}

/// `find_byte`, `rfind_byte` and `count_byte` against memchr and glibc. The finds look for an
/// absent byte (a full scan); the count counts one byte value of the random input.
fn searches(c: &mut Criterion) {
    let hay = benches::input(BUF_LEN);
    // `input` draws bytes from the top of an LCG; make sure 0xff never occurs.
    let hay: Vec<u8> = hay.into_iter().map(|x| x & 0x7f).collect();
    let mut find = c.benchmark_group("memops/find_byte");
    for (class, sizes) in classes() {
        find.throughput(Throughput::Bytes(mean(&sizes)));
        let (h, b) = black_box((&hay[..], 0xff_u8));
        let g = &mut find;
        row(g, "memops", class, &sizes, |n| memops::find_byte(&h[..n], b));
        row(g, "memchr", class, &sizes, |n| memchr::memchr(b, &h[..n]));
        row(g, "glibc", class, &sizes, |n| {
            let h = &h[..n];
            // SAFETY: `h` holds `n` bytes.
            unsafe { libc::memchr(h.as_ptr().cast(), b.into(), n) }
        });
    }
    find.finish();
    let mut rfind = c.benchmark_group("memops/rfind_byte");
    for (class, sizes) in classes() {
        rfind.throughput(Throughput::Bytes(mean(&sizes)));
        let (h, b) = black_box((&hay[..], 0xff_u8));
        let g = &mut rfind;
        row(g, "memops", class, &sizes, |n| memops::rfind_byte(&h[..n], b));
        row(g, "memchr", class, &sizes, |n| memchr::memrchr(b, &h[..n]));
    }
    rfind.finish();
    let mut count = c.benchmark_group("memops/count_byte");
    for (class, sizes) in classes() {
        count.throughput(Throughput::Bytes(mean(&sizes)));
        let (h, b) = black_box((&hay[..], b'a'));
        let g = &mut count;
        row(g, "memops", class, &sizes, |n| memops::count_byte(&h[..n], b));
        row(g, "memchr", class, &sizes, |n| memchr::memchr_iter(b, &h[..n]).count());
    }
    count.finish();
}

/// The sizes of the multi-byte, iterator and substring benches (fixed, not drawn: the
/// acceptance compares them per size from 1 KiB).
fn search_sizes() -> Vec<usize> {
    benches::sizes(&[1 << 10, 16 << 10, 256 << 10, 4 << 20])
}

/// One row of a fixed-size bench: `call` on the first `n` bytes.
fn fixed<R>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    n: usize,
    mut call: impl FnMut(usize) -> R,
) {
    group.bench_function(BenchmarkId::new(name, n), |bch| bch.iter(|| call(black_box(n))));
}

/// A few MiB of real text: the Rust toolchain's own library sources (`rust-src`, the `.rs`
/// files of `rustc --print sysroot`/lib/rustlib/src/rust/library in path order, or of another
/// installed toolchain), or, when no toolchain has that component, words from Debian's
/// `wamerican` list, or else generated lowercase words.
fn text(len: usize) -> Vec<u8> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::with_capacity(len);
    let sysroot = std::process::Command::new(std::env::var("RUSTC").unwrap_or("rustc".into()))
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(root) = sysroot {
        // The toolchain's `rust-src`, or another installed toolchain's (rustup keeps them
        // side by side; e.g. only nightly has it, for Miri).
        let root = std::path::PathBuf::from(root);
        let lib = |t: &std::path::Path| t.join("lib/rustlib/src/rust/library");
        let mut roots = vec![root.clone()];
        if let Some(Ok(rd)) = root.parent().map(std::fs::read_dir) {
            let mut others: Vec<_> = rd.flatten().map(|e| e.path()).collect();
            others.sort();
            roots.extend(others);
        }
        if let Some(dir) = roots.iter().map(|r| lib(r)).find(|d| d.is_dir()) {
            let mut files = Vec::new();
            walk(&dir, &mut files);
            for f in files {
                if out.len() >= len {
                    break;
                }
                out.extend(std::fs::read(f).unwrap_or_default());
            }
        }
    }
    if out.len() < len {
        let words = std::fs::read("/usr/share/dict/words").unwrap_or_default();
        let mut x = 1u64;
        let fallback: Vec<Vec<u8>> = if words.is_empty() {
            (0..5000)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (0..2 + (x >> 60) as usize)
                        .map(|k| b'a' + ((x >> (4 * k)) % 26) as u8)
                        .collect()
                })
                .collect()
        } else {
            words.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect()
        };
        out.clear();
        while out.len() < len {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            out.extend(&fallback[(x >> 33) as usize % fallback.len()]);
            out.push(if (x >> 20).is_multiple_of(12) { b'\n' } else { b' ' });
        }
    }
    out.truncate(len);
    out
}

/// `find_byte2/3` and their reverse forms against memchr's `memchr2/3`, `memrchr2/3`: bytes
/// absent from the random haystack (a full scan).
fn multi_searches(c: &mut Criterion) {
    let hay: Vec<u8> = benches::input(4 << 20).into_iter().map(|x| x & 0x7f).collect();
    let (h, x, y, z) = black_box((&hay[..], 0xfd_u8, 0xfe_u8, 0xff_u8));
    let mut g = c.benchmark_group("memops/find_byte2");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| memops::find_byte2(&h[..n], x, y));
        fixed(&mut g, "memchr", n, |n| memchr::memchr2(x, y, &h[..n]));
    }
    g.finish();
    let mut g = c.benchmark_group("memops/find_byte3");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| memops::find_byte3(&h[..n], x, y, z));
        fixed(&mut g, "memchr", n, |n| memchr::memchr3(x, y, z, &h[..n]));
    }
    g.finish();
    let mut g = c.benchmark_group("memops/rfind_byte2");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| memops::rfind_byte2(&h[..n], x, y));
        fixed(&mut g, "memchr", n, |n| memchr::memrchr2(x, y, &h[..n]));
    }
    g.finish();
    let mut g = c.benchmark_group("memops/rfind_byte3");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| memops::rfind_byte3(&h[..n], x, y, z));
        fixed(&mut g, "memchr", n, |n| memchr::memrchr3(x, y, z, &h[..n]));
    }
    g.finish();
}

/// The iterators over every match on real text ([`text`]) against memchr's: `'\n'` (one line
/// in ~40 bytes), `(`/`)` and `{`/`}`/`;` (the punctuation of Rust), forwards; `'\n'` also
/// backwards.
fn iterators(c: &mut Criterion) {
    let text = text(4 << 20);
    let t = black_box(&text[..]);
    let mut g = c.benchmark_group("memops/find_byte_iter");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| {
            memops::find_byte_iter(&t[..n], b'\n').fold(0, |a, i| a ^ i)
        });
        fixed(&mut g, "memchr", n, |n| memchr::memchr_iter(b'\n', &t[..n]).fold(0, |a, i| a ^ i));
    }
    g.finish();
    let mut g = c.benchmark_group("memops/rfind_byte_iter");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| {
            memops::find_byte_iter(&t[..n], b'\n').rev().fold(0, |a, i| a ^ i)
        });
        fixed(&mut g, "memchr", n, |n| memchr::memrchr_iter(b'\n', &t[..n]).fold(0, |a, i| a ^ i));
    }
    g.finish();
    let mut g = c.benchmark_group("memops/find_byte2_iter");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| {
            memops::find_byte2_iter(&t[..n], b'(', b')').fold(0, |a, i| a ^ i)
        });
        fixed(&mut g, "memchr", n, |n| {
            memchr::memchr2_iter(b'(', b')', &t[..n]).fold(0, |a, i| a ^ i)
        });
    }
    g.finish();
    let mut g = c.benchmark_group("memops/find_byte3_iter");
    for n in search_sizes() {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| {
            memops::find_byte3_iter(&t[..n], b'{', b'}', b';').fold(0, |a, i| a ^ i)
        });
        fixed(&mut g, "memchr", n, |n| {
            memchr::memchr3_iter(b'{', b'}', b';', &t[..n]).fold(0, |a, i| a ^ i)
        });
    }
    g.finish();
}

/// `memmem::Finder` (built once, outside the timing) against `memchr::memmem::Finder`: on
/// real text, an absent needle (a full scan), every occurrence of a common one, and the last
/// occurrence of a rarer one; on the random haystack, an absent needle. Then the linear-time
/// demonstration: an all-same-byte needle of 64 bytes in runs of 63 (every start position
/// survives the pair prefilter and each verification runs long), at two sizes 4x apart.
fn substring(c: &mut Criterion) {
    let text = text(4 << 20);
    let random: Vec<u8> = benches::input(4 << 20).into_iter().map(|x| x & 0x7f).collect();
    let cases: [(&str, &[u8], &[u8]); 4] = [
        ("text-absent", &text, b"fn frobnicate_the_widget("),
        ("text-iter", &text, b"self"),
        ("text-rfind", &text, b"unsafe impl"),
        ("random-absent", &random, b"\x01\x02\x03\x04\x05\x06\x07\x08"),
    ];
    for (name, hay, needle) in cases {
        let mut g = c.benchmark_group(format!("memops/memmem-{name}"));
        let ours = memops::memmem::Finder::new(needle);
        let theirs = memchr::memmem::Finder::new(needle);
        let h = black_box(hay);
        for n in search_sizes() {
            g.throughput(Throughput::Bytes(n as u64));
            match name {
                "text-iter" => {
                    fixed(&mut g, "memops", n, |n| ours.find_iter(&h[..n]).fold(0, |a, i| a ^ i));
                    fixed(&mut g, "memchr", n, |n| theirs.find_iter(&h[..n]).fold(0, |a, i| a ^ i));
                }
                "text-rfind" => {
                    let theirs = memchr::memmem::FinderRev::new(needle);
                    fixed(&mut g, "memops", n, |n| ours.rfind(&h[..n]));
                    fixed(&mut g, "memchr", n, |n| theirs.rfind(&h[..n]));
                }
                _ => {
                    fixed(&mut g, "memops", n, |n| ours.find(&h[..n]));
                    fixed(&mut g, "memchr", n, |n| theirs.find(&h[..n]));
                }
            }
        }
        g.finish();
    }
    let mut g = c.benchmark_group("memops/memmem-pathological");
    let runs: Vec<u8> = (0..4 << 20).map(|i| if i % 64 == 63 { b'b' } else { b'a' }).collect();
    let needle = [b'a'; 64];
    let ours = memops::memmem::Finder::new(&needle);
    let theirs = memchr::memmem::Finder::new(&needle);
    let h = black_box(&runs[..]);
    for n in [1 << 20, 4 << 20] {
        g.throughput(Throughput::Bytes(n as u64));
        fixed(&mut g, "memops", n, |n| ours.find(&h[..n]));
        fixed(&mut g, "memchr", n, |n| theirs.find(&h[..n]));
    }
    g.finish();
}

criterion_group!(
    benches,
    memmove,
    memmove_backward,
    memmove_thresholds,
    memset,
    memcmp,
    equal,
    searches,
    multi_searches,
    iterators,
    substring
);
criterion_main!(benches);
