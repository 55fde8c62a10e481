//! `nabsum`: print or check NABHash checksums, the way `sha256sum` does for SHA-256.
//!
//! ```text
//! nabsum [-a v1|v2] [FILE]...                           print a checksum line per FILE
//! nabsum -c [--quiet | --status] [--strict] [LIST]...   verify the files LIST names
//! ```
//!
//! With no FILE, or when FILE is `-`, standard input is read. `-a` picks the algorithm:
//! `v1` (the default) is NABHash v1 exactly as published, so the lines match other v1 tools.
//!
//! Each line is the 128-bit digest as 32 lowercase hex digits, two spaces and the name:
//!
//! ```text
//! $ printf '\xde\xad\xbe\xef' | nabsum
//! 9041d0d440fe93f69515b771619aa54c  -
//! ```
//!
//! As in GNU coreutils, a name containing a backslash, a newline or a carriage return is
//! written with those escaped (`\\`, `\n`, `\r`) and its line starts with a `\`, so that a
//! list always has one line per file.
//!
//! `-c` reads such lists (also the `HEX *NAME` binary-mode form, CRLF line ends and `#`
//! comments), hashes each file named and prints `NAME: OK`, `NAME: FAILED` or
//! `NAME: FAILED open or read`, then warnings that count the failures on standard error.
//! `--quiet` leaves out the `OK` lines, `--status` prints no report at all (errors about
//! files it cannot open still go to standard error, as in `sha256sum`), and `--strict` fails
//! the run on improperly formatted lines.
//!
//! Exit status: 0 on success; 1 if a file could not be read, a checksum did not match, a
//! list had no properly formatted line, or on a usage error (as `sha256sum`, whose usage
//! errors exit 1 too).
//!
//! Files are read in 128 KiB chunks straight into the digest: large files go through at the
//! speed of the hash (or of the kernel's page-cache copy, where that is slower), not of the
//! system calls.

#![forbid(unsafe_code)]

#[path = "nabsum/algorithm.rs"]
mod algorithm;
#[path = "nabsum/cli.rs"]
mod cli;
#[path = "nabsum/line.rs"]
mod line;

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::process::ExitCode;

use algorithm::{DIGEST_LEN, READ_CHUNK, StreamingDigest, hash_reader};
use cli::{Command, Options};
use line::{display_name, format_line, format_status, parse_check_line};

/// Exit status of a usage error: `sha256sum`'s (coreutils' `usage (EXIT_FAILURE)`).
const USAGE_ERROR: u8 = 1;

/// The digest type named in `--check`'s messages.
const DIGEST_TYPE: &str = "NABHash";

fn main() -> ExitCode {
    if let Some(w) = nab_isa::cap_warning() {
        eprintln!("nabsum: warning: {w}");
    }
    let opts = match cli::parse_args(std::env::args_os().skip(1)) {
        Ok(Command::Run(opts)) => opts,
        Ok(Command::Help) => return print(cli::HELP),
        Ok(Command::Version) => return print(&format!("nabsum {}\n", env!("CARGO_PKG_VERSION"))),
        Err(e) => {
            warn(format_args!("{e}"));
            let _ = writeln!(io::stderr(), "Try 'nabsum --help' for more information.");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let digest = opts.algorithm.new_digest();
    let mut nabsum =
        Nabsum { digest, buf: vec![0; READ_CHUNK], out: io::stdout().lock(), opts: &opts };
    let result = if opts.check {
        nabsum.check_lists(&opts.operands)
    } else {
        nabsum.hash_files(&opts.operands)
    };
    match result.and_then(|ok| nabsum.out.flush().map(|()| ok).map_err(OutputError)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => e.report(),
    }
}

/// Writes `text` to standard output (`--help`, `--version`).
fn print(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => OutputError(e).report(),
    }
}

/// Writes `nabsum: MESSAGE` to standard error. A failure to do so is ignored: there is
/// nowhere left to report it.
fn warn(message: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "nabsum: {message}");
}

/// An I/O error as `sha256sum` shows it: the system's description, without Rust's
/// ` (os error N)` suffix.
fn describe(e: &io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => match text.strip_suffix(&format!(" (os error {code})")) {
            Some(description) => description.to_owned(),
            None => text,
        },
        None => text,
    }
}

/// Standard output failed: the run stops.
#[derive(Debug)]
struct OutputError(io::Error);

impl OutputError {
    /// Reports the error and gives the exit status. A closed pipe (`nabsum big | head -1`)
    /// ends the run quietly, as SIGPIPE ends `sha256sum`.
    fn report(&self) -> ExitCode {
        if self.0.kind() != io::ErrorKind::BrokenPipe {
            warn(format_args!("write error: {}", describe(&self.0)));
        }
        ExitCode::FAILURE
    }
}

