//! The sandbox: the engine's decisions drawn in the browser.
//!
//! The engine crate is used directly as Rust. Nothing here decides a rule:
//! every number on screen comes from `compaction-core`; this crate only holds
//! what the visitor typed ([`state`]) and lays the engine's answer out
//! ([`gauge`]).

pub mod app;
pub mod controls;
pub mod gauge;
pub mod state;

pub use app::App;
