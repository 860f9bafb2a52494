//! The engine's hash maps and sets: std's, with Fx hashing (rustc-hash).
//! Keys are uuids and tool ids from the host's own history; SipHash cost
//! more than parsing in a profile of a 10k-message plan in wasm, where std
//! has no random seed for it anyway. Build them with `default()`.

/// A `HashMap` with Fx hashing.
pub type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

/// A `HashSet` with Fx hashing.
pub type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;

/// A set of keys, for the engine's sets: a [`HashMap`] to `usize` whose
/// values are not read, so that in the wasm module a set of strings shares
/// its hash-table code with the string-keyed maps (the store's index) and
/// a set of `&str` with the `&str`-keyed ones: one table type each, not
/// two (std's `HashSet<K>` is a table of `(K, ())`, a type of its own).
/// Same hashing, same iteration order as a `HashSet` built the same way.
#[derive(Debug, Clone)]
pub struct KeySet<K>(HashMap<K, usize>);

impl<K> Default for KeySet<K> {
    fn default() -> Self {
        KeySet(HashMap::default())
    }
}

impl<K: std::hash::Hash + Eq> KeySet<K> {
    /// Adds `key`; false when it was there already.
    pub fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, 0).is_none()
    }

    /// Whether `key` is in the set.
    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.0.contains_key(key)
    }

    /// Takes `key` out; false when it was not there.
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.0.remove(key).is_some()
    }
}

impl<K> KeySet<K> {
    /// The keys, in the table's order.
    pub fn iter(&self) -> std::collections::hash_map::Keys<'_, K, usize> {
        self.0.keys()
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: std::hash::Hash + Eq> FromIterator<K> for KeySet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut set = KeySet::default();
        set.extend(iter);
        set
    }
}

impl<K: std::hash::Hash + Eq> Extend<K> for KeySet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        self.0.extend(iter.into_iter().map(|k| (k, 0)));
    }
}

impl<'a, K> IntoIterator for &'a KeySet<K> {
    type Item = &'a K;
    type IntoIter = std::collections::hash_map::Keys<'a, K, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K> IntoIterator for KeySet<K> {
    type Item = K;
    type IntoIter = std::collections::hash_map::IntoKeys<K, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_keys()
    }
}
