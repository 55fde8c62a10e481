//! `b64`: base64 encode or decode FILE (or standard input) to standard output, byte-identical
//! to GNU coreutils `base64` (and `basenc --base64url` with `--url`).
//!
//! ```text
//! b64 [-d] [-i] [-w COLS] [--url] [FILE|-]
//! ```
//!
//! Encoding wraps lines at 76 columns (`-w 0`: no wrapping) and ends the last line with a
//! newline. Decoding ignores newlines, accepts concatenated padded groups and non-canonical
//! last symbols as coreutils does, and with `-i` skips every byte outside the alphabet. On
//! invalid input it writes what coreutils writes before the bad group, says `invalid input`
//! on standard error and exits with status 1.
//!
//! On Linux (x86_64, aarch64, riscv64) a regular input file (named, or standard input that
//! is one) is encoded from a read-only mapping instead of `read()` copies ([`map`]); if
//! another process truncates it meanwhile, `b64` says `input file changed while reading`,
//! with the byte where the input now ends, writes no text made from the bytes it lost, and
//! exits with status 1 (coreutils would encode what `read()` still returned). Pipes,
//! terminals and other files are read, and so is every input on other systems and
//! architectures.
//!
//! Exit status: 0 on success, 1 on invalid input, an I/O error or a usage error (as
//! coreutils). On Linux a write to a closed pipe ends `b64` by SIGPIPE, silently (status 141
//! in a shell), as it ends `base64`.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::process::ExitCode;

// The mapping's SIGBUS handling is tested (a file truncated under the mapping) on x86_64 and
// under qemu-user on aarch64 and riscv64. Under qemu-user on mips64 the signal never reaches
// the handler (`uncaught target signal 10`), so mips64 and the other architectures read.
// `build.rs` sets `b64_cli_map` for the architectures that map.
#[cfg(b64_cli_map)]
mod map;
#[cfg(not(b64_cli_map))]
mod map {
    //! No mapping here (not Linux, or an architecture where the truncation handling is not
    //! tested): the encoder reads its input.
    pub struct Mapped;
    pub struct Changed {
        pub at: u64,
    }
    impl Mapped {
        pub fn new(_: &std::fs::File, _: u64) -> Option<Mapped> {
            None
        }
        pub fn bytes(&self) -> &[u8] {
            &[]
        }
        pub fn check(&self, _: &std::fs::File, _: usize) -> Result<(), Changed> {
            Ok(())
        }
        pub fn release(&self, _: usize) {}
        pub fn map_ahead(&self, _: usize, _: usize) {}
    }
}

use b64::alphabet::{self, Alphabet};
use b64::engine::general_purpose::PAD;
use b64::engine::{DecodeMode, DecodePaddingMode, GeneralPurpose, LineEnding, LineWrap};
use b64::{DecodeError, Engine as _};

const USAGE: &str = "\
Usage: b64 [OPTION]... [FILE]
Base64 encode or decode FILE, or standard input, to standard output.

With no FILE, or when FILE is -, read standard input.

  -d, --decode          decode data
  -i, --ignore-garbage  when decoding, ignore non-alphabet characters
  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).
                          Use 0 to disable line wrapping
      --url             file- and url-safe alphabet (RFC 4648 section 5),
                          like `basenc --base64url`
      --help            display this help and exit
      --version         output version information and exit

The data are encoded as described for the base64 alphabet in RFC 4648. When
decoding, the input may contain newlines in addition to the bytes of the formal
base64 alphabet. Use --ignore-garbage to attempt to recover from any other
non-alphabet bytes in the encoded stream.

Exit status:
 0  if OK,
 1  if the input is invalid, a file cannot be read or written, or on a usage error.
A write to a closed pipe ends b64 by SIGPIPE, as it ends coreutils' base64.
";

/// Input bytes per read when encoding (a multiple of 3) and decoding.
const CHUNK: usize = 3 * 32 * 1024;

/// Input bytes per chunk when encoding a mapped file (a multiple of 3). Measured (100 MB,
/// 76 columns, CPU time): 96 KiB 21.3 ms, 384 KiB 20.3, 576 KiB 17.8, 768 KiB 16.6, 1 MiB
/// 16.7, 2 MiB 17.6; the read path gains less (20.1 -> 18.7 ms from a file) and loses from
/// a pipe (22.0 -> 22.4), so it keeps [`CHUNK`]. Again with the chunk's faults batched and
/// its pages dropped behind (4 KiB-write page cache): 384 KiB 20.0 ms,
/// 768 KiB 18.9, 1.5 MiB 19.2, 3 MiB 20.7.
const MAP_CHUNK: usize = 3 * 256 * 1024;

