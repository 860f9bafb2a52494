//! The store: every message ever appended, in order, never changed
//! (SPEC "store vs active view"). Compaction changes the view only.

use std::sync::Arc;

use crate::error::Error;
use crate::message::{Message, Uuid};

/// Append-only message store, indexed by uuid. Cloning it is cheap (the
/// contents are shared until the next append), so a dry-run plan on a copy
/// of the engine costs nothing here.
#[derive(Debug, Clone, Default)]
pub struct Store {
    messages: Arc<Vec<Arc<Message>>>,
    index: Arc<Index>,
}

/// The store's uuid index: open addressing (linear probing) over the
/// messages' places, each slot a place + 1 (0: empty), probed from the
/// uuid's Fx hash and matched against the stored message's own uuid. It
/// holds no copy of a uuid's text: a million-message store frees one
/// list, not a million strings (a `HashMap<String, usize>` took a 190 ms
/// task to drop in the sandbox's replay of a 1M-record session). std's
/// `HashMap` keyed by the hash instead measured +1.8 KB gzip in the
/// sandbox's module (a table type of its own); this is a few hundred bytes.
#[derive(Debug, Clone, Default)]
struct Index {
    slots: Vec<usize>,
}

/// A uuid's hash.
fn hash(uuid: &str) -> usize {
    use std::hash::{BuildHasher, Hasher};
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write(uuid.as_bytes());
    h.finish() as usize
}

impl Index {
    /// The place of `uuid` among `messages`, or the empty slot where it
    /// would go. The table is never full (at most half its slots used).
    fn find(&self, messages: &[Arc<Message>], uuid: &str) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = hash(uuid) & mask;
        loop {
            match self.slots.get(i).copied() {
                None | Some(0) => return Err(i),
                Some(at) if messages.get(at - 1).is_some_and(|m| m.uuid.as_str() == uuid) => {
                    return Ok(at - 1)
                }
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// Room for `total` messages: slots at least twice that, re-placing
    /// `messages` when the table grows.
    fn fit(&mut self, messages: &[Arc<Message>], total: usize) {
        let want = total.saturating_mul(2).max(16).next_power_of_two();
        if want <= self.slots.len() {
            return;
        }
        // Cleared and resized rather than `vec![0; want]`: the engine's
        // module measured 162,290 -> 162,006 B gzip.
        self.slots.clear();
        self.slots.resize(want, 0);
        for (at, m) in messages.iter().enumerate() {
            if let Err(slot) = self.find(messages, m.uuid.as_str()) {
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = at + 1;
                }
            }
        }
    }
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store::default()
    }

    /// Appends a message; a uuid already in the store is an error and
    /// changes nothing.
    pub fn append(&mut self, message: Message) -> Result<Arc<Message>, Error> {
        self.append_shared(Arc::new(message))
    }

    /// [`Store::append`] of a message shared with its caller.
    pub(crate) fn append_shared(&mut self, message: Arc<Message>) -> Result<Arc<Message>, Error> {
        let at = self.messages.len();
        let index = Arc::make_mut(&mut self.index);
        index.fit(&self.messages, at + 1);
        let Err(slot) = index.find(&self.messages, message.uuid.as_str()) else {
            return Err(Error::DuplicateUuid {
                uuid: message.uuid.0.clone(),
            });
        };
        if let Some(s) = index.slots.get_mut(slot) {
            *s = at + 1;
        }
        Arc::make_mut(&mut self.messages).push(Arc::clone(&message));
        Ok(message)
    }

    /// Makes room for `additional` more messages (a bulk load: the uuid
    /// index is sized once instead of rehashed as it grows).
    pub fn reserve(&mut self, additional: usize) {
        Arc::make_mut(&mut self.messages).reserve(additional);
        let total = self.messages.len().saturating_add(additional);
        Arc::make_mut(&mut self.index).fit(&self.messages, total);
    }

    /// The message with this uuid.
    pub fn get(&self, uuid: &Uuid) -> Option<&Arc<Message>> {
        self.get_text(uuid.as_str())
    }

    /// The message with this uuid, given as text.
    pub(crate) fn get_text(&self, uuid: &str) -> Option<&Arc<Message>> {
        self.position(uuid).map(|i| &self.messages[i])
    }

    /// The place of the message `uuid` in append order.
    pub(crate) fn position(&self, uuid: &str) -> Option<usize> {
        self.index.find(&self.messages, uuid).ok()
    }

    /// Every message, in append order.
    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Drops up to `n` of the last messages of a store being dropped (its
    /// index no longer matches them), so that a host can drop a large one
    /// a slice at a time; true once none are left.
    pub(crate) fn release(&mut self, n: usize) -> bool {
        match Arc::get_mut(&mut self.messages) {
            Some(list) => list.truncate(list.len().saturating_sub(n)),
            // Shared: dropping this copy frees nothing.
            None => self.messages = Arc::default(),
        }
        self.messages.is_empty()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_uuids_are_rejected_and_change_nothing() {
        let mut store = Store::new();
        store.append(Message::user("a", "one")).unwrap();
        let err = store.append(Message::user("a", "two")).unwrap_err();
        assert_eq!(err, Error::DuplicateUuid { uuid: "a".into() });
        assert_eq!(store.len(), 1);
        assert_eq!(
            store.get(&"a".into()).unwrap().content,
            Message::user("a", "one").content
        );
    }

    #[test]
    fn every_message_is_found_by_its_uuid_as_the_index_grows_and_after_a_reserve() {
        let mut store = Store::new();
        for i in 0..1_000 {
            store.append(Message::user(format!("u{i}"), "x")).unwrap();
            if i == 500 {
                store.reserve(3_000);
            }
        }
        for i in 0..1_000 {
            assert_eq!(store.position(&format!("u{i}")), Some(i));
        }
        assert_eq!(store.position("u1000"), None);
        assert_eq!(store.position(""), None);
        let copy = store.clone();
        store.append(Message::user("later", "y")).unwrap();
        assert_eq!(copy.position("later"), None);
        assert_eq!(store.position("later"), Some(1_000));
        assert!(Store::new().position("u1").is_none());
    }
}
