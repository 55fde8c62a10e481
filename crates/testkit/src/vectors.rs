//! The one reader of the test-vector files in each crate's `tests/data/` (STYLE.md rule 6).
//!
//! A file is embedded with [`data_file!`] (so the test binaries carry it under qemu-user and
//! into the kcapi VM) and read in one of two layouts. In both, `#` starts a comment that runs
//! to the end of the line (a line that holds only a comment is skipped), and blank lines are
//! ignored (or separate records):
//!
//! - **rows** ([`DataFile::rows`]): one vector per line, whitespace-separated columns, a fixed
//!   number of them per file (b64, nabhash):
//!
//!   ```text
//!   # Columns: seed len digest
//!   131 0 e99722eb55b3df5f307c5e8e549dd44a
//!   ```
//!
//! - **records** ([`DataFile::records`]): one vector per paragraph of `key = value` lines,
//!   paragraphs separated by blank lines; a value may be empty (kcapi):
//!
//!   ```text
//!   name = Test Case 1
//!   key = 0b0b0b0b
//!   aad =
//!   ```
//!
//! The field helpers [`unhex`], [`hex`] and [`unescape`] decode the usual cell contents. A
//! malformed file panics with its name and line number: these are test helpers.

use std::collections::BTreeMap;
use std::ops::Index;

/// A vector file: its name (for messages) and its text.
#[derive(Clone, Copy, Debug)]
pub struct DataFile {
    /// The file name, as given to [`data_file!`].
    pub name: &'static str,
    /// The whole text.
    pub text: &'static str,
}

/// `tests/data/<file>` of the crate being compiled, embedded at compile time, as a
/// [`DataFile`].
#[macro_export]
macro_rules! data_file {
    ($file:literal) => {
        $crate::vectors::DataFile {
            name: $file,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $file)),
        }
    };
}

/// One line of a rows file: its columns (`row[i]`).
#[derive(Clone, Debug)]
pub struct Row {
    /// `file:line`, for messages.
    pub at: String,
    /// The whitespace-separated columns.
    pub fields: Vec<&'static str>,
}

impl Index<usize> for Row {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.fields[i]
    }
}

impl Row {
    /// Column `i` parsed as a `T` (a number, usually).
    ///
    /// # Panics
    ///
    /// When it does not parse, naming the line.
    pub fn parse<T: std::str::FromStr>(&self, i: usize) -> T
    where
        T::Err: std::fmt::Display,
    {
        self.fields[i].parse().unwrap_or_else(|e| panic!("{}: column {i}: {e}", self.at))
    }

    /// Column `i` as hex bytes ([`unhex`]).
    ///
    /// # Panics
    ///
    /// When it is not hex, naming the line.
    pub fn hex(&self, i: usize) -> Vec<u8> {
        try_unhex(self.fields[i]).unwrap_or_else(|e| panic!("{}: column {i}: {e}", self.at))
    }
}

/// One paragraph of a records file: its `key = value` fields.
#[derive(Clone, Debug)]
pub struct Record {
    /// `file:line` of its first line, for messages.
    pub at: String,
    /// The fields, keys and values trimmed.
    pub fields: BTreeMap<&'static str, &'static str>,
}

impl Record {
    /// The `name` field, or `?`.
    pub fn name(&self) -> &'static str {
        self.fields.get("name").copied().unwrap_or("?")
    }

    /// The field `key`.
    ///
    /// # Panics
    ///
    /// When the record has none.
    pub fn text(&self, key: &str) -> &'static str {
        self.fields
            .get(key)
            .copied()
            .unwrap_or_else(|| panic!("{} ({}): no `{key}`", self.at, self.name()))
    }

    /// The field `key` as hex bytes ([`unhex`]).
    ///
    /// # Panics
    ///
    /// When the record has none or it is not hex.
    pub fn hex(&self, key: &str) -> Vec<u8> {
        try_unhex(self.text(key))
            .unwrap_or_else(|e| panic!("{} ({}): `{key}`: {e}", self.at, self.name()))
    }
}

impl DataFile {
    /// The text of each line without its comment, trimmed, with its line number (from 1).
    /// A line that holds only a comment is left out (in a records file it neither ends nor
    /// continues a record).
    fn lines(self) -> impl Iterator<Item = (usize, &'static str)> {
        self.text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with('#'))
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or_default().trim()))
    }

    /// The rows of a file in the rows layout, each with `columns` columns.
    ///
    /// # Panics
    ///
    /// When a line has another number of columns, or the file has no row.
    pub fn rows(self, columns: usize) -> Vec<Row> {
        let rows: Vec<Row> = self
            .lines()
            .filter(|(_, l)| !l.is_empty())
            .map(|(n, l)| {
                let at = format!("{}:{n}", self.name);
                let fields: Vec<&str> = l.split_whitespace().collect();
                assert_eq!(fields.len(), columns, "{at}: {l:?} has not {columns} columns");
                Row { at, fields }
            })
            .collect();
        assert!(!rows.is_empty(), "{} holds no vectors", self.name);
        rows
    }

    /// The records of a file in the records layout.
    ///
    /// # Panics
    ///
    /// When a line is not `key = value`, a key repeats within a record, or the file has no
    /// record.
    pub fn records(self) -> Vec<Record> {
        let mut out = Vec::new();
        let mut cur: Option<Record> = None;
        for (n, line) in self.lines() {
            if line.is_empty() {
                out.extend(cur.take());
                continue;
            }
            let at = format!("{}:{n}", self.name);
            let (k, v) = line.split_once('=').unwrap_or_else(|| panic!("{at}: bad line {line:?}"));
            let rec = cur.get_or_insert_with(|| Record { at: at.clone(), fields: BTreeMap::new() });
            let old = rec.fields.insert(k.trim(), v.trim());
            assert!(old.is_none(), "{at}: `{}` twice in one record", k.trim());
        }
        out.extend(cur);
        assert!(!out.is_empty(), "{} holds no vectors", self.name);
        out
    }
}

