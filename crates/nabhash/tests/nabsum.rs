//! The `nabsum` binary, run as a user runs it: files and standard input, `-c`, its
//! messages and exit statuses.
//!
//! Under qemu-user (the cross matrix) this test is emulated and the kernel cannot start the
//! foreign `nabsum` by itself (no binfmt_misc), so [`nabsum`] starts it through the same qemu
//! command line that runs this test.

// Miri cannot start processes.
#![cfg(not(miri))]

mod common;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The v1 digest of `de ad be ef` (spec, "Vectors"): the one digest this file spells out, so
/// that a wrong library and a wrong binary cannot agree with each other.
const DEADBEEF_HEX: &str = "9041d0d440fe93f69515b771619aa54c";

/// A command that runs the `nabsum` under test.
fn nabsum() -> Command {
    testkit::command(env!("CARGO_BIN_EXE_nabsum"))
}

#[cfg(unix)]
fn os(bytes: &[u8]) -> &OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os(bytes: &[u8]) -> &OsStr {
    OsStr::new(std::str::from_utf8(bytes).expect("test names are UTF-8 off Unix"))
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("nabsum-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    /// Writes file `name` (raw bytes on Unix) in the directory.
    fn write(&self, name: impl AsRef<[u8]>, data: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(os(name.as_ref()));
        std::fs::write(&path, data).expect("write temp file");
        path
    }

    /// Starts `nabsum args` in the directory, with all three standard streams piped.
    fn spawn<A: AsRef<OsStr>>(&self, args: &[A]) -> Child {
        nabsum()
            .args(args)
            .current_dir(&self.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start nabsum")
    }

    /// Runs `nabsum args` in the directory with `stdin` as standard input.
    fn run<A: AsRef<OsStr>>(&self, args: &[A], stdin: &[u8]) -> Run {
        let _one_at_a_time = testkit::child_lock();
        let mut child = self.spawn(args);
        let mut input = child.stdin.take().expect("stdin is piped");
        let output = std::thread::scope(|s| {
            // nabsum may exit without reading its input (a usage error): ignore EPIPE.
            s.spawn(move || {
                let _ = input.write_all(stdin);
            });
            child.wait_with_output().expect("wait for nabsum")
        });
        Run::from(output)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a run of `nabsum` did.
#[derive(Debug)]
struct Run {
    /// The exit code (`None` if killed by a signal).
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "nabsum panicked: {stderr}");
        Run { code: out.status.code(), stdout: out.stdout, stderr }
    }
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Asserts the exit code, stdout and stderr.
    #[track_caller]
    fn assert(&self, code: i32, stdout: &str, stderr: &str) {
        assert_eq!(
            (self.code, self.stdout().as_str(), self.stderr.as_str()),
            (Some(code), stdout, stderr)
        );
    }
}

/// The checksum line `nabsum` prints for `data` named `name`.
fn line(data: &[u8], name: &str) -> String {
    format!("{}  {name}\n", common::hex(&nabhash::hash(data)))
}

#[test]
fn spec_vector_on_stdin() {
    let dir = TempDir::new();
    let want = format!("{DEADBEEF_HEX}  -\n");
    dir.run::<&str>(&[], &[0xde, 0xad, 0xbe, 0xef]).assert(0, &want, "");
    dir.run(&["-"], &[0xde, 0xad, 0xbe, 0xef]).assert(0, &want, "");
}

#[test]
fn every_vector_of_the_data_files() {
    let dir = TempDir::new();
    let vectors = common::v1_vectors(usize::MAX);
    let names: Vec<String> = (0..vectors.len()).map(|i| format!("v{i}")).collect();
    let mut want = String::new();
    for ((input, digest), name) in vectors.iter().zip(&names) {
        dir.write(name, input);
        want += &format!("{}  {name}\n", common::hex(digest));
    }
    dir.run(&names, b"").assert(0, &want, "");
}

#[test]
fn large_input_matches_the_library() {
    // Many read chunks and pipe buffers, not a multiple of the block size, no repeating pattern.
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let data: Vec<u8> = (0..(2 << 20) + 1234)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    let dir = TempDir::new();
    dir.write("big", &data);
    dir.run(&["big"], b"").assert(0, &line(&data, "big"), "");
    dir.run::<&str>(&[], &data).assert(0, &line(&data, "-"), "");
}

#[test]
fn several_files_in_argument_order() {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    dir.write("empty", "");
    dir.write("b b", "beta");
    let want =
        line(b"beta", "b b") + &line(b"alpha", "a") + &line(b"in", "-") + &line(b"", "empty");
    dir.run(&["b b", "a", "-", "empty"], b"in").assert(0, &want, "");
}

#[test]
fn unreadable_files_are_named_and_the_rest_still_hashed() {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    dir.write("b", "beta");
    std::fs::create_dir(dir.0.join("sub")).expect("mkdir");
    let run = dir.run(&["a", "missing", "sub", "b"], b"");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout(), line(b"alpha", "a") + &line(b"beta", "b"));
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("nabsum: missing: ") && lines[0].len() > 17, "{lines:?}");
    assert!(lines[1].starts_with("nabsum: sub: ") && lines[1].len() > 13, "{lines:?}");
}

