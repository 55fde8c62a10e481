//! The comparison report: reads criterion's estimates of this run from `<target>/criterion`
//! and writes `target/bench-report/index.md`, `index.html` and one SVG plot per table.
//!
//! Every number in the report comes from files criterion wrote during this run (older
//! estimates are skipped by modification time), so nothing is typed in by hand.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::entry::{Entry, Throughput};
use super::json::{self, Value};
use super::plan::{self, Kind};
use super::record::Record;

/// Reads every `new/benchmark.json` + `new/estimates.json` pair under `dir` written at or after
/// `since`.
pub fn collect(dir: &Path, since: SystemTime) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "new") {
                    if let Some(entry) = read_entry(&p, since)? {
                        out.push(entry);
                    }
                } else {
                    stack.push(p);
                }
            }
        }
    }
    out.sort_by(|a, b| (&a.group, &a.function).cmp(&(&b.group, &b.function)));
    Ok(out)
}

fn read_entry(new: &Path, since: SystemTime) -> Result<Option<Entry>, String> {
    let (bench, est) = (new.join("benchmark.json"), new.join("estimates.json"));
    let fresh = std::fs::metadata(&est).and_then(|m| m.modified()).is_ok_and(|t| t >= since);
    if !fresh || !bench.exists() {
        return Ok(None);
    }
    let read = |p: &PathBuf| -> Result<Value, String> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        json::parse(&text).map_err(|e| format!("{}: {e}", p.display()))
    };
    let (b, e) = (read(&bench)?, read(&est)?);
    let text = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_owned);
    let group = text("group_id").ok_or_else(|| format!("{}: no group_id", bench.display()))?;
    let function = text("function_id").unwrap_or_else(|| group.clone());
    let param = text("value_str");
    let throughput = match b.get("throughput") {
        Some(t) => match (t.get("Bytes"), t.get("BytesDecimal"), t.get("Elements")) {
            (Some(n), _, _) | (_, Some(n), _) => Throughput::Bytes(n.as_f64().unwrap_or(0.0)),
            (_, _, Some(n)) => Throughput::Elements(n.as_f64().unwrap_or(0.0)),
            _ => Throughput::None,
        },
        None => Throughput::None,
    };
    let median_ns = e
        .at(&["median", "point_estimate"])
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("{}: no median.point_estimate", new.display()))?;
    let bound = |k: &str| {
        e.at(&["median", "confidence_interval", k]).and_then(Value::as_f64).unwrap_or(median_ns)
    };
    let (ci_low_ns, ci_high_ns) = (bound("lower_bound"), bound("upper_bound"));
    Ok(Some(Entry { group, function, param, throughput, median_ns, ci_low_ns, ci_high_ns }))
}

/// Facts about the machine and toolchain, printed at the top of the report.
pub struct Machine {
    pub lines: Vec<(String, String)>,
}

/// What the report needs besides the entries.
pub struct Context {
    pub machine: Machine,
    /// Per process (`default`, `cap-x86-64-v3`, `build-native`...): what the `backends` probe
    /// printed under that process's build and caps (`crate -> backend`,
    /// `glibc.<function> -> variant`).
    pub probes: BTreeMap<String, BTreeMap<String, String>>,
    /// The command that produced the numbers.
    pub command: String,
    /// `(crate, why)` for the selected benches that measured nothing on this machine.
    pub skipped: Vec<(String, String)>,
    /// `Cargo.lock`, for the peers' versions.
    pub lock: String,
    /// Bench processes that failed (their tables are incomplete).
    pub failed: Vec<String>,
    /// The live CPU's slug and every recorded CPU's results (`benches/results/`), the live
    /// CPU's with this run's rows in place: the "Across CPUs" section joins them.
    pub live_slug: String,
    pub cpus: Vec<Record>,
    /// The "Modelled CPUs" section of `cargo xtask mca` (Markdown), when it has run.
    pub modelled: Option<String>,
}

impl Context {
    /// A context with nothing but entries to read (the records of other CPUs).
    fn bare() -> Context {
        Context {
            machine: Machine { lines: Vec::new() },
            probes: BTreeMap::new(),
            command: String::new(),
            skipped: Vec::new(),
            lock: String::new(),
            failed: Vec::new(),
            live_slug: String::new(),
            cpus: Vec::new(),
            modelled: None,
        }
    }
}

/// One CPU's ratio (ours / best peer) for a row, and where its figure comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuRatio {
    pub ratio: f64,
    pub peer: String,
    pub commit: String,
    pub date: String,
    /// Measured at an older commit than the record's newest run.
    pub stale: bool,
}

/// `(section, table, ours, size)`: a row of the report, the same on every CPU.
pub type RowKey = (String, String, String, String);

/// Every row's ratio in one CPU's record.
fn cpu_ratios(rec: &Record) -> BTreeMap<RowKey, CpuRatio> {
    let runs = rec.sections();
    let cx = Context::bare();
    let mut out = BTreeMap::new();
    for s in sections(&runs, &cx) {
        // The bench processes that feed the section, where each row's commit is found.
        let processes = if s.name == "default" {
            vec!["default".to_string()]
        } else {
            vec![format!("cap-{}", s.name), format!("build-{}", s.name), "default".into()]
        };
        let find = |function: &str, param: &str| {
            let base = function.strip_suffix(" (shared)").unwrap_or(function);
            let base = base.strip_suffix(" (default build)").unwrap_or(base);
            processes.iter().find_map(|proc| {
                rec.rows.iter().find(|r| {
                    &r.section == proc
                        && r.implementation == base
                        && r.input.as_deref().unwrap_or("-") == param
                })
            })
        };
        for t in tables(&s.entries) {
            for o in &t.headline {
                for p in &t.params {
                    let Some((ratio, peer)) = t.ratio(o, p) else { continue };
                    let (Some(a), b) = (find(o, p), find(peer, p)) else { continue };
                    let stale = rec.is_stale(a) || b.is_some_and(|b| rec.is_stale(b));
                    out.insert(
                        (s.name.clone(), t.group.clone(), o.clone(), p.clone()),
                        CpuRatio {
                            ratio,
                            peer: peer.to_owned(),
                            commit: a.commit.clone(),
                            date: a.date.clone(),
                            stale,
                        },
                    );
                }
            }
        }
    }
    out
}

/// The rows where ours loses (ratio below 1) on at least one of `cpus`, with every CPU's
/// ratio (None where that CPU has no such row), the worst first.
pub fn across(cpus: &[Record]) -> Vec<(RowKey, Vec<Option<CpuRatio>>)> {
    let per_cpu: Vec<BTreeMap<RowKey, CpuRatio>> = cpus.iter().map(cpu_ratios).collect();
    let keys: BTreeSet<&RowKey> = per_cpu.iter().flat_map(|m| m.keys()).collect();
    let mut out: Vec<(RowKey, Vec<Option<CpuRatio>>)> = keys
        .into_iter()
        .map(|k| (k.clone(), per_cpu.iter().map(|m| m.get(k).cloned()).collect::<Vec<_>>()))
        .filter(|(_, cells)| cells.iter().flatten().any(|c| c.ratio < 1.0))
        .collect();
    let worst = |cells: &[Option<CpuRatio>]| {
        cells.iter().flatten().map(|c| c.ratio).fold(f64::INFINITY, f64::min)
    };
    out.sort_by(|a, b| worst(&a.1).partial_cmp(&worst(&b.1)).unwrap_or(std::cmp::Ordering::Equal));
    out
}

