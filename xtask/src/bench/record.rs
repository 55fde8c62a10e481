//! Bench results as data: one JSON-lines file per run (`target/bench-report/run.jsonl`) and one
//! per CPU in the repository (`benches/results/<slug>.jsonl`, written by `--record`).
//!
//! # Format (schema 1)
//!
//! One JSON object per line, each with a `"type"`:
//!
//! - the first line, `"machine"`: `schema`, `slug`, `arch`, `vendor`, `family`, `model`,
//!   `stepping`, `model_name`, `flags` (the whole `/proc/cpuinfo` flag list), `cores`,
//!   `kernel`, `glibc`, `rustc`;
//! - `"run"`: one per run whose rows the file still holds: `commit`, `date`, `options` (the
//!   command line's options, e.g. `--quick --crate b64`), `mode` (`full` or `quick`),
//!   `crates` (empty: all), `load` (`/proc/loadavg` when the run started);
//! - `"row"`: one per benchmark: `commit`, `date`, `run` (the options of the run that measured
//!   it), `section` (the bench process: `default`, `cap-x86-64-v3`, `build-native`...),
//!   `group`, `input` (criterion's parameter, or null), `impl` (the implementation: ours, a
//!   peer or a yardstick), `version` (the package's version, from `Cargo.lock` for peers),
//!   `median`, `ci_low`, `ci_high` (criterion's median and its 95 % confidence interval),
//!   `unit` (`ns`, time per iteration), `bytes` or `elements` per iteration (absent for plain
//!   time rows).
//!
//! A full run (`--record` without `--quick` or `--crate`) replaces a CPU's file; a partial run
//! replaces only the rows it measured (same section, group, input and implementation) and
//! keeps the others with their own commit and date, so a row that a later run did not
//! measure again is visible as stale: its commit is not the file's newest.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use super::entry::{Entry, Throughput};
use super::json::{self, Value};

pub const SCHEMA: u32 = 1;

/// The machine a record was measured on.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Machine {
    pub slug: String,
    pub arch: String,
    pub vendor: String,
    pub family: u32,
    pub model: u32,
    pub stepping: u32,
    pub model_name: String,
    pub flags: String,
    pub cores: u32,
    pub kernel: String,
    pub glibc: String,
    pub rustc: String,
}

/// One run whose rows a record holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub commit: String,
    pub date: String,
    pub options: String,
    pub quick: bool,
    pub crates: Vec<String>,
    pub load: String,
}

impl Run {
    /// A run that replaces a whole record: neither `--quick` nor `--crate`.
    pub fn is_full(&self) -> bool {
        !self.quick && self.crates.is_empty()
    }
}

/// One benchmark's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub commit: String,
    pub date: String,
    pub run: String,
    pub section: String,
    pub group: String,
    pub input: Option<String>,
    pub implementation: String,
    pub version: Option<String>,
    pub median_ns: f64,
    pub ci_low_ns: f64,
    pub ci_high_ns: f64,
    pub throughput: Throughput,
}

/// What identifies a row across runs and CPUs.
pub type Key = (String, String, Option<String>, String);

impl Row {
    pub fn key(&self) -> Key {
        (self.section.clone(), self.group.clone(), self.input.clone(), self.implementation.clone())
    }

