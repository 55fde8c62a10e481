//! `cargo xtask doclint`: the text users read carries no internal references.
//!
//! - Over every `README.md` the repository tracks and the `//!` docs of every `.rs` file
//!   under a member's `src/`: a hex token of 7 to 40 digits that `git cat-file -e
//!   <token>^{commit}` resolves (a commit hash: it names a point in our history, which a
//!   user of a published crate cannot see), and `issue N` (our tracker's numbers), in any
//!   case. Hex that is not a commit (a test vector's digest, a constant) passes: each token
//!   is looked up, all at once through `git cat-file --batch-check`.
//! - `--html DIR` (after `cargo doc`, DIR its target dir): no page of the documented crates
//!   shows an unresolved intra-doc link as literal `[Name]` or `` [`Name`] `` text. rustdoc
//!   warns of a link it cannot resolve, but a link to a `#[doc(hidden)]` item resolves
//!   without a warning and is rendered as the bracketed text.
//!
//! Each hit is printed as `path:line: what`; any hit fails the command.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::root;

/// The shortest and longest hex token looked up: git's default abbreviation, a full SHA-1.
const HEX_LEN: std::ops::RangeInclusive<usize> = 7..=40;

/// `cargo xtask doclint [--html DIR]`.
pub fn run(args: &[String]) -> Result<(), String> {
    match args {
        [] => {
            let hits = lint_repo()?;
            report(&hits, "README or //! doc")
        }
        [flag, dir] if flag == "--html" => {
            let hits = lint_html(Path::new(dir))?;
            report(&hits, "documentation page")
        }
        _ => Err("usage: cargo xtask doclint [--html TARGET_DIR]".into()),
    }
}

fn report(hits: &[String], what: &str) -> Result<(), String> {
    for h in hits {
        eprintln!("{h}");
    }
    match hits.len() {
        0 => Ok(()),
        n => Err(format!("doclint: {n} hit(s) in {what}s (listed above)")),
    }
}

/// The files to read: tracked `README.md` files whole, and the `//!` lines of the `.rs`
/// files under each member's `src/`. Paths are relative to the workspace root.
fn lint_repo() -> Result<Vec<String>, String> {
    let root = root();
    let listed = git(&root, &["ls-files", "-z"], None)?;
    let mut docs = Vec::new();
    for path in listed.split('\0').filter(|p| !p.is_empty()) {
        let readme = path == "README.md" || path.ends_with("/README.md");
        let member_src = path.ends_with(".rs")
            && (path.starts_with("xtask/src/")
                || path.starts_with("benches/src/")
                || (path.starts_with("crates/") && path.split('/').nth(2) == Some("src")));
        if !readme && !member_src {
            continue;
        }
        // A file deleted in the work tree but still tracked is not read.
        let Ok(text) = std::fs::read_to_string(root.join(path)) else { continue };
        docs.push(Doc { path: path.to_owned(), lines: doc_lines(path, &text) });
    }
    let tokens: Vec<String> = docs
        .iter()
        .flat_map(|d| d.lines.iter().flat_map(|(_, l)| hex_tokens(l)))
        .map(str::to_owned)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let commits = commits(&root, &tokens)?;
    Ok(docs.iter().flat_map(|d| lint(d, &commits)).collect())
}

/// A file's text that users read, as (line number, text) pairs.
struct Doc {
    path: String,
    lines: Vec<(usize, String)>,
}

/// The lines of `text` that users read: all of a Markdown file, the `//!` lines of Rust
/// source (their text after the `//!`).
fn doc_lines(path: &str, text: &str) -> Vec<(usize, String)> {
    let rust = path.ends_with(".rs");
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            if !rust {
                return Some((i + 1, line.to_owned()));
            }
            line.trim_start().strip_prefix("//!").map(|doc| (i + 1, doc.to_owned()))
        })
        .collect()
}

