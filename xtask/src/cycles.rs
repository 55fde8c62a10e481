//! `cargo xtask cycles`: fails when a crate's modules import each other in a cycle (STYLE.md
//! point 11: arrows run one way), naming each cycle with the `file:line` of one edge per step.
//!
//! Every workspace member (the `members` of the root `Cargo.toml`) is read from its sources:
//! the library (`src/lib.rs`) and each binary (`src/main.rs`, `src/bin/*.rs`,
//! `src/bin/*/main.rs`) is a crate whose modules come from `mod x;` declarations (`x.rs`,
//! `x/mod.rs`, or a `#[path]`) and inline `mod x { ... }` blocks. A small tokenizer (no `syn`:
//! xtask has no dependencies) drops comments and literals; then:
//!
//! - **Edges** are the paths that start with `crate::`, `$crate::`, `self::` or `super::` (or
//!   with the name of a child module: `use arch::Aesni` is `use self::arch::Aesni`) in any
//!   position: `use` trees, grouped ones included, inline paths in code and types, macro bodies.
//!   `use super::*` is an edge to the parent.
//! - A path resolves to the longest prefix that is a module; the next segment is an item of that
//!   module, and if the module only imports it (`use`, `pub use`, or a glob that provides it),
//!   the import is followed to the module that defines the item.
//! - Not edges: `mod` declarations, anything under `#[cfg(test)]` (a `mod tests { ... }`, a
//!   module file declared under it, or one that starts with `#![cfg(test)]`), an edge into the
//!   crate root (`lib.rs` is the API and holds nothing the modules share, STYLE.md point 1), and
//!   a module's edge to itself.
//!
//! A strongly connected component of more than one module is a cycle; one shortest cycle is
//! printed per component.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::util::root;

/// `cargo xtask cycles`: every member of the workspace; `Err` lists the cycles. With `edges`,
/// first prints every edge with the `file:line` of its first path.
pub fn run(edges: bool) -> Result<(), String> {
    let root = root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read the workspace's Cargo.toml: {e}"))?;
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let mut report = String::new();
    let (mut crates, mut modules) = (0, 0);
    for member in members(&manifest, &root) {
        for target in targets(&root.join(&member)) {
            let graph = Graph::load(&target, &read);
            let rel = target.strip_prefix(&root).unwrap_or(&target);
            crates += 1;
            if edges {
                for (&(a, b), (f, l)) in &graph.edges {
                    let f = f.strip_prefix(&root).unwrap_or(f);
                    let (a, b) = (graph.name(a), graph.name(b));
                    println!("{}: {a} -> {b}: {}:{l}", rel.display(), f.display());
                }
            }
            modules += graph.modules.len();
            for cycle in graph.cycles() {
                report += &format!("{}: {}\n", rel.display(), cycle.show(&root));
            }
        }
    }
    if report.is_empty() {
        eprintln!("xtask: cycles: none in {crates} crates ({modules} modules)");
        Ok(())
    } else {
        eprint!("{report}");
        Err(format!(
            "module cycles (above): move what both sides share into a leaf module below them \
             (STYLE.md point 11); {crates} crates, {modules} modules checked"
        ))
    }
}

/// The `members` of the `[workspace]` table, as directories relative to `root`; a trailing
/// `/*` stands for every directory with a `Cargo.toml` under it.
fn members(manifest: &str, root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if !inside {
            inside = line.starts_with("members") && line.contains('[');
        }
        if !inside {
            continue;
        }
        let list = line.split_once('[').map_or(line, |(_, rest)| rest);
        for item in list.split(',') {
            let name = item.trim().trim_end_matches(']').trim().trim_matches('"');
            if name.is_empty() {
                continue;
            }
            if let Some(dir) = name.strip_suffix("/*") {
                let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|e| e.path().join("Cargo.toml").is_file())
                    .map(|e| Path::new(dir).join(e.file_name()))
                    .collect();
                found.sort();
                out.extend(found);
            } else {
                out.push(name.into());
            }
        }
        if line.contains(']') {
            break;
        }
    }
    out
}

