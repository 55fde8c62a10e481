//! `fib`: prints the Fibonacci number F(N).
//!
//! ```text
//! fib N             F(N) in decimal and a newline
//! fib --hex N       F(N) in lowercase hexadecimal
//! fib --digits N    only the number of decimal digits of F(N) (from log10 φ, at once)
//! fib --time N      also report compute and conversion times, the limb kernels and the
//!                   NTT engine on stderr
//! fib -j T N        use up to T threads (default: `available_parallelism()`; `-j 1`: one)
//! ```
//!
//! Bad arguments give a one-line message on stderr and status 2 (the crate's specification).
//! Runs longer than a second show progress on stderr. The output is written with one large
//! write. On Unix a closed pipe (`fib 10000000 | head -c 10`) ends `fib` silently by SIGPIPE
//! (status 141 in a shell), as it ends coreutils' tools: the specification says nothing of
//! it, and a pipeline's status then shows that the output was cut short.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The synopsis, also part of each usage error's message.
const USAGE: &str = "usage: fib [--hex | --digits] [--time] [-j THREADS] N";

/// `fib --help`.
const HELP: &str = "\
usage: fib [--hex | --digits] [--time] [-j THREADS] N
Print the Fibonacci number F(N) (F(0) = 0, F(1) = 1) in decimal and a newline.

  -x, --hex      print F(N) in lowercase hexadecimal instead
  -d, --digits   print only the number of decimal digits of F(N) (at once, any N
                   up to 2^64 - 1)
  -t, --time     also report the compute, conversion and write times, the limb
                   kernels and the NTT engine on standard error
  -j, --jobs=THREADS
                 use up to THREADS threads (default: the CPUs this process may
                   use, which follows cgroup quotas; 1: one thread)
  -h, --help     display this help and exit
  -V, --version  output version information and exit

N is a non-negative decimal integer. Runs longer than a second report progress on
standard error. NAB_MAX_ISA=x86-64-v2|x86-64-v3|x86-64-v4|portable caps the CPU
features used.

Exit status:
 0  if OK,
 1  if the output cannot be written,
 2  on a bad argument (not a number, negative, too large for memory, unknown option).
A write to a closed pipe ends fib by SIGPIPE.
";

/// Above this `N` the run is refused outright: F(10^11) alone is ~8.7 GB.
const HARD_MAX_N: u64 = 100_000_000_000;

/// What to print.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Decimal,
    Hex,
    Digits,
}

struct Args {
    format: Format,
    time: bool,
    /// `None`: `available_parallelism()`.
    threads: Option<usize>,
    n: u64,
}

/// A bad command line, as the one line `fib` prints.
#[derive(Debug)]
struct UsageError(String);

/// What the command line asks for.
enum Command {
    Run(Args),
    Help,
    Version,
}

fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, UsageError> {
    let mut format = Format::Decimal;
    let mut time = false;
    let mut n = None;
    let mut threads = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else {
            return Err(UsageError("argument is not valid UTF-8".into()));
        };
        let jobs = match arg {
            "-j" | "--jobs" => {
                Some(args.next().and_then(|a| a.into_string().ok()).unwrap_or_default())
            }
            _ => arg.strip_prefix("--jobs=").or_else(|| arg.strip_prefix("-j")).map(str::to_owned),
        };
        if let Some(j) = jobs {
            match j.parse::<usize>() {
                Ok(t) if t >= 1 => threads = Some(t),
                _ => {
                    return Err(UsageError(format!(
                        "-j needs a number of threads of at least 1, got '{j}' ({USAGE})"
                    )));
                }
            }
            continue;
        }
        match arg {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--hex" | "-x" => format = set_format(format, Format::Hex)?,
            "--digits" | "-d" => format = set_format(format, Format::Digits)?,
            "--time" | "-t" => time = true,
            _ if arg.starts_with('-') && !arg[1..].chars().all(|c| c.is_ascii_digit()) => {
                return Err(UsageError(format!("unknown option '{arg}' ({USAGE})")));
            }
            _ => {
                if n.is_some() {
                    return Err(UsageError(format!("more than one N ({USAGE})")));
                }
                n = Some(parse_n(arg)?);
            }
        }
    }
    let n = n.ok_or_else(|| UsageError(format!("missing N ({USAGE})")))?;
    // The digit count needs no memory: any N that fits a u64.
    if format != Format::Digits {
        check_memory(n)?;
    }
    Ok(Command::Run(Args { format, time, threads, n }))
}

