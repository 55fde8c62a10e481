//! `b64`: being built.