/// One table: a criterion group, rows by parameter, a column per implementation.
struct Table<'a> {
    crate_name: String,
    group: String,
    params: Vec<String>,
    /// Our implementations (the crate's name, or `<crate>-<variant>`).
    ours: Vec<String>,
    /// Those of `ours` that get ratio columns: the crate's name itself when it is a column
    /// (its per-backend variants are shown but not compared), all of `ours` otherwise.
    headline: Vec<String>,
    peers: Vec<String>,
    /// Reference points that are not peers (e.g. `memcpy` of the same size for base64):
    /// shown, compared with, never "the best peer".
    references: Vec<String>,
    cells: BTreeMap<(&'a str, String), &'a Entry>,
    unit: &'static str,
}

fn is_ours(crate_name: &str, group: &str, function: &str) -> bool {
    plan::is_ours(crate_name, group, function)
}

fn is_reference(function: &str) -> bool {
    plan::peer_of(function).is_some_and(|p| p.kind == Kind::Reference)
}

/// The unit of the CPU-time groups (`*-cpu`).
const CPU_UNIT: &str = "CPU ns/KiB";

/// Plain copy loops a user would write instead: every splice-pool table also compares with them.
const LOOPS: &[&str] = &["read-write-64k", "tokio-copy-bidirectional"];

/// References shown without a ratio column (a ratio to doing nothing means nothing).
const NO_RATIO: &[&str] = &["call-floor", "precomputed-floor"];

fn param_key(p: &str) -> (u8, f64, String) {
    match magnitude(p) {
        Some(n) => (0, n, String::new()),
        None => (1, 0.0, p.to_owned()),
    }
}

/// The size a parameter stands for: the number itself, or for a size class such as `65-256`,
/// `4K-64K` or `8M` its upper bound (K and M are binary).
fn magnitude(p: &str) -> Option<f64> {
    if let Ok(n) = p.parse::<f64>() {
        return Some(n);
    }
    let last = p.rsplit('-').next()?.trim();
    let (digits, scale) = match last.as_bytes().last()? {
        b'K' => (&last[..last.len() - 1], 1024.0),
        b'M' => (&last[..last.len() - 1], 1024.0 * 1024.0),
        b'G' => (&last[..last.len() - 1], 1024.0 * 1024.0 * 1024.0),
        _ => (last, 1.0),
    };
    digits.parse::<f64>().ok().map(|n| n * scale)
}

fn tables(entries: &[Entry]) -> Vec<Table<'_>> {
    let mut groups: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in entries {
        groups.entry(&e.group).or_default().push(e);
    }
    let mut out = Vec::new();
    for (group, es) in groups {
        let crate_name = group.split('/').next().unwrap_or(group).to_owned();
        let mut params: Vec<String> =
            es.iter().map(|e| e.param.clone().unwrap_or_else(|| "-".into())).collect();
        params.sort_by(|a, b| {
            param_key(a).partial_cmp(&param_key(b)).unwrap_or(std::cmp::Ordering::Equal)
        });
        params.dedup();
        let functions: BTreeSet<&str> = es.iter().map(|e| e.function.as_str()).collect();
        let ours: Vec<String> = functions
            .iter()
            .filter(|f| is_ours(&crate_name, group, f))
            .map(|f| f.to_string())
            .collect();
        let headline: Vec<String> =
            if ours.contains(&crate_name) { vec![crate_name.clone()] } else { ours.clone() };
        let (references, peers): (Vec<String>, Vec<String>) = functions
            .iter()
            .filter(|f| !is_ours(&crate_name, group, f))
            .map(|f| f.to_string())
            .partition(|f| is_reference(f));
        let unit = match es[0].throughput {
            Throughput::Bytes(_) if group.ends_with("-cpu") => CPU_UNIT,
            Throughput::Bytes(_) => "GB/s",
            Throughput::Elements(_) => "Melem/s",
            Throughput::None => "time",
        };
        let cells = es
            .iter()
            .map(|e| ((e.function.as_str(), e.param.clone().unwrap_or_else(|| "-".into())), *e))
            .collect();
        out.push(Table {
            crate_name,
            group: group.to_owned(),
            params,
            ours,
            headline,
            peers,
            references,
            cells,
            unit,
        });
    }
    out
}

impl Table<'_> {
    /// Peers that also get a ratio column of their own: the plain loops a user would write.
    fn loops(&self) -> impl Iterator<Item = &String> {
        self.peers.iter().filter(|p| LOOPS.contains(&p.as_str()))
    }

    fn ratio_references(&self) -> impl Iterator<Item = &String> {
        self.references.iter().filter(|r| !NO_RATIO.contains(&r.as_str()))
    }

    fn columns(&self) -> impl Iterator<Item = &String> {
        self.ours.iter().chain(&self.peers).chain(&self.references)
    }

    fn cell(&self, function: &str, param: &str) -> Option<&Entry> {
        self.cells.get(&(function, param.to_owned())).copied()
    }

    /// What the table shows and plots for `e`: time, CPU time per KiB, or a speed.
    fn value(&self, e: &Entry) -> f64 {
        match self.unit {
            "time" => e.median_ns,
            CPU_UNIT => 1024.0 / e.speed(),
            _ => e.speed(),
        }
    }

    fn show(&self, e: &Entry) -> String {
        match self.unit {
            "time" => show_time(e.median_ns),
            CPU_UNIT => format!("{:.1}", self.value(e)),
            _ => format!("{:.3}", e.speed()),
        }
    }

    /// `ours / best peer` for `function` at `param`: a speed ratio (> 1 means ours is faster).
    fn ratio(&self, function: &str, param: &str) -> Option<(f64, &str)> {
        let ours = self.cell(function, param)?;
        let best = self
            .peers
            .iter()
            .filter_map(|p| self.cell(p, param).map(|e| (e.speed(), p.as_str())))
            .max_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal))?;
        Some((ours.speed() / best.0, best.1))
    }

    fn header(&self, lock: &str) -> Vec<String> {
        let first = if self.params.iter().all(|p| p == "-") { "".into() } else { "size".into() };
        let mut h = vec![first];
        h.extend(self.columns().map(|f| with_version(f, lock)));
        for o in &self.headline {
            if !self.peers.is_empty() {
                h.push(format!("{o} / best peer"));
            }
            h.extend(self.ratio_references().map(|r| format!("{o} / {r}")));
            h.extend(self.loops().map(|r| format!("{o} / {r}")));
        }
        h
    }

    fn rows(&self) -> Vec<Vec<String>> {
        self.params
            .iter()
            .map(|p| {
                let mut row = vec![show_param(p)];
                row.extend(
                    self.columns().map(|f| self.cell(f, p).map_or("—".into(), |e| self.show(e))),
                );
                for o in &self.headline {
                    if !self.peers.is_empty() {
                        row.push(
                            self.ratio(o, p)
                                .map_or("—".into(), |(r, who)| format!("{r:.2}× ({who})")),
                        );
                    }
                    for r in self.ratio_references().chain(self.loops()) {
                        let pair = self.cell(o, p).zip(self.cell(r, p));
                        row.push(pair.map_or("—".into(), |(a, b)| {
                            format!("{:.2}×", a.speed() / b.speed())
                        }));
                    }
                }
                row
            })
            .collect()
    }

    /// The rows of `section` where a headline implementation of ours is slower than the best
    /// peer.
    fn losses(&self, section: &str) -> Vec<Loss> {
        let mut out = Vec::new();
        for o in &self.headline {
            for p in &self.params {
                let Some((r, who)) = self.ratio(o, p) else { continue };
                if r >= 1.0 {
                    continue;
                }
                let (Some(a), Some(b)) = (self.cell(o, p), self.cell(who, p)) else { continue };
                out.push(Loss {
                    ratio: r,
                    noise: a.ci_low_ns <= b.ci_high_ns && b.ci_low_ns <= a.ci_high_ns,
                    section: section.to_owned(),
                    group: self.group.clone(),
                    ours: o.clone(),
                    param: p.clone(),
                    ours_value: self.show_interval(a),
                    peer: who.to_owned(),
                    peer_value: self.show_interval(b),
                });
            }
        }
        out
    }

    /// The value with its confidence interval, in the table's unit.
    fn show_interval(&self, e: &Entry) -> String {
        let at = |ns: f64| Entry { median_ns: ns, ..e.clone() };
        let (lo, hi) = (self.show(&at(e.ci_low_ns)), self.show(&at(e.ci_high_ns)));
        // A speed's interval runs the other way from the time's.
        let (lo, hi) = if self.unit == "time" { (lo, hi) } else { (hi, lo) };
        format!("{} [{lo}, {hi}]", self.show_unit(e))
    }

    /// `(rows with a ratio, rows ours wins or ties within 3 %, sum of ln ratio)` of the
    /// headline implementations against the best peer.
    fn score(&self) -> (usize, usize, f64) {
        let mut out = (0, 0, 0.0);
        for o in &self.headline {
            for p in &self.params {
                if let Some((r, _)) = self.ratio(o, p) {
                    out.0 += 1;
                    out.1 += usize::from(r >= 0.97);
                    out.2 += r.ln();
                }
            }
        }
        out
    }

    fn show_unit(&self, e: &Entry) -> String {
        match self.unit {
            "time" => self.show(e),
            u => format!("{} {u}", self.show(e)),
        }
    }

    fn slug(&self) -> String {
        self.group.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
    }

    fn caption(&self) -> String {
        match self.unit {
            "time" => format!("`{}`: median time per operation (lower is better)", self.group),
            CPU_UNIT => format!(
                "`{}`: CPU time (user + system, `getrusage(RUSAGE_THREAD)`) of the copying \
                 thread in ns per KiB moved (lower is better); ratios compare CPU per byte \
                 (> 1: ours uses less)",
                self.group
            ),
            u => format!("`{}`: median throughput in {u} (higher is better)", self.group),
        }
    }

    fn plottable(&self) -> bool {
        self.params.len() >= 2 && self.params.iter().all(|p| magnitude(p).is_some())
    }
}

