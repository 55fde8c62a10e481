//! Per-operation overhead of the rows of benches/benches/kcapi.rs, ours against libkcapi,
//! measured in ways that TCG's slow emulated crypto does not blur: the syscalls of one
//! operation and the bytes they move (counted by `strace -f` around a marked loop), and CPU
//! time per operation (`getrusage`, user + system, over many operations; the median of
//! alternating runs of ours and libkcapi, with the spread).
//!
//! `cargo xtask vm-test --overhead` builds this with `--cfg kcapi_bench_libkcapi` (libkcapi
//! from Debian's `libkcapi-dev`, linked statically) and runs `overhead table` in the VM, which
//! prints a Markdown table between `XTASK-OVERHEAD-TABLE` markers; xtask writes it to
//! `target/vm/kcapi-overhead.md` and `cargo xtask bench` puts it in the report's kcapi
//! section. Without the cfg, only our rows run.
//!
//! Bytes are counted by syscall: what `send`/`sendmsg` take (algif_skcipher and algif_aead
//! copy it into their own pages; algif_hash pins the caller's pages instead), what `vmsplice`
//! takes (pinned, never copied) and what `read`/`recvmsg` return (copied out).

use std::io::Write;
use std::process::Command;

const MARK_BEGIN: &str = "XTASK-OVERHEAD-BEGIN";
const MARK_END: &str = "XTASK-OVERHEAD-END";
const TABLE: &str = "XTASK-OVERHEAD-TABLE";

/// The sizes of the bench rows.
const SIZES: [usize; 3] = [16, 65_536, 1 << 20];

#[cfg(kcapi_bench_libkcapi)]
#[path = "common/libkcapi.rs"]
mod libkcapi;

/// The implementations of a row: ours (automatic path, or `sendmsg` copies only) and
/// libkcapi's (heuristic access, or sendmsg only).
const IMPLS: [&str; 4] = ["kcapi", "kcapi-sendmsg", "libkcapi", "libkcapi-sendmsg"];
const ALGS: [&str; 4] = ["sha256", "cbc-aes128", "gcm-aes128", "ecb-cipher_null"];

/// One operation of `alg` by `imp` on `size` bytes, ready to repeat; `None` for a combination
/// the bench has no row for (or libkcapi when not linked).
fn operation(alg: &str, imp: &str, size: usize) -> Option<Box<dyn FnMut()>> {
    let data: Vec<u8> = (0..size).map(|i| (i * 7 + 3) as u8).collect();
    let iv = [9u8; 16];
    let ours = !imp.starts_with("lib");
    let copy = imp.ends_with("sendmsg");
    if ours {
        return Some(match alg {
            "sha256" => {
                let mut h = kcapi::Hash::new("sha256").expect("sha256");
                let mut out = [0u8; 32];
                Box::new(move || {
                    if copy { h.update_copy(&data) } else { h.update(&data) }.unwrap();
                    h.finalize_into(&mut out).unwrap();
                })
            }
            "cbc-aes128" | "ecb-cipher_null" => {
                let (name, key, iv_len) = if alg == "cbc-aes128" {
                    ("cbc(aes)", &[7u8; 16][..], 16)
                } else {
                    ("ecb(cipher_null)", &[][..], 0)
                };
                let mut c = kcapi::Skcipher::new(name, key).expect(name);
                let mut out = vec![0u8; size];
                Box::new(move || {
                    let iv = &iv[..iv_len];
                    if copy {
                        c.encrypt_copy(iv, &data, &mut out)
                    } else {
                        c.encrypt(iv, &data, &mut out)
                    }
                    .unwrap();
                })
            }
            "gcm-aes128" if !copy => {
                let mut a = kcapi::Aead::new("gcm(aes)", &[7; 16], 16).expect("gcm(aes)");
                if size + 16 > a.max_message_len() {
                    return None;
                }
                let mut out = vec![0u8; size + 16];
                Box::new(move || a.seal_into(&iv[..12], b"", &data, &mut out).unwrap())
            }
            _ => return None,
        });
    }
    library(alg, copy, size, data, iv)
}

