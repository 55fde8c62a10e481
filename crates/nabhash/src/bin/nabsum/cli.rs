//! Command-line parsing, GNU style: options and operands in any order, `--` ends the options,
//! short options bundle (`-ca v1`, `-av1`), long options take `=VALUE` or the next argument and
//! may be abbreviated to any unambiguous prefix.

use std::ffi::OsString;
use std::fmt;

use crate::algorithm::Algorithm;

/// `nabsum --help`.
pub const HELP: &str = "\
Usage: nabsum [OPTION]... [FILE]...
Print or check NABHash (128-bit) checksums.

With no FILE, or when FILE is -, read standard input.

  -a, --algorithm=ALGO  v1 (the default, the published NABHash) or v2
  -c, --check           read checksums from the FILEs and check them
      --help            display this help and exit
      --version         output version information and exit

The following three options are useful only when verifying checksums:
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines

Each output line is the digest in lowercase hex, two spaces and the file name, as
sha256sum writes it; a name with a backslash, newline or carriage return is escaped
and its line starts with a backslash. When checking, input is read as written by
this program (a '*' before the name is accepted and ignored).

Exit status:
 0  if OK,
 1  if a file could not be read, a checksum did not match (or, with --check, no
    line was properly formatted), or on a usage error.
";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// Hash or check files.
    Run(Options),
    /// Print [`HELP`].
    Help,
    /// Print the version.
    Version,
}

/// The options of a run.
#[derive(Debug, PartialEq, Eq)]
pub struct Options {
    /// `-a`.
    pub algorithm: Algorithm,
    /// `-c`: the operands are checksum lists.
    pub check: bool,
    /// `--quiet`: no `OK` lines.
    pub quiet: bool,
    /// `--status`: nothing on stdout, no warnings.
    pub status: bool,
    /// `--strict`: improperly formatted lines fail the run.
    pub strict: bool,
    /// Files (or lists, with `-c`); empty means standard input.
    pub operands: Vec<OsString>,
}

/// A command line `nabsum` does not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsageError {
    /// `--name` that is no option.
    UnrecognizedLong(String),
    /// `--prefix` that abbreviates several options.
    Ambiguous(String, Vec<&'static str>),
    /// `-x` that is no option.
    InvalidShort(char),
    /// An option that needs a value (named as typed, e.g. `--algorithm` or `-a`) came last.
    MissingValue(String),
    /// `--name=value` for an option that takes none.
    UnexpectedValue(&'static str),
    /// `-a` with a value that names no algorithm.
    InvalidAlgorithm(String),
    /// `--quiet`, `--status` or `--strict` without `--check`.
    CheckOnly(&'static str),
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::UnrecognizedLong(opt) => write!(f, "unrecognized option '{opt}'"),
            UsageError::Ambiguous(opt, names) => {
                write!(f, "option '{opt}' is ambiguous; possibilities:")?;
                names.iter().try_for_each(|n| write!(f, " '--{n}'"))
            }
            UsageError::InvalidShort(c) => write!(f, "invalid option -- '{c}'"),
            UsageError::MissingValue(opt) if opt.starts_with("--") => {
                write!(f, "option '{opt}' requires an argument")
            }
            UsageError::MissingValue(opt) => {
                write!(f, "option requires an argument -- '{}'", opt.trim_start_matches('-'))
            }
            UsageError::UnexpectedValue(name) => {
                write!(f, "option '--{name}' doesn't allow an argument")
            }
            UsageError::InvalidAlgorithm(value) => {
                write!(f, "invalid argument '{value}' for '--algorithm'; valid arguments are:")?;
                Algorithm::ALL.iter().try_for_each(|a| write!(f, " '{}'", a.name()))
            }
            UsageError::CheckOnly(name) => {
                write!(f, "the --{name} option is meaningful only when verifying checksums")
            }
        }
    }
}

impl std::error::Error for UsageError {}