/// The hits of one file: commit hashes (those of `tokens` in `commits`) and issue numbers.
fn lint(doc: &Doc, commits: &HashSet<String>) -> Vec<String> {
    let mut hits = Vec::new();
    for (k, (n, line)) in doc.lines.iter().enumerate() {
        for t in hex_tokens(line) {
            if commits.contains(t) {
                hits.push(format!("{}:{n}: `{t}` is a commit of this repository", doc.path));
            }
        }
        // `issue` at the end of a line, its number on the next.
        let next = doc.lines.get(k + 1).map_or("", |(_, l)| l.as_str());
        if let Some(r) = issue_ref(line, next) {
            hits.push(format!("{}:{n}: `{r}` names an issue of our tracker", doc.path));
        }
    }
    hits
}

/// The maximal runs of ASCII letters, digits and `_` in `line` that are 7-40 hex digits
/// (case-insensitive): `0x1234abcd` and `abc_1234567` are one token each and no hex.
fn hex_tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| HEX_LEN.contains(&t.len()) && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The first `issue N` (also `issue #N`, whitespace of any length, any case) in `line`, the
/// number possibly starting `next`; `issue` must start a word (`tissue 5` is not one).
fn issue_ref(line: &str, next: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    for (at, _) in lower.match_indices("issue") {
        let starts_word = lower[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = &lower[at + "issue".len()..];
        let rest = after.trim_start();
        // Nothing but blanks after it: the number may open the next line.
        let (rest, spaced) = if rest.is_empty() {
            (next.trim_start(), true)
        } else {
            (rest, rest.len() < after.len())
        };
        let number = rest.strip_prefix('#').unwrap_or(rest);
        let digits = number.bytes().take_while(u8::is_ascii_digit).count();
        if starts_word && spaced && digits > 0 {
            return Some(format!("issue {}", &number[..digits]));
        }
    }
    None
}

/// Which of `tokens` name a commit, asked of `git cat-file --batch-check` all at once: a
/// line `<token>^{commit}` each, answered `<sha> commit <size>` when it resolves (and
/// `missing` or `ambiguous` when it does not, as `git cat-file -e` fails then).
fn commits(repo: &Path, tokens: &[String]) -> Result<HashSet<String>, String> {
    if tokens.is_empty() {
        return Ok(HashSet::new());
    }
    let input: String = tokens.iter().map(|t| format!("{t}^{{commit}}\n")).collect();
    let out = git(repo, &["cat-file", "--batch-check"], Some(&input))?;
    let answers: Vec<&str> = out.lines().collect();
    if answers.len() != tokens.len() {
        return Err(format!(
            "git cat-file --batch-check answered {} lines for {} tokens",
            answers.len(),
            tokens.len()
        ));
    }
    Ok(tokens
        .iter()
        .zip(answers)
        .filter(|(_, a)| a.split(' ').nth(1) == Some("commit"))
        .map(|(t, _)| t.clone())
        .collect())
}

/// `git args` in `repo` with `input` on standard input; its standard output.
fn git(repo: &Path, args: &[&str], input: Option<&str>) -> Result<String, String> {
    let shown = format!("git {}", args.join(" "));
    let mut child = Command::new("git")
        .args(args)
        .current_dir(repo)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{shown}` (is git installed?): {e}"))?;
    let mut stdin = child.stdin.take();
    let out = std::thread::scope(|s| {
        if let (Some(mut w), Some(text)) = (stdin.take(), input) {
            s.spawn(move || w.write_all(text.as_bytes()));
        }
        child.wait_with_output()
    })
    .map_err(|e| format!("`{shown}`: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{shown}` failed ({}): {}", out.status, err.trim()));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("`{shown}`: output not UTF-8: {e}"))
}

/// The pages of every crate documented under `target_dir/doc` (a directory with an
/// `all.html`: rustdoc's crate directories, not `src/` or `static.files/`), each page's
/// literal `[Name]` text.
fn lint_html(target_dir: &Path) -> Result<Vec<String>, String> {
    let doc = target_dir.join("doc");
    let entries = std::fs::read_dir(&doc).map_err(|e| {
        format!("no documentation in {} ({e}): run `cargo doc` first", doc.display())
    })?;
    let mut crates: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("all.html").is_file())
        .collect();
    crates.sort();
    let want = crate::matrix::PUBLISHED.len();
    if crates.len() < want {
        return Err(format!(
            "{} documents {} crates, expected at least {want} (matrix::PUBLISHED)",
            doc.display(),
            crates.len()
        ));
    }
    let mut hits = Vec::new();
    for dir in crates {
        let mut pages = Vec::new();
        html_files(&dir, &mut pages);
        pages.sort();
        for page in pages {
            let text = std::fs::read_to_string(&page)
                .map_err(|e| format!("cannot read {}: {e}", page.display()))?;
            for (line, link) in literal_links(own_part(&text)) {
                hits.push(format!("{}:{line}: unresolved link `{link}`", page.display()));
            }
        }
    }
    Ok(hits)
}

