//! The encoder's input as a read-only mapping of a regular file (Linux), so the kernel does not
//! copy the file into a buffer first: for a large file the `read()` copies cost more than the
//! encoding itself.
//!
//! A file truncated by another process while it is mapped makes a load from a page past its
//! new end raise `SIGBUS`, which kills a process by default. [`Mapped`] turns that into an
//! error: while a mapping exists, a `SIGBUS` handler (installed once, before the first
//! mapping) recognises a fault inside the mapping by its address, maps a page of zeros over
//! the faulting page (`mmap(MAP_FIXED)`), records the fault and returns, so the load runs
//! again and reads zeros. [`Mapped::check`], called after each chunk is encoded and before its
//! text is written, reports the fault, and also a file now shorter than the bytes read (the
//! page holding the new end reads zeros past it without a fault). A `SIGBUS` outside the
//! mapping goes to the action installed before ours (Rust's own handler, or the default).
//!
//! The page faults are the mapping's main cost when the file's page cache is in 4 KiB pages
//! (written in small writes: 24 414 folios of one page for 100 MB, each mapped and unmapped
//! on its own), so the CLI batches that work: it faults each chunk's pages in just before
//! encoding it, one load per fault-around window ([`Mapped::map_ahead`]), so the faults
//! run back to back with the kernel's code and data in the caches rather than one every
//! 64 KiB between the encoder's loads; and it drops the pages it is done with as it goes
//! ([`Mapped::release`]), while the kernel's records of them are still in the CPU's caches
//! (unmapping them all at exit cost twice as much). `MADV_POPULATE_READ` instead of the
//! loads measured no faster: it walks the pages one by one after each fault.
//!
//! All of this module's `unsafe` is here; the CLI sees a byte slice, a check, and the two
//! calls above.

use std::cell::Cell;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The mapping the handler serves: `[START, END)`, whole pages; `END == 0` when there is none.
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// The first faulting address inside the mapping, 0 when none faulted.
static FAULT: AtomicUsize = AtomicUsize::new(0);
/// One mapping at a time: the handler knows one range.
static BUSY: AtomicBool = AtomicBool::new(false);
/// The page size, for the handler.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// Bytes between the loads of [`Mapped::map_ahead`]: Linux's default fault-around window
/// (`fault_around_bytes`, 64 KiB), which one fault maps whole where the pages are in the page
/// cache. Measured (100 MB, 4 KiB-write page cache): 16 KiB 19.4 ms, 32 KiB 18.8, 64 KiB
/// 18.9, every page (4 KiB) 21.0, none 21.2.
const FAULT_AROUND: usize = 64 * 1024;
/// The `SIGBUS` action before ours; `None` inside when installing ours failed.
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

/// A read-only mapping of a file's bytes from an offset to its end (at mapping time).
pub struct Mapped {
    /// The mapping's first byte (page-aligned) and length in bytes (whole pages).
    base: *mut libc::c_void,
    map_len: usize,
    /// The data: `len` bytes from `base + skip`, the file's bytes from `offset`.
    skip: usize,
    len: usize,
    offset: u64,
    /// Bytes of the mapping from its start already dropped by [`Mapped::release`] (whole
    /// pages).
    released: Cell<usize>,
}

/// The input file changed while it was read through the mapping: the data holds zeros from
/// `at` on (an offset in the data, not the file).
#[derive(Debug, PartialEq, Eq)]
pub struct Changed {
    pub at: u64,
}