/// A directory with files `a` and `b` and `list`, the checksum list nabsum wrote for them.
fn checked_dir() -> TempDir {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    dir.write("b", "beta");
    let run = dir.run(&["a", "b"], b"");
    run.assert(0, &(line(b"alpha", "a") + &line(b"beta", "b")), "");
    dir.write("list", &run.stdout);
    dir
}

#[test]
fn check_round_trip() {
    let dir = checked_dir();
    dir.run(&["-c", "list"], b"").assert(0, "a: OK\nb: OK\n", "");
    dir.run(&["--check", "list", "list"], b"").assert(0, "a: OK\nb: OK\na: OK\nb: OK\n", "");
}

#[test]
fn check_reads_the_list_from_stdin() {
    let dir = checked_dir();
    let list = std::fs::read(dir.0.join("list")).expect("read list");
    dir.run(&["-c"], &list).assert(0, "a: OK\nb: OK\n", "");
    dir.run(&["-c", "-"], &list).assert(0, "a: OK\nb: OK\n", "");
    // A list from stdin cannot name stdin as well.
    let both = [&list[..], line(b"", "-").as_bytes()].concat();
    dir.run(&["-c"], &both).assert(
        0,
        "a: OK\nb: OK\n",
        "nabsum: standard input: 3: improperly formatted NABHash checksum line\n\
         nabsum: WARNING: 1 line is improperly formatted\n",
    );
    // From a list file, `-` is standard input.
    dir.write("stdin-list", line(b"in", "-"));
    dir.run(&["-c", "stdin-list"], b"in").assert(0, "-: OK\n", "");
}

#[test]
fn check_reports_a_modified_file() {
    let dir = checked_dir();
    dir.write("b", "BETA");
    dir.run(&["-c", "list"], b"").assert(
        1,
        "a: OK\nb: FAILED\n",
        "nabsum: WARNING: 1 computed checksum did NOT match\n",
    );
    dir.write("a", "ALPHA");
    let run = dir.run(&["-c", "list"], b"");
    run.assert(
        1,
        "a: FAILED\nb: FAILED\n",
        "nabsum: WARNING: 2 computed checksums did NOT match\n",
    );
}

#[test]
fn check_reports_an_unreadable_file() {
    let dir = checked_dir();
    std::fs::remove_file(dir.0.join("a")).expect("rm a");
    let run = dir.run(&["-c", "list"], b"");
    assert_eq!((run.code, run.stdout().as_str()), (Some(1), "a: FAILED open or read\nb: OK\n"));
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("nabsum: a: "), "{lines:?}");
    assert_eq!(lines[1], "nabsum: WARNING: 1 listed file could not be read");
}

#[test]
fn check_names_list_and_line_of_malformed_lines() {
    let dir = checked_dir();
    let good = std::fs::read_to_string(dir.0.join("list")).expect("read list");
    let hex = DEADBEEF_HEX;
    let list = format!("# a comment\njunk\n{good}{}  a\n{hex}0  b\n{hex} b\n\n", &hex[..31]);
    dir.write("messy", list);
    let stderr = "nabsum: messy: 2: improperly formatted NABHash checksum line\n\
                  nabsum: messy: 5: improperly formatted NABHash checksum line\n\
                  nabsum: messy: 6: improperly formatted NABHash checksum line\n\
                  nabsum: messy: 7: improperly formatted NABHash checksum line\n\
                  nabsum: messy: 8: improperly formatted NABHash checksum line\n\
                  nabsum: WARNING: 5 lines are improperly formatted\n";
    dir.run(&["-c", "messy"], b"").assert(0, "a: OK\nb: OK\n", stderr);
    dir.run(&["-c", "--strict", "messy"], b"").assert(1, "a: OK\nb: OK\n", stderr);
    dir.run(&["-c", "--strict", "list"], b"").assert(0, "a: OK\nb: OK\n", "");
}

