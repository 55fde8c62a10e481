//! The trait and the ready-made engines under base64's `prelude` names, for a one-line `use`.
//!
//! ```
//! use b64::prelude::*;
//!
//! assert_eq!(BASE64_STANDARD_NO_PAD.encode(b"some bytes"), "c29tZSBieXRlcw");
//! assert_eq!(BASE64_FORGIVING.decode("c29tZSBi\neXRlcw==")?, b"some bytes");
//! # Ok::<(), b64::DecodeError>(())
//! ```

pub use crate::engine::Engine;
pub use crate::engine::general_purpose::{
    FORGIVING as BASE64_FORGIVING, STANDARD as BASE64_STANDARD,
    STANDARD_NO_PAD as BASE64_STANDARD_NO_PAD, URL_SAFE as BASE64_URL_SAFE,
    URL_SAFE_NO_PAD as BASE64_URL_SAFE_NO_PAD,
};