/// The bytes of an operand, for an output line (on Unix exactly the bytes of the name, so
/// that `-c` can open it again whatever its encoding).
fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        Cow::Borrowed(std::os::unix::ffi::OsStrExt::as_bytes(name))
    }
    #[cfg(not(unix))]
    {
        match name.to_string_lossy() {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// The file name a checksum line spells (`None` where file names must be Unicode and this
/// one is not).
fn os_from_bytes(name: &[u8]) -> Option<&OsStr> {
    #[cfg(unix)]
    {
        Some(std::os::unix::ffi::OsStrExt::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(name).ok().map(OsStr::new)
    }
}

/// What one list's check found, for its closing warnings and its verdict.
#[derive(Default)]
struct Tally {
    /// Checksum lines (well formed).
    proper: u64,
    /// Lines neither checksum lines nor comments.
    malformed: u64,
    /// Listed files whose digest differs.
    mismatched: u64,
    /// Listed files that could not be opened or read.
    unreadable: u64,
}

/// `count` followed by the singular or plural phrase.
fn counted(count: u64, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
}

/// One run: the digest and read buffer reused for every file, and standard output.
struct Nabsum<'a> {
    digest: Box<dyn StreamingDigest>,
    buf: Vec<u8>,
    out: io::StdoutLock<'static>,
    opts: &'a Options,
}

impl Nabsum<'_> {
    /// Writes one line to standard output.
    fn emit(&mut self, line: &[u8]) -> Result<(), OutputError> {
        self.out.write_all(line).map_err(OutputError)
    }

    /// The digest of file `name`, or of standard input for `-`.
    fn hash_input(&mut self, name: &OsStr) -> io::Result<[u8; DIGEST_LEN]> {
        if name == "-" {
            hash_reader(&mut *self.digest, &mut io::stdin().lock(), &mut self.buf)
        } else {
            hash_reader(&mut *self.digest, &mut File::open(name)?, &mut self.buf)
        }
    }

    /// Prints the checksum line of each file; `Ok(false)` if one could not be read.
    fn hash_files(&mut self, names: &[OsString]) -> Result<bool, OutputError> {
        let stdin = [OsString::from("-")];
        let mut ok = true;
        for name in if names.is_empty() { &stdin[..] } else { names } {
            let shown = os_bytes(name);
            match self.hash_input(name) {
                Ok(digest) => self.emit(&format_line(&digest, &shown))?,
                Err(e) => {
                    warn(format_args!("{}: {}", display_name(&shown), describe(&e)));
                    ok = false;
                }
            }
        }
        Ok(ok)
    }

    /// Checks every list; `Ok(false)` if one of them failed.
    fn check_lists(&mut self, lists: &[OsString]) -> Result<bool, OutputError> {
        let stdin = [OsString::from("-")];
        let mut ok = true;
        for list in if lists.is_empty() { &stdin[..] } else { lists } {
            ok &= self.check_list(list)?;
        }
        Ok(ok)
    }

    /// Checks the files one list names, reports, and says whether all was well.
    fn check_list(&mut self, list: &OsStr) -> Result<bool, OutputError> {
        let from_stdin = list == "-";
        let shown =
            if from_stdin { "standard input".to_owned() } else { display_name(&os_bytes(list)) };
        let mut reader: Box<dyn BufRead> = if from_stdin {
            Box::new(io::stdin().lock())
        } else {
            match File::open(list) {
                Ok(file) => Box::new(BufReader::new(file)),
                Err(e) => {
                    warn(format_args!("{shown}: {}", describe(&e)));
                    return Ok(false);
                }
            }
        };
        let (status_only, quiet) = (self.opts.status, self.opts.quiet);
        let mut tally = Tally::default();
        let mut line = Vec::new();
        let mut line_number = 0u64;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => line_number += 1,
                Err(e) => {
                    warn(format_args!("{shown}: {}", describe(&e)));
                    return Ok(false);
                }
            }
            if line.starts_with(b"#") {
                continue;
            }
            // `-` in a list read from standard input would read it a second time.
            let entry = match parse_check_line(&line) {
                Ok(entry) if !(from_stdin && *entry.name == *b"-") => entry,
                _ => {
                    tally.malformed += 1;
                    if !status_only {
                        warn(format_args!(
                            "{shown}: {line_number}: improperly formatted {DIGEST_TYPE} checksum line"
                        ));
                    }
                    continue;
                }
            };
            tally.proper += 1;
            let result = match os_from_bytes(&entry.name) {
                Some(name) => self.hash_input(name),
                None => {
                    Err(io::Error::new(io::ErrorKind::InvalidInput, "file name is not Unicode"))
                }
            };
            match result {
                Ok(digest) if digest == entry.digest => {
                    if !(status_only || quiet) {
                        self.emit(&format_status(&entry.name, "OK"))?;
                    }
                }
                Ok(_) => {
                    tally.mismatched += 1;
                    if !status_only {
                        self.emit(&format_status(&entry.name, "FAILED"))?;
                    }
                }
                Err(e) => {
                    tally.unreadable += 1;
                    warn(format_args!("{}: {}", display_name(&entry.name), describe(&e)));
                    if !status_only {
                        self.emit(&format_status(&entry.name, "FAILED open or read"))?;
                    }
                }
            }
        }

        if tally.proper == 0 {
            warn(format_args!("{shown}: no properly formatted {DIGEST_TYPE} checksum lines found"));
        } else if !status_only {
            // Flushed first, so that the report comes before its summary.
            self.out.flush().map_err(OutputError)?;
            if tally.malformed > 0 {
                let lines = counted(tally.malformed, "line is", "lines are");
                warn(format_args!("WARNING: {lines} improperly formatted"));
            }
            if tally.unreadable > 0 {
                let files = counted(tally.unreadable, "listed file", "listed files");
                warn(format_args!("WARNING: {files} could not be read"));
            }
            if tally.mismatched > 0 {
                let sums = counted(tally.mismatched, "computed checksum", "computed checksums");
                warn(format_args!("WARNING: {sums} did NOT match"));
            }
        }
        Ok(tally.proper > 0
            && tally.mismatched == 0
            && tally.unreadable == 0
            && (!self.opts.strict || tally.malformed == 0))
    }
}
