//! The checksum-line format of GNU `sha256sum`, with NABHash's 32 hex digits: writing it and
//! parsing it back.
//!
//! A line is `HEX  NAME` (text mode) or `HEX *NAME` (binary mode; read, never written). A name
//! containing a backslash, a newline or a carriage return is written escaped (`\\`, `\n`, `\r`)
//! and the whole line starts with a `\`. The `NAME: OK` lines of `--check` follow the same rule.

use std::borrow::Cow;
use std::fmt;

use crate::algorithm::DIGEST_LEN;

/// Hex digits of a digest.
pub const HEX_LEN: usize = 2 * DIGEST_LEN;

/// Whether `name` must be written escaped (the bytes GNU coreutils 9 escapes).
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Appends `name` to `out`, escaped if it [`needs_escape`].
fn push_name(out: &mut Vec<u8>, name: &[u8]) {
    if !needs_escape(name) {
        out.extend_from_slice(name);
        return;
    }
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// `name` as one line of text for a message (escaped like on a checksum line).
pub fn display_name(name: &[u8]) -> String {
    let mut escaped = Vec::with_capacity(name.len());
    push_name(&mut escaped, name);
    String::from_utf8_lossy(&escaped).into_owned()
}

/// `before`, `name`, `after` and a newline, with the leading `\` when `name` is escaped.
fn line_with_name(before: &[u8], name: &[u8], after: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(before.len() + name.len() + after.len() + 2);
    if needs_escape(name) {
        line.push(b'\\');
    }
    line.extend_from_slice(before);
    push_name(&mut line, name);
    line.extend_from_slice(after);
    line.push(b'\n');
    line
}

/// The checksum line for `name`, newline included: `[\]HEX  NAME`.
pub fn format_line(digest: &[u8; DIGEST_LEN], name: &[u8]) -> Vec<u8> {
    const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [b' '; HEX_LEN + 2];
    for (pair, &b) in hex.chunks_exact_mut(2).zip(digest) {
        pair[0] = HEX_DIGITS[usize::from(b >> 4)];
        pair[1] = HEX_DIGITS[usize::from(b & 0xf)];
    }
    line_with_name(&hex, name, b"")
}

/// The `--check` report line for `name`: `[\]NAME: STATUS`, newline included.
pub fn format_status(name: &[u8], status: &str) -> Vec<u8> {
    line_with_name(b"", name, format!(": {status}").as_bytes())
}

/// One well-formed line of a checksum list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine<'a> {
    /// The digest the line claims.
    pub digest: [u8; DIGEST_LEN],
    /// The file name, unescaped.
    pub name: Cow<'a, [u8]>,
    /// Whether the line used the binary marker (`HEX *NAME`); the digest is the same either way.
    pub binary: bool,
}

/// Why a line of a checksum list is not a checksum line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The line ends before 32 hex digits.
    TooShort,
    /// One of the first 32 characters is not a hex digit.
    NotHex,
    /// The hex digits are not followed by a space or tab (there are more than 32, or junk).
    DigestLength,
    /// After the digest and its blank, neither ` ` (text) nor `*` (binary) follows.
    NoModeMarker,
    /// Nothing follows the mode marker.
    EmptyName,
    /// An escaped line has a `\` that is not `\\`, `\n` or `\r`, or ends in a lone `\`.
    BadEscape,
    /// The name contains a NUL byte, which no file name can.
    NulInName,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseError::TooShort => "line too short for a digest",
            ParseError::NotHex => "digest is not hexadecimal",
            ParseError::DigestLength => "digest is not exactly 32 hex digits",
            ParseError::NoModeMarker => "no ' ' or '*' between digest and name",
            ParseError::EmptyName => "no file name",
            ParseError::BadEscape => "invalid backslash escape in file name",
            ParseError::NulInName => "NUL byte in file name",
        })
    }
}

impl std::error::Error for ParseError {}

