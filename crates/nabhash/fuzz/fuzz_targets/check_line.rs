//! `nabsum -c` line parsing: any bytes must parse or be rejected without a panic, and a
//! parsed line must survive format → parse unchanged.
//! `cargo +nightly fuzz run check_line` (from `crates/nabhash`).

#![no_main]

use libfuzzer_sys::fuzz_target;

/// What `line.rs` needs from the binary's `algorithm` module.
mod algorithm {
    pub const DIGEST_LEN: usize = 16;
}

#[path = "../../src/bin/nabsum/line.rs"]
#[allow(dead_code)]
mod line;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = line::parse_check_line(data) {
        let written = line::format_line(&parsed.digest, &parsed.name);
        let again = line::parse_check_line(&written).expect("a line we wrote must parse");
        assert_eq!(again.digest, parsed.digest);
        assert_eq!(again.name, parsed.name);
    }
});