#[test]
fn check_fails_without_a_single_checksum_line() {
    let dir = TempDir::new();
    dir.write("junk", "not a checksum\n");
    dir.write("empty", "");
    dir.run(&["-c", "junk"], b"").assert(
        1,
        "",
        "nabsum: junk: 1: improperly formatted NABHash checksum line\n\
         nabsum: junk: no properly formatted NABHash checksum lines found\n",
    );
    let want = "nabsum: empty: no properly formatted NABHash checksum lines found\n";
    dir.run(&["-c", "empty"], b"").assert(1, "", want);
    let run = dir.run(&["-c", "no-such-list"], b"");
    assert_eq!((run.code, run.stdout().as_str()), (Some(1), ""));
    assert!(run.stderr.starts_with("nabsum: no-such-list: "), "{}", run.stderr);
}

#[test]
fn check_accepts_binary_marker_crlf_and_uppercase() {
    let dir = TempDir::new();
    dir.write("a", [0xde, 0xad, 0xbe, 0xef]);
    dir.write("list", format!("{DEADBEEF_HEX} *a\r\n{}  a\n", DEADBEEF_HEX.to_uppercase()));
    dir.run(&["-c", "list"], b"").assert(0, "a: OK\na: OK\n", "");
}

#[test]
fn quiet_and_status() {
    let dir = checked_dir();
    dir.run(&["-c", "--quiet", "list"], b"").assert(0, "", "");
    dir.run(&["-c", "--status", "list"], b"").assert(0, "", "");
    dir.write("b", "BETA");
    let warning = "nabsum: WARNING: 1 computed checksum did NOT match\n";
    dir.run(&["-c", "--quiet", "list"], b"").assert(1, "b: FAILED\n", warning);
    dir.run(&["--status", "-c", "list"], b"").assert(1, "", "");
    dir.write("list2", format!("junk\n{}", line(b"BETA", "b")));
    dir.run(&["-c", "--status", "list2"], b"").assert(0, "", "");
    dir.run(&["-c", "--status", "--strict", "list2"], b"").assert(1, "", "");
}

/// Usage errors exit with status 1, as `sha256sum`'s do, with its two-line message.
#[test]
fn usage_errors_exit_1() {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    let try_help = "Try 'nabsum --help' for more information.\n";
    for (args, message) in [
        (&["--bogus", "a"][..], "unrecognized option '--bogus'"),
        (&["-x", "a"], "invalid option -- 'x'"),
        (&["a", "-a"], "option requires an argument -- 'a'"),
        (&["a", "--algorithm"], "option '--algorithm' requires an argument"),
        (
            &["-a", "v3", "a"],
            "invalid argument 'v3' for '--algorithm'; valid arguments are: 'v1' 'v2'",
        ),
        (&["--quiet", "a"], "the --quiet option is meaningful only when verifying checksums"),
    ] {
        dir.run(args, b"").assert(1, "", &format!("nabsum: {message}\n{try_help}"));
    }
}

/// `-a v2` prints NABHash v2 (seed 0) and checks lists it wrote.
#[test]
fn v2_digests_and_check() {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    let v2_line = format!("{}  a\n", common::hex(&nabhash::v2::hash(b"alpha", 0)));
    dir.run(&["-a", "v2", "a"], b"").assert(0, &v2_line, "");
    dir.run(&["--algorithm=v2", "a"], b"").assert(0, &v2_line, "");
    dir.write("list", &v2_line);
    dir.run(&["-a", "v2", "-c", "list"], b"").assert(0, "a: OK\n", "");
    // A v2 list checked as v1 fails, and the other way round.
    let v1 = dir.run(&["-c", "list"], b"");
    assert_eq!(v1.code, Some(1), "{}", v1.stderr);
    dir.run(&["-a", "v1", "a"], b"").assert(0, &line(b"alpha", "a"), "");
}