impl Mapped {
    /// Maps `file` from byte `offset` to its current end, or `None` when it cannot (not a
    /// regular file, empty from `offset`, another mapping exists, the handler or `mmap`
    /// failed): the caller reads the file instead.
    pub fn new(file: &File, offset: u64) -> Option<Mapped> {
        let meta = file.metadata().ok()?;
        if !meta.file_type().is_file() || meta.len() <= offset {
            return None;
        }
        let len = usize::try_from(meta.len() - offset).ok()?;
        let page = page_size()?;
        install_handler()?;
        if BUSY.swap(true, Ordering::SeqCst) {
            return None;
        }
        let start = offset / page as u64 * page as u64;
        let skip = (offset - start) as usize;
        let Some(map_len) = (len + skip).checked_next_multiple_of(page) else {
            BUSY.store(false, Ordering::SeqCst);
            return None;
        };
        let (Ok(file_offset), true) =
            (libc::off_t::try_from(start), map_len <= isize::MAX as usize)
        else {
            BUSY.store(false, Ordering::SeqCst);
            return None;
        };
        // SAFETY: a new private read-only mapping at an address the kernel chooses (none of
        // our memory is replaced) of a file descriptor we hold open; the result is checked.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                file_offset,
            )
        };
        if base == libc::MAP_FAILED {
            BUSY.store(false, Ordering::SeqCst);
            return None;
        }
        // The encoder reads it once, front to back: more read-ahead, pages dropped behind.
        // SAFETY: advice on our own mapping, which it does not change; failure is harmless.
        unsafe { libc::madvise(base, map_len, libc::MADV_SEQUENTIAL) };
        FAULT.store(0, Ordering::SeqCst);
        START.store(base as usize, Ordering::SeqCst);
        END.store(base as usize + map_len, Ordering::SeqCst);
        Some(Mapped { base, map_len, skip, len, offset, released: Cell::new(0) })
    }

    /// The file's bytes from the offset given to [`Mapped::new`] to its end when it was
    /// mapped. Bytes of pages the file no longer has read as zeros: [`Mapped::check`] says
    /// whether any were read.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `base + skip .. + len` lies inside our mapping (`len + skip <= map_len`),
        // which is readable and stays mapped until `self` drops (the slice borrows `self`);
        // a load from a page the file lost does not end the process, the handler puts a page
        // of zeros there (still readable memory). Another process may write the file, so the
        // bytes may change while the slice exists. The CLI only encodes them: every byte
        // value is valid input and the encoder's memory accesses (indices, lengths) do not
        // depend on the values, so a changed byte changes only the text made from it, as a
        // file changed between two `read()`s would, and a truncation is reported by `check`
        // before that text is written.
        unsafe { std::slice::from_raw_parts(self.base.cast::<u8>().add(self.skip), self.len) }
    }

    /// Loads one byte every [`FAULT_AROUND`] bytes of the data in `[from, to)`, so that
    /// their page faults come back to back before the caller reads them. A load from a page
    /// the file lost reads zeros and is reported by [`Mapped::check`], as the caller's
    /// would be.
    pub fn map_ahead(&self, from: usize, to: usize) {
        let bytes = self.bytes();
        let to = to.min(bytes.len());
        let mut acc = 0u8;
        for k in (from..to).step_by(FAULT_AROUND) {
            acc ^= bytes[k];
        }
        std::hint::black_box(acc);
    }

    /// Drops the whole pages of the data before `upto` from the mapping (`MADV_DONTNEED`),
    /// all of them from the end of the data on: the caller is done with them. The mapping
    /// stays: a later read of them maps them again, from the file as it is then. Failure is
    /// harmless (they stay mapped).
    pub fn release(&self, upto: usize) {
        let page = PAGE.load(Ordering::Relaxed);
        let end = if upto >= self.len { self.map_len } else { (self.skip + upto) / page * page };
        let from = self.released.get();
        if end <= from {
            return;
        }
        // SAFETY: `[from, end)` is whole pages inside our mapping (`end <= map_len`);
        // dropping them leaves readable memory (the mapping is not removed), so the slice
        // `bytes` returned stays valid.
        unsafe {
            libc::madvise(self.base.cast::<u8>().add(from).cast(), end - from, libc::MADV_DONTNEED)
        };
        self.released.set(end);
    }

    /// `Err` when the data read so far is not the file's: a load faulted (the file was
    /// truncated), or the file now ends before `offset + upto` (its last page reads zeros
    /// past the end without a fault). `at`: the first data offset that may be wrong.
    pub fn check(&self, file: &File, upto: usize) -> Result<(), Changed> {
        let fault = FAULT.load(Ordering::SeqCst);
        let faulted = (fault != 0)
            .then(|| (fault - self.base as usize).saturating_sub(self.skip).min(self.len) as u64);
        let size = file.metadata().map_or(0, |m| m.len()).saturating_sub(self.offset);
        let short = (size < upto as u64).then_some(size);
        match (faulted, short) {
            (None, None) => Ok(()),
            (a, b) => Err(Changed { at: a.unwrap_or(u64::MAX).min(b.unwrap_or(u64::MAX)) }),
        }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        END.store(0, Ordering::SeqCst);
        START.store(0, Ordering::SeqCst);
        // SAFETY: our own mapping (with any zero pages the handler put inside it); no slice
        // of it outlives `self`.
        unsafe { libc::munmap(self.base, self.map_len) };
        FAULT.store(0, Ordering::SeqCst);
        BUSY.store(false, Ordering::SeqCst);
    }
}

