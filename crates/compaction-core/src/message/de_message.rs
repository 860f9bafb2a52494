//! `Deserialize` for [`Message`]: the engine's fields (`uuid`, `role`,
//! `content`, `timestamp`, `usage`) typed, and, on a `role: "system"`
//! message, every other field kept verbatim in `extra` (R13.3: `clear_at`,
//! `output_config`), in the order it came. On user and assistant messages
//! other fields are ignored, as before: their `MessageParam` has none, and a
//! response's `id`, `model`, `stop_reason`… are not history.

use std::fmt;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::json::Text;
use super::{Content, Extra, Json, Message, Role, Usage, Uuid};
use crate::time::Timestamp;

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message (an object with `uuid`, `role` and `content`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut uuid: Option<Uuid> = None;
        let mut role: Option<Role> = None;
        let mut content: Option<Content> = None;
        let mut timestamp: Option<Timestamp> = None;
        let mut usage: Option<Usage> = None;
        let mut extra = Extra::new();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match key.as_ref() {
                "uuid" => uuid = Some(map.next_value()?),
                "role" => role = Some(map.next_value()?),
                "content" => content = Some(map.next_value()?),
                "timestamp" => timestamp = map.next_value::<Option<Timestamp>>()?,
                "usage" => usage = map.next_value::<Option<Usage>>()?,
                _ => extra.insert(key.into_owned(), map.next_value::<Json>()?),
            }
        }
        let uuid = uuid.ok_or_else(|| A::Error::missing_field("uuid"))?;
        let role = role.ok_or_else(|| A::Error::missing_field("role"))?;
        let content = content.ok_or_else(|| A::Error::missing_field("content"))?;
        if role != Role::System {
            extra = Extra::new();
        }
        Ok(Message {
            uuid,
            role,
            content,
            timestamp,
            usage: usage.map(Box::new),
            extra,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::message::{Message, Role};

    #[test]
    fn r13_3_a_system_message_round_trips_byte_for_byte() {
        let text = r#"{"uuid":"s","role":"system","content":[{"type":"text","text":"Answer in French."},{"type":"tool_addition","tool":{"type":"tool_reference","name":"Grep"}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"Bash"},"cache_control":{"type":"ephemeral"}}],"output_config":{"effort":"low"},"clear_at":"next_user_message"}"#;
        let m: Message = serde_json::from_str(text).unwrap();
        assert_eq!(m.role, Role::System);
        assert_eq!(m.extra.len(), 2);
        assert_eq!(serde_json::to_string(&m).unwrap(), text);
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let from_value: Message = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&from_value).unwrap(), v);
    }

    #[test]
    fn other_fields_of_user_and_assistant_messages_are_not_history() {
        let text = r#"{"uuid":"a","role":"assistant","content":"hi","id":"msg_1","stop_reason":"end_turn"}"#;
        let m: Message = serde_json::from_str(text).unwrap();
        assert!(m.extra.is_empty());
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"uuid":"a","role":"assistant","content":"hi"}"#
        );
    }

    #[test]
    fn missing_fields_and_unknown_roles_are_errors_naming_them() {
        let err = serde_json::from_str::<Message>(r#"{"role":"user","content":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("`uuid`"), "{err}");
        let err =
            serde_json::from_str::<Message>(r#"{"uuid":"u","role":"robot","content":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("robot"), "{err}");
        let err = serde_json::from_str::<Message>(r#"{"uuid":"u","role":"user"}"#).unwrap_err();
        assert!(err.to_string().contains("`content`"), "{err}");
    }
}
