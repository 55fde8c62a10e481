//! The one dispatch shape of the workspace's SIMD crates: [`backends!`](crate::backends)
//! declares a crate's backends once (their `Backend` surface and a match macro over their
//! tokens are generated from that one list), and [`cached_fn!`](crate::cached_fn) gives a
//! short call one cached function pointer (glibc's IFUNC, memchr's scheme), or a direct call
//! when the build fixes the ISA.
//!
//! ```
//! mod dispatch {
//!     nab_isa::token! {
//!         /// Proof that AVX2 may be used.
//!         pub(crate) struct Avx2 = AVX2;
//!     }
//!     /// The portable code (a token every CPU may hold).
//!     #[derive(Clone, Copy, Debug)]
//!     pub(crate) struct Portable;
//!
//!     /// What every backend implements.
//!     pub(crate) trait Kernels: Copy {
//!         fn sum(self, x: &[u8]) -> u64;
//!     }
//!     impl Kernels for Portable {
//!         fn sum(self, x: &[u8]) -> u64 {
//!             x.iter().map(|&b| u64::from(b)).sum()
//!         }
//!     }
//!     impl Kernels for Avx2 {
//!         fn sum(self, x: &[u8]) -> u64 {
//!             Portable.sum(x) // (the AVX2 kernel)
//!         }
//!     }
//!
//!     nab_isa::backends! {
//!         /// One implementation of the kernels.
//!         pub struct Backend(pub(crate) enum Kind at crate::dispatch::Kind);
//!         compare by kind;
//!         /// Runs `$body` with `$t` bound to the backend's token.
//!         macro with_kernels;
//!         /// Every backend this CPU supports, the portable one first.
//!         pub fn backends() in portable_first order;
//!         forced portable if cfg(any());
//!         /// The portable code, available everywhere.
//!         const PORTABLE = Portable(Portable) = "portable" => Portable;
//!         // Most preferred first.
//!         #[cfg(target_arch = "x86_64")]
//!         Avx2(Avx2) = "avx2" => Avx2::new();
//!     }
//!
//!     impl Backend {
//!         /// The sum of the bytes, by this backend.
//!         pub fn sum(self, x: &[u8]) -> u64 {
//!             with_kernels!(self, t => t.sum(x))
//!         }
//!     }
//!
//!     nab_isa::cached_fn! {
//!         /// The dispatched `sum`, one cached pointer.
//!         pub(crate) fn sum_fn() -> unsafe fn(x: &[u8]) -> u64 =
//!             sum_of(Backend::detect()), fixed if false;
//!     }
//!     fn sum_of(b: Backend) -> unsafe fn(&[u8]) -> u64 {
//!         fn portable(x: &[u8]) -> u64 { Backend::PORTABLE.sum(x) }
//!         #[cfg(target_arch = "x86_64")]
//!         fn avx2(x: &[u8]) -> u64 { Backend::by_name("avx2").unwrap().sum(x) }
//!         match b.kind() {
//!             Kind::Portable(_) => portable,
//!             #[cfg(target_arch = "x86_64")]
//!             Kind::Avx2(_) => avx2,
//!         }
//!     }
//! }
//! # fn main() {
//! use dispatch::Backend;
//! assert_eq!(Backend::PORTABLE.name(), "portable");
//! assert_eq!(Backend::by_name("portable"), Some(Backend::PORTABLE));
//! assert_eq!(dispatch::backends().next(), Some(Backend::PORTABLE));
//! assert!(dispatch::backends().any(|b| b == Backend::detect()));
//! assert_eq!(Backend::detect().sum(b"\x01\x02"), 3);
//! // SAFETY: `sum` has no precondition.
//! assert_eq!(unsafe { dispatch::sum_fn()(b"\x01\x02") }, 3);
//! # }
//! ```

