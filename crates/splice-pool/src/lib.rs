//! `splice-pool`: being built.