/// Parses one line of a checksum list, with or without its `\n` (and a `\r` before it, as a
/// list written on Windows has), the way GNU `sha256sum -c` does: optional leading blanks, an
/// optional `\` that marks an escaped name, exactly 32 hex digits (either case), one space or
/// tab, then ` ` or `*`, then the name (every byte significant, at least one).
///
/// Comment lines (`#...`) are the caller's business: they are not checksum lines.
pub fn parse_check_line(line: &[u8]) -> Result<CheckLine<'_>, ParseError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let start = line.iter().position(|&b| !is_blank(b)).unwrap_or(line.len());
    let rest = &line[start..];
    let (escaped, rest) = match rest.strip_prefix(b"\\") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (hex, rest) = rest.split_at_checked(HEX_LEN).ok_or(ParseError::TooShort)?;
    let digest = decode_hex(hex).ok_or(ParseError::NotHex)?;
    let rest = match rest.split_first() {
        Some((&b, rest)) if is_blank(b) => rest,
        _ => return Err(ParseError::DigestLength),
    };
    let (binary, name) = match rest.split_first() {
        Some((b' ', name)) => (false, name),
        Some((b'*', name)) => (true, name),
        _ => return Err(ParseError::NoModeMarker),
    };
    if name.is_empty() {
        return Err(ParseError::EmptyName);
    }
    let name = if escaped { Cow::Owned(unescape(name)?) } else { Cow::Borrowed(name) };
    if name.contains(&0) {
        return Err(ParseError::NulInName);
    }
    Ok(CheckLine { digest, name, binary })
}

/// GNU's field separators on a checksum line.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The digest `hex` (exactly [`HEX_LEN`] digits) spells, or `None` if one is not hex.
fn decode_hex(hex: &[u8]) -> Option<[u8; DIGEST_LEN]> {
    fn nibble(c: u8) -> Option<u8> {
        char::from(c).to_digit(16).map(|d| d as u8)
    }
    let mut digest = [0u8; DIGEST_LEN];
    if hex.len() != HEX_LEN {
        return None;
    }
    for (byte, pair) in digest.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(digest)
}

