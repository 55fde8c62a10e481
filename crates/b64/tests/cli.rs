//! The `b64` binary against GNU coreutils `base64` and `basenc --base64url` when they are
//! installed: same standard output and exit status for the same options and input.
//!
//! Under qemu-user (the cross matrix) the kernel cannot start the foreign `b64` by itself
//! (no binfmt_misc), so [`b64_cmd`] starts it through the same qemu command line that runs
//! this test. The system tools are native binaries and start normally.

// Miri cannot start processes.
#![cfg(not(miri))]

mod common;

use b64::prelude::*;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn b64_cmd() -> Command {
    testkit::command(env!("CARGO_BIN_EXE_b64"))
}

fn run(mut cmd: Command, args: &[&str], stdin: &[u8]) -> Output {
    let _one_at_a_time = testkit::child_lock();
    let mut child = cmd
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start process");
    let mut input = child.stdin.take().expect("piped");
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = input.write_all(stdin);
        });
        child.wait_with_output().expect("wait")
    })
}

/// `base64` (or `basenc --base64url` when `args` has `--url`) with the same options, if the
/// system has it.
fn coreutils(args: &[&str], stdin: &[u8]) -> Option<Output> {
    let url = args.contains(&"--url");
    let mut cmd = Command::new(if url { "basenc" } else { "base64" });
    if url {
        cmd.arg("--base64url");
    }
    let args: Vec<&str> = args.iter().copied().filter(|a| *a != "--url").collect();
    let version = {
        let _one_at_a_time = testkit::child_lock();
        cmd.arg("--version").output()
    };
    version.ok().filter(|o| o.status.success())?;
    let mut cmd = Command::new(if url { "basenc" } else { "base64" });
    if url {
        cmd.arg("--base64url");
    }
    Some(run(cmd, &args, stdin))
}

/// Runs `b64 args` on `stdin`; compares with coreutils when present, else with `want`.
#[track_caller]
fn same(args: &[&str], stdin: &[u8]) -> Output {
    let ours = run(b64_cmd(), args, stdin);
    let stderr = String::from_utf8_lossy(&ours.stderr);
    assert!(!stderr.contains("panicked"), "b64 panicked: {stderr}");
    if let Some(theirs) = coreutils(args, stdin) {
        assert_eq!(
            (ours.status.code(), String::from_utf8_lossy(&ours.stdout)),
            (theirs.status.code(), String::from_utf8_lossy(&theirs.stdout)),
            "b64 {args:?} on {:?}",
            String::from_utf8_lossy(&stdin[..stdin.len().min(200)])
        );
        assert_eq!(ours.stderr.is_empty(), theirs.stderr.is_empty(), "stderr: {stderr}");
    }
    ours
}

#[test]
fn encode_like_coreutils() {
    let lens: Vec<usize> =
        if common::small() { vec![0, 1, 2, 3, 57, 100] } else { (0..=100).collect() };
    for len in lens {
        let data = common::bytes(len, len as u64 + 9);
        for args in [
            &[][..],
            &["-w", "0"],
            &["-w1"],
            &["--wrap=5"],
            &["-w", "4"],
            &["--url"],
            &["--url", "-w", "7"],
        ] {
            let out = same(args, &data);
            assert_eq!(out.status.code(), Some(0));
        }
    }
    let big = common::bytes(if common::small() { 200_000 } else { 1_000_003 }, 77);
    let out = same(&[], &big);
    let text: Vec<u8> = out.stdout.iter().copied().filter(|&b| b != b'\n').collect();
    assert_eq!(text, BASE64_STANDARD.encode_to_vec(&big));
    assert!(out.stdout.split(|&b| b == b'\n').all(|l| l.len() <= 76));
    same(&["-w", "0"], &big);
    same(&["-w", "1000"], &big);
}