/// Every `.html` file under `dir`.
fn html_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_dir() {
            html_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "html") {
            out.push(path);
        }
    }
}

/// The literal link texts of a rustdoc page's prose: `[Name]` and `[<code>Name</code>]` (the
/// rendering of `` [`Name`] ``), where a name is a path of identifiers, maybe ending in `()`
/// or `!`. Not read: code (`<code>`, `<pre>` blocks), signatures (the `code-header`
/// headings), scripts, styles, comments and the tags themselves (their attributes). With the
/// line each starts on.
fn literal_links(html: &str) -> Vec<(usize, String)> {
    // Elements skipped whole: an opening that starts with the first string, up to the second.
    const SKIPPED: [(&str, &str); 8] = [
        ("<!--", "-->"),
        ("<pre", "</pre>"),
        ("<script", "</script>"),
        ("<style", "</style>"),
        ("<h2 class=\"code-header", "</h2>"),
        ("<h3 class=\"code-header", "</h3>"),
        ("<h4 class=\"code-header", "</h4>"),
        ("<code", "</code>"),
    ];
    let mut hits = Vec::new();
    let mut i = 0;
    while i < html.len() {
        let rest = &html[i..];
        if let Some(&(_, close)) = SKIPPED.iter().find(|(open, _)| {
            rest.starts_with(open)
                && (open.ends_with('-') || open.contains(' ') || {
                    let after = rest.as_bytes().get(open.len()).copied();
                    matches!(after, Some(b' ' | b'>'))
                })
        }) {
            i += rest.find(close).map_or(rest.len(), |e| e + close.len());
            continue;
        }
        match rest.as_bytes()[0] {
            // A tag: its attributes are not prose.
            b'<' => {
                i += rest.find('>').map_or(rest.len(), |e| e + 1);
                continue;
            }
            b'[' => {
                let inner = &rest[1..];
                let (name, len) = match inner.strip_prefix("<code>") {
                    Some(c) => c
                        .find("</code>]")
                        .map_or(("", 0), |e| (&c[..e], "<code>".len() + e + "</code>]".len())),
                    None => inner.find(']').map_or(("", 0), |e| (&inner[..e], e + 1)),
                };
                if is_path(name) {
                    let line = html[..i].matches('\n').count() + 1;
                    hits.push((line, format!("[{name}]")));
                    i += 1 + len;
                    continue;
                }
            }
            _ => {}
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    hits
}

/// A page up to its trait implementations: what follows holds the docs of the traits' items
/// (`digest::Mac`'s, std's), written in other crates, whose links rustdoc resolves in those
/// crates' context or not at all.
fn own_part(html: &str) -> &str {
    html.find("<h2 id=\"trait-implementations\"").map_or(html, |end| &html[..end])
}

/// `a`, `a::B`, `f()`, `m!`: a Rust path as an intra-doc link names one.
fn is_path(name: &str) -> bool {
    let name = name.strip_suffix("()").or_else(|| name.strip_suffix('!')).unwrap_or(name);
    !name.is_empty()
        && name.split("::").all(|seg| {
            let mut chars = seg.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lint of one Markdown text against this repository's commits.
    fn lint_text(text: &str) -> Vec<String> {
        let doc = Doc { path: "README.md".into(), lines: doc_lines("README.md", text) };
        let tokens: Vec<String> =
            doc.lines.iter().flat_map(|(_, l)| hex_tokens(l)).map(str::to_owned).collect();
        let commits = commits(&root(), &tokens).expect("git cat-file");
        lint(&doc, &commits)
    }

    fn head(len: usize) -> String {
        let full = git(&root(), &["rev-parse", "HEAD"], None).expect("git rev-parse HEAD");
        full.trim()[..len].to_owned()
    }

    #[test]
    fn planted_commit_hashes_fail() {
        for len in [7, 12, 40] {
            let hash = head(len);
            let hits = lint_text(&format!("Measured at {hash} on Zen 4.\n"));
            assert_eq!(hits, [format!("README.md:1: `{hash}` is a commit of this repository")]);
            // Upper case resolves too.
            assert_eq!(lint_text(&format!("({})", hash.to_uppercase())).len(), 1);
        }
    }

    #[test]
    fn planted_issue_numbers_fail() {
        for text in ["as issue 22 asks", "Issue 22", "see ISSUE #22.", "the issue\n22's note"] {
            let hits = lint_text(text);
            assert_eq!(hits, ["README.md:1: `issue 22` names an issue of our tracker"], "{text}");
        }
        for text in ["the issue asks", "tissue 22", "issue-22", "issues", "issue\nnone"] {
            assert_eq!(lint_text(text), Vec::<String>::new(), "{text}");
        }
    }

    /// Hex that is not a commit passes: NABHash v1's digest of `de ad be ef` (the `nabsum`
    /// docs' example), SHA-256's of "abc" (64 digits: longer than a hash), a constant.
    #[test]
    fn hex_that_is_no_commit_passes() {
        let text = "9041d0d440fe93f69515b771619aa54c  -\n\
            ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\
            0x9e3779b97f4a7c15 and deadbeef, 1000000 bytes";
        assert_eq!(lint_text(text), Vec::<String>::new());
    }

    #[test]
    fn only_doc_comments_of_rust_files_are_read() {
        let text = "//! The crate.\n/// issue 22\nfn f() {} // issue 23\n  //! issue 24\n";
        let lines = doc_lines("src/lib.rs", text);
        assert_eq!(lines, [(1, " The crate.".to_owned()), (4, " issue 24".to_owned())]);
    }

    #[test]
    fn hex_tokens_are_whole_words() {
        let tokens: Vec<&str> =
            hex_tokens("a1b2c3d, 0x1234567 abc_1234567 f4013d0.. abcdef 12345678").collect();
        assert_eq!(tokens, ["a1b2c3d", "f4013d0", "12345678"]);
    }

    #[test]
    fn literal_links_in_html() {
        let page = "<p>See [Backend] and [<code>Thresholds</code>] and \
            [<code>ntt_engine()</code>]\nor [<code>m::x!</code>].</p>\
            <pre class=\"rust\"><code>let a = [x];</code></pre>\
            <p><code>&amp;[u8]</code>, [1, 2], [^note], <a href=\"a.html\"><code>Nat</code></a>, \
            [not a link], <script>let v = [y];</script></p><!--[if lte IE 9]><![endif]-->\
            <h4 class=\"code-header\">fn f(data: &amp;[Self])</h4>\
            <a data-notable-ty=\"&amp;[u8]\" title=\"[T]\">x</a>";
        let names: Vec<String> = literal_links(page).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["[Backend]", "[Thresholds]", "[ntt_engine()]", "[m::x!]"]);
        assert_eq!(literal_links(page)[3].0, 2);
    }
}