    pub fn entry(&self) -> Entry {
        Entry {
            group: self.group.clone(),
            function: self.implementation.clone(),
            param: self.input.clone(),
            throughput: self.throughput,
            median_ns: self.median_ns,
            ci_low_ns: self.ci_low_ns,
            ci_high_ns: self.ci_high_ns,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub machine: Machine,
    pub runs: Vec<Run>,
    pub rows: Vec<Row>,
}

impl Record {
    /// The newest run's commit: rows measured at another commit are stale.
    pub fn newest_commit(&self) -> Option<&str> {
        self.runs.iter().max_by(|a, b| a.date.cmp(&b.date)).map(|r| r.commit.as_str())
    }

    pub fn is_stale(&self, row: &Row) -> bool {
        self.newest_commit().is_some_and(|c| c != row.commit)
    }

    /// The rows as the report's entries, by section (bench process).
    pub fn sections(&self) -> BTreeMap<String, Vec<Entry>> {
        let mut out: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
        for r in &self.rows {
            out.entry(r.section.clone()).or_default().push(r.entry());
        }
        out
    }

    #[cfg(test)]
    pub fn row(&self, key: &Key) -> Option<&Row> {
        self.rows.iter().find(|r| &r.key() == key)
    }
}

/// `old` with the rows of `new` in place of the ones they measure again. A full run replaces
/// `old` whole; a partial one keeps the rows it did not measure, with their own commit and
/// date. The machine is the newer one's; runs whose rows are all gone are dropped.
pub fn merge(old: Option<Record>, new: Record) -> Record {
    let Some(old) = old else { return new };
    if new.runs.iter().any(Run::is_full) {
        return new;
    }
    let measured: BTreeSet<Key> = new.rows.iter().map(Row::key).collect();
    let mut rows: Vec<Row> =
        old.rows.into_iter().filter(|r| !measured.contains(&r.key())).collect();
    rows.extend(new.rows);
    rows.sort_by_key(Row::key);
    let used: BTreeSet<(String, String)> =
        rows.iter().map(|r| (r.commit.clone(), r.run.clone())).collect();
    let mut runs: Vec<Run> = old
        .runs
        .into_iter()
        .chain(new.runs)
        .filter(|r| used.contains(&(r.commit.clone(), r.options.clone())))
        .collect();
    runs.sort_by(|a, b| a.date.cmp(&b.date));
    runs.dedup_by(|a, b| a.commit == b.commit && a.options == b.options && a.date == b.date);
    Record { machine: new.machine, runs, rows }
}

fn s(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn opt(v: &Option<String>) -> String {
    v.as_deref().map_or_else(|| "null".into(), s)
}

/// A number that reads back as the same `f64` (Rust prints the shortest such form).
fn num(v: f64) -> String {
    if v.is_finite() { format!("{v}") } else { "null".into() }
}

/// The record as JSON lines.
pub fn to_jsonl(r: &Record) -> String {
    let m = &r.machine;
    let mut out = format!(
        "{{\"type\":\"machine\",\"schema\":{SCHEMA},\"slug\":{},\"arch\":{},\"vendor\":{},\
         \"family\":{},\"model\":{},\"stepping\":{},\"model_name\":{},\"flags\":{},\"cores\":{},\
         \"kernel\":{},\"glibc\":{},\"rustc\":{}}}\n",
        s(&m.slug),
        s(&m.arch),
        s(&m.vendor),
        m.family,
        m.model,
        m.stepping,
        s(&m.model_name),
        s(&m.flags),
        m.cores,
        s(&m.kernel),
        s(&m.glibc),
        s(&m.rustc),
    );
    for run in &r.runs {
        let crates: Vec<String> = run.crates.iter().map(|c| s(c)).collect();
        let _ = writeln!(
            out,
            "{{\"type\":\"run\",\"commit\":{},\"date\":{},\"options\":{},\"mode\":{},\
             \"crates\":[{}],\"load\":{}}}",
            s(&run.commit),
            s(&run.date),
            s(&run.options),
            s(if run.quick { "quick" } else { "full" }),
            crates.join(","),
            s(&run.load),
        );
    }
    for row in &r.rows {
        let per = match row.throughput {
            Throughput::Bytes(b) => format!(",\"bytes\":{}", num(b)),
            Throughput::Elements(e) => format!(",\"elements\":{}", num(e)),
            Throughput::None => String::new(),
        };
        let _ = writeln!(
            out,
            "{{\"type\":\"row\",\"commit\":{},\"date\":{},\"run\":{},\"section\":{},\
             \"group\":{},\"input\":{},\"impl\":{},\"version\":{},\"median\":{},\"ci_low\":{},\
             \"ci_high\":{},\"unit\":\"ns\"{per}}}",
            s(&row.commit),
            s(&row.date),
            s(&row.run),
            s(&row.section),
            s(&row.group),
            opt(&row.input),
            s(&row.implementation),
            opt(&row.version),
            num(row.median_ns),
            num(row.ci_low_ns),
            num(row.ci_high_ns),
        );
    }
    out
}

/// Reads a record; `Err` names the line that could not be read.
pub fn from_jsonl(text: &str) -> Result<Record, String> {
    let mut rec = Record::default();
    let mut seen_machine = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", i + 1);
        let v = json::parse(line).map_err(at)?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let opt_text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let int = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0) as u32;
        let float = |k: &str| {
            v.get(k).and_then(Value::as_f64).ok_or_else(|| at(format!("no number `{k}`")))
        };
        match v.get("type").and_then(Value::as_str) {
            Some("machine") => {
                let schema = int("schema");
                if schema != SCHEMA {
                    return Err(at(format!("schema {schema}, this xtask reads {SCHEMA}")));
                }
                seen_machine = true;
                rec.machine = Machine {
                    slug: text("slug"),
                    arch: text("arch"),
                    vendor: text("vendor"),
                    family: int("family"),
                    model: int("model"),
                    stepping: int("stepping"),
                    model_name: text("model_name"),
                    flags: text("flags"),
                    cores: int("cores"),
                    kernel: text("kernel"),
                    glibc: text("glibc"),
                    rustc: text("rustc"),
                };
            }
            Some("run") => rec.runs.push(Run {
                commit: text("commit"),
                date: text("date"),
                options: text("options"),
                quick: text("mode") == "quick",
                crates: match v.get("crates") {
                    Some(Value::Array(a)) => {
                        a.iter().filter_map(Value::as_str).map(str::to_owned).collect()
                    }
                    _ => Vec::new(),
                },
                load: text("load"),
            }),
            Some("row") => {
                let throughput = match (v.get("bytes"), v.get("elements")) {
                    (Some(b), _) => Throughput::Bytes(b.as_f64().unwrap_or(0.0)),
                    (_, Some(e)) => Throughput::Elements(e.as_f64().unwrap_or(0.0)),
                    _ => Throughput::None,
                };
                let median_ns = float("median")?;
                rec.rows.push(Row {
                    commit: text("commit"),
                    date: text("date"),
                    run: text("run"),
                    section: text("section"),
                    group: text("group"),
                    input: opt_text("input"),
                    implementation: text("impl"),
                    version: opt_text("version"),
                    median_ns,
                    ci_low_ns: float("ci_low").unwrap_or(median_ns),
                    ci_high_ns: float("ci_high").unwrap_or(median_ns),
                    throughput,
                });
            }
            other => return Err(at(format!("unknown line type {other:?}"))),
        }
    }
    if !seen_machine {
        return Err("no `machine` line".into());
    }
    Ok(rec)
}

pub fn read(path: &Path) -> Result<Record, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    from_jsonl(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn write(path: &Path, r: &Record) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, to_jsonl(r)).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every record under `dir` (`benches/results/`), by slug.
pub fn read_all(dir: &Path) -> Result<BTreeMap<String, Record>, String> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return Ok(out) };
    let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.extension().is_some_and(|e| e == "jsonl") {
            let r = read(&p)?;
            out.insert(r.machine.slug.clone(), r);
        }
    }
    Ok(out)
}