#[cfg(kcapi_bench_libkcapi)]
fn library(
    alg: &str,
    copy: bool,
    size: usize,
    data: Vec<u8>,
    iv: [u8; 16],
) -> Option<Box<dyn FnMut()>> {
    let access = if copy { libkcapi::ACCESS_SENDMSG } else { libkcapi::ACCESS_HEURISTIC };
    Some(match alg {
        "sha256" if !copy => {
            let mut h = libkcapi::Handle::md(c"sha256");
            let mut out = [0u8; 32];
            Box::new(move || h.digest(&data, &mut out))
        }
        "cbc-aes128" | "ecb-cipher_null" => {
            let (name, key, iv_len) = if alg == "cbc-aes128" {
                (c"cbc(aes)", &[7u8; 16][..], 16)
            } else {
                (c"ecb(cipher_null)", &[][..], 0)
            };
            let mut h = libkcapi::Handle::cipher(name, key);
            let mut out = vec![0u8; size];
            Box::new(move || h.encrypt(&data, &iv[..iv_len.max(1)], &mut out, access))
        }
        "gcm-aes128" if !copy => {
            // Only the sizes ours can take (the message must fit the socket buffer).
            kcapi::Aead::new("gcm(aes)", &[7; 16], 16)
                .ok()
                .filter(|a| size + 16 <= a.max_message_len())?;
            let mut h = libkcapi::Handle::aead(c"gcm(aes)", &[7; 16], 16);
            let mut out = vec![0u8; size + 16];
            Box::new(move || h.seal(&data, &iv[..12], &mut out))
        }
        _ => return None,
    })
}

#[cfg(not(kcapi_bench_libkcapi))]
fn library(_: &str, _: bool, _: usize, _: Vec<u8>, _: [u8; 16]) -> Option<Box<dyn FnMut()>> {
    None
}

/// Operations per strace count and per timing run: more for small inputs (TCG runs the
/// kernel's AES at some 10-40 MB/s, so 1 MiB takes tens of milliseconds).
fn reps(size: usize, timing: bool) -> usize {
    match (size, timing) {
        (s, false) if s >= 1 << 20 => 4,
        (_, false) => 8,
        (s, true) if s >= 1 << 20 => 6,
        (s, true) if s >= 65_536 => 40,
        (_, true) => 2000,
    }
}

/// `run ALG IMPL SIZE`: the marked loop that strace watches.
fn run(alg: &str, imp: &str, size: usize) {
    let mut op = operation(alg, imp, size).expect("a row of the table");
    op(); // Warm: lazy setup (the pipe, libkcapi's accept) is not per operation.
    let mut err = std::io::stderr().lock();
    // One write(2) each (stderr is unbuffered): the markers in the trace.
    err.write_all(format!("{MARK_BEGIN}\n").as_bytes()).unwrap();
    for _ in 0..reps(size, false) {
        op();
    }
    err.write_all(format!("{MARK_END}\n").as_bytes()).unwrap();
}

/// Per operation: syscalls, bytes into send/sendmsg, into vmsplice, out of read/recvmsg.
#[derive(Default, Clone, Copy)]
struct Counts {
    syscalls: f64,
    sent: f64,
    vmspliced: f64,
    read: f64,
}

/// Counts the syscalls between the markers of an `strace -f` log.
fn parse_trace(trace: &str, ops: usize) -> Option<Counts> {
    let mut c = Counts::default();
    let mut inside = false;
    let mut seen_end = false;
    for line in trace.lines() {
        // `-f` prefixes a pid; `<... resumed>` and signal lines are not new syscalls.
        let line = line.trim_start_matches(|ch: char| ch.is_ascii_digit()).trim_start();
        if line.contains(MARK_BEGIN) {
            inside = true;
            continue;
        }
        if line.contains(MARK_END) {
            seen_end = true;
            break;
        }
        if !inside || line.starts_with('<') || line.starts_with("+++") || line.starts_with("---") {
            continue;
        }
        let Some(name) = line.split('(').next() else { continue };
        c.syscalls += 1.0;
        let result: f64 = line
            .rsplit(" = ")
            .next()
            .and_then(|r| r.split_whitespace().next())
            .and_then(|r| r.parse::<i64>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(0) as f64;
        match name {
            "send" | "sendto" | "sendmsg" | "write" => c.sent += result,
            "vmsplice" => c.vmspliced += result,
            "read" | "recvfrom" | "recvmsg" | "readv" => c.read += result,
            _ => {}
        }
    }
    if !seen_end {
        return None;
    }
    let n = ops as f64;
    Some(Counts {
        syscalls: c.syscalls / n,
        sent: c.sent / n,
        vmspliced: c.vmspliced / n,
        read: c.read / n,
    })
}

fn strace_counts(alg: &str, imp: &str, size: usize) -> Result<Counts, String> {
    let trace = format!("/tmp/overhead-{alg}-{imp}-{size}.trace");
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let status = Command::new("strace")
        .args(["-f", "-qq", "-o", &trace])
        .arg(&exe)
        .args(["run", alg, imp, &size.to_string()])
        .status()
        .map_err(|e| format!("cannot run strace: {e}"))?;
    if !status.success() {
        return Err(format!("strace {alg} {imp} {size}: {status}"));
    }
    let text = std::fs::read_to_string(&trace).map_err(|e| format!("{trace}: {e}"))?;
    let _ = std::fs::remove_file(&trace);
    parse_trace(&text, reps(size, false)).ok_or_else(|| format!("{trace}: no end marker"))
}

/// User + system CPU time of this process so far, in microseconds.
fn cpu_micros() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let us = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1e6 + t.tv_usec() as f64;
    us(u.user_time()) + us(u.system_time())
}

