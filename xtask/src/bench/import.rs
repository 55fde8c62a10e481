//! `cargo xtask bench --import REPORT.md --cpu VENDOR/FAMILY/MODEL/STEPPING --commit C`: turns
//! a report written before records existed (`target/bench-report/index.md` of another machine)
//! into that CPU's record.
//!
//! A report shows speeds, not the bytes or elements per iteration behind them; those are the
//! benches' own constants, so they are taken from the live run's `run.jsonl` (same group, same
//! input), and each median is the throughput over the report's speed (rounded as the report
//! rounds: 4-5 significant digits). A report has no confidence intervals: an imported row's
//! interval is its median alone, so it is never marked "within noise". Rows the live run does
//! not have (for their throughput) and CPU-time tables are left out and counted.

use std::collections::BTreeMap;

use super::entry::Throughput;
use super::plan::{self, Kind};
use super::record::{self, Machine, Record, Row, Run};

/// What an import made: the record and the rows it could not take.
pub struct Imported {
    pub record: Record,
    pub skipped: usize,
}

/// The parameter as criterion names it, from the report's display (`1 KiB` → `1024`).
fn param_back(p: &str) -> Option<String> {
    if p == "-" || p.is_empty() {
        return None;
    }
    let scaled = |suffix: &str, shift: u32| {
        p.strip_suffix(suffix)
            .and_then(|n| n.trim().parse::<u64>().ok())
            .map(|n| (n << shift).to_string())
    };
    Some(scaled(" KiB", 10).or_else(|| scaled(" MiB", 20)).unwrap_or_else(|| p.to_owned()))
}

/// A time cell (`12.41 µs`) in ns.
fn time_back(v: &str) -> Option<f64> {
    let (n, unit) = v.split_once(' ')?;
    let n: f64 = n.parse().ok()?;
    let scale = match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(n * scale)
}

/// The implementation a column header names, or `None` for a ratio column or a row borrowed
/// from another section (`(shared)`, `(default build)`).
fn column_back(h: &str) -> Option<String> {
    if h.contains(" / ") || h.contains("(shared)") || h.contains("(default build)") || h == "size" {
        return None;
    }
    if let Some((name, _)) = h.split_once(" (").filter(|_| h.ends_with(')')) {
        return Some(name.to_owned());
    }
    if let Some((name, version)) = h.rsplit_once(' ') {
        let is_package = plan::peer_of(name).is_some_and(|p| p.package == name);
        if is_package && version.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(name.to_owned());
        }
    }
    Some(h.to_owned())
}

/// The bench process a report section's implementation ran in.
fn process_of(section: &str, group: &str, function: &str) -> String {
    if section == "default" {
        return "default".into();
    }
    if section == "native" {
        return "build-native".into();
    }
    let krate = group.split('/').next().unwrap_or("");
    let compile_time = plan::peer_of(function).is_some_and(|p| p.kind == Kind::CompileTime);
    if !plan::is_ours(krate, group, function) && compile_time {
        format!("build-{section}")
    } else {
        format!("cap-{section}")
    }
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split(" | ").map(|c| c.trim().to_owned()).collect()
}

