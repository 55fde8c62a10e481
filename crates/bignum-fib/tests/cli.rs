//! The `fib` binary, run as a user runs it: output, formats, and bad arguments.
//!
//! Under qemu-user (the cross matrix) the kernel cannot start the foreign `fib` by itself
//! (no binfmt_misc), so [`fib`] starts it through the same qemu command line that runs this
//! test (as `crates/nabhash/tests/nabsum.rs` does).

// Miri cannot start processes.
#![cfg(not(miri))]

use std::process::Output;

/// Runs the `fib` under test with `args`.
fn fib(args: &[&str]) -> Output {
    let _one_at_a_time = testkit::child_lock();
    let mut cmd = testkit::command(env!("CARGO_BIN_EXE_fib"));
    cmd.args(args).output().expect("start fib")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

#[test]
fn prints_decimal() {
    let o = fib(&["100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "354224848179261915075\n");
    assert_eq!(stdout(&fib(&["0"])), "0\n");
    assert_eq!(stdout(&fib(&["1"])), "1\n");
    assert_eq!(stdout(&fib(&["93"])), "12200160415121876738\n");
    assert_eq!(stdout(&fib(&["94"])), "19740274219868223167\n");
}

#[test]
fn spec_fact_through_the_binary() {
    let o = fib(&["10000"]);
    assert!(o.status.success());
    let s = stdout(&o);
    let digits = s.trim_end();
    assert_eq!(digits.len(), 2090);
    assert!(digits.starts_with("33644764876431783266"));
    assert!(digits.ends_with("66073310059947366875"));
    assert_eq!(stdout(&fib(&["--digits", "10000"])), "2090\n");
    assert_eq!(stdout(&fib(&["--digits", "100000"])), "20899\n");
}

#[test]
fn hex_and_digits() {
    assert_eq!(stdout(&fib(&["--hex", "100"])), "1333db76a7c594bfc3\n");
    assert_eq!(stdout(&fib(&["100", "--hex"])), "1333db76a7c594bfc3\n");
    assert_eq!(stdout(&fib(&["--digits", "100"])), "21\n");
    assert_eq!(stdout(&fib(&["--digits", "0"])), "1\n");
    // Without computing F(N) (expected values from a 100-digit evaluation of
    // ⌊N·log10 φ − log10 √5⌋ + 1 with Python's `decimal`).
    assert_eq!(stdout(&fib(&["--digits", "400000000"])), "83595056\n");
    assert_eq!(stdout(&fib(&["--digits", "1000000000"])), "208987640\n");
    assert_eq!(stdout(&fib(&["--digits", "1000000000000000"])), "208987640249979\n");
    assert_eq!(stdout(&fib(&["--digits", "18446744073709551615"])), "3855141514259838963\n");
}

#[test]
fn time_goes_to_stderr() {
    let o = fib(&["--time", "1000"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim_end().len(), 209);
    let e = stderr(&o);
    assert!(e.contains("compute") && e.contains("decimal"), "{e}");
    assert!(e.contains("limb kernels ") && e.contains("NTT engine "), "{e}");
}

/// `--help` is the usage text (synopsis, options, exit status) and `--version` the version,
/// both on standard output with status 0.
#[test]
fn help_and_version() {
    for flag in ["--help", "-h"] {
        let o = fib(&[flag]);
        let text = stdout(&o);
        assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()), "{flag}");
        assert!(
            text.starts_with("usage: fib [--hex | --digits] [--time] [-j THREADS] N\n"),
            "{text}"
        );
        for part in
            ["--hex", "--digits", "--time", "--jobs", "--version", "Exit status:", " 2  on a bad"]
        {
            assert!(text.contains(part), "no {part} in {text}");
        }
    }
    for flag in ["--version", "-V"] {
        let o = fib(&[flag]);
        assert_eq!(
            (o.status.code(), stdout(&o), stderr(&o)),
            (Some(0), format!("fib {}\n", env!("CARGO_PKG_VERSION")), String::new())
        );
    }
}

/// A reader that stops early (`fib 500000 | head -c 10`) ends `fib` by SIGPIPE with nothing
/// on standard error: status 141 in a shell, as coreutils' tools end.
#[cfg(unix)]
#[test]
fn closed_pipe_ends_by_sigpipe() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let _one_at_a_time = testkit::child_lock();
    // F(500000) has 104,494 digits: more than a pipe holds (64 KiB), so `fib` is still writing
    // when the reader goes.
    let mut child = testkit::command(env!("CARGO_BIN_EXE_fib"))
        .arg("500000")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fib");
    let mut first = [0u8; 10];
    child.stdout.take().expect("piped").read_exact(&mut first).expect("the first 10 bytes");
    assert_eq!(&first, b"2955561408");
    let o = child.wait_with_output().expect("wait for fib");
    // SIGPIPE is 13 on Linux (every architecture), the BSDs and macOS.
    assert_eq!(o.status.signal(), Some(13), "{:?}", o.status);
    assert_eq!(stderr(&o), "");
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &[][..],
        &["-5"],
        &["abc"],
        &["1.5"],
        &[""],
        &["99999999999999999999"],
        &["1000000000000000"],
        &["1", "2"],
        &["--bogus", "5"],
        &["--hex", "--digits", "5"],
    ] {
        let o = fib(args);
        assert_eq!(o.status.code(), Some(2), "fib {args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.starts_with("fib: "), "fib {args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "fib {args:?}: {e}");
        assert!(!e.contains("panicked"), "fib {args:?}: {e}");
        assert!(o.stdout.is_empty());
    }
}

/// `-j N` (every spelling) prints the same F(N) as `-j 1`, `--time` names the thread count,
/// and a thread count below 1 or not a number is a usage error (status 2).
#[test]
fn jobs_option() {
    let one = fib(&["-j", "1", "300000"]);
    assert_eq!(one.status.code(), Some(0));
    for args in [
        &["-j", "3", "300000"][..],
        &["-j2", "300000"],
        &["--jobs=7", "300000"],
        &["--jobs", "2", "300000"],
    ] {
        let o = fib(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stdout == one.stdout, "{args:?}: not the output of -j 1");
    }
    let o = fib(&["--time", "-j", "2", "1000"]);
    assert!(stderr(&o).contains("2 threads"), "{}", stderr(&o));
    for bad in [&["-j", "0", "10"][..], &["-j", "x", "10"], &["10", "-j"]] {
        let o = fib(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(stderr(&o).contains("-j needs a number"), "{bad:?}: {}", stderr(&o));
    }
}