/// Undoes [`push_name`]'s escaping.
fn unescape(name: &[u8]) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match bytes.next() {
            Some(b'\\') => b'\\',
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            _ => return Err(ParseError::BadEscape),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEX: &str = "9041d0d440fe93f69515b771619aa54c";
    const DIGEST: [u8; 16] = [
        0x90, 0x41, 0xd0, 0xd4, 0x40, 0xfe, 0x93, 0xf6, 0x95, 0x15, 0xb7, 0x71, 0x61, 0x9a, 0xa5,
        0x4c,
    ];

    fn parse(line: &str) -> Result<CheckLine<'_>, ParseError> {
        parse_check_line(line.as_bytes())
    }

    fn entry(name: &[u8], binary: bool) -> CheckLine<'_> {
        CheckLine { digest: DIGEST, name: Cow::Borrowed(name), binary }
    }

    #[test]
    fn formats_like_sha256sum() {
        assert_eq!(format_line(&DIGEST, b"a b"), format!("{HEX}  a b\n").into_bytes());
        assert_eq!(
            format_line(&DIGEST, b"a\\b\nc\r"),
            format!("\\{HEX}  a\\\\b\\nc\\r\n").into_bytes()
        );
        assert_eq!(format_status(b"x", "OK"), b"x: OK\n");
        assert_eq!(format_status(b"x\ny", "FAILED"), b"\\x\\ny: FAILED\n");
        assert_eq!(display_name(b"x\ny\\"), "x\\ny\\\\");
    }

    #[test]
    fn accepts_the_gnu_forms() {
        assert_eq!(parse(&format!("{HEX}  a b\n")), Ok(entry(b"a b", false)));
        assert_eq!(parse(&format!("{HEX} *a b")), Ok(entry(b"a b", true)));
        assert_eq!(parse(&format!("{HEX}\t a\r\n")), Ok(entry(b"a", false)));
        assert_eq!(parse(&format!(" \t{HEX}   x ")), Ok(entry(b" x ", false)));
        assert_eq!(parse(&format!("{}  a", HEX.to_uppercase())), Ok(entry(b"a", false)));
        assert_eq!(parse(&format!("\\{HEX}  a\\nb\\\\c\\r")), Ok(entry(b"a\nb\\c\r", false)));
        assert_eq!(parse(&format!("\\{HEX}  plain")), Ok(entry(b"plain", false)));
        // Without the leading `\`, backslashes are literal.
        assert_eq!(parse(&format!("{HEX}  a\\n")), Ok(entry(b"a\\n", false)));
    }

    #[test]
    fn rejects_malformed_lines() {
        let short = &HEX[..31];
        let cases = [
            (String::new(), ParseError::TooShort),
            ("\n".into(), ParseError::TooShort),
            (format!("{short}  a"), ParseError::NotHex),
            (format!("{short}g  a"), ParseError::NotHex),
            (format!("{HEX}0  a"), ParseError::DigestLength),
            (HEX.into(), ParseError::DigestLength),
            (format!("{HEX} a"), ParseError::NoModeMarker),
            (format!("{HEX} "), ParseError::NoModeMarker),
            (format!("{HEX}  "), ParseError::EmptyName),
            (format!("{HEX} *\n"), ParseError::EmptyName),
            (format!("\\{HEX}  a\\"), ParseError::BadEscape),
            (format!("\\{HEX}  a\\t"), ParseError::BadEscape),
            (format!("{HEX}  a\0b"), ParseError::NulInName),
            (format!("\\\\{HEX}  a"), ParseError::NotHex),
            (format!("sha256 ({HEX}) = x"), ParseError::NotHex),
        ];
        for (line, want) in cases {
            assert_eq!(parse(&line), Err(want), "{line:?}");
        }
    }

    /// File names: any bytes but NUL, at least one.
    fn name() -> impl Strategy<Value = Vec<u8>> {
        let interesting = prop::sample::select(b"\\\n\r *\t#a".to_vec());
        let byte = prop_oneof![interesting, 1u8..];
        prop::collection::vec(byte, 1..40)
    }

    proptest! {
        #[test]
        fn parser_never_panics(line in prop::collection::vec(any::<u8>(), 0..120)) {
            let _ = parse_check_line(&line);
        }

        #[test]
        fn parser_never_panics_near_valid(
            prefix in prop::sample::select(vec!["", "\\", " ", "\t\\"]),
            hex in "[0-9a-fA-FgG]{30,34}",
            tail in prop::collection::vec(any::<u8>(), 0..40),
        ) {
            let mut line = format!("{prefix}{hex}").into_bytes();
            line.extend_from_slice(&tail);
            let _ = parse_check_line(&line);
        }

        #[test]
        fn format_then_parse_round_trips(digest in any::<[u8; 16]>(), name in name()) {
            let line = format_line(&digest, &name);
            prop_assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            prop_assert_eq!(line.last(), Some(&b'\n'));
            let parsed = parse_check_line(&line).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed.digest, digest);
            prop_assert_eq!(&*parsed.name, &name[..]);
            prop_assert!(!parsed.binary);

            // The binary marker in place of the second space.
            let mut binary = line.clone();
            binary[usize::from(needs_escape(&name)) + HEX_LEN + 1] = b'*';
            let parsed = parse_check_line(&binary).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&*parsed.name, &name[..]);
            prop_assert!(parsed.binary);
        }

        #[test]
        fn status_line_is_one_line(name in name()) {
            let line = format_status(&name, "OK");
            prop_assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            prop_assert_eq!(line.first() == Some(&b'\\'), needs_escape(&name));
        }
    }
}
