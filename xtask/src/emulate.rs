//! `xtask emulate QEMU [QEMU ARGS]... -- TEST BINARY [ARGS]...`: cargo's runner in the cross
//! rows (set through `CARGO_TARGET_<TRIPLE>_RUNNER` by `cargo xtask test`).
//!
//! It runs the emulated test binary in a process group of its own and watches the CPU time
//! of that group. qemu-user can deadlock: a guest process that starts a child (the CLI tests
//! do) while its other threads run may leave the child, or itself, blocked on a lock that no
//! thread will release, and then nothing in the group uses the CPU again (a CI run sat in
//! `nabsum`'s `quiet_and_status` under qemu-aarch64 until the CI's time limit, while the same
//! test takes 1 s here). A group that has used no CPU for [`STALL`] is stopped: what each of
//! its threads was blocked on is printed, it is killed, and the binary runs once more. A
//! second stall, a binary still running after [`LIMIT`], or any test failure is a failure:
//! only the emulator's deadlock is retried, never a failing test, and each retry is named in
//! the summary.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// No CPU used by any process of the group for this long is a deadlock. The slowest test
/// binary here (nabhash's quality tests under mips64) computes for minutes without a pause;
/// none sleeps or waits on the outside world.
const STALL: Duration = Duration::from_secs(120);
/// A test binary that runs longer than this has hung while busy (none takes 4 min here).
const LIMIT: Duration = Duration::from_secs(30 * 60);
const ATTEMPTS: u32 = 2;
const POLL: Duration = Duration::from_secs(2);

/// The environment variable naming the file where stalls are recorded for the summary.
pub const STALL_LOG: &str = "XTASK_STALL_LOG";

pub fn main(args: &[String]) -> ExitCode {
    let Some(split) = args.iter().position(|a| a == "--") else {
        eprintln!("xtask emulate: usage: xtask emulate QEMU [ARGS]... -- BINARY [ARGS]...");
        return ExitCode::from(2);
    };
    let (emulator, test) = (&args[..split], &args[split + 1..]);
    if emulator.is_empty() || test.is_empty() {
        eprintln!("xtask emulate: no emulator or no test binary given");
        return ExitCode::from(2);
    }
    let name = test[0].rsplit('/').next().unwrap_or(&test[0]).to_string();
    // `XTASK_STALL_SECS` shortens the wait, to try the watchdog out.
    let stall = std::env::var("XTASK_STALL_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(STALL, Duration::from_secs);
    for attempt in 1..=ATTEMPTS {
        let mut cmd = Command::new(&emulator[0]);
        cmd.args(&emulator[1..]).args(test).process_group(0);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("xtask emulate: cannot start {}: {e}", emulator[0]);
                return ExitCode::from(101);
            }
        };
        let pgid = child.id();
        // A thread waits for the binary, so that its end is seen at once (a `try_wait` every
        // [`POLL`] rounded each binary's run up to the next 2 s: with ~50 binaries a row, about
        // 100 s of idle wall time per cross row). The CPU watch below still wakes every POLL.
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let start = Instant::now();
        let mut last_ticks = None;
        let mut last_progress = Instant::now();
        let verdict = loop {
            match rx.recv_timeout(POLL) {
                Ok(Ok(status)) => break Ok(status),
                Ok(Err(e)) => break Err(format!("cannot wait for {name}: {e}")),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    break Err(format!("cannot wait for {name}: its waiting thread ended"));
                }
            }
            let ticks = group_ticks(pgid);
            if last_ticks != Some(ticks) {
                last_ticks = Some(ticks);
                last_progress = Instant::now();
            }
            if last_progress.elapsed() >= stall {
                break Err(format!(
                    "{name} (attempt {attempt} of {ATTEMPTS}) used no CPU for {} s: \
                     qemu-user deadlocked",
                    stall.as_secs()
                ));
            }
            if start.elapsed() >= LIMIT {
                break Err(format!(
                    "{name} (attempt {attempt} of {ATTEMPTS}) still runs after {} min",
                    LIMIT.as_secs() / 60
                ));
            }
        };
        let why = match verdict {
            Ok(status) => {
                let _ = waiter.join();
                return match status.code() {
                    Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(101)),
                    None => {
                        eprintln!("xtask emulate: {name} ended by {status}");
                        ExitCode::from(101)
                    }
                };
            }
            Err(why) => why,
        };
        eprintln!("\nxtask emulate: {why}; its threads were blocked in:");
        eprint!("{}", describe_group(pgid));
        kill_group(pgid);
        // The waiter reaps the killed binary and ends.
        let _ = waiter.join();
        record(&format!("{why} (cwd {})", std::env::current_dir().unwrap_or_default().display()));
        let stalled = why.contains("deadlocked");
        if !stalled || attempt == ATTEMPTS {
            eprintln!("xtask emulate: {name}: giving up");
            return ExitCode::from(101);
        }
        eprintln!("xtask emulate: killed; running {name} again\n");
    }
    ExitCode::from(101)
}

