//! The engine's hash maps and sets: std's, with Fx hashing (rustc-hash).
//! Keys are uuids and tool ids from the host's own history; SipHash cost
//! more than parsing in a profile of a 10k-message plan in wasm, where std
//! has no random seed for it anyway. Build them with `default()`.

/// A `HashMap` with Fx hashing.
pub type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

/// A `HashSet` with Fx hashing.
pub type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;