fn show_param(p: &str) -> String {
    let Ok(n) = p.parse::<u64>() else { return p.to_owned() };
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => n.to_string(),
    }
}

fn show_time(ns: f64) -> String {
    match ns {
        ns if ns < 1e3 => format!("{ns:.2} ns"),
        ns if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        ns if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        ns => format!("{:.2} s", ns / 1e9),
    }
}

/// A column's name with the version of the peer's package from `Cargo.lock`:
/// `xxh3-64 (xxhash-rust 0.8.21)`, `num-bigint 0.5.1`.
fn with_version(function: &str, lock: &str) -> String {
    let Some(p) = plan::peer_of(function).filter(|p| !p.package.is_empty()) else {
        return function.to_owned();
    };
    match plan::locked_version(lock, p.package, p.version) {
        Some(v) if function == p.package => format!("{function} {v}"),
        Some(v) => format!("{function} ({} {v})", p.package),
        None => function.to_owned(),
    }
}

/// One section of the report: a heading, lines about how it was measured, its tables.
struct Section<'a> {
    /// Anchor and the tier's name in the summary (`default`, `x86-64-v3`, `native`).
    name: String,
    title: String,
    about: Vec<String>,
    entries: Vec<Entry>,
    /// Crates to show (in report order); the headline shows every crate.
    crates: Vec<&'a str>,
    plots: bool,
}

/// A row where ours is slower than the best peer.
struct Loss {
    ratio: f64,
    /// The two medians' confidence intervals overlap: the loss may be noise.
    noise: bool,
    section: String,
    group: String,
    ours: String,
    param: String,
    ours_value: String,
    peer: String,
    peer_value: String,
}

/// The sections: the default build, then each tier with its processes' rows and the shared rows
/// of the default build.
fn sections<'a>(runs: &BTreeMap<String, Vec<Entry>>, cx: &'a Context) -> Vec<Section<'a>> {
    let empty = Vec::new();
    let default = runs.get("default").unwrap_or(&empty);
    let probe = |name: &str| cx.probes.get(name).cloned().unwrap_or_default();
    let mut out = vec![Section {
        name: "default".into(),
        title: "Default build (headline)".into(),
        about: vec![
            "What a `cargo add` user gets: no `RUSTFLAGS`, cargo's default bench profile (no \
             LTO, 16 codegen units; criterion and its own dependencies, which are not timed, at \
             `opt-level=1` to build faster), run-time dispatch, no cap."
                .into(),
            backends_line(&probe("default")),
            glibc_line(&probe("default")),
        ],
        entries: default.clone(),
        crates: plan::BENCHES.to_vec(),
        plots: true,
    }];
    for tier in plan::TIERS {
        let cap = runs.get(&format!("cap-{}", tier.name)).unwrap_or(&empty);
        let built = runs.get(&format!("build-{}", tier.name)).unwrap_or(&empty);
        let mut entries: Vec<Entry> = cap.iter().chain(built).cloned().collect();
        let present: BTreeSet<(String, String)> =
            entries.iter().map(|e| (e.group.clone(), e.function.clone())).collect();
        let native = tier.name == "native";
        for e in default {
            let krate = e.group.split('/').next().unwrap_or("");
            if !plan::TIERED.contains(&krate)
                || is_ours(krate, &e.group, &e.function)
                || present.contains(&(e.group.clone(), e.function.clone()))
            {
                continue;
            }
            let suffix = match plan::peer_of(&e.function).map(|p| p.kind) {
                Some(Kind::Shared) | None => " (shared)",
                // simdutf is not in the native build (C++, and it picks its kernel at run
                // time): its uncapped rows are the headline's.
                Some(_) if native => " (default build)",
                Some(_) => continue,
            };
            let mut e = e.clone();
            e.function += suffix;
            entries.push(e);
        }
        let ours_from = if native {
            format!("ours and the compile-time peers: `RUSTFLAGS=\"{}\"`", tier.build.rustflags)
        } else {
            format!(
                "ours: the default build with `NAB_MAX_ISA={}`; the peers that pick their \
                 kernel at compile time: `RUSTFLAGS=\"{}\"`{}",
                tier.name,
                tier.build.rustflags,
                if tier.avx2_peers {
                    "; base64-simd, base64 0.23 and memchr (run-time dispatch, AVX2 at most) as \
                     they are"
                } else {
                    "; no base64-simd, base64 0.23 or memchr rows (their run-time dispatch \
                     cannot be held to v2)"
                }
            )
        };
        let probe_name =
            if native { "build-native".to_string() } else { format!("cap-{}", tier.name) };
        let p = probe(&probe_name);
        // A crate of this run whose capped backend needs more than the tier has. (Comparing
        // with the uncapped backend instead would flag nabhash's `aesni` on every CPU without
        // VAES, where it is rightly the backend of both.)
        let ran: BTreeSet<&str> =
            cap.iter().map(|e| e.group.split('/').next().unwrap_or("")).collect();
        let stuck: Vec<String> = plan::TIERED
            .iter()
            .copied()
            .filter(|c| !native && ran.contains(c))
            .filter_map(|c| {
                let b = p.get(c)?;
                (plan::backend_rank(b) > plan::tier_rank(tier.name)).then(|| format!("{c} `{b}`"))
            })
            .collect();
        let warning = if stuck.is_empty() {
            String::new()
        } else {
            format!(
                "**Warning**: under `NAB_MAX_ISA={}` these crates ran a backend that needs more \
                 than the tier has, so their rows here are not capped: {}.",
                tier.name,
                stuck.join(", ")
            )
        };
        out.push(Section {
            name: tier.name.into(),
            title: format!("Tier {}", tier.name),
            about: vec![
                format!("{}.", tier.about),
                ours_from + ".",
                format!(
                    "glibc: `GLIBC_TUNABLES={}`; simdutf: `SIMDUTF_FORCE_IMPLEMENTATION={}`; \
                     `(shared)`: the default build's row (GMP, malachite, num-bigint, dashu, \
                     foldhash gain nothing from the tier).",
                    tier.glibc_tunables.unwrap_or("(unset)"),
                    tier.simdutf.unwrap_or("(unset)")
                ),
                backends_line(&p),
                glibc_line(&p),
                warning,
            ],
            entries,
            crates: plan::TIERED.to_vec(),
            plots: false,
        });
    }
    out
}