/// Appends a line to the stall log, if `cargo xtask test` asked for one.
fn record(line: &str) {
    let Some(path) = std::env::var_os(STALL_LOG) else { return };
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{line}");
    }
}

/// `/proc/PID/stat` after the command name: state, ppid, pgrp, ... (fields 3 onwards).
fn stat_fields(path: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(path).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// The processes of process group `pgid`.
fn group(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(&format!("/proc/{pid}/stat"))
                .and_then(|f| f.get(2)?.parse::<u32>().ok())
                .is_some_and(|g| g == pgid)
        })
        .collect()
}

/// CPU clock ticks used by the group: user and system time of each process and of its
/// reaped children, so a child that ends moves its time into its parent's sum.
fn group_ticks(pgid: u32) -> u64 {
    group(pgid)
        .iter()
        .filter_map(|pid| stat_fields(&format!("/proc/{pid}/stat")))
        .map(|f| f.iter().skip(11).take(4).filter_map(|t| t.parse::<u64>().ok()).sum::<u64>())
        .sum()
}

/// One line per thread of the group: pid/tid, state, kernel wait channel, command line.
fn describe_group(pgid: u32) -> String {
    let mut out = String::new();
    for pid in group(pgid) {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline: Vec<String> = cmdline
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        out += &format!("  pid {pid}: {}\n", cmdline.join(" "));
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for tid in tasks.filter_map(|e| e.ok()?.file_name().into_string().ok()) {
            let base = format!("/proc/{pid}/task/{tid}");
            let state = stat_fields(&format!("{base}/stat"))
                .and_then(|f| f.first().cloned())
                .unwrap_or_default();
            let wchan = std::fs::read_to_string(format!("{base}/wchan")).unwrap_or_default();
            let syscall = std::fs::read_to_string(format!("{base}/syscall")).unwrap_or_default();
            let syscall = syscall.split_whitespace().next().unwrap_or("?");
            out += &format!("    tid {tid}: state {state}, wchan {wchan}, syscall {syscall}\n");
        }
    }
    out
}

fn kill_group(pgid: u32) {
    // `kill` takes a negative pid for the group; xtask has no libc dependency.
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{pgid}")]).status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stat_fields_after_the_command_name() {
        let me = std::process::id();
        let fields = stat_fields(&format!("/proc/{me}/stat")).expect("own stat");
        assert!(matches!(fields[0].as_str(), "R" | "S"), "state {}", fields[0]);
        let pgrp: u32 = fields[2].parse().expect("pgrp");
        assert!(group(pgrp).contains(&me));
    }

    #[test]
    fn a_busy_group_uses_cpu_and_a_sleeping_one_does_not() {
        let mut busy = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .expect("sh");
        let mut idle = Command::new("sleep").arg("30").process_group(0).spawn().expect("sleep");
        let first = (group_ticks(busy.id()), group_ticks(idle.id()));
        std::thread::sleep(Duration::from_millis(300));
        let second = (group_ticks(busy.id()), group_ticks(idle.id()));
        let description = describe_group(idle.id());
        kill_group(busy.id());
        kill_group(idle.id());
        let _ = (busy.wait(), idle.wait());
        assert!(second.0 > first.0, "busy group: {first:?} -> {second:?}");
        assert_eq!(second.1, first.1, "idle group");
        assert!(
            description.contains("sleep 30") && description.contains("state S"),
            "{description}"
        );
    }
}