#[test]
fn decode_like_coreutils() {
    let cases: &[&[u8]] = &[
        b"",
        b"\n\n",
        b"YQ==",
        b"YQ==\n",
        b"YQ==YQ==",
        b"YR==",
        b"YWJj",
        b"Y\nQ\n=\n=\n",
        b"YWJjZA==\n",
        // Invalid: coreutils writes the bytes before the bad group and exits 1.
        b"YQ",
        b"YQ=",
        b"YQ== ",
        b"YWJj\r\n",
        b"YWJ!YWJj",
        b"YWJjYWJ!",
        b"YQ===",
        b"=",
        b"YQ=A",
        b"YWJjZA",
        b"YWJj====",
        b"Y!Q==",
        b"YWJ=YWJj\n",
        b"\x80\x80\x80\x80",
        b"YWJ",
        b"Y===",
    ];
    for &text in cases {
        same(&["-d"], text);
        same(&["-d", "-i"], text);
        same(&["--decode", "--url"], text);
    }
    same(&["-di"], b"Y!Q==");
    same(&["-d", "--ignore-garbage"], b"Y W\tJ\rj~~~\n");
    same(&["-d", "--url", "-i"], b"Zm-_ +/");
    // A long wrapped text, many read chunks.
    let data = common::bytes(if common::small() { 100_000 } else { 700_001 }, 3);
    let text = BASE64_STANDARD.encode_wrapped(
        &data,
        b64::engine::LineWrap { width: 76, ending: b64::engine::LineEnding::Lf },
    );
    let out = same(&["-d"], text.as_bytes());
    assert_eq!(out.stdout, data);
    let mut bad = text.clone().into_bytes();
    let at = bad.len() / 2;
    bad[at] = b'*';
    assert_eq!(same(&["-d"], &bad).status.code(), Some(1));
    // Bytes the library's forgiving decoder skips but coreutils does not, padding that
    // continues the stream, and a stray symbol, in the second read chunk (98304 bytes) and
    // at a line start: the fast path must hand these chunks to the general path.
    let text = text.into_bytes();
    for (at, edit) in [
        (100_000, &b"\r"[..]),
        (130_000, b" "),
        (150_001, b"\t"),
        (120_010, b"YQ=="),
        (77 * 1500, b"YQ==\n"),
        (77 * 1600, b"Y"),
        (77 * 1700 + 3, b"="),
    ] {
        let mut t = text.clone();
        let at = at % (t.len() + 1);
        t.splice(at..at, edit.iter().copied());
        same(&["-d"], &t);
    }
    // CRLF lines, and one long line without newlines (more than a chunk).
    let crlf = BASE64_STANDARD.encode_wrapped(
        &data,
        b64::engine::LineWrap { width: 64, ending: b64::engine::LineEnding::CrLf },
    );
    assert_eq!(same(&["-d"], crlf.as_bytes()).status.code(), Some(1));
    assert_eq!(same(&["-d"], BASE64_STANDARD.encode(&data).as_bytes()).stdout, data);
}

