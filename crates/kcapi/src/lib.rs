//! `kcapi`: being built.