fn page_size() -> Option<usize> {
    // SAFETY: `sysconf` reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = usize::try_from(page).ok().filter(|p| p.is_power_of_two())?;
    PAGE.store(page, Ordering::SeqCst);
    Some(page)
}

/// Installs [`on_sigbus`] once per process; `None` when `sigaction` failed.
fn install_handler() -> Option<()> {
    let previous = PREVIOUS.get_or_init(|| {
        // SAFETY: `sigaction` structs are plain data, valid zeroed (no flags, empty mask).
        let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
        ours.sa_sigaction = on_sigbus as *const () as usize;
        ours.sa_flags = libc::SA_SIGINFO;
        // SAFETY: as above.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: both structs are valid; the handler only does async-signal-safe work (atomic
        // loads and stores, `mmap`, `sigaction`, `raise`).
        let done = unsafe { libc::sigaction(libc::SIGBUS, &ours, &mut old) } == 0;
        done.then_some(old)
    });
    previous.map(|_| ())
}

/// `SIGBUS`: a fault inside the current mapping gets a page of zeros and is recorded; any
/// other goes to the action before ours.
extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: with `SA_SIGINFO` the kernel passes a valid `siginfo_t`; `si_addr` is the
    // faulting address for a fault (and some value for a sent signal, which `si_code`
    // tells apart below).
    let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
    let (start, end, page) =
        (START.load(Ordering::SeqCst), END.load(Ordering::SeqCst), PAGE.load(Ordering::SeqCst));
    // `si_code > 0`: the kernel raised it for a fault (not `kill`, `sigqueue`, `tgkill`).
    if code > 0 && start <= addr && addr < end {
        // SAFETY: replaces one page inside our own mapping `[start, end)` (whole pages) with
        // a private page of zeros: memory the program may read stays readable.
        let zeros = unsafe {
            libc::mmap(
                (addr & !(page - 1)) as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            let _ = FAULT.compare_exchange(0, addr, Ordering::SeqCst, Ordering::SeqCst);
            return;
        }
    }
    // Not ours: the previous action takes over, for a fault when the load runs again on
    // return, for a sent signal by raising it again (blocked until we return).
    if let Some(Some(old)) = PREVIOUS.get() {
        // SAFETY: restores the action `sigaction` gave us.
        unsafe { libc::sigaction(signal, old, std::ptr::null_mut()) };
    }
    if code <= 0 {
        // SAFETY: sends the signal to this thread.
        unsafe { libc::raise(signal) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::sync::Mutex;

    /// One mapping at a time in the process: the tests that map take turns.
    static TURN: Mutex<()> = Mutex::new(());

    /// Truncating a mapped file from here: the loads past the new end do not kill the test,
    /// they read zeros, and `check` reports where the file now ends.
    #[test]
    fn truncated_file_is_an_error_not_a_crash() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let page = page_size().unwrap();
        let dir = std::env::temp_dir().join(format!("b64-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("in");
        let data: Vec<u8> = (0..4 * page + 5).map(|i| (i * 7 + 1) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        // From an offset that is not page-aligned, as stdin may be.
        let offset = 3;
        let map = Mapped::new(&file, offset).expect("maps a regular file");
        assert!(Mapped::new(&file, 0).is_none(), "one mapping at a time");
        assert_eq!(map.bytes(), &data[offset as usize..]);
        assert_eq!(map.check(&file, map.bytes().len()), Ok(()));

        let end = page + 10;
        OpenOptions::new().write(true).open(&path).unwrap().set_len(end as u64).unwrap();
        let bytes = map.bytes();
        let kept = end - offset as usize;
        // Page 0 is still the file's; the rest of page 1 reads zeros without a fault and
        // pages 2.. fault: zeros from the handler.
        assert_eq!(bytes[..kept], data[offset as usize..end]);
        assert!(bytes[kept..].iter().all(|&b| b == 0));
        // The fault (at page 2's first byte, the first load past the new end's page) is
        // reported whatever was read; the new end when it comes first.
        let fault = (2 * page - offset as usize) as u64;
        assert_eq!(map.check(&file, 5), Err(Changed { at: fault }));
        assert_eq!(map.check(&file, bytes.len()), Err(Changed { at: kept as u64 }));
        drop(map);

        // A file truncated inside the last page: no fault, the size says it.
        std::fs::write(&path, &data).unwrap();
        let map = Mapped::new(&file, 0).expect("maps again");
        assert_eq!(map.check(&file, data.len()), Ok(()));
        let end = 4 * page + 2;
        OpenOptions::new().write(true).open(&path).unwrap().set_len(end as u64).unwrap();
        assert_eq!(map.bytes()[4 * page..], [data[4 * page], data[4 * page + 1], 0, 0, 0]);
        assert_eq!(map.check(&file, end), Ok(()));
        assert_eq!(map.check(&file, data.len()), Err(Changed { at: end as u64 }));
        drop(map);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Whether the page holding `addr` is mapped in this process (`/proc/self/pagemap`'s
    /// present bit); `None` where that file cannot be read.
    fn present(addr: usize) -> Option<bool> {
        use std::io::{Read, Seek, SeekFrom};
        let page = page_size()?;
        let mut map = File::open("/proc/self/pagemap").ok()?;
        map.seek(SeekFrom::Start((addr / page * 8) as u64)).ok()?;
        let mut entry = [0u8; 8];
        map.read_exact(&mut entry).ok()?;
        Some(u64::from_ne_bytes(entry) >> 63 == 1)
    }

    /// Released pages leave the mapping (where `/proc/self/pagemap` tells), the others stay,
    /// and every byte still reads as the file's.
    #[test]
    fn released_pages_are_unmapped_and_read_again() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let page = page_size().unwrap();
        let dir = std::env::temp_dir().join(format!("b64-map-release-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("in");
        let data: Vec<u8> = (0..6 * page + 7).map(|i| (i * 13 + 5) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let offset = 5;
        let map = Mapped::new(&file, offset).expect("maps a regular file");
        let bytes = map.bytes();
        assert_eq!(bytes, &data[offset as usize..]);
        let start = bytes.as_ptr() as usize - offset as usize;
        // Up to a byte inside page 3 of the mapping: pages 0..3 go, page 3 stays.
        map.release(3 * page + 1 - offset as usize);
        map.release(page); // already released: nothing
        let mapped: Vec<Option<bool>> = (0..7).map(|k| present(start + k * page)).collect();
        // Under emulation (qemu-user) the file may not describe the guest's pages.
        if cfg!(target_arch = "x86_64") && mapped.iter().all(Option::is_some) {
            let want = [false, false, false, true, true, true, true].map(Some);
            assert_eq!(mapped, want, "pages mapped after releasing 3");
        }
        assert_eq!(map.bytes(), &data[offset as usize..], "released pages read again");
        map.release(usize::MAX);
        if cfg!(target_arch = "x86_64") && present(start).is_some() {
            assert_eq!(present(start + 6 * page), Some(false), "all released");
        }
        assert_eq!(map.bytes(), &data[offset as usize..]);
        assert_eq!(map.check(&file, map.bytes().len()), Ok(()));
        drop(map);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `map_ahead` maps the pages it loads from (where `/proc/self/pagemap` tells; how many
    /// pages around them one fault maps is the kernel's choice), and the data reads as the
    /// file's.
    #[test]
    fn map_ahead_maps_the_pages_it_loads() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let page = page_size().unwrap();
        let dir = std::env::temp_dir().join(format!("b64-map-ahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("in");
        let len = 4 * FAULT_AROUND + 3 * page;
        let data: Vec<u8> = (0..len).map(|i| (i * 11 + 3) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let map = Mapped::new(&file, 0).expect("maps a regular file");
        let start = map.bytes().as_ptr() as usize;
        // Loads at 100 and FAULT_AROUND + 100 only.
        let (first, second) = (start + 100, start + FAULT_AROUND + 100);
        let check = cfg!(target_arch = "x86_64") && present(start).is_some();
        if check {
            assert_eq!(present(first), Some(false), "nothing mapped before the loads");
            assert_eq!(present(second), Some(false), "nothing mapped before the loads");
        }
        map.map_ahead(100, 2 * FAULT_AROUND);
        if check {
            assert_eq!(present(first), Some(true), "first load's page");
            assert_eq!(present(second), Some(true), "second load's page");
        }
        assert_eq!(map.bytes(), &data[..]);
        assert_eq!(map.check(&file, len), Ok(()));
        drop(map);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn not_mapped() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let dir = std::env::temp_dir().join(format!("b64-map-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("empty");
        std::fs::write(&path, b"abc").unwrap();
        let file = File::open(&path).unwrap();
        assert!(Mapped::new(&file, 3).is_none(), "nothing from the offset on");
        std::fs::write(&path, b"").unwrap();
        assert!(Mapped::new(&file, 0).is_none(), "empty");
        assert!(Mapped::new(&File::open(&dir).unwrap(), 0).is_none(), "a directory");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