fn backends_line(probe: &BTreeMap<String, String>) -> String {
    let list: Vec<String> =
        plan::TIERED.iter().filter_map(|c| probe.get(*c).map(|b| format!("{c} `{b}`"))).collect();
    if list.is_empty() {
        "Our backends: (not reported)".into()
    } else {
        format!("Our backends: {}.", list.join(", "))
    }
}

fn glibc_line(probe: &BTreeMap<String, String>) -> String {
    let list: Vec<String> = probe
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("glibc.").map(|f| format!("{f} → `{v}`")))
        .collect();
    if list.is_empty() {
        "glibc variants: (not reported)".into()
    } else {
        format!(
            "glibc variants that ran (IFUNCs resolved in the bench's environment): {}.",
            list.join(", ")
        )
    }
}

/// Peers the benches cannot take at their latest version, and why.
const NOT_UPDATED: &str = "rug 1.19 / gmp-mpfr-sys 1.5 (latest 1.30 / 1.7): gmp-mpfr-sys 1.6+ \
with `use-system-libs` accepts only GMP 6.3 and Debian 12 has 6.2.1 (building the bundled GMP \
instead takes minutes), so GMP is Debian's 6.2.1. base64 0.22 is kept beside \
0.23 on purpose (the most used version; 0.23's `Simd` engine is its own column).";

