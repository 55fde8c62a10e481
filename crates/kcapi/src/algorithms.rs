//! `/proc/crypto`: the algorithms the kernel has registered.

use std::io;

/// One record of `/proc/crypto`: an implementation ("driver") of an algorithm ("name").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Algorithm {
    /// The algorithm, e.g. `cbc(aes)`; what [`Skcipher::new`](crate::Skcipher::new) takes.
    pub name: String,
    /// The implementation, e.g. `cbc(aes-aesni)`; also accepted where a name is.
    pub driver: String,
    /// The module that provides it (`kernel` when built in).
    pub module: String,
    /// The kernel picks the highest priority among the drivers of a name.
    pub priority: i32,
    /// `shash`, `ahash`, `skcipher`, `aead`, `rng`, `cipher`...
    pub kind: String,
    /// An asynchronous driver (typically a hardware engine).
    pub is_async: bool,
    /// An internal helper that user space cannot bind.
    pub internal: bool,
    /// The self-test result (`passed`, `unknown`...).
    pub selftest: String,
    /// Block size in bytes.
    pub block_size: Option<usize>,
    /// Minimum and maximum key sizes in bytes.
    pub min_key_size: Option<usize>,
    /// See `min_key_size`.
    pub max_key_size: Option<usize>,
    /// IV size in bytes.
    pub iv_size: Option<usize>,
    /// The stride of streaming: a skcipher consumes input in multiples of it.
    pub chunk_size: Option<usize>,
    /// Digest size in bytes (hashes).
    pub digest_size: Option<usize>,
    /// The largest tag (AEADs).
    pub max_auth_size: Option<usize>,
    /// Seed size (rngs).
    pub seed_size: Option<usize>,
}

/// Parses the kernel's `/proc/crypto`.
pub fn algorithms() -> io::Result<Vec<Algorithm>> {
    Ok(parse(&std::fs::read_to_string("/proc/crypto")?))
}

/// Parses text in the format of `/proc/crypto` (`key : value` lines, records separated by blank
/// lines). Unknown keys are ignored; malformed lines are skipped.
pub fn parse(text: &str) -> Vec<Algorithm> {
    let mut out = Vec::new();
    let mut cur: Option<Algorithm> = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            if line.trim().is_empty() {
                out.extend(cur.take());
            }
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let a = cur.get_or_insert_with(Algorithm::default);
        let num = || value.parse::<usize>().ok();
        match key {
            "name" => a.name = value.into(),
            "driver" => a.driver = value.into(),
            "module" => a.module = value.into(),
            "priority" => a.priority = value.parse().unwrap_or(0),
            "type" => a.kind = value.into(),
            "async" => a.is_async = value == "yes",
            "internal" => a.internal = value == "yes",
            "selftest" => a.selftest = value.into(),
            "blocksize" => a.block_size = num(),
            "min keysize" => a.min_key_size = num(),
            "max keysize" => a.max_key_size = num(),
            "ivsize" => a.iv_size = num(),
            "chunksize" => a.chunk_size = num(),
            "digestsize" => a.digest_size = num(),
            "maxauthsize" => a.max_auth_size = num(),
            "seedsize" => a.seed_size = num(),
            _ => {}
        }
    }
    out.extend(cur);
    out.retain(|a| !a.name.is_empty());
    out
}

/// The record the kernel would pick for `name` (a name or a driver) among `kinds`: the
/// highest-priority non-internal one.
pub(crate) fn lookup(name: &str, kinds: &[&str]) -> Option<Algorithm> {
    let all = algorithms().ok()?;
    all.into_iter()
        .filter(|a| {
            (a.name == name || a.driver == name) && !a.internal && kinds.contains(&a.kind.as_str())
        })
        .max_by_key(|a| (a.driver == name, a.priority))
}
