//! The store: every message ever appended, in order, never changed
//! (SPEC "store vs active view"). Compaction changes the view only.

use crate::hash::HashMap;
use std::sync::Arc;

use crate::error::Error;
use crate::message::{Message, Uuid};

/// Append-only message store, indexed by uuid. Cloning it is cheap (the
/// contents are shared until the next append), so a dry-run plan on a copy
/// of the engine costs nothing here.
#[derive(Debug, Clone, Default)]
pub struct Store {
    messages: Arc<Vec<Arc<Message>>>,
    /// Keyed by the uuid's text (the engine's other string tables share
    /// the type's code in the wasm module).
    by_uuid: Arc<HashMap<String, usize>>,
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
        if self.by_uuid.contains_key(message.uuid.as_str()) {
            return Err(Error::DuplicateUuid {
                uuid: message.uuid.0.clone(),
            });
        }
        let at = self.messages.len();
        Arc::make_mut(&mut self.by_uuid).insert(message.uuid.0.clone(), at);
        Arc::make_mut(&mut self.messages).push(Arc::clone(&message));
        Ok(message)
    }

    /// Makes room for `additional` more messages (a bulk load: the uuid
    /// index is sized once instead of rehashed as it grows).
    pub fn reserve(&mut self, additional: usize) {
        Arc::make_mut(&mut self.messages).reserve(additional);
        Arc::make_mut(&mut self.by_uuid).reserve(additional);
    }

    /// The message with this uuid.
    pub fn get(&self, uuid: &Uuid) -> Option<&Arc<Message>> {
        self.get_text(uuid.as_str())
    }

    /// The message with this uuid, given as text.
    pub(crate) fn get_text(&self, uuid: &str) -> Option<&Arc<Message>> {
        self.by_uuid.get(uuid).map(|&i| &self.messages[i])
    }

    /// The place of the message `uuid` in append order.
    pub(crate) fn position(&self, uuid: &str) -> Option<usize> {
        self.by_uuid.get(uuid).copied()
    }

    /// Every message, in append order.
    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
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
}
