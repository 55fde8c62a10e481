//! libkcapi 1.4's handle API (`kcapi.h`), the peer of kcapi's bench
//! (`benches/benches/kcapi.rs`) and of `examples/overhead.rs`, which both include this file
//! with `#[path]` under `--cfg kcapi_bench_libkcapi` (set only by `cargo xtask vm-test`, which
//! links Debian's `libkcapi-dev` statically). Handles are created once, as ours are.

use std::ffi::{CStr, c_char, c_int, c_void};

/// `KCAPI_ACCESS_HEURISTIC` (kcapi.h): libkcapi picks sendmsg or vmsplice.
pub const ACCESS_HEURISTIC: c_int = 0;
/// `KCAPI_ACCESS_SENDMSG`.
pub const ACCESS_SENDMSG: c_int = 2;

#[link(name = "kcapi")]
unsafe extern "C" {
    fn kcapi_md_init(handle: *mut *mut c_void, name: *const c_char, flags: u32) -> c_int;
    fn kcapi_md_digest(h: *mut c_void, i: *const u8, il: usize, o: *mut u8, ol: usize) -> isize;
    fn kcapi_cipher_init(handle: *mut *mut c_void, name: *const c_char, flags: u32) -> c_int;
    fn kcapi_cipher_setkey(h: *mut c_void, key: *const u8, keylen: u32) -> c_int;
    fn kcapi_cipher_encrypt(
        h: *mut c_void,
        i: *const u8,
        il: usize,
        iv: *const u8,
        o: *mut u8,
        ol: usize,
        access: c_int,
    ) -> isize;
    fn kcapi_aead_init(handle: *mut *mut c_void, name: *const c_char, flags: u32) -> c_int;
    fn kcapi_aead_setkey(h: *mut c_void, key: *const u8, keylen: u32) -> c_int;
    fn kcapi_aead_settaglen(h: *mut c_void, taglen: u32) -> c_int;
    fn kcapi_aead_setassoclen(h: *mut c_void, assoclen: usize);
    fn kcapi_aead_encrypt(
        h: *mut c_void,
        i: *const u8,
        il: usize,
        iv: *const u8,
        o: *mut u8,
        ol: usize,
        access: c_int,
    ) -> isize;
}

/// A libkcapi handle (never destroyed: the process ends).
pub struct Handle(*mut c_void);

impl Handle {
    pub fn md(name: &CStr) -> Handle {
        let mut h = std::ptr::null_mut();
        // SAFETY: `h` is a valid out-pointer and `name` a NUL-terminated string.
        assert_eq!(unsafe { kcapi_md_init(&mut h, name.as_ptr(), 0) }, 0);
        Handle(h)
    }

    pub fn cipher(name: &CStr, key: &[u8]) -> Handle {
        let mut h = std::ptr::null_mut();
        // SAFETY: as in `md`; `key` is readable for its length.
        unsafe {
            assert_eq!(kcapi_cipher_init(&mut h, name.as_ptr(), 0), 0);
            if !key.is_empty() {
                assert_eq!(kcapi_cipher_setkey(h, key.as_ptr(), key.len() as u32), 0);
            }
        }
        Handle(h)
    }

    pub fn aead(name: &CStr, key: &[u8], tag: u32) -> Handle {
        let mut h = std::ptr::null_mut();
        // SAFETY: as in `cipher`.
        unsafe {
            assert_eq!(kcapi_aead_init(&mut h, name.as_ptr(), 0), 0);
            assert_eq!(kcapi_aead_setkey(h, key.as_ptr(), key.len() as u32), 0);
            assert_eq!(kcapi_aead_settaglen(h, tag), 0);
            kcapi_aead_setassoclen(h, 0);
        }
        Handle(h)
    }

    pub fn digest(&mut self, data: &[u8], out: &mut [u8]) {
        // SAFETY: a live md handle; both buffers valid for their lengths.
        let n = unsafe {
            kcapi_md_digest(self.0, data.as_ptr(), data.len(), out.as_mut_ptr(), out.len())
        };
        assert_eq!(n as usize, out.len());
    }

    pub fn encrypt(&mut self, data: &[u8], iv: &[u8], out: &mut [u8], access: c_int) {
        // SAFETY: a live cipher handle; buffers valid for their lengths, IV of the
        // cipher's size (or unused by the null cipher).
        let n = unsafe {
            kcapi_cipher_encrypt(
                self.0,
                data.as_ptr(),
                data.len(),
                iv.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                access,
            )
        };
        assert_eq!(n as usize, data.len());
    }

    /// No AAD: `out` is `ciphertext || tag`.
    pub fn seal(&mut self, data: &[u8], iv: &[u8], out: &mut [u8]) {
        // SAFETY: a live aead handle with assoclen 0; buffers valid for their lengths.
        let n = unsafe {
            kcapi_aead_encrypt(
                self.0,
                data.as_ptr(),
                data.len(),
                iv.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                ACCESS_HEURISTIC,
            )
        };
        assert_eq!(n as usize, out.len());
    }
}
