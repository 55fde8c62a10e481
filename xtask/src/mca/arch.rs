//! The architectures the probe is built for.

/// An architecture the probe is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arch {
    X86_64,
    Aarch64,
    Riscv64,
}

impl Arch {
    pub(super) const ALL: [Arch; 3] = [Arch::X86_64, Arch::Aarch64, Arch::Riscv64];

    pub(super) fn triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-unknown-linux-gnu",
            Arch::Aarch64 => "aarch64-unknown-linux-gnu",
            Arch::Riscv64 => "riscv64gc-unknown-linux-gnu",
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Riscv64 => "riscv64",
        }
    }

    /// RUSTFLAGS of the build: RISC-V picks its kernels at compile time (the RVV+Zkne row of
    /// `matrix::RUNS`); x86 dispatches at run time from the baseline build (the bench
    /// report's `default` section); aarch64 has NEON in its baseline.
    pub(super) fn rustflags(self) -> &'static str {
        match self {
            // V only: the modelled RISC-V CPUs (sifive-p670, sifive-x280) have no Zkne or
            // Zbkb, and a peer's scalar code built with Zbkb would not run on them.
            Arch::Riscv64 => "-C target-feature=+v",
            _ => "",
        }
    }

    /// RUSTFLAGS of the second build, for the peers that refuse to build without AES at
    /// compile time (gxhash), if the arch has one: only those peers' functions are taken from
    /// it, since `+aes` changes how our own kernels inline.
    pub(super) fn aes_rustflags(self) -> Option<&'static str> {
        match self {
            Arch::X86_64 | Arch::Aarch64 => Some("-C target-feature=+aes"),
            Arch::Riscv64 => None,
        }
    }

    /// `--mattr` for the disassembler, so that it prints the extensions' instructions.
    pub(super) fn objdump_mattr(self) -> &'static str {
        match self {
            Arch::X86_64 => "",
            Arch::Aarch64 => "+aes,+sha2,+sha3,+crc",
            Arch::Riscv64 => "+v,+zkne,+zknd,+zbkb",
        }
    }
}