/// Writes `index.md`, `index.html` and the plots into `out`; returns the Markdown path.
pub fn write(
    out: &Path,
    runs: &BTreeMap<String, Vec<Entry>>,
    cx: &Context,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let sections = sections(runs, cx);
    let mut md = String::from("# Benchmark report\n\n");
    let mut html = String::from(HTML_HEAD);
    html += "<h1>Benchmark report</h1>\n<table class=machine>\n";
    for (k, v) in &cx.machine.lines {
        let _ = writeln!(md, "- **{k}**: {v}");
        let _ = writeln!(html, "<tr><th>{}</th><td>{}</td></tr>", esc(k), md_inline(v));
    }
    let _ = writeln!(md, "- **command**: `{}`\n", cx.command);
    let _ = writeln!(
        html,
        "<tr><th>command</th><td><code>{}</code></td></tr>\n</table>",
        esc(&cx.command)
    );
    let intro = "Ratios are ours / best peer at the same size and tier, as speeds (> 1: ours is \
                 faster); `memcpy`, `rep-movsb`, `rep-stosb`, `call-floor` (the harness \
                 calling a function that does nothing) and `precomputed-floor` (a map lookup \
                 with the hash precomputed) are yardsticks, not peers. Per-backend \
                 variants of ours (`<crate>-<backend>`) are shown without ratios. Every number \
                 is a criterion median from this run; the machine's load average (above) is \
                 read when the report is written.";
    let _ = writeln!(md, "{intro}\n");
    let _ = writeln!(html, "<p>{}</p>", md_inline(intro));
    for f in &cx.failed {
        let _ = writeln!(md, "**Failed**: {f}\n");
        let _ = writeln!(html, "<p><b>Failed</b>: {}</p>", esc(f));
    }
    let unclassified: BTreeSet<&str> = runs
        .values()
        .flatten()
        .filter(|e| {
            let krate = e.group.split('/').next().unwrap_or("");
            plan::TIERED.contains(&krate)
                && !is_ours(krate, &e.group, &e.function)
                && plan::peer_of(&e.function).is_none()
        })
        .map(|e| e.function.as_str())
        .collect();
    if !unclassified.is_empty() {
        let line = format!(
            "Peers that `xtask/src/bench/plan.rs` does not classify (their tier rows are the \
             default build's, marked shared): {}.",
            unclassified.into_iter().collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(md, "{line}\n");
        let _ = writeln!(html, "<p>{}</p>", md_inline(&line));
    }
    let _ = writeln!(md, "Peers not at their latest version: {NOT_UPDATED}\n");
    let _ = writeln!(html, "<p>Peers not at their latest version: {}</p>", md_inline(NOT_UPDATED));
    html += "<p>Sections: <a href=\"#summary\">summary</a> · <a href=\"#losses\">where we lose</a> · \
         <a href=\"#across\">across CPUs</a>";
    if cx.modelled.is_some() {
        html += " · <a href=\"#modelled\">modelled CPUs</a>";
    }
    for s in &sections {
        let _ = write!(html, " · <a href=\"#{}\">{}</a>", s.name, esc(&s.title));
    }
    html += "</p>\n";

    // Render every section first: the summary of losses comes from their tables.
    let mut losses = Vec::new();
    // (section, crate) -> (rows, wins, sum of ln ratio)
    let mut scores: Vec<(String, String, (usize, usize, f64))> = Vec::new();
    let mut body_md = String::new();
    let mut body_html = String::new();
    for s in &sections {
        let tables = tables(&s.entries);
        let _ = writeln!(body_md, "\n## {}\n", s.title);
        let _ = writeln!(body_html, "<h2 id=\"{}\">{}</h2>", s.name, esc(&s.title));
        for line in s.about.iter().filter(|l| !l.is_empty()) {
            let _ = writeln!(body_md, "{line}\n");
            let _ = writeln!(body_html, "<p>{}</p>", md_inline(&line.replace("**", "")));
        }
        for krate in &s.crates {
            let ts: Vec<&Table> = tables.iter().filter(|t| t.crate_name == *krate).collect();
            if ts.is_empty() {
                continue;
            }
            let _ = writeln!(body_md, "\n### {krate} ({})\n", s.name);
            let _ = writeln!(body_html, "<h3>{} ({})</h3>", esc(krate), esc(&s.name));
            for t in ts {
                losses.extend(t.losses(&s.name));
                let sc = t.score();
                match scores.iter_mut().find(|(a, b, _)| a == &s.name && b == krate) {
                    Some((_, _, acc)) => *acc = (acc.0 + sc.0, acc.1 + sc.1, acc.2 + sc.2),
                    None => scores.push((s.name.clone(), krate.to_string(), sc)),
                }
                let (header, rows) = (t.header(&cx.lock), t.rows());
                let _ = writeln!(body_md, "#### {}\n\n{}\n", t.group, t.caption());
                let _ = writeln!(body_md, "| {} |", header.join(" | "));
                let _ = writeln!(body_md, "|{}", "---|".repeat(header.len()));
                for r in &rows {
                    let _ = writeln!(body_md, "| {} |", r.join(" | "));
                }
                let _ = writeln!(
                    body_html,
                    "<h4>{}</h4>\n<p>{}</p>\n<table><tr>{}</tr>",
                    esc(&t.group),
                    esc(&t.caption().replace('`', "")),
                    header.iter().map(|h| format!("<th>{}</th>", esc(h))).collect::<String>()
                );
                for r in &rows {
                    let _ = writeln!(
                        body_html,
                        "<tr>{}</tr>",
                        r.iter()
                            .map(|c| format!("<td{}>{}</td>", cell_class(c), esc(c)))
                            .collect::<String>()
                    );
                }
                body_html += "</table>\n";
                if s.plots && t.plottable() {
                    let svg = plot(t);
                    let name = format!("{}.svg", t.slug());
                    std::fs::write(out.join(&name), &svg).map_err(|e| format!("{name}: {e}"))?;
                    let _ = writeln!(body_md, "\n![{}]({name})", t.group);
                    let _ = writeln!(body_html, "<div class=plot>{svg}</div>");
                }
                body_md += "\n";
            }
        }
        if s.name == "default" {
            for (krate, why) in &cx.skipped {
                let _ = writeln!(body_md, "\n### {krate}\n\nNot measured on this machine: {why}\n");
                let _ = writeln!(
                    body_html,
                    "<h3>{}</h3>\n<p>Not measured on this machine: {}</p>",
                    esc(krate),
                    esc(why)
                );
            }
            // kcapi's per-operation overhead, when `cargo xtask vm-test --overhead` has run.
            let overhead = crate::util::root().join(crate::vm::OVERHEAD_TABLE);
            if let Ok(table) = std::fs::read_to_string(&overhead) {
                let title = "kcapi: overhead per operation, ours against libkcapi (VM)";
                let _ = writeln!(body_md, "\n### {title}\n\n{table}");
                let _ = writeln!(body_html, "<h3>{title}</h3>\n<pre>{}</pre>", esc(&table));
            }
        }
    }

    let _ = writeln!(
        md,
        "## Summary\n\nPer section and crate: the rows where ours wins or ties (within 3 %) \
         against the best peer, and the geometric mean of ours / best peer over them.\n\n\
         | section | crate | wins or ties | geomean |\n|---|---|---|---|"
    );
    html += "<h2 id=summary>Summary</h2>\n<p>Per section and crate: the rows where ours wins or \
             ties (within 3 %) against the best peer, and the geometric mean of ours / best peer \
             over them.</p>\n<table><tr><th>section</th><th>crate</th><th>wins or ties</th>\
             <th>geomean</th></tr>\n";
    for (section, krate, (n, wins, ln)) in scores.iter().filter(|s| s.2.0 > 0) {
        let geo = format!("{:.2}×", (ln / *n as f64).exp());
        let won = format!("{wins} of {n}");
        let _ = writeln!(md, "| {section} | {krate} | {won} | {geo} |");
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{won}</td><td{}>{geo}</td></tr>",
            esc(section),
            esc(krate),
            if ln < &0.0 { " class=lose" } else { " class=win" }
        );
    }
    md += "\n";
    html += "</table>\n";
    losses.sort_by(|a, b| a.ratio.partial_cmp(&b.ratio).unwrap_or(std::cmp::Ordering::Equal));
    let _ = writeln!(
        md,
        "## Where we lose\n\n{} rows where ours is slower than the best peer of the same \
         section, slowest first ({} of them within noise: the two medians' 95 % confidence \
         intervals overlap). The rows that lose on another recorded CPU but not on this one \
         are listed under Across CPUs, below.\n",
        losses.len(),
        losses.iter().filter(|l| l.noise).count()
    );
    let _ = writeln!(
        html,
        "<h2 id=losses>Where we lose</h2>\n<p>{} rows where ours is slower than the best peer \
         of the same section, slowest first ({} of them within noise: the two medians' 95 % \
         confidence intervals overlap). The rows that lose on another recorded CPU but not on \
         this one are listed under <a href=#across>Across CPUs</a>.</p>",
        losses.len(),
        losses.iter().filter(|l| l.noise).count()
    );
    let head = [
        "ratio",
        "noise",
        "section",
        "table",
        "ours",
        "size",
        "ours: median [95 % CI]",
        "best peer",
        "peer: median [95 % CI]",
    ];
    let _ = writeln!(md, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
    let _ = writeln!(
        html,
        "<table class=losses><tr>{}</tr>",
        head.iter().map(|h| format!("<th>{h}</th>")).collect::<String>()
    );
    for l in &losses {
        let row = [
            format!("{:.2}×", l.ratio),
            if l.noise { "within noise".into() } else { String::new() },
            l.section.clone(),
            l.group.clone(),
            l.ours.clone(),
            show_param(&l.param),
            l.ours_value.clone(),
            l.peer.clone(),
            l.peer_value.clone(),
        ];
        let _ = writeln!(md, "| {} |", row.join(" | "));
        let _ = writeln!(
            html,
            "<tr>{}</tr>",
            row.iter().map(|c| format!("<td>{}</td>", esc(c))).collect::<String>()
        );
    }
    html += "</table>\n";
    let (across_md, across_html) = across_section(cx);
    md += &across_md;
    html += &across_html;
    if let Some(modelled) = &cx.modelled {
        md += "\n";
        md += modelled;
        html += "<h2 id=modelled>Modelled CPUs</h2>\n<pre>";
        html += &esc(modelled);
        html += "</pre>\n";
    }
    md += &body_md;
    html += &body_html;
    html += "</body></html>\n";
    let md_path = out.join("index.md");
    std::fs::write(&md_path, md).map_err(|e| format!("{}: {e}", md_path.display()))?;
    let html_path = out.join("index.html");
    std::fs::write(&html_path, html).map_err(|e| format!("{}: {e}", html_path.display()))?;
    Ok(md_path)
}

/// The speed table of a crate's README: per recorded CPU and section, the rows ours wins or
/// ties (within 3 %) against the best peer, the geometric mean of the ratios and the worst row.
pub fn readme_table(krate: &str, cpus: &[Record]) -> String {
    let mut out = String::from(
        "Generated from the benchmark records of each CPU (`benches/results/`, where each row \
         also keeps the commit it was measured at) by `cargo xtask bench --record`: per section \
         of the report, the rows where ours wins or ties (within 3 %) against the best peer, \
         the geometric mean of ours / best peer (> 1: ours is faster), and the worst row.\n\n\
         | CPU (measured) | section | wins or ties | geomean vs best peer | worst row |\n\
         |---|---|---|---|---|\n",
    );
    let mut any = false;
    for rec in cpus {
        let newest = rec.runs.iter().max_by(|a, b| a.date.cmp(&b.date));
        let mut by_section: BTreeMap<&str, Vec<(&RowKey, &CpuRatio)>> = BTreeMap::new();
        let ratios = cpu_ratios(rec);
        for (k, r) in &ratios {
            if k.1.split('/').next() == Some(krate) {
                by_section.entry(k.0.as_str()).or_default().push((k, r));
            }
        }
        // The headline first, then the tiers in their order.
        let order = |s: &str| {
            if s == "default" {
                0
            } else {
                1 + plan::TIERS.iter().position(|t| t.name == s).unwrap_or(9)
            }
        };
        let mut sections: Vec<_> = by_section.into_iter().collect();
        sections.sort_by_key(|(s, _)| order(s));
        for (section, rows) in sections {
            any = true;
            let wins = rows.iter().filter(|(_, r)| r.ratio >= 0.97).count();
            let geo =
                (rows.iter().map(|(_, r)| r.ratio.ln()).sum::<f64>() / rows.len() as f64).exp();
            let (wk, wr) = rows
                .iter()
                .min_by(|a, b| {
                    a.1.ratio.partial_cmp(&b.1.ratio).unwrap_or(std::cmp::Ordering::Equal)
                })
                .expect("a section has rows");
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {wins} of {} | {geo:.2}× | {} {} at {}: {:.2}× ({}) |",
                rec.machine.slug,
                newest.map_or(String::new(), |n| format!(
                    " ({}, {})",
                    n.date.get(..10).unwrap_or(&n.date),
                    if n.quick { "quick run" } else { "full run" }
                )),
                if section == "default" { "default build" } else { section },
                rows.len(),
                wk.1.trim_start_matches(&format!("{krate}/")),
                wk.2,
                show_param(&wk.3),
                wr.ratio,
                wr.peer
            );
        }
    }
    if !any {
        out = "No CPU has a record of this crate's benches yet (`cargo xtask bench --record`).\n"
            .into();
    }
    out
}