/// CPU µs per operation of each op, over `rounds` alternating runs: (median, min, max).
fn alternate(ops: &mut [Box<dyn FnMut()>], size: usize, rounds: usize) -> Vec<(f64, f64, f64)> {
    let n = reps(size, true);
    let mut samples = vec![Vec::new(); ops.len()];
    for op in ops.iter_mut() {
        op();
    }
    for _ in 0..rounds {
        for (op, s) in ops.iter_mut().zip(&mut samples) {
            let t0 = cpu_micros();
            for _ in 0..n {
                op();
            }
            s.push((cpu_micros() - t0) / n as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            (s[s.len() / 2], s[0], s[s.len() - 1])
        })
        .collect()
}

/// `table`: every row, strace counts and alternating CPU times, as Markdown.
fn table() -> Result<(), String> {
    kcapi::available().map_err(|e| format!("no AF_ALG: {e}"))?;
    let rounds = 5;
    let mut out = String::new();
    out += "| row | size | impl | syscalls/op | B/op into send/sendmsg | B/op into vmsplice | B/op out of read/recvmsg | CPU µs/op, median (min–max) | CPU libkcapi/ours |\n";
    out += "|---|---:|---|---:|---:|---:|---:|---:|---:|\n";
    for alg in ALGS {
        for size in SIZES {
            // Pairs that do the same thing: ours and libkcapi, automatic and sendmsg-only.
            for pair in [["kcapi", "libkcapi"], ["kcapi-sendmsg", "libkcapi-sendmsg"]] {
                let mut names = Vec::new();
                let mut ops = Vec::new();
                for imp in pair {
                    if let Some(op) = operation(alg, imp, size) {
                        names.push(imp);
                        ops.push(op);
                    }
                }
                if names.is_empty() {
                    continue;
                }
                let times = alternate(&mut ops, size, rounds);
                drop(ops);
                let ours_time = times[0].0;
                for (imp, (median, lo, hi)) in names.iter().zip(&times) {
                    let c = strace_counts(alg, imp, size)?;
                    let ratio = if imp.starts_with("lib") {
                        format!("{:.2}x", median / ours_time)
                    } else {
                        String::new()
                    };
                    out += &format!(
                        "| {alg} | {size} | {imp} | {:.1} | {:.0} | {:.0} | {:.0} | {median:.1} ({lo:.1}–{hi:.1}) | {ratio} |\n",
                        c.syscalls, c.sent, c.vmspliced, c.read
                    );
                }
            }
        }
    }
    let mut so = std::io::stdout().lock();
    let _ = writeln!(so, "{TABLE}-BEGIN\n{out}{TABLE}-END");
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["run", alg, imp, size] => match size.parse() {
            Ok(size) => {
                run(alg, imp, size);
                Ok(())
            }
            Err(e) => Err(format!("size `{size}`: {e}")),
        },
        ["table"] => table(),
        _ => Err(format!(
            "usage: overhead table | overhead run ALG IMPL SIZE (ALG: {ALGS:?}, IMPL: {IMPLS:?})"
        )),
    };
    if let Err(e) = result {
        eprintln!("overhead: {e}");
        std::process::exit(1);
    }
}