/// Lowercase or uppercase hex digits to bytes.
///
/// # Panics
///
/// When `s` has an odd length or a non-hex digit.
pub fn unhex(s: &str) -> Vec<u8> {
    try_unhex(s).unwrap_or_else(|e| panic!("{e}"))
}

fn try_unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd hex length in {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| format!("not hex: {s:?}"))
        })
        .collect()
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A cell's text to bytes, with `\xNN` standing for the byte `NN` (hex): how a rows file
/// writes bytes that are not printable or would split the line.
///
/// # Panics
///
/// When a `\x` is not followed by two hex digits.
pub fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            let digits = s.get(i + 2..i + 4).unwrap_or_default();
            out.push(u8::from_str_radix(digits, 16).unwrap_or_else(|_| panic!("{s:?}: bad \\xNN")));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: DataFile = DataFile {
        name: "rows.txt",
        text: "# Columns: a b c\n\n1 2 ff00 # trailing comment\n   \n  x\\x20y  -  A0\n",
    };

    const RECORDS: DataFile = DataFile {
        name: "records.txt",
        text: "# header\n\nname = one # comment\nkey = 00ff\naad =\n\n\n\
               name = two\nkey=AB\n# a comment line inside\ntag = 01\n",
    };

    #[test]
    fn rows_columns_comments_blank_lines() {
        let rows = ROWS.rows(3);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].fields, ["1", "2", "ff00"]);
        assert_eq!(rows[0].at, "rows.txt:3");
        assert_eq!(rows[0].parse::<u64>(1), 2);
        assert_eq!(rows[0].hex(2), [0xff, 0]);
        assert_eq!(&rows[1][0], "x\\x20y");
        assert_eq!(unescape(&rows[1][0]), b"x y");
        assert_eq!(rows[1].hex(2), [0xa0]);
        assert_eq!(rows[1].at, "rows.txt:5");
    }

    #[test]
    #[should_panic(expected = "rows.txt:3")]
    fn rows_wrong_column_count_names_the_line() {
        let _ = ROWS.rows(2);
    }

    #[test]
    fn records_paragraphs_and_empty_values() {
        let recs = RECORDS.records();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].name(), "one");
        assert_eq!(recs[0].hex("key"), [0, 0xff]);
        assert_eq!(recs[0].hex("aad"), b"");
        assert_eq!(recs[0].at, "records.txt:3");
        // A comment line does not end a record; a blank line does.
        assert_eq!(recs[1].hex("key"), [0xab]);
        assert_eq!(recs[1].text("tag"), "01");
        assert_eq!(recs[1].at, "records.txt:8");
    }

    #[test]
    #[should_panic(expected = "no `iv`")]
    fn records_missing_key() {
        let _ = RECORDS.records()[0].text("iv");
    }

    #[test]
    #[should_panic(expected = "holds no vectors")]
    fn empty_file() {
        let _ = DataFile { name: "e", text: "# nothing\n\n" }.records();
    }

    #[test]
    fn hex_round_trip_and_errors() {
        assert_eq!(hex(&unhex("00ff7A")), "00ff7a");
        assert!(try_unhex("abc").is_err());
        assert!(try_unhex("zz").is_err());
        assert!(try_unhex("é0").is_err());
        assert_eq!(unescape("\\x80\\x00z"), [0x80, 0, b'z']);
    }

    /// The workspace's vector files themselves read (the crates' tests check the values).
    #[test]
    fn every_vector_file_of_the_workspace_reads() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let read = |krate: &str, file: &str| DataFile {
            name: Box::leak(format!("{krate}/{file}").into_boxed_str()),
            text: std::fs::read_to_string(format!("{root}/{krate}/tests/data/{file}"))
                .map(|s| &*Box::leak(s.into_boxed_str()))
                .unwrap_or_else(|e| panic!("{krate}/{file}: {e}")),
        };
        assert_eq!(read("b64", "rfc4648.txt").rows(2).len(), 7);
        assert!(read("b64", "errors.txt").rows(3).len() > 30);
        assert!(read("nabhash", "nabhash-v1.txt").rows(3).len() > 250);
        assert_eq!(read("nabhash", "nabhash-v1-extra.txt").rows(2).len(), 3);
        assert!(read("nabhash", "nabhash-v2.txt").rows(4).len() > 900);
        assert!(read("nabhash", "nabhasher.txt").rows(4).len() > 150);
        for file in ["aes_cbc.txt", "aes_ctr.txt", "aes_gcm.txt", "chacha20poly1305.txt"] {
            for r in read("kcapi", file).records() {
                for key in ["key", "pt", "ct"] {
                    let _ = r.hex(key);
                }
            }
        }
        for r in read("kcapi", "hmac_sha256.txt").records() {
            assert_eq!(r.hex("mac").len(), 32, "{}", r.name());
        }
        for r in read("kcapi", "sha.txt").records() {
            let _ = (r.text("alg"), r.hex("data"), r.hex("md"));
        }
    }
}