/// `text` with what lies between `<!-- speed:begin -->` and `<!-- speed:end -->` replaced by
/// `table`; `None` when the markers are missing.
pub fn fill_markers(text: &str, table: &str) -> Option<String> {
    const BEGIN: &str = "<!-- speed:begin -->";
    const END: &str = "<!-- speed:end -->";
    let b = text.find(BEGIN)? + BEGIN.len();
    let e = b + text[b..].find(END)?;
    Some(format!("{}\n{}{}", &text[..b], table, &text[e..]))
}

/// One CPU's figure for a row of the "Across CPUs" table.
fn across_cell(c: &Option<CpuRatio>) -> String {
    match c {
        None => "—".into(),
        Some(c) => format!(
            "{:.2}× ({}) at {} {}{}",
            c.ratio,
            c.peer,
            c.commit,
            c.date.get(..10).unwrap_or(&c.date),
            if c.stale { ", stale" } else { "" }
        ),
    }
}

/// The "Across CPUs" section (Markdown, HTML): which CPUs were joined, every row that loses on
/// any of them, and the rows that lose on another CPU but not on the live one.
fn across_section(cx: &Context) -> (String, String) {
    let mut md = String::from("\n## Across CPUs\n\n");
    let mut html = String::from("<h2 id=across>Across CPUs</h2>\n");
    // The live CPU first, then the others by slug.
    let mut cpus: Vec<&Record> = cx.cpus.iter().collect();
    cpus.sort_by_key(|r| (r.machine.slug != cx.live_slug, r.machine.slug.clone()));
    let describe = |r: &Record| {
        let m = &r.machine;
        let newest = r.runs.iter().max_by(|a, b| a.date.cmp(&b.date));
        format!(
            "`{}`{} ({} family {:#x} model {:#x} stepping {}, \"{}\"): {} rows, newest run {} at {}",
            m.slug,
            if m.slug == cx.live_slug { " (live: this run over its record)" } else { "" },
            m.vendor,
            m.family,
            m.model,
            m.stepping,
            m.model_name,
            r.rows.len(),
            newest.map_or("-", |n| n.options.as_str()),
            newest.map_or("?".into(), |n| format!("{} {}", n.commit, n.date)),
        )
    };
    let intro = format!(
        "The live CPU is `{}`. Each recorded CPU's rows (`benches/results/<slug>.jsonl`) go \
         through the same tables as this run's; a row is listed when ours is slower than the \
         best peer of its section on any of them. Each figure says the commit and date it was \
         measured at; `stale` marks a figure that the record's newest run did not measure \
         again. CPUs:",
        cx.live_slug
    );
    let _ = writeln!(md, "{intro}\n");
    let _ = writeln!(html, "<p>{}</p>\n<ul>", md_inline(&intro));
    for r in &cpus {
        let _ = writeln!(md, "- {}", describe(r));
        let _ = writeln!(html, "<li>{}</li>", md_inline(&describe(r)));
    }
    html += "</ul>\n";
    let records: Vec<Record> = cpus.iter().map(|r| (*r).clone()).collect();
    let rows = across(&records);
    let _ = writeln!(md, "\n{} rows lose on at least one CPU, worst first.\n", rows.len());
    let _ = writeln!(html, "<p>{} rows lose on at least one CPU, worst first.</p>", rows.len());
    let mut head: Vec<String> =
        ["section", "table", "ours", "size"].iter().map(|s| s.to_string()).collect();
    head.extend(cpus.iter().map(|r| r.machine.slug.clone()));
    let _ = writeln!(md, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
    let _ = writeln!(
        html,
        "<table class=losses><tr>{}</tr>",
        head.iter().map(|h| format!("<th>{}</th>", esc(h))).collect::<String>()
    );
    let mut elsewhere = Vec::new();
    for ((section, group, ours, param), cells) in &rows {
        let mut row = vec![section.clone(), group.clone(), ours.clone(), show_param(param)];
        row.extend(cells.iter().map(across_cell));
        let _ = writeln!(md, "| {} |", row.join(" | "));
        let _ = writeln!(
            html,
            "<tr>{}</tr>",
            row.iter().map(|c| format!("<td{}>{}</td>", cell_class(c), esc(c))).collect::<String>()
        );
        let here = cells.first().and_then(Option::as_ref);
        let live_first = cpus.first().is_some_and(|r| r.machine.slug == cx.live_slug);
        if live_first && here.is_some_and(|h| h.ratio >= 1.0) {
            elsewhere.push(row);
        }
    }
    html += "</table>\n";
    let line = format!(
        "Of these, {} rows lose on another recorded CPU but not on this one (`{}`):",
        elsewhere.len(),
        cx.live_slug
    );
    let _ = writeln!(md, "\n{line}\n");
    let _ = writeln!(html, "<p>{}</p>\n<ul>", md_inline(&line));
    for r in &elsewhere {
        let _ = writeln!(md, "- {} · {} · {} · {}: {}", r[0], r[1], r[2], r[3], r[4..].join(" / "));
        let _ = writeln!(html, "<li>{}</li>", esc(&r.join(" · ")));
    }
    html += "</ul>\n";
    (md, html)
}

/// Best-peer ratio cells (`0.85× (peer)`) are marked in the HTML: below 1 red, else green.
fn cell_class(c: &str) -> &'static str {
    let Some((r, peer)) = c.split_once('×') else { return "" };
    match r.trim().parse::<f64>() {
        Ok(r) if peer.contains('(') && r < 1.0 => " class=lose",
        Ok(_) if peer.contains('(') => " class=win",
        _ => "",
    }
}

/// Markdown's inline code spans as HTML, the rest escaped.
fn md_inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out += &esc(part);
        }
    }
    out
}

const HTML_HEAD: &str = "<!doctype html>\n<html><head><meta charset=utf-8>\
<title>Benchmark report</title><style>\
body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1em}\
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right;font-size:.9em}\
th{background:#f3f3f3}table.machine td,table.machine th{text-align:left}\
td.lose{background:#fde0dc}td.win{background:#e3f4e1}\
.plot{margin-bottom:2em}</style></head><body>\n";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