/// The name of a CPU generation, from what `cpuid` says (never from the model name, which
/// under KVM often names no generation): Intel and AMD by family/model (and stepping or
/// flags where one model number covers two generations), arm64 by implementer/part. An
/// unknown CPU gets a slug of its raw numbers, so its records still do not mix with another's.
pub fn slug(vendor: &str, family: u32, model: u32, stepping: u32, flags: &str) -> String {
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    let name = match (vendor, family) {
        ("GenuineIntel", 6) => match model {
            // Skylake-SP is stepping 3-4, Cascade Lake 5-7, Cooper Lake 10-11 (Intel's
            // specification updates); flags break the tie where KVM hides the stepping.
            0x55 if stepping >= 10 || has("avx512_bf16") => Some("intel-cooperlake"),
            0x55 if (5..=7).contains(&stepping) || has("avx512_vnni") => Some("intel-cascadelake"),
            0x55 => Some("intel-skylakex"),
            0x3c | 0x3f | 0x45 | 0x46 => Some("intel-haswell"),
            0x3d | 0x47 | 0x4f | 0x56 => Some("intel-broadwell"),
            0x4e | 0x5e | 0x8e | 0x9e | 0xa5 | 0xa6 => Some("intel-skylake"),
            0x6a | 0x6c => Some("intel-icelakex"),
            0x7d | 0x7e => Some("intel-icelake"),
            0x8c | 0x8d => Some("intel-tigerlake"),
            0x8f => Some("intel-sapphirerapids"),
            0xcf => Some("intel-emeraldrapids"),
            0xad | 0xae => Some("intel-graniterapids"),
            0x97 | 0x9a => Some("intel-alderlake"),
            0xb7 | 0xba | 0xbf => Some("intel-raptorlake"),
            _ => None,
        },
        ("AuthenticAMD" | "HygonGenuine", 0x17) => match model {
            0x00..=0x2f => Some("amd-zen1"),
            0x30..=0xaf => Some("amd-zen2"),
            _ => None,
        },
        ("AuthenticAMD", 0x19) => match model {
            0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf => Some("amd-zen4"),
            0x00..=0x0f | 0x20..=0x5f => Some("amd-zen3"),
            _ => None,
        },
        ("AuthenticAMD", 0x1a) => match model {
            0x00..=0x7f => Some("amd-zen5"),
            _ => None,
        },
        _ => None,
    };
    if let Some(n) = name {
        return n.into();
    }
    let v = match vendor {
        "GenuineIntel" => "intel",
        "AuthenticAMD" => "amd",
        "" => "unknown",
        v => v,
    };
    let v: String = v.chars().map(|c| c.to_ascii_lowercase()).collect();
    format!("{v}-f{family:x}-m{model:x}-s{stepping}")
}

