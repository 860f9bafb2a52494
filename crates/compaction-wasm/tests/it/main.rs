//! The JS boundary, one wasm-bindgen-test binary, in Node and in headless
//! Chromium (scripts/test.sh runs both): `thresholds`, and the `Engine`'s
//! one protocol (`answer`, `prepare(host)`).

#[cfg(target_arch = "wasm32")]
mod alloc;
mod engine;
mod thresholds;
