//! Fuzzes the `Message` serde model: arbitrary bytes through `serde_json::from_slice::<Message>`, and every message that parses back through `to_vec` and `from_slice` to an equal message, whose bytes are stable from then on. Fields the engine does not interpret are kept as their text, so nothing (no float, no key order) may move.
#![no_main]

use compaction_core::message::Message;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<Message>(data) else {
        return;
    };
    let bytes = serde_json::to_vec(&message).expect("a parsed message serialises");
    let again: Message = serde_json::from_slice(&bytes).expect("a serialised message parses back");
    assert_eq!(again, message, "round trip changed the message");
    let bytes2 = serde_json::to_vec(&again).expect("serialises again");
    assert_eq!(bytes, bytes2, "serialisation is not stable");
});