struct Options {
    decode: bool,
    ignore_garbage: bool,
    wrap: usize,
    url: bool,
    file: Option<OsString>,
}

/// A failure that ends the program: the message for standard error (without the `b64: `).
struct Fail(String);

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail(io_message(&e))
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    if let Some(w) = nab_isa::cap_warning() {
        eprintln!("b64: warning: {w}");
    }
    let opts = match parse(std::env::args_os().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => return ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("b64: {msg}\nTry 'b64 --help' for more information.");
            return ExitCode::FAILURE;
        }
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            eprintln!("b64: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Gives SIGPIPE back its default action, which Rust's runtime sets to "ignore" before `main`:
/// a write to a closed pipe (`b64 FILE | head -c 10`) then ends `b64` silently by the signal
/// (status 141 in a shell), as it ends coreutils' `base64`, instead of failing with EPIPE.
#[cfg(target_os = "linux")]
fn default_sigpipe() {
    // SAFETY: `signal` with a valid signal number and `SIG_DFL` only changes that signal's
    // disposition; no handler of ours is involved, and no other thread runs yet.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

/// Elsewhere (no `libc` dependency) a closed pipe is a write error, reported and status 1.
#[cfg(not(target_os = "linux"))]
fn default_sigpipe() {}

/// Parses the command line the way GNU getopt_long does: options and the operand in any
/// order, `--` ends options, long options may be abbreviated. `Ok(None)`: help or version
/// was printed.
fn parse(args: impl Iterator<Item = OsString>) -> Result<Option<Options>, String> {
    let mut o = Options { decode: false, ignore_garbage: false, wrap: 76, url: false, file: None };
    let mut operands = Vec::new();
    let mut args = args.peekable();
    let mut only_operands = false;
    while let Some(arg) = args.next() {
        let s = arg.to_string_lossy().into_owned();
        if only_operands || s == "-" || !s.starts_with('-') {
            operands.push(arg);
        } else if s == "--" {
            only_operands = true;
        } else if let Some(long) = s.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            const LONG: [&str; 6] = ["decode", "ignore-garbage", "wrap", "url", "help", "version"];
            let matches: Vec<&str> = LONG.iter().copied().filter(|l| l.starts_with(name)).collect();
            let full = match (matches.as_slice(), LONG.contains(&name)) {
                (_, true) => name,
                ([one], false) => one,
                ([], false) => return Err(format!("unrecognized option '--{name}'")),
                (_, false) => return Err(format!("option '--{name}' is ambiguous")),
            };
            if full != "wrap" && value.is_some() {
                return Err(format!("option '--{full}' doesn't allow an argument"));
            }
            match full {
                "decode" => o.decode = true,
                "ignore-garbage" => o.ignore_garbage = true,
                "url" => o.url = true,
                "help" => {
                    print!("{USAGE}");
                    return Ok(None);
                }
                "version" => {
                    println!("b64 {}", env!("CARGO_PKG_VERSION"));
                    return Ok(None);
                }
                _ => {
                    let v = match value {
                        Some(v) => v,
                        None => args
                            .next()
                            .ok_or("option '--wrap' requires an argument")?
                            .to_string_lossy()
                            .into_owned(),
                    };
                    o.wrap = wrap_size(&v)?;
                }
            }
        } else {
            let flags = &s[1..];
            for (k, c) in flags.char_indices() {
                match c {
                    'd' => o.decode = true,
                    'i' => o.ignore_garbage = true,
                    'w' => {
                        let rest = &flags[k + 1..];
                        let v = if rest.is_empty() {
                            args.next()
                                .ok_or("option requires an argument -- 'w'")?
                                .to_string_lossy()
                                .into_owned()
                        } else {
                            rest.to_owned()
                        };
                        o.wrap = wrap_size(&v)?;
                        break;
                    }
                    other => return Err(format!("invalid option -- '{other}'")),
                }
            }
        }
    }
    if operands.len() > 1 {
        return Err(format!("extra operand '{}'", operands[1].to_string_lossy()));
    }
    o.file = operands.pop();
    Ok(Some(o))
}

fn wrap_size(v: &str) -> Result<usize, String> {
    let t = v.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("invalid wrap size: '{v}'"));
    }
    // Sizes beyond usize mean "never wrap" in practice.
    Ok(t.parse().unwrap_or(usize::MAX))
}

