//! Naive oracles of the substring searches, shared by `tests/backends.rs` and the fuzz target
//! (`fuzz/fuzz_targets/search.rs`, which includes this file with `#[path]`).

/// The first occurrence of `needle` in `hay` (an empty needle: 0).
pub fn naive_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    (0..=hay.len().checked_sub(needle.len())?).find(|&i| &hay[i..i + needle.len()] == needle)
}

/// The last occurrence of `needle` in `hay` (an empty needle: `hay.len()`).
pub fn naive_rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    (0..=hay.len().checked_sub(needle.len())?).rfind(|&i| &hay[i..i + needle.len()] == needle)
}

/// Non-overlapping occurrences from the front (an empty needle: every position).
pub fn naive_find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = hay.get(i..).and_then(|h| naive_find(h, needle)) {
        out.push(i + p);
        i += p + needle.len().max(1);
    }
    out
}

/// Non-overlapping occurrences from the back.
pub fn naive_rfind_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut end = Some(hay.len());
    while let Some(e) = end {
        let Some(p) = naive_rfind(&hay[..e], needle) else { break };
        out.push(p);
        end = if p == e { e.checked_sub(1) } else { Some(p) };
    }
    out
}
