//! The wasm modules' global allocator (the npm package's three modules and
//! the sandbox): talc (smaller code than std's dlmalloc), fed by a memory
//! source that grows the wasm memory geometrically. Declare it with
//! [`global!`]; on any other target the macro declares nothing.
//!
//! talc's own `WasmGrowAndExtend` grows the memory by just what the failed
//! allocation needs, so a session import that ends at hundreds of MB calls
//! `memory.grow` thousands of times, a page or two each; V8 answers every
//! grow with a new `ArrayBuffer`, and the engine's import became superlinear
//! in the file (10k boundaries 2.4 s, 40k 16.2 s). Growing by a quarter of the
//! memory (at least 1 MiB) makes the grows logarithmic in the heap and keeps
//! the overshoot under 25 %; when the memory cannot grow that far, the
//! allocation's own size is tried before failing.
#![no_std]

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod source;
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub use source::{allocator, in_use, peak, reset_peak, Allocator, Counted, GrowGeometric};

/// Declares the global allocator on single-threaded wasm32 (nothing
/// elsewhere): `compaction_alloc::global!();` at a crate's root.
#[macro_export]
macro_rules! global {
    () => {
        #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
        #[global_allocator]
        static ALLOCATOR: $crate::Allocator = $crate::allocator();
    };
}