/// The slug of an arm64 CPU from `/proc/cpuinfo`'s `CPU implementer` and `CPU part`.
pub fn arm_slug(implementer: u32, part: u32) -> String {
    let name = match (implementer, part) {
        (0x41, 0xd0c) => Some("arm-neoverse-n1"),
        (0x41, 0xd40) => Some("arm-neoverse-v1"),
        (0x41, 0xd49) => Some("arm-neoverse-n2"),
        (0x41, 0xd4f) => Some("arm-neoverse-v2"),
        (0x41, 0xd0b) => Some("arm-cortex-a76"),
        (0x41, 0xd05) => Some("arm-cortex-a55"),
        (0xc0, 0xac3) => Some("ampere-one"),
        _ => None,
    };
    name.map_or_else(|| format!("arm64-i{implementer:x}-p{part:x}"), str::to_owned)
}

/// The machine as `/proc/cpuinfo` and the system describe it.
pub fn this_machine() -> Machine {
    use crate::util::output;
    use std::process::Command;
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default()
    };
    let number = |name: &str| {
        let v = field(name);
        match v.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16).unwrap_or(0),
            None => v.parse().unwrap_or(0),
        }
    };
    let arch = std::env::consts::ARCH.to_owned();
    let flags = if arch == "aarch64" { field("Features") } else { field("flags") };
    let (vendor, family, model, stepping) = if arch == "aarch64" {
        (field("CPU implementer"), 8, number("CPU part"), number("CPU variant"))
    } else {
        (field("vendor_id"), number("cpu family"), number("model"), number("stepping"))
    };
    let slug = if arch == "aarch64" {
        arm_slug(number("CPU implementer"), number("CPU part"))
    } else {
        slug(&vendor, family, model, stepping, &flags)
    };
    let first = |cmd: &mut Command| {
        output(cmd).and_then(|o| o.lines().next().map(|l| l.trim().to_owned())).unwrap_or_default()
    };
    Machine {
        slug,
        arch,
        vendor,
        family,
        model,
        stepping,
        model_name: field("model name"),
        flags,
        cores: std::thread::available_parallelism().map_or(0, |n| n.get() as u32),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
            .to_owned(),
        glibc: first(Command::new("ldd").arg("--version")),
        rustc: first(Command::new("rustc").arg("-V")),
    }
}

/// A row that moved between two records: their confidence intervals do not overlap.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    pub key: Key,
    pub a: f64,
    pub b: f64,
}

/// The rows present in both records whose medians' confidence intervals do not overlap,
/// largest move first; and the keys present in only one of them.
pub fn diff(a: &Record, b: &Record) -> (Vec<Moved>, Vec<Key>, Vec<Key>) {
    let bs: BTreeMap<Key, &Row> = b.rows.iter().map(|r| (r.key(), r)).collect();
    let a_keys: BTreeSet<Key> = a.rows.iter().map(Row::key).collect();
    let mut moved = Vec::new();
    let mut only_a = Vec::new();
    for ra in &a.rows {
        let Some(rb) = bs.get(&ra.key()) else {
            only_a.push(ra.key());
            continue;
        };
        if rb.ci_low_ns > ra.ci_high_ns || rb.ci_high_ns < ra.ci_low_ns {
            moved.push(Moved { key: ra.key(), a: ra.median_ns, b: rb.median_ns });
        }
    }
    let only_b = bs.keys().filter(|k| !a_keys.contains(*k)).cloned().collect();
    moved.sort_by(|x, y| {
        let m = |m: &Moved| (m.b / m.a).ln().abs();
        m(y).partial_cmp(&m(x)).unwrap_or(std::cmp::Ordering::Equal)
    });
    (moved, only_a, only_b)
}