const COLORS: [&str; 10] = [
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// A line plot of the table: x = size (log2 axis), y = throughput (or time), a line per
/// implementation; ours are drawn thicker.
fn plot(t: &Table) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 360.0, 70.0, 190.0, 30.0, 50.0);
    let xs: Vec<f64> = t.params.iter().filter_map(|p| magnitude(p)).collect();
    let (x0, x1) = (xs[0].max(1.0).log2(), xs[xs.len() - 1].max(2.0).log2());
    let values: Vec<f64> = t
        .columns()
        .flat_map(|f| t.params.iter().filter_map(move |p| t.cell(f, p)))
        .map(|e| t.value(e))
        .filter(|v| *v > 0.0)
        .collect();
    let (vmin, vmax) = values.iter().fold((f64::MAX, 0f64), |(a, b), v| (a.min(*v), b.max(*v)));
    let log_y = t.unit == "time" || vmax / vmin > 50.0;
    let (y0, y1) = if log_y {
        (vmin.log10().floor(), vmax.log10().ceil().max(vmin.log10().floor() + 1.0))
    } else {
        (0.0, nice_ceiling(vmax))
    };
    let log_px =
        |x: f64| left + (x.max(1.0).log2() - x0) / (x1 - x0).max(1e-9) * (w - left - right);
    // Sizes close on a log axis (4097 and 4098) would share a pixel and overprint their
    // labels: then every size gets its own evenly spaced step instead.
    let categorical = xs.windows(2).any(|p| log_px(p[1]) - log_px(p[0]) < MIN_LABEL_GAP);
    let steps = (xs.len().max(2) - 1) as f64;
    let px = |x: f64| {
        if categorical {
            let i = xs.iter().position(|v| *v == x).unwrap_or(0) as f64;
            left + i / steps * (w - left - right)
        } else {
            log_px(x)
        }
    };
    let py = |v: f64| {
        let f = if log_y { (v.log10() - y0) / (y1 - y0) } else { (v - y0) / (y1 - y0) };
        h - bottom - f * (h - top - bottom)
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"18\" font-size=\"13\">{}</text>\n",
        esc(&t.group)
    );
    // Axes, grid and ticks.
    let (ax0, ax1, ay0, ay1) = (left, w - right, h - bottom, top);
    let _ = writeln!(
        s,
        "<path d=\"M{ax0},{ay1} V{ay0} H{ax1}\" fill=\"none\" stroke=\"#333\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} ({})</text>\n\
         <text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        (ax0 + ax1) / 2.0,
        h - 10.0,
        if t.unit == "GB/s" { "input size in bytes" } else { "parameter" },
        if categorical { "one step per size" } else { "log scale" },
        (ay0 + ay1) / 2.0,
        if t.unit == "time" { "median time (ns, log)".to_string() } else { t.unit.to_string() }
    );
    for (x, p) in xs.iter().zip(&t.params) {
        let xp = px(*x);
        let _ = writeln!(
            s,
            "<line x1=\"{xp:.1}\" y1=\"{ay0}\" x2=\"{xp:.1}\" y2=\"{ay1}\" stroke=\"#eee\"/>\
             <text x=\"{xp:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            ay0 + 15.0,
            esc(&show_param(p))
        );
    }
    let ticks: Vec<f64> = if log_y {
        (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|i| y0 + (y1 - y0) * i as f64 / 5.0).collect()
    };
    for v in ticks {
        let yp = py(v);
        let label = match v {
            v if log_y && v >= 1e-3 => plain_number(v),
            v if log_y => format!("{v:e}"),
            v => plain_number(v),
        };
        let _ = writeln!(
            s,
            "<line x1=\"{ax0}\" y1=\"{yp:.1}\" x2=\"{ax1}\" y2=\"{yp:.1}\" stroke=\"#eee\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            ax0 - 4.0,
            yp + 4.0
        );
    }
    // One polyline per implementation, with a legend entry.
    for (i, f) in t.columns().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let width = if t.ours.contains(f) { 3.0 } else { 1.5 };
        let points: Vec<String> = t
            .params
            .iter()
            .filter_map(|p| {
                let e = t.cell(f, p)?;
                let v = t.value(e);
                let x = magnitude(p)?;
                (v > 0.0).then(|| format!("{:.1},{:.1}", px(x), py(v)))
            })
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"{width}\"/>",
            points.join(" ")
        );
        let ly = top + 14.0 * i as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{color}\" \
             stroke-width=\"{width}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            ax1 + 10.0,
            ax1 + 30.0,
            ax1 + 35.0,
            ly + 4.0,
            esc(f)
        );
    }
    s += "</svg>\n";
    s
}

/// Narrowest gap between two sizes' positions on a plot's x axis, in pixels.
const MIN_LABEL_GAP: f64 = 30.0;

/// A tick label without trailing zeros: `10`, `2.5`, `0.125` (never `10.000`, which reads as
/// ten thousand in much of the world).
fn plain_number(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" { "0".into() } else { s.to_owned() }
}