/// An option, whatever its spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opt {
    Algorithm,
    Check,
    Help,
    Quiet,
    Status,
    Strict,
    Version,
}

/// The long options.
const LONG_OPTIONS: [(&str, Opt); 7] = [
    ("algorithm", Opt::Algorithm),
    ("check", Opt::Check),
    ("help", Opt::Help),
    ("quiet", Opt::Quiet),
    ("status", Opt::Status),
    ("strict", Opt::Strict),
    ("version", Opt::Version),
];

/// Parses the arguments after the program name.
pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Command, UsageError> {
    let mut opts = Options {
        algorithm: Algorithm::V1,
        check: false,
        quiet: false,
        status: false,
        strict: false,
        operands: Vec::new(),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let bytes = arg.as_encoded_bytes();
        let (opt, value) = if bytes == b"--" {
            opts.operands.extend(args.by_ref());
            break;
        } else if let Some(long) = bytes.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&b| b == b'=') {
                Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
                None => (long, None),
            };
            let (name, opt) = find_long(name)?;
            let value = match (opt == Opt::Algorithm, inline) {
                (false, Some(_)) => return Err(UsageError::UnexpectedValue(name)),
                (false, None) => None,
                (true, Some(value)) => Some(value.to_vec()),
                (true, None) => match args.next() {
                    Some(next) => Some(next.as_encoded_bytes().to_vec()),
                    None => return Err(UsageError::MissingValue(format!("--{name}"))),
                },
            };
            (opt, value)
        } else if let Some(shorts) = bytes.strip_prefix(b"-").filter(|s| !s.is_empty()) {
            // `-c` bundles with anything; `-a` takes the rest of the argument or the next one.
            let mut rest = shorts;
            loop {
                match rest {
                    [b'c'] => break (Opt::Check, None),
                    [b'c', tail @ ..] => {
                        opts.check = true;
                        rest = tail;
                    }
                    [b'a'] => match args.next() {
                        Some(next) => {
                            break (Opt::Algorithm, Some(next.as_encoded_bytes().to_vec()));
                        }
                        None => return Err(UsageError::MissingValue("-a".into())),
                    },
                    [b'a', value @ ..] => break (Opt::Algorithm, Some(value.to_vec())),
                    _ => return Err(UsageError::InvalidShort(first_char(rest))),
                }
            }
        } else {
            opts.operands.push(arg);
            continue;
        };
        match opt {
            Opt::Algorithm => opts.algorithm = algorithm(value.as_deref().unwrap_or_default())?,
            Opt::Check => opts.check = true,
            Opt::Help => return Ok(Command::Help),
            Opt::Quiet => opts.quiet = true,
            Opt::Status => opts.status = true,
            Opt::Strict => opts.strict = true,
            Opt::Version => return Ok(Command::Version),
        }
    }
    if !opts.check {
        let check_only = [("quiet", opts.quiet), ("status", opts.status), ("strict", opts.strict)];
        if let Some(&(name, _)) = check_only.iter().find(|(_, set)| *set) {
            return Err(UsageError::CheckOnly(name));
        }
    }
    Ok(Command::Run(opts))
}

/// The long option `name` is, or abbreviates unambiguously.
fn find_long(name: &[u8]) -> Result<(&'static str, Opt), UsageError> {
    let typed = || format!("--{}", String::from_utf8_lossy(name));
    if let Some(&exact) = LONG_OPTIONS.iter().find(|(n, _)| n.as_bytes() == name) {
        return Ok(exact);
    }
    let matches: Vec<_> = LONG_OPTIONS
        .iter()
        .filter(|(n, _)| !name.is_empty() && n.as_bytes().starts_with(name))
        .collect();
    match matches[..] {
        [&only] => Ok(only),
        [] => Err(UsageError::UnrecognizedLong(typed())),
        _ => Err(UsageError::Ambiguous(typed(), matches.iter().map(|(n, _)| *n).collect())),
    }
}