/// `diff` as text: one line per moved row (time per iteration in A and B, B's change).
pub fn diff_text(a: &Record, b: &Record, a_name: &str, b_name: &str) -> String {
    let (moved, only_a, only_b) = diff(a, b);
    let mut out = format!(
        "A = {a_name} ({}, {} rows), B = {b_name} ({}, {} rows)\n{} rows moved beyond their \
         confidence intervals (time per iteration; + is slower in B):\n",
        a.machine.slug,
        a.rows.len(),
        b.machine.slug,
        b.rows.len(),
        moved.len()
    );
    for m in &moved {
        let (section, group, input, imp) = &m.key;
        let _ = writeln!(
            out,
            "{:>+8.1}%  {section:<20} {group} / {imp} / {}  {:.1} ns -> {:.1} ns",
            (m.b / m.a - 1.0) * 100.0,
            input.as_deref().unwrap_or("-"),
            m.a,
            m.b
        );
    }
    let _ = writeln!(out, "{} rows only in A, {} only in B", only_a.len(), only_b.len());
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn row(section: &str, group: &str, input: &str, imp: &str, ns: f64) -> Row {
        Row {
            commit: "c1".into(),
            date: "2026-11-28T18:00Z".into(),
            run: "--quick".into(),
            section: section.into(),
            group: group.into(),
            input: Some(input.into()),
            implementation: imp.into(),
            version: None,
            median_ns: ns,
            ci_low_ns: ns * 0.99,
            ci_high_ns: ns * 1.01,
            throughput: Throughput::Bytes(64.0),
        }
    }

    pub(crate) fn run(commit: &str, date: &str, options: &str) -> Run {
        Run {
            commit: commit.into(),
            date: date.into(),
            options: options.into(),
            quick: options.contains("--quick"),
            crates: options
                .split("--crate ")
                .skip(1)
                .map(|c| c.split_whitespace().next().unwrap_or("").into())
                .collect(),
            load: "0.10 0.20 0.30 1/100 1".into(),
        }
    }

    #[test]
    fn round_trip() {
        let mut r = row("cap-x86-64-v3", "b64/encode", "16", "b64", 12.345678901234);
        r.version = Some("0.1.0".into());
        let mut odd = row("default", "nabhash/hash \"quoted\"\\", "x", "peer\tname", 1e-3);
        odd.input = None;
        odd.throughput = Throughput::None;
        let mut el = row("default", "nabhash/map", "1000", "foldhash-quality", 4.5e6);
        el.throughput = Throughput::Elements(1000.0);
        let rec = Record {
            machine: Machine {
                slug: "amd-zen5".into(),
                arch: "x86_64".into(),
                vendor: "AuthenticAMD".into(),
                family: 26,
                model: 2,
                stepping: 1,
                model_name: "AMD EPYC".into(),
                flags: "fpu sse2 avx512f".into(),
                cores: 2,
                kernel: "6.1.0".into(),
                glibc: "ldd (Debian GLIBC 2.36-9) 2.36".into(),
                rustc: "rustc 1.95.0".into(),
            },
            runs: vec![run("c1", "2026-11-28T18:00Z", "--quick")],
            rows: vec![r, odd, el],
        };
        let text = to_jsonl(&rec);
        assert_eq!(text.lines().count(), 5);
        assert_eq!(from_jsonl(&text).unwrap(), rec);
    }

    #[test]
    fn refuses_other_schemas_and_garbage() {
        assert!(from_jsonl("{\"type\":\"machine\",\"schema\":2}").is_err());
        assert!(from_jsonl("{\"type\":\"row\",\"median\":1}").unwrap_err().contains("machine"));
        let e = from_jsonl("{\"type\":\"machine\",\"schema\":1}\n{\"type\":\"row\"}").unwrap_err();
        assert!(e.contains("line 2") && e.contains("median"), "{e}");
    }

    #[test]
    fn slugs() {
        let intel = |m, s, f| slug("GenuineIntel", 6, m, s, f);
        // The Cascade Lake of the records issue: 6/85/7, KVM's model name names no generation.
        assert_eq!(intel(85, 7, "avx512f avx512_vnni"), "intel-cascadelake");
        assert_eq!(intel(85, 5, "avx512f"), "intel-cascadelake");
        assert_eq!(intel(85, 4, "avx512f"), "intel-skylakex");
        assert_eq!(intel(85, 3, "avx512f"), "intel-skylakex");
        // Stepping hidden (0) but the flags tell.
        assert_eq!(intel(85, 0, "avx512f avx512_vnni"), "intel-cascadelake");
        assert_eq!(intel(85, 11, "avx512f avx512_vnni avx512_bf16"), "intel-cooperlake");
        assert_eq!(intel(0x6a, 6, ""), "intel-icelakex");
        assert_eq!(intel(0x8f, 8, ""), "intel-sapphirerapids");
        assert_eq!(intel(0x3f, 2, ""), "intel-haswell");
        let amd = |f, m| slug("AuthenticAMD", f, m, 1, "");
        assert_eq!(amd(0x19, 0x11), "amd-zen4");
        assert_eq!(amd(0x19, 0x61), "amd-zen4");
        assert_eq!(amd(0x19, 0x01), "amd-zen3");
        assert_eq!(amd(0x19, 0x21), "amd-zen3");
        assert_eq!(amd(0x17, 0x31), "amd-zen2");
        assert_eq!(amd(0x17, 0x01), "amd-zen1");
        // This project's machine of 2026-11-28: family 26 (0x1a) model 2, EPYC 9005.
        assert_eq!(amd(26, 2), "amd-zen5");
        assert_eq!(slug("GenuineIntel", 6, 0x99, 1, ""), "intel-f6-m99-s1");
        assert_eq!(slug("", 0, 0, 0, ""), "unknown-f0-m0-s0");
        assert_eq!(arm_slug(0x41, 0xd0c), "arm-neoverse-n1");
        assert_eq!(arm_slug(0x61, 0x22), "arm64-i61-p22");
    }

    fn rec(slug: &str, runs: Vec<Run>, rows: Vec<Row>) -> Record {
        Record { machine: Machine { slug: slug.into(), ..Machine::default() }, runs, rows }
    }

    #[test]
    fn partial_runs_replace_only_their_rows() {
        let old = rec(
            "amd-zen5",
            vec![run("c1", "2026-11-01T00:00Z", "")],
            vec![
                Row { run: "".into(), ..row("default", "b64/encode", "16", "b64", 10.0) },
                Row { run: "".into(), ..row("default", "memops/copy", "16", "memops", 5.0) },
            ],
        );
        let mut b64 = row("default", "b64/encode", "16", "b64", 8.0);
        b64.commit = "c2".into();
        b64.run = "--crate b64".into();
        let new = rec("amd-zen5", vec![run("c2", "2026-11-28T00:00Z", "--crate b64")], vec![b64]);
        let m = merge(Some(old.clone()), new);
        assert_eq!(m.rows.len(), 2);
        let key = |g: &str, i: &str| {
            ("default".to_string(), g.to_string(), Some("16".to_string()), i.to_string())
        };
        assert_eq!(m.row(&key("b64/encode", "b64")).unwrap().median_ns, 8.0);
        let memops = m.row(&key("memops/copy", "memops")).unwrap();
        assert_eq!((memops.median_ns, memops.commit.as_str()), (5.0, "c1"));
        // The memops row was not measured again: it is stale, the b64 row is not.
        assert!(m.is_stale(memops));
        assert!(!m.is_stale(m.row(&key("b64/encode", "b64")).unwrap()));
        assert_eq!(m.runs.len(), 2);
        // A full run replaces the record, stale rows and all.
        let full = rec(
            "amd-zen5",
            vec![run("c3", "2026-11-29T00:00Z", "")],
            vec![Row { run: "".into(), ..row("default", "b64/encode", "16", "b64", 7.0) }],
        );
        let m = merge(Some(m), full.clone());
        assert_eq!(m, full);
    }

    #[test]
    fn diff_names_rows_beyond_their_intervals() {
        let a = rec(
            "amd-zen5",
            vec![],
            vec![
                row("default", "g", "1", "x", 100.0),
                row("default", "g", "2", "x", 100.0),
                row("default", "g", "3", "x", 100.0),
            ],
        );
        let b = rec(
            "amd-zen5",
            vec![],
            vec![
                // Within the intervals (99-101 against 99.5-101.5): not moved.
                row("default", "g", "1", "x", 100.5),
                row("default", "g", "2", "x", 120.0),
                row("default", "g", "4", "x", 1.0),
            ],
        );
        let (moved, only_a, only_b) = diff(&a, &b);
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].key.2.as_deref(), Some("2"));
        assert_eq!((only_a.len(), only_b.len()), (1, 1));
        assert!(diff_text(&a, &b, "a", "b").contains("+20.0%"));
    }
}