/// Parses `report` (Markdown) into a record, with throughputs from `live`.
pub fn import(report: &str, live: &Record, cpu: (&str, u32, u32, u32), commit: &str) -> Imported {
    let throughputs: BTreeMap<(String, Option<String>), Throughput> =
        live.rows.iter().map(|r| ((r.group.clone(), r.input.clone()), r.throughput)).collect();
    let field = |key: &str| {
        report
            .lines()
            .find_map(|l| l.strip_prefix(&format!("- **{key}**: ")))
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let date = field("date").replace(' ', "T").replace("TUTC", "Z");
    // `2026-11-28T17:16Z` as the records write it.
    let date = date.strip_suffix('Z').map_or(date.clone(), |d| format!("{d}Z"));
    let options = format!("{} (imported report)", field("command").trim_matches('`'));
    let mut rows = Vec::new();
    let mut skipped = 0;
    let (mut section, mut group, mut unit) = (String::new(), String::new(), "");
    let mut header: Vec<Option<String>> = Vec::new();
    for line in report.lines() {
        if let Some(s) = line.strip_prefix("## ") {
            section = match s {
                "Default build (headline)" => "default".into(),
                s => s.strip_prefix("Tier ").unwrap_or("").to_owned(),
            };
            group.clear();
        } else if let Some(g) = line.strip_prefix("#### ") {
            group = g.trim().to_owned();
            header.clear();
            unit = "";
        } else if !group.is_empty() && line.starts_with('`') {
            unit = if line.contains("median time per operation") {
                "time"
            } else if line.contains("throughput in GB/s") {
                "GB/s"
            } else if line.contains("throughput in Melem/s") {
                "Melem/s"
            } else {
                "skip"
            };
        } else if !group.is_empty() && !section.is_empty() && line.starts_with('|') {
            if line.starts_with("|---") {
                continue;
            }
            if header.is_empty() {
                header = cells(line).iter().map(|h| column_back(h)).collect();
                continue;
            }
            let row = cells(line);
            let input = param_back(&row[0]);
            for (h, v) in header.iter().zip(&row).skip(1) {
                let Some(function) = h else { continue };
                if v == "—" || unit.is_empty() {
                    continue;
                }
                let t = throughputs.get(&(group.clone(), input.clone())).copied();
                let median = match (unit, t, v.parse::<f64>()) {
                    ("time", _, _) => time_back(v),
                    ("GB/s", Some(Throughput::Bytes(b)), Ok(s)) if s > 0.0 => Some(b / s),
                    ("Melem/s", Some(Throughput::Elements(e)), Ok(s)) if s > 0.0 => {
                        Some(e * 1e3 / s)
                    }
                    _ => None,
                };
                let Some(median_ns) = median else {
                    skipped += 1;
                    continue;
                };
                let throughput =
                    if unit == "time" { t.unwrap_or(Throughput::None) } else { t.unwrap() };
                rows.push(Row {
                    commit: commit.to_owned(),
                    date: date.clone(),
                    run: options.clone(),
                    section: process_of(&section, &group, function),
                    group: group.clone(),
                    input: input.clone(),
                    implementation: function.clone(),
                    version: None,
                    median_ns,
                    ci_low_ns: median_ns,
                    ci_high_ns: median_ns,
                    throughput,
                });
            }
        }
    }
    let (vendor, family, model, stepping) = cpu;
    let flags = field("features");
    let machine = Machine {
        slug: record::slug(vendor, family, model, stepping, &flags),
        arch: "x86_64".into(),
        vendor: vendor.into(),
        family,
        model,
        stepping,
        model_name: field("CPU"),
        flags,
        cores: field("cores").parse().unwrap_or(0),
        kernel: field("kernel"),
        glibc: field("glibc"),
        rustc: field("rustc"),
    };
    let run = Run {
        commit: commit.to_owned(),
        date,
        options,
        quick: field("command").contains("--quick"),
        crates: Vec::new(),
        load: field("load"),
    };
    Imported { record: Record { machine, runs: vec![run], rows }, skipped }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "# Benchmark report\n\n\
- **date**: 2026-11-28 17:16 UTC\n\
- **CPU**: Intel(R) Xeon(R) Processor @ 2.50GHz\n\
- **cores**: 2\n\
- **load**: 1.00 1.07 1.19 1/81 24328\n\
- **features**: sse2 avx512f avx512bw erms\n\
- **command**: `cargo xtask bench --quick`\n\n\
## Where we lose\n\n\
| ratio | section | table | ours | size | ours | best peer | peer |\n\
|---|---|---|---|---|---|---|---|\n\
| 0.38× | default | b64/encode | b64 | 16 | 0.479 GB/s | base64-simd | 1.264 GB/s |\n\n\
## Default build (headline)\n\n\
#### b64/encode\n\n\
`b64/encode`: median throughput in GB/s (higher is better)\n\n\
| size | b64 | base64-simd | b64 / best peer |\n\
|---|---|---|---|\n\
| 16 | 0.500 | 1.000 | 0.50× (base64-simd) |\n\
| 1 KiB | 10.240 | — | — |\n\n\
#### bignum-fib/fib\n\n\
`bignum-fib/fib`: median time per operation (lower is better)\n\n\
| size | bignum-fib | malachite-nz 0.14.0 | bignum-fib / best peer |\n\
|---|---|---|---|\n\
| 10000 | 5.08 µs | 8.01 µs | 1.58× (malachite-nz) |\n\n\
## Tier x86-64-v3\n\n\
#### b64/encode\n\n\
`b64/encode`: median throughput in GB/s (higher is better)\n\n\
| size | b64 | base64-simd | foldhash-quality (shared) | b64 / best peer |\n\
|---|---|---|---|---|\n\
| 16 | 0.400 | 1.000 | 9.000 | 0.40× (base64-simd) |\n\
| 64 | 0.400 | 1.000 | 9.000 | 0.40× (base64-simd) |\n";

    #[test]
    fn a_report_becomes_a_record() {
        let mut live = Record::default();
        for (input, bytes) in [("16", 16.0), ("1024", 1024.0)] {
            live.rows.push(Row {
                throughput: Throughput::Bytes(bytes),
                ..record::tests::row("default", "b64/encode", input, "b64", 1.0)
            });
        }
        let got = import(REPORT, &live, ("GenuineIntel", 6, 85, 7), "f2a360f");
        let r = &got.record;
        assert_eq!(r.machine.slug, "intel-cascadelake");
        assert_eq!(r.runs[0].date, "2026-11-28T17:16Z");
        assert!(r.runs[0].quick);
        let find = |section: &str, imp: &str, input: &str| {
            r.rows
                .iter()
                .find(|x| {
                    x.section == section
                        && x.implementation == imp
                        && x.input.as_deref() == Some(input)
                })
                .map(|x| x.median_ns)
        };
        // 16 bytes at 0.5 GB/s: 32 ns; 1 KiB at 10.24 GB/s: 100 ns.
        assert!((find("default", "b64", "16").unwrap() - 32.0).abs() < 1e-9);
        assert!((find("default", "b64", "1024").unwrap() - 100.0).abs() < 1e-9);
        assert!((find("default", "malachite-nz", "10000").unwrap() - 8010.0).abs() < 1e-6);
        // Tier rows: ours in the capped process; the shared column is not imported.
        assert!(find("cap-x86-64-v3", "b64", "16").is_some());
        assert!(r.rows.iter().all(|x| !x.implementation.contains("foldhash")));
        // 64 B has no throughput in the live run: skipped and counted (b64 and base64-simd).
        assert_eq!(got.skipped, 2);
        // The record reads back, and its ratios are the report's.
        let back = record::from_jsonl(&record::to_jsonl(r)).unwrap();
        assert_eq!(back.rows.len(), r.rows.len());
    }

    #[test]
    fn headers_and_params() {
        assert_eq!(column_back("xxh3-64 (xxhash-rust 0.8.21)").as_deref(), Some("xxh3-64"));
        assert_eq!(column_back("malachite-nz 0.14.0").as_deref(), Some("malachite-nz"));
        assert_eq!(column_back("b64-avx2").as_deref(), Some("b64-avx2"));
        assert_eq!(column_back("b64 / best peer"), None);
        assert_eq!(column_back("foldhash-quality (shared)"), None);
        assert_eq!(param_back("4 MiB").as_deref(), Some("4194304"));
        assert_eq!(param_back("4K-64K").as_deref(), Some("4K-64K"));
        assert_eq!(param_back("-"), None);
        assert_eq!(time_back("12.41 µs"), Some(12410.0));
    }
}
