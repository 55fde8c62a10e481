//! `memops`: being built.