fn set_format(old: Format, new: Format) -> Result<Format, UsageError> {
    if old != Format::Decimal && old != new {
        return Err(UsageError("--hex and --digits cannot be combined".into()));
    }
    Ok(new)
}

fn parse_n(s: &str) -> Result<u64, UsageError> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if let Some(rest) = s.strip_prefix('-')
        && !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_digit())
    {
        return Err(UsageError(format!("N must be non-negative, got '{s}'")));
    }
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(UsageError(format!("N must be a non-negative integer, got '{s}'")));
    }
    digits.parse().map_err(|_| UsageError(format!("N = {s} is too large (above 2^64 − 1)")))
}

/// Refuses an `N` whose run would not fit in memory: F(N) has 0.6943·N bits, the run needs a
/// few copies of it plus the 0.209·N-byte decimal string.
fn check_memory(n: u64) -> Result<(), UsageError> {
    // Eight copies of F(N) (bytes: 0.6943·N / 8 each) plus the text.
    let need = n as f64 * (0.6943 / 8.0 * 8.0 + 0.21);
    let too_large =
        || UsageError(format!("N = {n} is too large for memory (needs ~{:.1} GB)", need / 1e9));
    if n > HARD_MAX_N {
        return Err(too_large());
    }
    if let Some(avail) = mem_available()
        && need > avail as f64
    {
        return Err(too_large());
    }
    Ok(())
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The phases the progress reporter names.
const PHASE_COMPUTE: u8 = 0;
const PHASE_CONVERT: u8 = 1;
const PHASE_DONE: u8 = 2;

/// Reports progress on stderr once a run has lasted a second: on a terminal one line
/// rewritten every second, otherwise one line per phase.
struct Progress {
    phase: Arc<AtomicU8>,
    done: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(n: u64) -> Progress {
        let phase = Arc::new(AtomicU8::new(PHASE_COMPUTE));
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let (p, d) = (Arc::clone(&phase), Arc::clone(&done));
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let tty = std::io::stderr().is_terminal();
            let mut shown = None;
            let mut wrote = false;
            let (lock, cvar) = &*d;
            let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !*finished {
                let wait = cvar.wait_timeout(finished, Duration::from_secs(1));
                let (guard, _) = wait.unwrap_or_else(|e| e.into_inner());
                finished = guard;
                if *finished {
                    break;
                }
                let ph = p.load(Ordering::Relaxed);
                let what = match ph {
                    PHASE_COMPUTE => "computing",
                    PHASE_CONVERT => "converting to text",
                    _ => break,
                };
                let secs = start.elapsed().as_secs();
                let mut err = std::io::stderr().lock();
                if tty {
                    let _ = write!(err, "\rfib: F({n}): {what}... {secs} s   ");
                    wrote = true;
                } else if shown != Some(ph) {
                    let _ = writeln!(err, "fib: F({n}): {what}... ({secs} s so far)");
                    shown = Some(ph);
                }
            }
            if tty && wrote {
                let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
            }
        });
        Progress { phase, done, thread: Some(thread) }
    }

    fn set(&self, phase: u8) {
        self.phase.store(phase, Ordering::Relaxed);
    }

    fn finish(mut self) {
        self.set(PHASE_DONE);
        let (lock, cvar) = &*self.done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cvar.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Gives SIGPIPE back its default action, which Rust's runtime sets to "ignore" before `main`:
/// a write to a closed pipe then ends `fib` silently by the signal (status 141 in a shell),
/// as it ends coreutils' tools, instead of failing with EPIPE.
#[cfg(unix)]
fn default_sigpipe() {
    unsafe extern "C" {
        /// POSIX `signal`: `sighandler_t signal(int sig, sighandler_t handler)`, where
        /// `sighandler_t` is a function pointer (pointer-sized; `SIG_DFL` is 0).
        fn signal(sig: std::ffi::c_int, handler: usize) -> usize;
    }
    /// SIGPIPE's number on Linux (every architecture), the BSDs and macOS.
    const SIGPIPE: std::ffi::c_int = 13;
    /// `SIG_DFL`: the default action.
    const SIG_DFL: usize = 0;
    // SAFETY: `signal` is declared with its C signature (an int and a pointer-sized handler,
    // returning the old handler); setting a valid signal's disposition to `SIG_DFL` installs
    // no handler of ours, and no other thread runs yet.
    unsafe { signal(SIGPIPE, SIG_DFL) };
}

/// Elsewhere a closed pipe is a write error, which `fib` ignores (status 0).
#[cfg(not(unix))]
fn default_sigpipe() {}

/// Writes `text` to standard output (`--help`, `--version`).
fn print(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fib: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    if let Some(w) = nab_isa::cap_warning() {
        eprintln!("fib: warning: {w}");
    }
    let args = match parse_args(std::env::args_os().skip(1)) {
        Ok(Command::Run(a)) => a,
        Ok(Command::Help) => return print(HELP),
        Ok(Command::Version) => return print(&format!("fib {}\n", env!("CARGO_PKG_VERSION"))),
        Err(UsageError(msg)) => {
            eprintln!("fib: {msg}");
            return ExitCode::from(2);
        }
    };
    if args.format == Format::Digits {
        // From log10 φ: F(N) itself is computed only when that is too close to call.
        let t0 = Instant::now();
        let digits = bignum_fib::fib_digits(args.n);
        let elapsed = t0.elapsed();
        let written = writeln!(std::io::stdout().lock(), "{digits}");
        if let Err(e) = written
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            eprintln!("fib: cannot write the output: {e}");
            return ExitCode::FAILURE;
        }
        if args.time {
            eprintln!("fib: F({}): digit count {:.3} ms", args.n, ms(elapsed));
        }
        return ExitCode::SUCCESS;
    }
    let threads = args.threads.unwrap_or_else(default_threads);
    let progress = Progress::start(args.n);
    let (f, t_compute, out, t_convert) = bignum_fib::with_threads(threads, || {
        let t0 = Instant::now();
        let f = bignum_fib::fib(args.n);
        let t_compute = t0.elapsed();
        progress.set(PHASE_CONVERT);
        let t1 = Instant::now();
        let mut out = Vec::new();
        if args.format == Format::Hex {
            f.write_hex(&mut out);
        } else {
            f.write_decimal(&mut out);
        }
        out.push(b'\n');
        (f, t_compute, out, t1.elapsed())
    });
    progress.finish();
    drop(f);
    let t2 = Instant::now();
    let written = std::io::stdout().lock().write_all(&out).and_then(|()| std::io::stdout().flush());
    let t_write = t2.elapsed();
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        eprintln!("fib: cannot write the output: {e}");
        return ExitCode::FAILURE;
    }
    if args.time {
        let conv = if args.format == Format::Hex { "hex" } else { "decimal" };
        eprintln!(
            "fib: F({}): compute {:.3} ms, {conv} {:.3} ms, write {:.3} ms, total {:.3} ms \
             (limb kernels {}, NTT engine {}, {threads} thread{})",
            args.n,
            ms(t_compute),
            ms(t_convert),
            ms(t_write),
            ms(t_compute + t_convert + t_write),
            bignum_fib::Backend::detect().name(),
            bignum_fib::ntt_engine(),
            if threads == 1 { "" } else { "s" },
        );
    }
    ExitCode::SUCCESS
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The thread count without `-j`: `available_parallelism()` (which follows cgroup quotas),
/// for every N. Measured on an AMD Zen 5 (2 vCPUs, quiet, `fib --time -j 1/-j 2`): F(10^8)
/// 780 / 528 ms (1.48x), F(10^9) 15.6-15.8 / 11.0-11.1 s (1.43x), peak RSS 2.97 / 3.05 GB.
/// (An earlier rule kept one thread above N = 5·10^8 from a run with another job on the
/// second CPU, where F(10^9) took 0.88x: a loaded machine, not a property of the sizes.)
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