/// The crate roots of a package: its library and binaries.
fn targets(package: &Path) -> Vec<PathBuf> {
    let src = package.join("src");
    let mut out: Vec<PathBuf> =
        [src.join("lib.rs"), src.join("main.rs")].into_iter().filter(|p| p.is_file()).collect();
    let mut bins: Vec<PathBuf> = std::fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| {
            if p.extension().is_some_and(|x| x == "rs") {
                Some(p)
            } else {
                Some(p.join("main.rs")).filter(|m| m.is_file())
            }
        })
        .collect();
    bins.sort();
    out.extend(bins);
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A string literal's contents (kept for `#[path = "..."]` only).
    Str(String),
    Punct(&'static str),
}

/// The tokens of a source file with their lines: identifiers (keywords included, `r#` dropped),
/// string literals and punctuation (what the scanner does not look at as `?`); comments,
/// numbers, character literals and lifetimes are dropped.
fn tokenize(src: &str) -> Vec<(Tok, usize)> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident_start = |c: char| c.is_alphabetic() || c == '_';
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied().unwrap_or('\0');
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(s[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some((text, end)) = string_literal(&s, i) {
            line += s[i..end].iter().filter(|&&c| c == '\n').count();
            out.push((Tok::Str(text), line));
            i = end;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime / label ('a).
            if next == '\\' {
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < s.len() && ident_char(s[i]) {
                    i += 1;
                }
            }
        } else if ident_start(c) {
            let mut start = i;
            if c == 'r' && next == '#' && s.get(i + 2).is_some_and(|&c| ident_start(c)) {
                start += 2;
                i += 2;
            }
            while i < s.len() && ident_char(s[i]) {
                i += 1;
            }
            out.push((Tok::Ident(s[start..i].iter().collect()), line));
        } else if c.is_ascii_digit() {
            while i < s.len() && (ident_char(s[i]) || s[i] == '.' && s.get(i + 1) != Some(&'.')) {
                i += 1;
            }
        } else {
            let p = match (c, next) {
                (':', ':') => "::",
                ('-', '>') => "->",
                ('=', '>') => "=>",
                ('{', _) => "{",
                ('}', _) => "}",
                ('(', _) => "(",
                (')', _) => ")",
                ('[', _) => "[",
                (']', _) => "]",
                (';', _) => ";",
                (',', _) => ",",
                ('#', _) => "#",
                ('!', _) => "!",
                ('*', _) => "*",
                ('$', _) => "$",
                ('=', _) => "=",
                ('.', _) => ".",
                ('<', _) => "<",
                ('>', _) => ">",
                // Other punctuation matters only as "not `::`" before a path.
                _ => "?",
            };
            i += if matches!(p, "::" | "->" | "=>") { 2 } else { 1 };
            out.push((Tok::Punct(p), line));
        }
    }
    out
}

/// A string literal starting at `i` (`"..."`, `b"..."`, `c"..."`, `r#"..."#`, `br"..."`):
/// its contents (escapes left as written) and the index after it.
fn string_literal(s: &[char], i: usize) -> Option<(String, usize)> {
    let mut j = i;
    if matches!(s[j], 'b' | 'c') {
        j += 1;
    }
    let raw = s.get(j) == Some(&'r');
    if raw {
        j += 1;
    }
    let mut hashes = 0;
    while raw && s.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if s.get(j) != Some(&'"') {
        return None;
    }
    // `b`/`c`/`r` must start the token: not the tail of an identifier such as `sub"`.
    if j > i && i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_') {
        return None;
    }
    j += 1;
    let start = j;
    while j < s.len() {
        if !raw && s[j] == '\\' {
            j += 2;
            continue;
        }
        if s[j] == '"' && s[j + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
            let text = s[start..j].iter().collect();
            return Some((text, j + 1 + hashes));
        }
        j += 1;
    }
    Some((s[start..].iter().collect(), s.len()))
}

/// Where a path starts.
#[derive(Clone, Debug)]
enum Base {
    /// `crate::` or `$crate::`.
    Crate,
    /// `self::` (0) or `super::` repeated n times.
    Up(usize),
    /// A bare first segment: a path relative to the module if it names a child module (the
    /// segment stays in the path), else an external crate or a local name, not an edge.
    Bare,
}

#[derive(Clone, Debug)]
struct RawPath {
    base: Base,
    segs: Vec<String>,
    /// The path ends in `::*`.
    glob: bool,
    line: usize,
}

/// A name a `use` brings into a module (`None`: a glob, or `as _`), and the path it comes
/// from.
#[derive(Clone, Debug)]
struct Binding {
    name: Option<String>,
    path: RawPath,
}