#[test]
fn help_and_version() {
    let dir = TempDir::new();
    let run = dir.run(&["--help"], b"");
    assert_eq!((run.code, run.stderr.as_str()), (Some(0), ""));
    assert!(run.stdout().starts_with("Usage: nabsum [OPTION]... [FILE]...\n"), "{}", run.stdout());
    for part in ["--algorithm=ALGO", "--check", "--status", "--strict", "Exit status:"] {
        assert!(run.stdout().contains(part), "no {part} in {}", run.stdout());
    }
    let version = format!("nabsum {}\n", env!("CARGO_PKG_VERSION"));
    dir.run(&["--version"], b"").assert(0, &version, "");
}

/// Names with a newline, a backslash or a carriage return are escaped and round-trip.
#[cfg(unix)]
#[test]
fn escaped_names_round_trip() {
    let dir = TempDir::new();
    let names = ["new\nline", "back\\slash", "cr\r", "plain"];
    for name in names {
        dir.write(name, name);
    }
    let run = dir.run(&names, b"");
    let want = format!(
        "\\{}  new\\nline\n\\{}  back\\\\slash\n\\{}  cr\\r\n{}",
        common::hex(&nabhash::hash(names[0].as_bytes())),
        common::hex(&nabhash::hash(names[1].as_bytes())),
        common::hex(&nabhash::hash(names[2].as_bytes())),
        line(b"plain", "plain")
    );
    run.assert(0, &want, "");
    dir.write("list", &run.stdout);
    let ok = "\\new\\nline: OK\n\\back\\\\slash: OK\n\\cr\\r: OK\nplain: OK\n";
    dir.run(&["-c", "list"], b"").assert(0, ok, "");
    dir.write(names[0], "changed");
    let failed = "\\new\\nline: FAILED\n\\back\\\\slash: OK\n\\cr\\r: OK\nplain: OK\n";
    let warning = "nabsum: WARNING: 1 computed checksum did NOT match\n";
    dir.run(&["-c", "list"], b"").assert(1, failed, warning);
}

/// A name that is not UTF-8 is written as its bytes, so that `-c` finds the file again.
#[cfg(unix)]
#[test]
fn non_utf8_names_round_trip() {
    let dir = TempDir::new();
    let name: &[u8] = b"caf\xe9";
    dir.write(name, "x");
    let run = dir.run(&[os(name)], b"");
    let want = [common::hex(&nabhash::hash(b"x")).as_bytes(), b"  ", name, b"\n"].concat();
    assert_eq!((run.code, &run.stdout, run.stderr.as_str()), (Some(0), &want, ""));
    dir.write("list", &run.stdout);
    let run = dir.run(&["-c", "list"], b"");
    assert_eq!((run.code, &run.stdout), (Some(0), &[name, b": OK\n"].concat()));

    let missing = dir.run(&[os(b"gone\xff")], b"");
    assert_eq!((missing.code, missing.stdout.len()), (Some(1), 0));
    assert!(missing.stderr.starts_with("nabsum: gone\u{fffd}: "), "{}", missing.stderr);
}

/// Output into a closed pipe (`nabsum ... | head -1`) ends the run without a panic message.
#[test]
fn closed_stdout_exits_quietly() {
    let dir = TempDir::new();
    dir.write("a", "alpha");
    let _one_at_a_time = testkit::child_lock();
    let mut child = dir.spawn(&["a", "-"]);
    // No reader from here on: the line for `-` cannot be written before stdin ends, so at
    // the latest that write fails.
    drop(child.stdout.take());
    let mut input = child.stdin.take().expect("stdin is piped");
    let _ = input.write_all(b"some input");
    drop(input);
    let run = Run::from(child.wait_with_output().expect("wait for nabsum"));
    assert_eq!((run.code, run.stderr.as_str()), (Some(1), ""));
}

/// The test's own helper must find the binary it documents.
#[test]
fn runner_is_empty_or_an_emulator() {
    if let Some(first) = testkit::runner().first() {
        let name = Path::new(first).file_name().and_then(OsStr::to_str).unwrap_or_default();
        assert!(name.starts_with("qemu-"), "unexpected runner {:?}", testkit::runner());
    }
}
