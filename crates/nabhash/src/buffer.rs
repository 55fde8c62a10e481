//! The block buffering shared by the streaming digests of v1 and v2.

/// Holds the bytes of a partial block of `N` bytes between `update` calls.
///
/// Everything before the buffered bytes has been absorbed in whole blocks, so the buffer
/// always starts at a block boundary and `len() < N` between calls.
#[derive(Clone, Debug)]
pub(crate) struct BlockBuffer<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> BlockBuffer<N> {
    pub(crate) const fn new() -> Self {
        BlockBuffer { buf: [0; N], len: 0 }
    }

    /// Appends `data`, handing every completed run of whole blocks to `absorb` in order (a
    /// completed buffer first, then whole blocks straight from `data`) and keeping the rest.
    #[inline]
    pub(crate) fn update(&mut self, mut data: &[u8], mut absorb: impl FnMut(&[u8])) {
        if self.len > 0 {
            let take = (N - self.len).min(data.len());
            self.buf[self.len..self.len + take].copy_from_slice(&data[..take]);
            self.len += take;
            data = &data[take..];
            if self.len < N {
                return;
            }
            absorb(&self.buf);
            self.len = 0;
        }
        let whole = data.len() - data.len() % N;
        let (body, tail) = data.split_at(whole);
        absorb(body);
        self.buf[..tail.len()].copy_from_slice(tail);
        self.len = tail.len();
    }

    /// The buffered bytes of the current partial block.
    #[inline]
    pub(crate) fn pending(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}