#[derive(Debug, Default)]
struct Module {
    /// Segments from the crate root.
    path: Vec<String>,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    file: PathBuf,
    /// Where `mod x;` inside this module looks for `x.rs` / `x/mod.rs`.
    child_dir: PathBuf,
    items: BTreeSet<String>,
    bindings: Vec<Binding>,
    refs: Vec<RawPath>,
}

/// The module tree of one crate and the edges between its modules.
struct Graph {
    modules: Vec<Module>,
    /// (from, to) -> (file, line) of the first path that makes the edge.
    edges: BTreeMap<(usize, usize), (PathBuf, usize)>,
}

/// A cycle: modules and, for each step, the file and line of one edge.
struct Cycle {
    steps: Vec<(String, String, PathBuf, usize)>,
    /// Every module of the strongly connected component, when there are more than the cycle's.
    knot: Vec<String>,
}

impl Cycle {
    fn show(&self, root: &Path) -> String {
        let mut s: Vec<&str> = self.steps.iter().map(|(a, ..)| a.as_str()).collect();
        s.push(self.steps[0].0.as_str());
        let mut out = s.join(" -> ");
        for (a, b, file, line) in &self.steps {
            let f = file.strip_prefix(root).unwrap_or(file);
            out += &format!("\n    {a} -> {b}: {}:{line}", f.display());
        }
        if !self.knot.is_empty() {
            out += &format!(
                "\n    (one cycle of a knot of {}: {})",
                self.knot.len(),
                self.knot.join(", ")
            );
        }
        out
    }
}

