//! `set_cap` before the first detection decides the cap, whatever `NAB_MAX_ISA` says (its
//! own process: the cap is decided once per process).

use nab_isa::{Cap, CapDecided, Features, Tier};

#[test]
fn set_cap_first_wins_and_later_calls_fail() {
    assert_eq!(nab_isa::set_cap(Some(Tier::X86_64V2)), Ok(()));
    assert_eq!(nab_isa::cap(), Cap::Tier(Tier::X86_64V2));
    // Asking again for the cap in force is fine; another one is refused.
    assert_eq!(nab_isa::set_cap(Some(Tier::X86_64V2)), Ok(()));
    assert_eq!(nab_isa::set_cap(None), Err(CapDecided(Cap::Tier(Tier::X86_64V2))));
    let available = nab_isa::available();
    assert!(Tier::X86_64V2.allows().union(Features::COMPILE_TIME).contains(available));
    assert_eq!(
        available,
        nab_isa::cpu().intersection(Tier::X86_64V2.allows()).union(Features::COMPILE_TIME)
    );
    // Nothing of v3 unless the build enables it.
    assert_eq!(nab_isa::has(Features::AVX2), Features::COMPILE_TIME.contains(Features::AVX2));
}