/// The algorithm an `-a` value names.
fn algorithm(value: &[u8]) -> Result<Algorithm, UsageError> {
    Algorithm::from_name(value)
        .ok_or_else(|| UsageError::InvalidAlgorithm(String::from_utf8_lossy(value).into_owned()))
}

/// The first character of `bytes` (U+FFFD if they do not start with UTF-8), for a message.
fn first_char(bytes: &[u8]) -> char {
    let head = &bytes[..bytes.len().min(4)];
    String::from_utf8_lossy(head).chars().next().unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, UsageError> {
        parse_args(args.iter().map(OsString::from))
    }

    fn run(args: &[&str]) -> Options {
        match parse(args) {
            Ok(Command::Run(opts)) => opts,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    #[test]
    fn defaults_and_operands() {
        let opts = run(&[]);
        assert_eq!(opts.algorithm, Algorithm::V1);
        assert!(!opts.check && opts.operands.is_empty());
        assert_eq!(run(&["a", "-", "b"]).operands, ["a", "-", "b"]);
        assert_eq!(run(&["a", "--", "-c", "--x"]).operands, ["a", "-c", "--x"]);
    }

    #[test]
    fn options_anywhere_and_in_every_spelling() {
        for args in [
            &["-a", "v2", "f"][..],
            &["-av2", "f"],
            &["f", "--algorithm=v2"],
            &["--algorithm", "v2", "f"],
            &["--alg=v2", "f"],
            &["-a", "v1", "-a", "v2", "f"],
        ] {
            let opts = run(args);
            assert_eq!((opts.algorithm, &opts.operands[..]), (Algorithm::V2, &["f".into()][..]));
        }
        let opts = run(&["x", "-ca", "v1", "--quiet", "--stat", "--stri", "--ch"]);
        assert!(opts.check && opts.quiet && opts.status && opts.strict);
        assert_eq!(opts.operands, ["x"]);
        assert_eq!(parse(&["--help", "--bogus"]), Ok(Command::Help));
        assert_eq!(parse(&["--vers"]), Ok(Command::Version));
    }

    #[test]
    fn usage_errors() {
        let cases = [
            (&["--bogus"][..], "unrecognized option '--bogus'"),
            (&["--st"], "option '--st' is ambiguous; possibilities: '--status' '--strict'"),
            (&["-x"], "invalid option -- 'x'"),
            (&["-cé"], "invalid option -- 'é'"),
            (&["-a"], "option requires an argument -- 'a'"),
            (&["--algorithm"], "option '--algorithm' requires an argument"),
            (&["--check=yes"], "option '--check' doesn't allow an argument"),
            (
                &["-a", "v3"],
                "invalid argument 'v3' for '--algorithm'; valid arguments are: 'v1' 'v2'",
            ),
            (&["--quiet", "f"], "the --quiet option is meaningful only when verifying checksums"),
            (&["--"], ""),
        ];
        for (args, want) in cases {
            match parse(args) {
                Err(e) => assert_eq!(e.to_string(), want, "{args:?}"),
                Ok(_) => assert!(want.is_empty(), "{args:?} parsed"),
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_arguments() {
        use std::os::unix::ffi::OsStringExt;
        let name = OsString::from_vec(vec![b'f', 0xff]);
        let opts = match parse_args([name.clone()]) {
            Ok(Command::Run(opts)) => opts,
            other => panic!("{other:?}"),
        };
        assert_eq!(opts.operands, [name]);
        let bad = parse_args([OsString::from_vec(vec![b'-', 0xff])]).map(|_| ());
        assert_eq!(bad, Err(UsageError::InvalidShort(char::REPLACEMENT_CHARACTER)));
        let bad = parse_args([OsString::from_vec(b"-a\xff".to_vec())]).map(|_| ());
        assert_eq!(bad, Err(UsageError::InvalidAlgorithm("\u{fffd}".into())));
    }
}
