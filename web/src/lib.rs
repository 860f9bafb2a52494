//! The sandbox: the engine's decisions drawn in the browser.
//!
//! The engine crate is used directly as Rust. Nothing here decides a rule:
//! every number on screen comes from `compaction-core` (its `sandbox`
//! module plays a scenario with the visitor's settings); this crate only
//! holds what the visitor typed ([`state`]) and lays the engine's answer
//! out ([`strip`], [`timeline`], [`context`], [`chart`], [`gauge`]).

pub mod app;
pub mod chart;
pub mod context;
pub mod controls;
pub mod cut;
pub mod gauge;
pub mod glossary;
pub mod import;
pub mod lost;
pub mod offscreen;
pub mod panel;
pub mod pinned;
pub mod placement;
pub mod plot;
pub mod resume;
pub mod run;
pub mod session;
pub mod sheet;
pub mod shown;
pub mod state;
pub mod strip;
pub mod thinking;
pub mod timeline;
pub mod try_this;
pub mod url;
pub mod walk;
pub mod walked;

// The page's allocator (compaction-alloc): talc, growing the memory
// geometrically.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
compaction_alloc::global!();

pub use app::App;