#[test]
fn files_and_errors() {
    let dir = std::env::temp_dir().join(format!("b64-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("in");
    std::fs::write(&file, b"hello").unwrap();
    let path = file.to_str().unwrap();
    assert_eq!(same(&[path], b"").stdout, b"aGVsbG8=\n");
    assert_eq!(same(&["-"], b"hello").stdout, b"aGVsbG8=\n");
    let missing = dir.join("missing");
    let out = same(&[missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No such file"));
    assert_eq!(same(&[path, path], b"").status.code(), Some(1));
    assert_eq!(same(&["-w", "x"], b"").status.code(), Some(1));
    assert_eq!(same(&["--bogus"], b"").status.code(), Some(1));
    let out = same(&["-d"], b"YQ=A");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "b64: invalid input\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `NAB_MAX_ISA` that is not a tier name is ignored by the library and named in a warning
/// by the CLI; a tier name gives no warning. The output is the same under every value.
#[test]
fn unknown_max_isa_warns_and_changes_nothing() {
    for (value, warns) in [("x86-64-v5", true), ("x86-64-v2", false), ("portable", false)] {
        let mut cmd = b64_cmd();
        cmd.env("NAB_MAX_ISA", value);
        let out = run(cmd, &[], b"hello");
        assert!(out.status.success(), "{value}");
        assert_eq!(out.stdout, b"aGVsbG8=\n", "{value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.contains("warning: NAB_MAX_ISA=x86-64-v5 is not"), warns, "{value}: {err}");
    }
}

/// A regular file, named or as standard input, is encoded through a mapping (Linux): the
/// same text as through a pipe (itself compared with coreutils), for lengths around a line
/// (57 bytes) and beyond a chunk (768 KiB), and standard input at an offset that is not a
/// page's is encoded from there and left at its end.
#[test]
fn regular_files_like_pipes() {
    let dir = std::env::temp_dir().join(format!("b64-cli-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("in");
    let small = common::small();
    let big = if small { 200_001 } else { (1 << 20) + 1 };
    let lens: &[usize] = if small { &[0, 1, 58, big] } else { &[0, 1, 56, 57, 58, 76 * 57, big] };
    let args: &[&[&str]] =
        if small { &[&[], &["-w", "5"]] } else { &[&[], &["-w", "0"], &["-w", "5"], &["--url"]] };
    let quiet = |mut cmd: Command| {
        let _one_at_a_time = testkit::child_lock();
        cmd.output().expect("start process")
    };
    for &len in lens {
        let data = common::bytes(len, len as u64 + 3);
        std::fs::write(&path, &data).unwrap();
        let name = path.to_str().unwrap();
        for &args in args {
            let piped = same(args, &data);
            let mut cmd = b64_cmd();
            cmd.args(args).arg(name);
            let named = quiet(cmd);
            assert_eq!(named.status.code(), Some(0));
            assert_eq!(named.stdout, piped.stdout, "b64 {args:?} FILE, {len} bytes");
            let mut cmd = b64_cmd();
            cmd.args(args).stdin(std::fs::File::open(&path).unwrap());
            let redirected = quiet(cmd);
            assert_eq!(redirected.status.code(), Some(0));
            assert_eq!(redirected.stdout, piped.stdout, "b64 {args:?} < FILE, {len} bytes");
        }
    }
    // Standard input 7 bytes in: the rest is encoded and the offset ends at the file's end.
    let data = common::bytes(big, 5);
    std::fs::write(&path, &data).unwrap();
    let mut file = std::fs::File::open(&path).unwrap();
    std::io::Read::read_exact(&mut file, &mut [0; 7]).unwrap();
    let mut cmd = b64_cmd();
    cmd.args(["-w", "0"]).stdin(file.try_clone().unwrap());
    let out = quiet(cmd);
    assert_eq!(out.stdout, BASE64_STANDARD.encode_to_vec(&data[7..]));
    assert_eq!(std::io::Seek::stream_position(&mut file).unwrap(), big as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--help` prints the usage text (synopsis, options, exit status) and `--version` the
/// version, both on standard output with status 0.
#[test]
fn help_and_version() {
    let help = run(b64_cmd(), &["--help"], b"");
    let text = String::from_utf8_lossy(&help.stdout);
    assert_eq!((help.status.code(), help.stderr.as_slice()), (Some(0), &b""[..]), "{text}");
    assert!(text.starts_with("Usage: b64 [OPTION]... [FILE]\n"), "{text}");
    for part in ["--decode", "--ignore-garbage", "--wrap=COLS", "--url", "Exit status:"] {
        assert!(text.contains(part), "no {part} in {text}");
    }
    let version = run(b64_cmd(), &["--version"], b"");
    assert_eq!(
        (version.status.code(), String::from_utf8_lossy(&version.stdout), version.stderr.len()),
        (Some(0), format!("b64 {}\n", env!("CARGO_PKG_VERSION")).into(), 0)
    );
}

/// Usage errors exit with status 1, as coreutils' `base64` does, with its two-line message.
#[test]
fn usage_errors_exit_1() {
    let try_help = "Try 'b64 --help' for more information.\n";
    for (args, message) in [
        (&["--bogus"][..], "unrecognized option '--bogus'"),
        (&["-x"], "invalid option -- 'x'"),
        (&["-w"], "option requires an argument -- 'w'"),
        (&["-w", "x"], "invalid wrap size: 'x'"),
        (&["--decode=1"], "option '--decode' doesn't allow an argument"),
        (&["a", "b"], "extra operand 'b'"),
    ] {
        let out = run(b64_cmd(), args, b"");
        assert_eq!(
            (out.status.code(), String::from_utf8_lossy(&out.stderr), out.stdout.len()),
            (Some(1), format!("b64: {message}\n{try_help}").into(), 0),
            "b64 {args:?}"
        );
    }
}

/// A reader that stops early (`b64 BIG | head -c 10`) ends `b64` by SIGPIPE with nothing on
/// standard error, as it ends coreutils' `base64`: status 141 in a shell.
#[cfg(target_os = "linux")]
#[test]
fn closed_pipe_ends_by_sigpipe() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    // 4 MiB of input: its text is far more than a pipe holds, so `b64` is still writing
    // when the reader goes.
    let data = vec![0x5a_u8; 4 << 20];
    let _one_at_a_time = testkit::child_lock();
    let mut child = b64_cmd()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start b64");
    let mut input = child.stdin.take().expect("piped");
    let mut text = child.stdout.take().expect("piped");
    let status = std::thread::scope(|s| {
        s.spawn(move || {
            // b64 dies before reading it all: EPIPE here, ignored.
            let _ = input.write_all(&data);
        });
        let mut first = [0u8; 10];
        text.read_exact(&mut first).expect("the first 10 bytes");
        assert_eq!(&first, b"WlpaWlpaWl");
        drop(text);
        child.wait_with_output().expect("wait")
    });
    // SIGPIPE is 13 on every Linux architecture.
    assert_eq!(status.status.signal(), Some(13), "{:?}", status.status);
    assert_eq!(String::from_utf8_lossy(&status.stderr), "");
}
