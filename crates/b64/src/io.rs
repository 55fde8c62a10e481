//! Where the decoder reads and writes ([`Io`]): two slices ([`Split`]) or one buffer decoded
//! in place ([`InPlace`]). A leaf: the decoder, the dispatch and every kernel take an `Io`, and
//! this module imports none of them.
//!
//! Invariants every implementation keeps: positions are indices into `input()` and
//! `output()`; in place, the output position never passes the input position, so a kernel
//! may store only behind what it has loaded.

/// Where the decoder reads and writes: two slices, or one buffer decoded in place (output
/// never ahead of input). Positions are indices into `input()` and `output()`.
pub(crate) trait Io {
    /// The input text.
    fn input(&self) -> &[u8];
    /// The output buffer (in place: the same bytes as `input`).
    fn output(&mut self) -> &mut [u8];
    /// Raw pointers for the kernels (unused where there is none): `(input, input len, output, output len)`. For the
    /// in-place buffer both point at the same bytes.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)),
        allow(dead_code)
    )]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize);
    /// The output buffer as far as it may be written once the input before `read` has been
    /// read (and copied away): all of it for separate buffers, `..read` in place.
    fn output_before(&mut self, read: usize) -> &mut [u8];
    /// Whether the output holds no input still to be read, so that a kernel may write junk
    /// past the output position (up to the output's end) and re-read input it decoded
    /// already: separate buffers, not in place nor the in-place output of the line path.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn output_free(&self) -> bool;
    /// The input from `i` and the output from `j` as separate slices (`None` in place, and
    /// by default: only [`Split`] has them).
    #[inline(always)]
    fn split_from(&mut self, _i: usize, _j: usize) -> Option<(&[u8], &mut [u8])> {
        None
    }
}

/// Runs a bulk decode kernel on `io`'s buffers from input position `i` and output position
/// `j`: `kernel(src, n, dst, cap)` gets the input from `i` (`n` bytes) and the output from `j`
/// (`cap` bytes), and returns how many symbols it decoded (whole groups: 3 bytes out per 4
/// in); the result is the new `(i, j)`. Nothing runs when a position is past its buffer or,
/// in place, the output would be ahead of the input, so the kernel's pointers always lie in
/// live buffers borrowed by `io`: separate ones, or one buffer with the output at or behind
/// the input (which each kernel's safety contract allows).
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64", b64_rvv)), allow(dead_code))]
#[inline(always)]
pub(crate) fn run_decode<I: Io + ?Sized>(
    io: &mut I,
    i: usize,
    j: usize,
    kernel: impl FnOnce(*const u8, usize, *mut u8, usize) -> usize,
) -> (usize, usize) {
    let (src, n, dst, cap) = io.raw();
    if i > n || j > cap || (core::ptr::eq(src, dst) && j > i) {
        return (i, j);
    }
    let c = kernel(src.wrapping_add(i), n - i, dst.wrapping_add(j), cap - j);
    (i + c, j + c / 4 * 3)
}

/// Separate input and output slices.
pub(crate) struct Split<'i, 'o> {
    pub(crate) src: &'i [u8],
    pub(crate) dst: &'o mut [u8],
}

impl Io for Split<'_, '_> {
    #[inline(always)]
    fn input(&self) -> &[u8] {
        self.src
    }
    #[inline(always)]
    fn output(&mut self) -> &mut [u8] {
        self.dst
    }
    #[inline(always)]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize) {
        (self.src.as_ptr(), self.src.len(), self.dst.as_mut_ptr(), self.dst.len())
    }
    #[inline(always)]
    fn output_before(&mut self, _read: usize) -> &mut [u8] {
        self.dst
    }
    #[inline(always)]
    fn output_free(&self) -> bool {
        true
    }
    #[inline(always)]
    fn split_from(&mut self, i: usize, j: usize) -> Option<(&[u8], &mut [u8])> {
        Some((self.src.get(i..)?, self.dst.get_mut(j..)?))
    }
}

/// One buffer decoded in place: output position <= input position at every step.
pub(crate) struct InPlace<'b> {
    pub(crate) buf: &'b mut [u8],
}

impl Io for InPlace<'_> {
    #[inline(always)]
    fn input(&self) -> &[u8] {
        self.buf
    }
    #[inline(always)]
    fn output(&mut self) -> &mut [u8] {
        self.buf
    }
    #[inline(always)]
    fn raw(&mut self) -> (*const u8, usize, *mut u8, usize) {
        let p = self.buf.as_mut_ptr();
        (p.cast_const(), self.buf.len(), p, self.buf.len())
    }
    #[inline(always)]
    fn output_before(&mut self, read: usize) -> &mut [u8] {
        &mut self.buf[..read]
    }
    #[inline(always)]
    fn output_free(&self) -> bool {
        false
    }
}