impl Graph {
    /// Reads the crate whose root file is `root_file`; `read` gives a file's text (`None`: no
    /// such file; the module is then empty).
    fn load(root_file: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Graph {
        let dir = root_file.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut g = Graph {
            modules: vec![Module { file: root_file.into(), child_dir: dir, ..Default::default() }],
            edges: BTreeMap::new(),
        };
        if let Some(text) = read(root_file) {
            let toks = tokenize(&text);
            g.parse(0, &toks, read);
        }
        g.resolve_edges();
        g
    }

    fn name(&self, m: usize) -> String {
        let p = &self.modules[m].path;
        if p.is_empty() { "crate".into() } else { p.join("::") }
    }

    fn child(&mut self, parent: usize, name: &str, file: PathBuf, child_dir: PathBuf) -> usize {
        if let Some(&c) = self.modules[parent].children.get(name) {
            return c;
        }
        let mut path = self.modules[parent].path.clone();
        path.push(name.into());
        self.modules.push(Module {
            path,
            parent: Some(parent),
            file,
            child_dir,
            ..Default::default()
        });
        let c = self.modules.len() - 1;
        self.modules[parent].children.insert(name.into(), c);
        c
    }

    /// Reads the items of module `m` from `toks` (its file, or the inside of its `mod { }`).
    fn parse(&mut self, m: usize, toks: &[(Tok, usize)], read: &dyn Fn(&Path) -> Option<String>) {
        let ident = |i: usize| match toks.get(i) {
            Some((Tok::Ident(s), _)) => Some(s.as_str()),
            _ => None,
        };
        let punct = |i: usize, p: &str| matches!(toks.get(i), Some((Tok::Punct(q), _)) if *q == p);
        let mut depth = 0usize;
        let mut attrs: Vec<Vec<Tok>> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            // Attributes: `#[...]` apply to the next item, `#![...]` to this module.
            if punct(i, "#") && (punct(i + 1, "[") || punct(i + 1, "!") && punct(i + 2, "[")) {
                let inner = punct(i + 1, "!");
                let open = if inner { i + 2 } else { i + 1 };
                let close = matching(toks, open);
                let attr: Vec<Tok> = toks[open + 1..close].iter().map(|(t, _)| t.clone()).collect();
                i = close + 1;
                if inner && is_cfg_test(&attr) {
                    // The whole module is test-only: no edges from it.
                    self.modules[m].refs.clear();
                    self.modules[m].bindings.clear();
                    return;
                }
                if !inner {
                    attrs.push(attr);
                }
                continue;
            }
            let item_attrs = std::mem::take(&mut attrs);
            if item_attrs.iter().any(|a| is_cfg_test(a)) {
                i = item_end(toks, i, depth > 0);
                continue;
            }
            match &toks[i].0 {
                Tok::Punct("{") | Tok::Punct("(") | Tok::Punct("[") => depth += 1,
                Tok::Punct("}") | Tok::Punct(")") | Tok::Punct("]") => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            let at_item_level = depth == 0;
            match ident(i) {
                Some("mod") if at_item_level => {
                    let Some(name) = ident(i + 1) else {
                        i += 1;
                        continue;
                    };
                    let name = name.to_string();
                    if punct(i + 2, ";") {
                        let parent_dir = self.modules[m].child_dir.clone();
                        let explicit = item_attrs.iter().find_map(|a| path_attr(a));
                        let candidates = match explicit {
                            Some(p) => {
                                // `#[path]` is relative to the declaring file's directory.
                                let base = self.modules[m].file.parent().unwrap_or(Path::new(""));
                                vec![base.join(p)]
                            }
                            None => vec![
                                parent_dir.join(format!("{name}.rs")),
                                parent_dir.join(&name).join("mod.rs"),
                            ],
                        };
                        let found = candidates.iter().find_map(|p| read(p).map(|t| (p, t)));
                        let (file, text) = match found {
                            Some((p, t)) => (p.clone(), Some(t)),
                            None => (candidates[0].clone(), None),
                        };
                        let child_dir = if file.file_name().is_some_and(|f| f == "mod.rs") {
                            file.parent().unwrap_or(Path::new("")).to_path_buf()
                        } else {
                            parent_dir.join(&name)
                        };
                        let c = self.child(m, &name, file, child_dir);
                        if let Some(text) = text {
                            self.parse(c, &tokenize(&text), read);
                        }
                        i += 3;
                        continue;
                    }
                    if punct(i + 2, "{") {
                        let close = matching(toks, i + 2);
                        let file = self.modules[m].file.clone();
                        let child_dir = self.modules[m].child_dir.join(&name);
                        let c = self.child(m, &name, file, child_dir);
                        self.parse(c, &toks[i + 3..close], read);
                        i = close + 1;
                        continue;
                    }
                }
                Some("use") => {
                    let mut j = i + 1;
                    let mut out = Vec::new();
                    use_tree(toks, &mut j, &[], &mut out);
                    while j < toks.len() && !punct(j, ";") {
                        j += 1;
                    }
                    j += 1;
                    for b in out {
                        self.modules[m].refs.push(b.path.clone());
                        if at_item_level {
                            self.modules[m].bindings.push(b);
                        }
                    }
                    i = j;
                    continue;
                }
                Some(
                    kw @ ("fn" | "struct" | "enum" | "trait" | "type" | "const" | "static"
                    | "union"),
                ) if at_item_level => {
                    let mut j = i + 1;
                    while kw == "static" && ident(j) == Some("mut") {
                        j += 1;
                    }
                    if let Some(name) = ident(j) {
                        self.modules[m].items.insert(name.into());
                    }
                }
                Some("macro_rules") if at_item_level && punct(i + 1, "!") => {
                    if let Some(name) = ident(i + 2) {
                        self.modules[m].items.insert(name.into());
                    }
                }
                _ => {}
            }
            if let Some((p, end)) = path_at(toks, i) {
                self.modules[m].refs.push(p);
                i = end;
                continue;
            }
            i += 1;
        }
    }

    /// The module that `segs`, taken from module `base`, names or defines the item of; `None`
    /// when nothing in the crate defines it there. `seen` guards against import loops.
    fn resolve(&self, base: usize, segs: &[String], seen: &mut BTreeSet<(usize, String)>) -> usize {
        let mut cur = base;
        let mut k = 0;
        while k < segs.len() {
            match self.modules[cur].children.get(&segs[k]) {
                Some(&c) => cur = c,
                None => break,
            }
            k += 1;
        }
        if k == segs.len() {
            return cur;
        }
        self.find(cur, &segs[k], seen).unwrap_or(cur)
    }

    /// The module that defines `name` as seen from module `m` (its own item, or where an
    /// import of `m` leads), or `None`.
    fn find(&self, m: usize, name: &str, seen: &mut BTreeSet<(usize, String)>) -> Option<usize> {
        if self.modules[m].items.contains(name) {
            return Some(m);
        }
        if !seen.insert((m, name.to_string())) {
            return None;
        }
        for b in &self.modules[m].bindings {
            if b.name.as_deref() == Some(name) {
                let (base, segs) = self.base(m, &b.path)?;
                return Some(self.resolve(base, &segs, seen));
            }
        }
        for b in self.modules[m].bindings.iter().filter(|b| b.path.glob) {
            let Some((base, segs)) = self.base(m, &b.path) else { continue };
            let target = self.resolve(base, &segs, seen);
            if let Some(found) = self.find(target, name, seen) {
                return Some(found);
            }
        }
        None
    }

    /// The module a path starts from and the segments after it; `None` for a path outside the
    /// crate.
    fn base(&self, m: usize, p: &RawPath) -> Option<(usize, Vec<String>)> {
        match p.base {
            Base::Crate => Some((0, p.segs.clone())),
            Base::Up(n) => {
                let mut cur = m;
                for _ in 0..n {
                    cur = self.modules[cur].parent?;
                }
                Some((cur, p.segs.clone()))
            }
            Base::Bare => {
                let first = p.segs.first()?;
                self.modules[m].children.contains_key(first).then(|| (m, p.segs.clone()))
            }
        }
    }

    fn resolve_edges(&mut self) {
        let mut edges = BTreeMap::new();
        // The root's edges cannot close a cycle (no edge goes into the root).
        for m in 1..self.modules.len() {
            for p in &self.modules[m].refs {
                let Some((base, segs)) = self.base(m, p) else { continue };
                let to = self.resolve(base, &segs, &mut BTreeSet::new());
                if to != 0 && to != m {
                    edges.entry((m, to)).or_insert((self.modules[m].file.clone(), p.line));
                }
            }
        }
        self.edges = edges;
    }

    /// One shortest cycle per strongly connected component of more than one module.
    fn cycles(&self) -> Vec<Cycle> {
        let n = self.modules.len();
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in self.edges.keys() {
            adj[a].push(b);
        }
        let comp = scc(&adj);
        let mut out = Vec::new();
        let mut done = BTreeSet::new();
        for start in 0..n {
            let c = comp[start];
            if done.contains(&c) || comp.iter().filter(|&&x| x == c).count() < 2 {
                continue;
            }
            done.insert(c);
            // Shortest path back to `start` inside the component (breadth first).
            let mut prev = vec![usize::MAX; n];
            let mut queue = VecDeque::from([start]);
            'bfs: while let Some(a) = queue.pop_front() {
                for &b in &adj[a] {
                    if comp[b] != c {
                        continue;
                    }
                    if b == start {
                        prev[start] = a;
                        break 'bfs;
                    }
                    if prev[b] == usize::MAX {
                        prev[b] = a;
                        queue.push_back(b);
                    }
                }
            }
            let mut ring = vec![start];
            let mut cur = prev[start];
            while cur != start {
                ring.push(cur);
                cur = prev[cur];
            }
            ring.reverse();
            ring.rotate_right(1);
            let steps = (0..ring.len())
                .map(|k| {
                    let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
                    let (file, line) = self.edges[&(a, b)].clone();
                    (self.name(a), self.name(b), file, line)
                })
                .collect();
            let knot: Vec<String> =
                (0..n).filter(|&m| comp[m] == c).map(|m| self.name(m)).collect();
            let knot = if knot.len() > ring.len() { knot } else { Vec::new() };
            out.push(Cycle { steps, knot });
        }
        out
    }
}

