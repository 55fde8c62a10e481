//! A readable and writable page followed by an inaccessible one, for kernels that read whole
//! vectors where those cannot leave the page: bytes placed at the end of the page must be
//! read without a fault.

/// A readable and writable page followed by an inaccessible one; unmapped on drop.
pub struct GuardedPage {
    base: *mut u8,
    page: usize,
}

impl GuardedPage {
    /// Maps two pages and makes the second inaccessible (panics if the system refuses).
    pub fn new() -> Self {
        // SAFETY: `sysconf` has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .expect("sysconf(_SC_PAGESIZE) failed");
        // SAFETY: a fresh anonymous private mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap of two pages failed");
        // SAFETY: the second page lies inside the mapping just made.
        let r =
            unsafe { libc::mprotect(base.cast::<u8>().add(page).cast(), page, libc::PROT_NONE) };
        assert_eq!(r, 0, "mprotect of the guard page failed");
        GuardedPage { base: base.cast(), page }
    }

    /// The page size.
    pub fn page(&self) -> usize {
        self.page
    }

    /// The accessible page.
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the first page is mapped readable and writable and owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.page) }
    }
}

impl Default for GuardedPage {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), 2 * self.page) };
    }
}