/// The smallest of 1, 2, 5 × 10^k at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|c| *c >= v).unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(group: &str, function: &str, size: u64, ns: f64) -> Entry {
        Entry {
            group: group.into(),
            function: function.into(),
            param: Some(size.to_string()),
            throughput: Throughput::Bytes(size as f64),
            median_ns: ns,
            ci_low_ns: ns,
            ci_high_ns: ns,
        }
    }

    #[test]
    fn ratios_are_ours_over_the_best_peer() {
        let es = vec![
            entry("b64/encode", "b64", 1024, 100.0),
            entry("b64/encode", "base64-0.22", 1024, 400.0),
            entry("b64/encode", "base64-simd", 1024, 200.0),
            entry("b64/encode", "b64", 16, 10.0),
            entry("b64/encode", "base64-simd", 16, 5.0),
            entry("b64/encode", "b64-portable", 1024, 1000.0),
            entry("b64/encode", "memcpy", 1024, 50.0),
        ];
        let t = &tables(&es)[0];
        assert_eq!(t.ours, ["b64", "b64-portable"]);
        assert_eq!(t.headline, ["b64"]);
        assert_eq!(t.references, ["memcpy"]);
        assert_eq!(t.params, ["16", "1024"]);
        let (r, who) = t.ratio("b64", "1024").unwrap();
        assert_eq!(who, "base64-simd");
        assert!((r - 2.0).abs() < 1e-9);
        assert!((t.ratio("b64", "16").unwrap().0 - 0.5).abs() < 1e-9);
        let rows = t.rows();
        assert_eq!(rows[1][0], "1 KiB");
        assert_eq!(
            t.header(""),
            [
                "size",
                "b64",
                "b64-portable",
                "base64-0.22",
                "base64-simd",
                "memcpy",
                "b64 / best peer",
                "b64 / memcpy"
            ]
        );
        assert_eq!(rows[1][1], "10.240");
        // The portable variant is 10× slower than `b64`, but it is ours: not the best peer.
        assert_eq!(rows[1][6], "2.00× (base64-simd)");
        assert_eq!(rows[1][7], "0.50×");
        assert!(plot(t).contains("<polyline"));
    }

    #[test]
    fn size_classes_sort_and_plot_by_their_upper_bound() {
        let mut es = Vec::new();
        for (class, ns) in [("8M", 9.0), ("0-16", 1.0), ("65-256", 3.0), ("4K-64K", 5.0)] {
            let mut e = entry("memops/memmove", "memops", 1, ns);
            e.param = Some(class.into());
            es.push(e);
        }
        let t = &tables(&es)[0];
        assert_eq!(t.params, ["0-16", "65-256", "4K-64K", "8M"]);
        assert!(t.plottable());
        assert_eq!(magnitude("4K-64K"), Some(65536.0));
        assert_eq!(magnitude("fast"), None);
        assert!(plot(t).contains(">4K-64K</text>"));
    }

    #[test]
    fn across_cpus_joins_rows_by_section_table_and_size() {
        use super::super::record::tests::{row, run};
        use super::super::record::{Machine, Record};
        let cpu = |slug: &str, runs, rows| Record {
            machine: Machine { slug: slug.into(), ..Machine::default() },
            runs,
            rows,
        };
        // Zen 5: ours wins 16 B and loses 64 B; its 4096 B row was measured at an older
        // commit than the record's newest run (stale) and loses.
        let mut stale_ours = row("default", "b64/encode", "4096", "b64", 300.0);
        stale_ours.commit = "c0".into();
        let amd = cpu(
            "amd-zen5",
            vec![run("c0", "2026-11-01T00:00Z", ""), run("c1", "2026-11-28T00:00Z", "--quick")],
            vec![
                row("default", "b64/encode", "16", "b64", 5.0),
                row("default", "b64/encode", "16", "base64-simd", 10.0),
                row("default", "b64/encode", "64", "b64", 20.0),
                row("default", "b64/encode", "64", "base64-simd", 10.0),
                stale_ours,
                row("default", "b64/encode", "4096", "base64-simd", 200.0),
            ],
        );
        // Cascade Lake: ours loses 16 B, wins 64 B; its 256 B row exists only there.
        let intel = cpu(
            "intel-cascadelake",
            vec![run("c1", "2026-11-27T00:00Z", "")],
            vec![
                row("default", "b64/encode", "16", "b64", 20.0),
                row("default", "b64/encode", "16", "base64-simd", 10.0),
                row("default", "b64/encode", "64", "b64", 5.0),
                row("default", "b64/encode", "64", "base64-simd", 10.0),
                row("default", "b64/encode", "256", "b64", 40.0),
                row("default", "b64/encode", "256", "base64-simd", 20.0),
            ],
        );
        let rows = across(&[amd.clone(), intel.clone()]);
        let sizes: Vec<&str> = rows.iter().map(|(k, _)| k.3.as_str()).collect();
        // Worst first: 0.5 (16 on Intel, 64 on AMD, 256 on Intel), then 0.67 (4096, AMD).
        assert_eq!(sizes.len(), 4, "{sizes:?}");
        assert_eq!(sizes[3], "4096");
        let get = |size: &str| &rows.iter().find(|(k, _)| k.3 == size).unwrap().1;
        // Side by side: the 16 B row has both CPUs' ratios.
        let r16 = get("16");
        assert!((r16[0].as_ref().unwrap().ratio - 2.0).abs() < 1e-9);
        assert!((r16[1].as_ref().unwrap().ratio - 0.5).abs() < 1e-9);
        assert_eq!(r16[1].as_ref().unwrap().peer, "base64-simd");
        // Present on one CPU only.
        let r256 = get("256");
        assert!(r256[0].is_none() && r256[1].is_some());
        // The stale row is marked so, with its own commit.
        let r4096 = get("4096")[0].as_ref().unwrap();
        assert!(r4096.stale);
        assert_eq!(r4096.commit, "c0");
        assert!(!r16[0].as_ref().unwrap().stale);
        assert!(across_cell(&get("4096")[0]).ends_with(", stale"));
        // The report section: live CPU first; 16 and 256 lose elsewhere but not here (256 has
        // no live figure, so it is not counted as winning here).
        let mut cx = Context::bare();
        cx.live_slug = "amd-zen5".into();
        cx.cpus = vec![intel, amd];
        let (md, _) = across_section(&cx);
        assert!(md.contains("| section | table | ours | size | amd-zen5 | intel-cascadelake |"));
        assert!(md.contains("Of these, 1 rows lose on another recorded CPU but not on this one"));
    }

    #[test]
    fn near_sizes_get_steps_of_their_own_and_labels_are_plain() {
        let es: Vec<Entry> = [16, 4096, 4097, 4098, 65536]
            .iter()
            .map(|n| entry("b64/decode", "b64", *n, 9.0))
            .collect();
        let svg = plot(&tables(&es)[0]);
        assert!(svg.contains("one step per size"));
        let xs: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<line") && l.contains("text-anchor=\"middle\""))
            .map(|l| l.split("x1=\"").nth(1).unwrap().split('"').next().unwrap())
            .collect();
        assert_eq!(xs.len(), 5, "{svg}");
        let distinct: BTreeSet<&&str> = xs.iter().collect();
        assert_eq!(distinct.len(), 5, "{xs:?}");
        let wide: Vec<Entry> =
            [16, 1024, 65536].iter().map(|n| entry("b64/decode", "b64", *n, 9.0)).collect();
        assert!(plot(&tables(&wide)[0]).contains("log scale"));
        assert_eq!(plain_number(10.0), "10");
        assert_eq!(plain_number(2.5), "2.5");
        assert_eq!(plain_number(0.0), "0");
        assert_eq!(plain_number(0.125), "0.125");
        // Log-axis ticks below 1 read as plain decimals, not `1e-1`.
        let slow: Vec<Entry> = [(16, 80.0), (1024, 204.8), (65536, 3276.8)]
            .iter()
            .map(|(n, ns)| entry("b64/decode", "b64", *n, *ns))
            .collect();
        let svg = plot(&tables(&slow)[0]);
        assert!(svg.contains(">0.1</text>") && !svg.contains("e-1"), "{svg}");
    }

    #[test]
    fn readme_tables_fill_their_markers() {
        use super::super::record::tests::{row, run};
        use super::super::record::{Machine, Record};
        let rec = Record {
            machine: Machine { slug: "amd-zen5".into(), ..Machine::default() },
            runs: vec![run("c1", "2026-11-28T18:00Z", "--quick")],
            rows: vec![
                row("default", "b64/encode", "16", "b64", 5.0),
                row("default", "b64/encode", "16", "base64-simd", 10.0),
                row("default", "b64/encode", "64", "b64", 20.0),
                row("default", "b64/encode", "64", "base64-simd", 10.0),
            ],
        };
        let t = readme_table("b64", std::slice::from_ref(&rec));
        assert!(t.contains("| `amd-zen5` (2026-11-28, quick run) | default build | 1 of 2 | 1.00× | encode b64 at 64: 0.50× (base64-simd) |"), "{t}");
        assert!(readme_table("memops", &[rec]).starts_with("No CPU has a record"));
        let readme = "# x\n<!-- speed:begin -->\nold\n<!-- speed:end -->\ntail\n";
        assert_eq!(
            fill_markers(readme, "new\n").unwrap(),
            "# x\n<!-- speed:begin -->\nnew\n<!-- speed:end -->\ntail\n"
        );
        assert!(fill_markers("no markers", "t").is_none());
    }

    #[test]
    fn a_group_without_peers_has_no_ratio_column() {
        let es = vec![entry("nabhash/v1-backends", "vaes512", 64, 2.0)];
        let t = &tables(&es)[0];
        assert_eq!(t.header(""), ["size", "vaes512"]);
    }
}