/// Tarjan's strongly connected components: the component number of each node.
fn scc(adj: &[Vec<usize>]) -> Vec<usize> {
    struct State<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<usize>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        comp: Vec<usize>,
        next: usize,
        comps: usize,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = s.next;
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.adj[v].len() {
            let w = s.adj[v][k];
            if s.index[w] == usize::MAX {
                visit(s, w);
                s.low[v] = s.low[v].min(s.low[w]);
            } else if s.on_stack[w] {
                s.low[v] = s.low[v].min(s.index[w]);
            }
        }
        if s.low[v] == s.index[v] {
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                s.comp[w] = s.comps;
                if w == v {
                    break;
                }
            }
            s.comps += 1;
        }
    }
    let n = adj.len();
    let mut s = State {
        adj,
        index: vec![usize::MAX; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        comp: vec![0; n],
        next: 0,
        comps: 0,
    };
    for v in 0..n {
        if s.index[v] == usize::MAX {
            visit(&mut s, v);
        }
    }
    s.comp
}

/// The index of the bracket that closes the one at `open`.
fn matching(toks: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct("{" | "(" | "[") => depth += 1,
            Tok::Punct("}" | ")" | "]") => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len().saturating_sub(1)
}

/// The index after the item that starts at `i`: after its `;`, or after its body's `}`; in a
/// list (`in_list`: a field, a variant, a match arm), after its `,` or before the list's end.
fn item_end(toks: &[(Tok, usize)], mut i: usize, in_list: bool) -> usize {
    // Open `<` of generics: a `,` inside them does not end the item.
    let mut angle = 0usize;
    while i < toks.len() {
        match toks[i].0 {
            Tok::Punct(";") => return i + 1,
            Tok::Punct("<") => {
                angle += 1;
                i += 1;
            }
            Tok::Punct(">") => {
                angle = angle.saturating_sub(1);
                i += 1;
            }
            Tok::Punct(",") if in_list && angle == 0 => return i + 1,
            Tok::Punct("}" | ")" | "]") => return i,
            Tok::Punct("{") => return matching(toks, i) + 1,
            Tok::Punct("(" | "[") => i = matching(toks, i) + 1,
            _ => i += 1,
        }
    }
    i
}