/// Declares a crate's backends once and generates from that one list:
///
/// - `enum Kind`: one variant per backend, holding its token (a value whose existence proves
///   that the CPU may run it), each under its `cfg`;
/// - `struct Backend(Kind)` (`Clone`, `Copy`, `Debug` as derived but `Backend(Portable)` for
///   the portable one; `compare by tokens`: `PartialEq`/`Eq` derived, so that a `Backend`
///   constant can be a pattern, `compare by kind`: equal when of the same kind, for tokens
///   without `PartialEq`) with
///   `PORTABLE`, `detect()` (the first backend of the list whose probe answers, the portable
///   one if none or when the `forced portable` cfg holds), `by_name`, `name`, and
///   `kind()` for the crate's own dispatch;
/// - `fn backends()`: every backend this CPU supports, in the order the crate's API promises
///   (`portable_first`: the portable one, then in increasing order of preference;
///   `preferred_first`: the list's order, the portable one last);
/// - a match macro, named by the crate (`with_kernels!(backend, t => body)`), that runs
///   `body` with `t` bound to the backend's token: one monomorphized copy of `body` per
///   backend. Re-export it with `pub(crate) use with_kernels;` to use it outside the module.
///
/// The backends are listed most preferred first; each has a variant name, its token type, a
/// stable name, and a probe: an expression of type `Option<Token>` (usually the
/// [`token!`](crate::token) constructor `Token::new()`), `Some` only when the CPU may run
/// it. Probes built from [`has`](crate::has) fold to a constant when the build enables the
/// features, so `detect()` costs nothing then (the compile-time short-circuit). The portable
/// backend comes first with a constant expression of its token.
///
/// See the [module docs](crate::dispatch) for an example.
#[macro_export]
macro_rules! backends {
    (
        $(#[$bm:meta])*
        $bvis:vis struct $Backend:ident($kvis:vis enum $Kind:ident at $kpath:path);
        compare by $cmp:ident;
        $(#[$wm:meta])*
        macro $with:ident;
        $(#[$fm:meta])*
        $fvis:vis fn $backends:ident() in $order:ident order;
        forced portable if cfg($forced:meta);
        $(#[$pm:meta])*
        const PORTABLE = $Pvar:ident($Pty:ty) = $pname:literal => $pval:expr;
        $(
            $(#[cfg($cfg:meta)])?
            $var:ident($ty:ty) = $name:literal => $probe:expr;
        )*
    ) => {
        $crate::backends! {
            @emit ($)
            $(#[$bm])* $bvis struct $Backend($kvis enum $Kind at $kpath);
            compare by $cmp;
            $(#[$wm])* macro $with;
            $(#[$fm])* $fvis fn $backends() in $order order;
            forced portable if cfg($forced);
            $(#[$pm])* const PORTABLE = $Pvar($Pty) = $pname => $pval;
            $($(#[cfg($cfg)])? $var($ty) = $name => $probe;)*
        }
    };
    (
        @emit ($d:tt)
        $(#[$bm:meta])*
        $bvis:vis struct $Backend:ident($kvis:vis enum $Kind:ident at $kpath:path);
        compare by $cmp:ident;
        $(#[$wm:meta])*
        macro $with:ident;
        $(#[$fm:meta])*
        $fvis:vis fn $backends:ident() in $order:ident order;
        forced portable if cfg($forced:meta);
        $(#[$pm:meta])*
        const PORTABLE = $Pvar:ident($Pty:ty) = $pname:literal => $pval:expr;
        $(
            $(#[cfg($cfg:meta)])?
            $var:ident($ty:ty) = $name:literal => $probe:expr;
        )*
    ) => {
        $crate::backends! {
            @types $cmp
            $(#[$bm])* $bvis struct $Backend($kvis enum $Kind);
            $($(#[cfg($cfg)])? $var($ty),)* $Pvar($Pty),
        }

        // As derived, but the portable variant prints its name alone (the token says nothing).
        impl ::core::fmt::Debug for $Kind {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        $Kind::$var(t) => f.debug_tuple(::core::stringify!($var)).field(t).finish(),
                    )*
                    $Kind::$Pvar(_) => f.write_str(::core::stringify!($Pvar)),
                }
            }
        }

        #[allow(dead_code)]
        impl $Backend {
            $(#[$pm])*
            pub const PORTABLE: $Backend = $Backend($Kind::$Pvar($pval));

            /// The most preferred backend this CPU supports: what the crate's functions use.
            #[inline]
            pub fn detect() -> $Backend {
                #[cfg(not($forced))]
                {
                    $(
                        $(#[cfg($cfg)])?
                        if let ::core::option::Option::Some(t) = $probe {
                            return $Backend($Kind::$var(t));
                        }
                    )*
                }
                $Backend::PORTABLE
            }

            /// The backend called `name` (as returned by `name`), if this CPU supports it.
            pub fn by_name(name: &str) -> ::core::option::Option<$Backend> {
                $backends().find(|b| b.name() == name)
            }

            #[doc = ::core::concat!(
                "A short stable name: `", $pname, "`", $(", `", $name, "`",)* "."
            )]
            pub fn name(self) -> &'static str {
                match self.0 {
                    $($(#[cfg($cfg)])? $Kind::$var(_) => $name,)*
                    $Kind::$Pvar(_) => $pname,
                }
            }

            /// The backend's kind, holding its token (for the crate's match macro).
            #[inline(always)]
            $kvis fn kind(self) -> $Kind {
                self.0
            }
        }

        $(#[$fm])*
        $fvis fn $backends() -> impl ::core::iter::Iterator<Item = $Backend> {
            let all = [
                $(
                    $(#[cfg($cfg)])?
                    ::core::option::Option::map($probe, |t| $Backend($Kind::$var(t))),
                )*
                ::core::option::Option::Some($Backend::PORTABLE),
            ];
            $crate::backends!(@order $order all)
        }

        $(#[$wm])*
        #[allow(unused_macros)]
        macro_rules! $with {
            ($d backend:expr, $d t:ident => $d body:expr) => {{
                use $kpath as __Kind;
                match $d backend.kind() {
                    $($(#[cfg($cfg)])? __Kind::$var($d t) => $d body,)*
                    __Kind::$Pvar($d t) => $d body,
                }
            }};
        }
    };
    // `compare by tokens`: `PartialEq` and `Eq` derived (the tokens have them; a `Backend`
    // constant may then be a pattern). `compare by kind`: equal when of the same kind.
    (
        @types tokens
        $(#[$bm:meta])* $bvis:vis struct $Backend:ident($kvis:vis enum $Kind:ident);
        $($(#[cfg($cfg:meta)])? $var:ident($ty:ty),)*
    ) => {
        $(#[$bm])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $bvis struct $Backend($Kind);

        /// A backend's kind, holding its token (see `Backend`).
        #[derive(Clone, Copy, PartialEq, Eq)]
        $kvis enum $Kind {
            $($(#[cfg($cfg)])? #[allow(missing_docs)] $var($ty),)*
        }
    };
    (
        @types kind
        $(#[$bm:meta])* $bvis:vis struct $Backend:ident($kvis:vis enum $Kind:ident);
        $($(#[cfg($cfg:meta)])? $var:ident($ty:ty),)*
    ) => {
        $(#[$bm])*
        #[derive(Clone, Copy, Debug)]
        $bvis struct $Backend($Kind);

        /// A backend's kind, holding its token (see `Backend`).
        #[derive(Clone, Copy)]
        $kvis enum $Kind {
            $($(#[cfg($cfg)])? #[allow(missing_docs)] $var($ty),)*
        }

        impl ::core::cmp::PartialEq for $Backend {
            fn eq(&self, other: &Self) -> bool {
                ::core::mem::discriminant(&self.0) == ::core::mem::discriminant(&other.0)
            }
        }
        impl ::core::cmp::Eq for $Backend {}
    };
    (@order preferred_first $all:ident) => {
        ::core::iter::Iterator::flatten(::core::iter::IntoIterator::into_iter($all))
    };
    (@order portable_first $all:ident) => {
        ::core::iter::Iterator::flatten(::core::iter::Iterator::rev(
            ::core::iter::IntoIterator::into_iter($all),
        ))
    };
}

/// A dispatched function called through one cached pointer (glibc's IFUNC, memchr's
/// scheme): the pointer starts at a function that resolves the kernel (`= expr`, of the
/// function's pointer type), stores it and forwards the call, so later calls are one relaxed
/// load and an indirect call, with no detection and no match. When the build fixes the
/// choice (`fixed if` a constant `true`: the features enabled at compile time, a forced
/// backend, an architecture whose kernels are chosen at compile time) there is no pointer:
/// the getter returns the resolved kernel, a constant the compiler calls directly and can
/// inline.
///
/// ```text
/// nab_isa::cached_fn! {
///     /// The dispatched `memmove` kernel.
///     pub(crate) fn memmove_fn() -> unsafe fn(dst: *mut u8, src: *const u8, n: usize) =
///         chosen().memmove, fixed if FIXED.is_some();
/// }
/// ```
///
/// The getter is `#[inline(always)]`; the function type is `unsafe fn` (the kernel's
/// contract is the caller's). The resolving expression runs at most once per racing first
/// call and must give the same kernel each time. It must not call what it resolves: memops'
/// `memcpy` resolves itself with this macro, so nothing here copies or compares memory, reads
/// the environment or allocates.
#[macro_export]
macro_rules! cached_fn {
    ($(
        $(#[$m:meta])*
        $vis:vis fn $get:ident() -> unsafe fn($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)?
            = $resolve:expr, fixed if $fixed:expr;
    )*) => {$(
        $(#[$m])*
        #[inline(always)]
        $vis fn $get() -> unsafe fn($($ty),*) $(-> $ret)? {
            if $fixed {
                return $resolve;
            }
            /// The cached kernel: [`first`] until the first call resolves it.
            static PTR: ::core::sync::atomic::AtomicPtr<()> =
                ::core::sync::atomic::AtomicPtr::new(first as *mut ());
            /// The first call: resolve, cache, forward.
            ///
            /// # Safety
            ///
            /// The kernel's contract.
            #[cold]
            #[inline(never)]
            unsafe fn first($($arg: $ty),*) $(-> $ret)? {
                let f: unsafe fn($($ty),*) $(-> $ret)? = $resolve;
                PTR.store(f as *mut (), ::core::sync::atomic::Ordering::Relaxed);
                // SAFETY: the caller upholds the kernel's contract; `f` is the kernel the
                // crate resolved for this CPU.
                unsafe { f($($arg),*) }
            }
            // SAFETY: `PTR` only ever holds `first` or a value of the resolving expression,
            // both functions of this type, cast to a data pointer.
            unsafe {
                ::core::mem::transmute::<*mut (), unsafe fn($($ty),*) $(-> $ret)?>(
                    PTR.load(::core::sync::atomic::Ordering::Relaxed),
                )
            }
        }
    )*};
}