fn run(o: &Options) -> Result<(), Fail> {
    let name = o.file.as_ref().filter(|f| f.as_os_str() != "-");
    let file = match name {
        Some(path) => Some(
            File::open(path)
                .map_err(|e| Fail(format!("{}: {}", path.to_string_lossy(), io_message(&e))))?,
        ),
        None => None,
    };
    // Standard output through its own descriptor: Rust's `Stdout` is line-buffered, and on
    // each write it looks for the text's last newline (a scan of all of `-w 0` text: a third
    // of the encoding's CPU time).
    let stdout: Box<dyn Write> = match duplicate(Stdio::Out) {
        Some(file) => Box::new(file),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let alphabet = if o.url { &alphabet::URL_SAFE } else { &alphabet::STANDARD };
    let result = if o.decode {
        let mut input: Box<dyn Read> = match file {
            Some(f) => Box::new(f),
            None => Box::new(io::stdin().lock()),
        };
        decode(&mut *input, &mut out, alphabet, o.ignore_garbage)
    } else {
        let label = name.map_or_else(|| "-".into(), |p| p.to_string_lossy().into_owned());
        encode(Input::open(file), &label, &mut out, alphabet, o.wrap)
    };
    // What was decoded before an error is written, as coreutils does.
    let flushed = out.flush();
    result?;
    flushed.map_err(Fail::from)
}

/// The encoder's input: a regular file (or standard input that is one) mapped into memory,
/// else read in chunks (pipes, terminals, special files, files `mmap` refuses).
enum Input {
    Mapped { map: map::Mapped, file: File },
    Read(Box<dyn Read>),
}

impl Input {
    /// Maps `file` (`None`: standard input) from its current offset when it can.
    fn open(file: Option<File>) -> Input {
        // Standard input through its own descriptor (a duplicate shares the offset).
        let file = file.or_else(|| duplicate(Stdio::In));
        if let Some(mut file) = file {
            let mapped = file.stream_position().ok().and_then(|at| map::Mapped::new(&file, at));
            return match mapped {
                Some(map) => Input::Mapped { map, file },
                None => Input::Read(Box::new(file)),
            };
        }
        Input::Read(Box::new(io::stdin().lock()))
    }
}

enum Stdio {
    In,
    Out,
}

/// Standard input or output as a `File` of its own (a duplicate descriptor, sharing the
/// offset), where there are descriptors.
#[cfg(unix)]
fn duplicate(which: Stdio) -> Option<File> {
    use std::os::fd::AsFd;
    let fd = match which {
        Stdio::In => io::stdin().as_fd().try_clone_to_owned(),
        Stdio::Out => io::stdout().as_fd().try_clone_to_owned(),
    };
    fd.ok().map(File::from)
}

#[cfg(not(unix))]
fn duplicate(_: Stdio) -> Option<File> {
    None
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn encode(
    mut input: Input,
    name: &str,
    out: &mut dyn Write,
    alphabet: &Alphabet,
    wrap: usize,
) -> Result<(), Fail> {
    let engine = GeneralPurpose::new(alphabet, PAD);
    // Chunks of whole lines where a line's worth fits (`3 * wrap` bytes are 4 lines): each
    // chunk is then one wrapped encoding with its last newline, written at once.
    let read = matches!(input, Input::Read(_));
    let most = if read { CHUNK } else { MAP_CHUNK };
    let lines = wrap > 0 && wrap <= most / 3;
    let chunk = if lines { most / (3 * wrap) * (3 * wrap) } else { most };
    let mut data = vec![0u8; if read { chunk } else { 0 }];
    let mut text = vec![0u8; chunk / 3 * 4 + chunk / 3 * 4 / wrap.max(1) + 1];
    let mut column = 0;
    // Bytes of a mapped input encoded so far.
    let mut done = 0;
    loop {
        // Whole chunks are multiples of 3, so only the last one can need padding.
        let bytes = match &mut input {
            Input::Read(r) => {
                let n = read_full(r, &mut data)?;
                &data[..n]
            }
            Input::Mapped { map, .. } => {
                let all = map.bytes();
                let end = all.len().min(done + chunk);
                let bytes = &all[done..end];
                // The chunk's page faults back to back (see `map`).
                map.map_ahead(done, end);
                done = end;
                bytes
            }
        };
        let n = bytes.len();
        let len = if lines {
            let wrapping = LineWrap { width: wrap, ending: LineEnding::Lf };
            let len = engine
                .encode_wrapped_slice(bytes, wrapping, &mut text)
                .map_err(|e| Fail(e.to_string()))?;
            if len > 0 {
                text[len] = b'\n';
                len + 1
            } else {
                0
            }
        } else {
            engine.encode_slice(bytes, &mut text).map_err(|e| Fail(e.to_string()))?
        };
        // The text of bytes the file no longer had is not written.
        if let Input::Mapped { map, file } = &input {
            map.check(file, done).map_err(|c| {
                let at = c.at;
                Fail(format!("{name}: input file changed while reading (truncated at byte {at})"))
            })?;
        }
        if lines {
            out.write_all(&text[..len])?;
        } else {
            write_wrapped(out, &text[..len], wrap, &mut column)?;
        }
        // Done with these pages (see `map`).
        if let Input::Mapped { map, .. } = &input {
            map.release(done);
        }
        if n < chunk {
            break;
        }
    }
    if wrap > 0 && column > 0 {
        out.write_all(b"\n")?;
    }
    // Standard input is left at its end, where reading it would leave it.
    if let Input::Mapped { mut file, .. } = input {
        file.seek(SeekFrom::Current(done as i64))?;
    }
    Ok(())
}

/// Writes `text` with a newline before each symbol that would pass column `wrap`
/// (coreutils' `wrap_write`).
fn write_wrapped(
    out: &mut dyn Write,
    mut text: &[u8],
    wrap: usize,
    column: &mut usize,
) -> io::Result<()> {
    if wrap == 0 {
        return out.write_all(text);
    }
    while !text.is_empty() {
        if *column == wrap {
            out.write_all(b"\n")?;
            *column = 0;
        }
        let n = (wrap - *column).min(text.len());
        out.write_all(&text[..n])?;
        *column += n;
        text = &text[n..];
    }
    Ok(())
}

/// coreutils' decoding: newlines (with `-i`: every byte outside the alphabet and `=`) are
/// dropped; what remains is groups of 4 bytes, each 4 symbols, 3 symbols and `=`, or 2
/// symbols and `==`; unused bits are ignored. At the first bad group, the bytes its leading
/// symbols make are written (as coreutils does) and decoding fails.
fn decode(
    input: &mut dyn Read,
    out: &mut dyn Write,
    alphabet: &Alphabet,
    ignore_garbage: bool,
) -> Result<(), Fail> {
    let config = PAD
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true);
    let engine = GeneralPurpose::new(alphabet, config);
    // The fast path: the library's forgiving decoder skipping only newlines, on a chunk cut
    // after its last newline (lines of widths that are multiples of 4 are whole groups).
    // Taken when it decodes the chunk to whole groups without padding, which is exactly
    // what the coreutils rules make of it; anything else (padding, another byte, a group
    // across the cut, `-i`) takes the general path below for that chunk.
    let lines = GeneralPurpose::new(
        alphabet,
        config.with_decode_mode(DecodeMode::Forgiving).with_newlines_only(true),
    );
    let mut raw = vec![0u8; CHUNK];
    let mut text = vec![0u8; CHUNK + 4];
    let mut bytes = vec![0u8; CHUNK / 4 * 3 + 6];
    // Raw bytes after the last cut, at the front of `raw`: less than a line.
    let mut carry = 0;
    // Cleaned text not yet decoded: always fewer than 4 bytes between chunks.
    let mut kept = 0;
    loop {
        let n = carry + read_full(input, &mut raw[carry..])?;
        let eof = n < raw.len();
        let cut = match raw[..n].iter().rposition(|&b| b == b'\n') {
            Some(p) if !eof => p + 1,
            _ => n,
        };
        let fast = if ignore_garbage || kept > 0 {
            None
        } else {
            lines.decode_slice_unchecked(&raw[..cut], &mut bytes).ok().filter(|len| len % 3 == 0)
        };
        if let Some(len) = fast {
            out.write_all(&bytes[..len])?;
        } else {
            text[kept..kept + cut].copy_from_slice(&raw[..cut]);
            let end = kept + clean(&mut text[kept..kept + cut], alphabet, ignore_garbage);
            let whole = end / 4 * 4;
            let (len, ok) = decode_groups(&engine, &text[..whole], &mut bytes);
            out.write_all(&bytes[..len])?;
            if !ok {
                return Err(Fail("invalid input".into()));
            }
            text.copy_within(whole..end, 0);
            kept = end - whole;
        }
        raw.copy_within(cut..n, 0);
        carry = n - cut;
        if eof {
            break;
        }
    }
    if kept > 0 {
        // A partial last group: its leading symbols' bytes, then the error.
        let len = partial_group(&engine, &text[..kept], &mut bytes);
        out.write_all(&bytes[..len])?;
        return Err(Fail("invalid input".into()));
    }
    Ok(())
}

/// Drops newlines (or, with `ignore_garbage`, every byte that is neither a symbol nor `=`)
/// from `text` in place; returns the length kept.
fn clean(text: &mut [u8], alphabet: &Alphabet, ignore_garbage: bool) -> usize {
    if !ignore_garbage {
        return drop_newlines(text);
    }
    let keep = |b: u8| {
        if ignore_garbage { alphabet.contains(b) || b == b'=' } else { b != b'\n' }
    };
    let mut k = 0;
    for i in 0..text.len() {
        let b = text[i];
        if keep(b) {
            text[k] = b;
            k += 1;
        }
    }
    k
}

/// Drops the newlines of `text` in place, 16 bytes at a time: a block is stored whole, and
/// at each newline in it (found with the classic has-zero-byte test, exact for the lowest)
/// the rest of the block moves down one byte and is stored again after the bytes kept; no
/// byte-at-a-time loop. Returns the length kept.
fn drop_newlines(text: &mut [u8]) -> usize {
    const ONES: u128 = u128::from_le_bytes([1; 16]);
    const NEWLINES: u128 = u128::from_le_bytes([b'\n'; 16]);
    let block = |text: &[u8], i: usize| {
        let mut word = [0u8; 16];
        word.copy_from_slice(&text[i..i + 16]);
        u128::from_le_bytes(word)
    };
    let (mut i, mut k) = (0, 0);
    // Stores reach `k + 16 <= i + 31`: the next block is read before they run.
    if text.len() >= 32 {
        let mut next = block(text, 0);
        while i + 32 <= text.len() {
            // Little-endian: byte 0 of the block is the low byte, and shifting right moves
            // the later bytes down, zeros (not newlines) coming in at the top.
            let mut w = next;
            next = block(text, i + 16);
            let mut rest = 16;
            loop {
                text[k..k + 16].copy_from_slice(&w.to_le_bytes());
                let x = w ^ NEWLINES;
                let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
                if zero == 0 {
                    k += rest;
                    break;
                }
                let at = zero.trailing_zeros() as usize / 8;
                k += at;
                rest -= at + 1;
                w = w.checked_shr(8 * (at as u32 + 1)).unwrap_or(0);
            }
            i += 16;
        }
        // The block read ahead goes back (the stores may have overwritten its bytes).
        text[i..i + 16].copy_from_slice(&next.to_le_bytes());
    }
    while i < text.len() {
        text[k] = text[i];
        k += usize::from(text[i] != b'\n');
        i += 1;
    }
    k
}

/// Decodes whole groups (`text.len()` is a multiple of 4) into `out`; returns the bytes
/// written and whether every group was valid.
fn decode_groups(engine: &GeneralPurpose<'_>, text: &[u8], out: &mut [u8]) -> (usize, bool) {
    let (mut pos, mut len) = (0, 0);
    loop {
        let offset = match engine.decode_slice_unchecked(&text[pos..], &mut out[len..]) {
            Ok(n) => return (len + n, true),
            Err(
                DecodeError::InvalidByte { offset, .. }
                | DecodeError::InvalidPadding { offset }
                | DecodeError::InvalidLastSymbol { offset, .. }
                | DecodeError::OutputTooSmall { offset },
            ) => offset,
            // `InvalidLength` (and any error a later version adds): no valid group is known.
            Err(_) => text.len() - pos,
        };
        // Every group before the one holding `offset` is valid.
        let group = pos + offset.min(text.len() - pos) / 4 * 4;
        len += engine.decode_slice_unchecked(&text[pos..group], &mut out[len..]).unwrap_or(0);
        if group + 4 > text.len() {
            return (len, false);
        }
        let g = &text[group..group + 4];
        let sym = |b: u8| engine.alphabet().contains(b);
        let padded = sym(g[0]) && sym(g[1]) && g[3] == b'=' && (g[2] == b'=' || sym(g[2]));
        if !padded {
            return (len + partial_group(engine, g, &mut out[len..]), false);
        }
        len += engine.decode_slice_unchecked(g, &mut out[len..]).unwrap_or(0);
        pos = group + 4;
    }
}

/// The bytes the leading symbols of a bad group make (none for fewer than 2).
fn partial_group(engine: &GeneralPurpose<'_>, group: &[u8], out: &mut [u8]) -> usize {
    let k = group.iter().take(3).take_while(|&&b| engine.alphabet().contains(b)).count();
    if k < 2 { 0 } else { engine.decode_slice_unchecked(&group[..k], out).unwrap_or(0) }
}

/// An I/O error as coreutils words it ("No such file or directory", without Rust's
/// " (os error 2)").
fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}