/// `cfg(test)`, or `cfg(all(..., test, ...))`: the item exists in test builds only.
fn is_cfg_test(attr: &[Tok]) -> bool {
    let id = |s: &str| Tok::Ident(s.into());
    if attr.first() != Some(&id("cfg")) {
        return false;
    }
    if attr[1..] == [Tok::Punct("("), id("test"), Tok::Punct(")")] {
        return true;
    }
    // `all(` ... `)`: `test` directly inside it.
    if attr.get(2) != Some(&id("all")) {
        return false;
    }
    let mut depth = 0;
    for t in &attr[3..] {
        match t {
            Tok::Punct("(") => depth += 1,
            Tok::Punct(")") => depth -= 1,
            t if depth == 1 && *t == id("test") => return true,
            _ => {}
        }
    }
    false
}

/// The file of `#[path = "..."]`.
fn path_attr(attr: &[Tok]) -> Option<String> {
    match attr {
        [Tok::Ident(p), Tok::Punct("="), Tok::Str(s)] if p == "path" => Some(s.clone()),
        _ => None,
    }
}

/// Parses a `use` tree from `toks[*j]` (up to its `,`, `}` or `;`, not consumed) below the
/// segments `prefix`, and adds its leaves to `out`.
fn use_tree(toks: &[(Tok, usize)], j: &mut usize, prefix: &[String], out: &mut Vec<Binding>) {
    let mut segs = prefix.to_vec();
    let line = toks.get(*j).map_or(0, |t| t.1);
    loop {
        match toks.get(*j).map(|t| &t.0) {
            Some(Tok::Punct("::")) => {
                if segs.is_empty() {
                    // `use ::name`: an external crate.
                    segs.push("::".into());
                }
                *j += 1;
            }
            Some(Tok::Punct("$")) => *j += 1,
            Some(Tok::Ident(s)) if s != "as" => {
                segs.push(s.clone());
                *j += 1;
            }
            _ => break,
        }
    }
    let punct = |j: usize, p: &str| matches!(toks.get(j), Some((Tok::Punct(q), _)) if *q == p);
    if punct(*j, "*") {
        *j += 1;
        out.extend(use_leaf(segs, true, None, line));
    } else if punct(*j, "{") {
        *j += 1;
        while *j < toks.len() && !punct(*j, "}") {
            let before = *j;
            use_tree(toks, j, &segs, out);
            if punct(*j, ",") || *j == before {
                *j += 1;
            }
        }
        *j += 1;
    } else {
        let mut alias = None;
        if matches!(toks.get(*j), Some((Tok::Ident(a), _)) if a == "as") {
            if let Some((Tok::Ident(a), _)) = toks.get(*j + 1) {
                alias = Some(a.clone());
            }
            *j += 2;
        }
        out.extend(use_leaf(segs, false, alias, line));
    }
}

/// The binding of one leaf of a `use` tree (`None` outside the crate).
fn use_leaf(
    mut segs: Vec<String>,
    glob: bool,
    alias: Option<String>,
    line: usize,
) -> Option<Binding> {
    let first = segs.first()?.clone();
    if first == "::" {
        return None;
    }
    let base = match first.as_str() {
        "crate" => {
            segs.remove(0);
            Base::Crate
        }
        "self" | "super" => {
            let n = segs.iter().take_while(|s| *s == "self" || *s == "super").count();
            let up = segs[..n].iter().filter(|s| *s == "super").count();
            segs.drain(..n);
            Base::Up(up)
        }
        _ => Base::Bare,
    };
    if segs.last().is_some_and(|s| s == "self") {
        // `a::{self}`: the module `a`.
        segs.pop();
    }
    let name = match alias {
        Some(a) => Some(a).filter(|a| a != "_"),
        None if glob => None,
        None => segs.last().cloned(),
    };
    Some(Binding { name, path: RawPath { base, segs, glob, line } })
}

/// A path that starts at `toks[i]` (`crate::`, `$crate::`, `self::`, `super::`, or a bare
/// `name::` that may name a child module), outside `use` lines, and the index after it.
fn path_at(toks: &[(Tok, usize)], i: usize) -> Option<(RawPath, usize)> {
    let is = |k: usize, p: &str| matches!(toks.get(k), Some((Tok::Punct(q), _)) if *q == p);
    let ident = |k: usize| match toks.get(k) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let first = ident(i)?;
    // Inside a path, after a field access, or `pub(in crate::x)`: not a start.
    let visibility = i > 1 && ident(i - 1) == Some("in") && is(i - 2, "(");
    if i > 0 && (is(i - 1, "::") || is(i - 1, ".")) || visibility {
        return None;
    }
    if !is(i + 1, "::") {
        return None;
    }
    let mut k = i;
    let base = match first {
        "crate" => {
            k += 2;
            Base::Crate
        }
        "self" | "super" => {
            let mut n = 0;
            while matches!(ident(k), Some("self" | "super")) && is(k + 1, "::") {
                n += usize::from(ident(k) == Some("super"));
                k += 2;
            }
            Base::Up(n)
        }
        _ => Base::Bare,
    };
    let mut segs = Vec::new();
    while let Some(s) = ident(k) {
        segs.push(s.to_string());
        k += 1;
        if !(is(k, "::") && ident(k + 1).is_some()) {
            break;
        }
        k += 1;
    }
    Some((RawPath { base, segs, glob: false, line: toks[i].1 }, k.max(i + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads a crate from in-memory files (`src/lib.rs` is the root).
    fn load(files: &[(&str, &str)]) -> Graph {
        let files: BTreeMap<PathBuf, String> =
            files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        Graph::load(Path::new("src/lib.rs"), &|p: &Path| files.get(p).cloned())
    }

    fn shown(g: &Graph) -> Vec<String> {
        g.cycles().iter().map(|c| c.show(Path::new(""))).collect()
    }

    fn edges(g: &Graph) -> Vec<String> {
        g.edges.keys().map(|&(a, b)| format!("{} -> {}", g.name(a), g.name(b))).collect()
    }

    #[test]
    fn planted_cycle_is_reported_with_lines() {
        let g = load(&[
            ("src/lib.rs", "mod a;\nmod b;\npub use a::X;\n"),
            ("src/a.rs", "use crate::b::Y;\npub struct X;\n"),
            ("src/b.rs", "pub struct Y;\n\nfn f() { let _ = crate::a::helper(); }\n"),
        ]);
        let c = shown(&g);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(c[0].starts_with("a -> b -> a"), "{}", c[0]);
        assert!(c[0].contains("a -> b: src/a.rs:1"), "{}", c[0]);
        assert!(c[0].contains("b -> a: src/b.rs:3"), "{}", c[0]);
    }

    #[test]
    fn acyclic_crate_passes() {
        let g = load(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::b::Y;\nuse crate::c::{Z, W};\n"),
            ("src/b.rs", "pub struct Y;\nfn f() { crate::c::g() }\n"),
            ("src/c.rs", "pub struct Z;\npub struct W;\npub fn g() {}\n"),
        ]);
        assert!(shown(&g).is_empty());
        assert_eq!(edges(&g), ["a -> b", "a -> c", "b -> c"]);
    }

    #[test]
    fn test_modules_declarations_and_root_edges_are_ignored() {
        let g = load(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\n#[cfg(test)]\nmod fixtures;\npub struct Api;\nuse a::X;\n",
            ),
            (
                "src/a.rs",
                "pub struct X;\nfn f() -> crate::Api { crate::Api }\nuse crate::b::Y;\n\
                 #[cfg(test)]\nmod tests { use crate::b::*; }\n",
            ),
            (
                "src/b.rs",
                "pub struct Y;\nmod inner;\n\
                 #[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::a::X;\n    \
                 fn t() { crate::a::f(); }\n}\n\
                 #[cfg(all(test, feature = \"x\"))]\nuse crate::a::X as Z;\n\
                 impl Y {\n    #[cfg(test)]\n    fn t() -> Result<(), crate::a::X> { crate::a::f() }\n    \
                 fn u(&self) {}\n}\n",
            ),
            ("src/b/inner.rs", "#![cfg(test)]\nuse crate::a::X;\n"),
            ("src/fixtures.rs", "use crate::a::X;\nuse crate::b::Y;\n"),
        ]);
        assert!(shown(&g).is_empty(), "{:?}", shown(&g));
        assert_eq!(edges(&g), ["a -> b"]);
    }

    #[test]
    fn reexports_are_followed() {
        // `b` uses `crate::Shared` and `crate::a::Shared`: both are defined in `kernels`, which
        // `a` and the root re-export, so there is no cycle a <-> b.
        let g = load(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod kernels;\npub use kernels::Shared;\n"),
            (
                "src/a.rs",
                "pub use crate::kernels::Shared;\npub use crate::kernels::*;\nuse crate::b::f;\n",
            ),
            (
                "src/b.rs",
                "pub fn f() {}\nfn g(_: crate::Shared, _: crate::a::Shared) { crate::a::Other; }\n",
            ),
            ("src/kernels.rs", "pub struct Shared;\npub struct Other;\n"),
        ]);
        assert!(shown(&g).is_empty(), "{:?}", shown(&g));
        assert_eq!(edges(&g), ["a -> b", "a -> kernels", "b -> kernels"]);
    }

    #[test]
    fn grouped_use_super_glob_and_macros_are_edges() {
        let g = load(&[
            ("src/lib.rs", "mod arch;\nmod dispatch;\n"),
            ("src/arch/mod.rs", "pub mod x86;\npub struct Kernels;\n"),
            ("src/arch/x86.rs", "use super::*;\n"),
            (
                "src/dispatch.rs",
                "use crate::{arch::{x86::{self as xx}, Kernels}, dispatch as _};\n\
                 macro_rules! m { () => { $crate::arch::Kernels } }\n",
            ),
        ]);
        assert_eq!(edges(&g), ["arch::x86 -> arch", "dispatch -> arch", "dispatch -> arch::x86"]);
        // ...and a child that uses its parent while the parent uses it is a cycle.
        let g = load(&[
            ("src/lib.rs", "mod v2;\n"),
            ("src/v2/mod.rs", "mod generic;\npub struct State;\nfn f() { generic::run() }\n"),
            ("src/v2/generic.rs", "pub fn run() { let _ = super::State; }\n"),
        ]);
        assert_eq!(shown(&g).len(), 1);
    }

    #[test]
    fn comments_strings_and_inline_modules() {
        let g = load(&[
            (
                "src/lib.rs",
                "mod a;\nmod b {\n    pub fn g() { crate::a::f() }\n}\n#[path = \"other.rs\"]\nmod c;\n",
            ),
            (
                "src/a.rs",
                "// crate::b::g()\n/* crate::b::g() /* nested */ crate::c::h() */\n\
                 pub fn f() { let _ = \"crate::b::g()\"; let _ = r#\"crate::c\"#; let _ = 'x'; }\n\
                 fn l<'a>(x: &'a u8) -> char { '\\'' }\n",
            ),
            ("src/other.rs", "pub fn h() { crate::b::g() }\n"),
        ]);
        assert_eq!(edges(&g), ["b -> a", "c -> b"]);
    }

    #[test]
    fn paths_after_generics_and_references_are_edges() {
        let g = load(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            ("src/a.rs", "fn f() -> usize { core::mem::size_of::<crate::b::S>() }\n"),
            ("src/b.rs", "pub struct S;\nfn g<'a>(_: &'a crate::c::T) {}\n"),
            ("src/c.rs", "pub struct T;\nfn h() -> Vec<crate::d::U> { Vec::new() }\n"),
            ("src/d.rs", "pub struct U;\n"),
        ]);
        assert_eq!(edges(&g), ["a -> b", "b -> c", "c -> d"]);
    }

    #[test]
    fn workspace_members_are_read() {
        let manifest = "[workspace]\nresolver = \"3\"\nmembers = [\n    \"crates/a\", # x\n    \"xtask\",\n]\n";
        assert_eq!(
            members(manifest, Path::new("/nonexistent")),
            [PathBuf::from("crates/a"), PathBuf::from("xtask")]
        );
    }
}
