//! Unit tests of the estimates (R1.6a, R1.6b).

use super::*;
use serde_json::json;

#[test]
fn wide_div_rem_at_the_edges() {
    let edges = [
        0,
        1,
        2,
        3,
        99,
        100,
        u128::from(u64::MAX),
        u128::from(u64::MAX) + 1,
        1 << 127,
        (1 << 127) + 1,
        u128::MAX - 1,
        u128::MAX,
    ];
    for n in edges {
        for d in edges.into_iter().filter(|&d| d > 0) {
            assert_eq!(wide_div_rem(n, d), (n / d, n % d), "{n} / {d}");
            assert_eq!(wide_div_ceil(n, d), n.div_ceil(d), "{n} / {d}");
        }
    }
}

proptest::proptest! {
    #[test]
    fn wide_div_rem_is_u128_division(n: u128, d in 1u128.., shift in 0u32..128) {
        // Small and large dividends and divisors alike: shifted right by
        // any amount, and near the top bit.
        for (n, d) in [(n, d), (n, (d >> shift).max(1)), (n >> shift, d), (n >> shift, (d >> shift).max(1))] {
            proptest::prop_assert_eq!(wide_div_rem(n, d), (n / d, n % d));
            proptest::prop_assert_eq!(wide_div_ceil(n, d), n.div_ceil(d));
        }
    }

    #[test]
    fn char_count_is_chars_count(s in "\\PC*", pad in 0usize..9) {
        let s = format!("{}{s}é😀", "x".repeat(pad));
        proptest::prop_assert_eq!(super::char_count(&s), s.chars().count());
    }

    #[test]
    fn script_counts_split_by_the_definition(s in "\\PC*", pad in 0usize..9) {
        let s = format!("{}{s}é😀Жα", "x".repeat(pad));
        let wide = s.chars().filter(|&c| is_wide(c)).count();
        proptest::prop_assert_eq!(script_counts(&s), (s.chars().count() - wide, wide));
    }

    #[test]
    fn prefix_within_is_the_longest_start_that_fits(s in "\\PC{0,80}", tokens in 0u64..30) {
        for e in [Estimator::default(), Estimator { counter: Some(TokenCounter::new(|t| t.len() as u64 / 3)), ..Estimator::default() }] {
            let end = e.prefix_within(&s, tokens);
            proptest::prop_assert!(s.is_char_boundary(end));
            proptest::prop_assert!(e.text(&s[..end]) <= tokens || end == 0);
            if let Some(c) = s[end..].chars().next() {
                proptest::prop_assert!(e.text(&s[..end + c.len_utf8()]) > tokens);
            }
        }
    }
}

#[test]
fn r1_6a_cjk_counts_near_one_token_per_character() {
    let e = Estimator::default();
    // The issue's pasted document: 40,002 CJK characters.
    let text: String = "日本語の文書です。한국어 텍스트。中文文本"
        .chars()
        .cycle()
        .filter(|c| *c != ' ')
        .take(40_002)
        .collect();
    assert_eq!(text.chars().count(), 40_002);
    assert!(e.text(&text) >= 25_000, "{}", e.text(&text));
    assert_eq!(e.text(&text), 40_002);
    // Hiragana, Katakana, Hangul, Han, Cyrillic, Greek, Arabic, Hebrew, Thai, Devanagari.
    for c in ['あ', 'カ', '한', '漢', 'Ж', 'λ', 'ع', 'ש', 'ก', 'न', '😀', '—'] {
        assert_eq!(e.text(&c.to_string().repeat(8)), 8, "{c}");
    }
    // Latin with accents, and code, at four characters a token.
    assert_eq!(e.text("café déjà vu"), 3);
    assert_eq!(e.text("fn main() {}"), 3);
    // Mixed: 8 Latin (2 tokens) + 3 wide.
    assert_eq!(e.text("abcdefgh日本語"), 5);
}

#[test]
fn r1_6a_a_host_counter_counts_every_text() {
    let e = Estimator {
        counter: Some(TokenCounter::new(|t| t.split_whitespace().count() as u64)),
        ..Estimator::default()
    };
    assert_eq!(e.text("one two three"), 3);
    let m: Message = serde_json::from_value(json!({
        "uuid": "a", "role": "assistant", "content": [
            {"type": "text", "text": "a b"},
            {"type": "tool_use", "id": "t", "name": "Read", "input": {"p": "x y z"}},
            {"type": "mystery", "k": "v w"}
        ]
    }))
    .unwrap();
    // 2 + (1 + 3) + 2: the unknown block's JSON `{"type":"mystery","k":"v w"}`.
    assert_eq!(e.message(&m), 2 + 4 + 2);
    assert_eq!(e.clone(), e);
}

#[test]
fn characters_are_unicode_scalars_rounded_up() {
    let e = Estimator::default();
    assert_eq!(e.text(""), 0);
    assert_eq!(e.text("abcd"), 1);
    assert_eq!(e.text("abcde"), 2);
    // Three wide scalars and one Latin: 3 + 1/4, rounded up.
    assert_eq!(e.text("日本語!"), 4);
    // An emoji is one scalar, two UTF-16 units: a wide character.
    assert_eq!(e.text("😀😀😀😀😀"), 5);
    // Latin-1 and Latin Extended count as Latin.
    assert_eq!(e.text("éèàü"), 1);
}

#[test]
fn unknown_fields_are_counted_as_the_object_they_make() {
    let e = Estimator::default();
    let v = json!({"path": "日本語/é.rs", "n": [1, -2.5, null, 1e300, u64::MAX, i64::MIN], "emoji": "😀",
        "q": "a\"b\n\\\u{1}\u{8}\u{c}\r\t\u{7f}", "": {}, "e": [], "o": {"t": true, "f": false, "x": [[]]}});
    let serde_json::Value::Object(map) = &v else {
        unreachable!()
    };
    let fields: Extra = map
        .iter()
        .map(|(k, v)| (k.clone(), Json::from_value(v)))
        .collect();
    // Exact, not only after rounding.
    let counts = |f: &Extra| {
        let (latin, wide) = object_counts(f);
        latin + wide
    };
    assert_eq!(counts(&fields), v.to_string().chars().count());
    assert_eq!(object_text(&fields), v.to_string());
    assert_eq!(object_counts(&fields), script_counts(&v.to_string()));
    assert_eq!(e.json_object(&fields), e.text(&v.to_string()));
    for n in 0..40u32 {
        let s: String = (0..n)
            .map(|i| char::from_u32(i * 7 % 130).unwrap_or('é'))
            .collect();
        let fields: Extra = [(s.clone(), Json::from_value(&json!([s.clone(), n])))]
            .into_iter()
            .collect();
        assert_eq!(
            counts(&fields),
            json!({ s.clone(): [s, n] }).to_string().chars().count()
        );
    }
    assert_eq!(object_counts(&Extra::new()), (2, 0));
}

#[test]
fn blocks_count_their_text_and_images_a_fixed_figure() {
    let e = Estimator::default();
    let m: Message = serde_json::from_value(json!({
        "uuid": "a", "role": "assistant", "content": [
            {"type": "text", "text": "12345678"},
            {"type": "tool_use", "id": "t", "name": "Read", "input": {"p": 1}},
            {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
        ]
    }))
    .unwrap();
    // 2 + (1 + ceil(7/4)=2) + 1,600
    assert_eq!(e.message(&m), 2 + 3 + 1_600);
}

/// A PDF of `pages` pages padded with `padding` bytes of binary image
/// stream, as a PDF writer lays it out (both `/Type /Page` spellings).
fn pdf(pages: usize, padding: usize) -> Vec<u8> {
    let mut pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Count 3 >> endobj\n".to_vec();
    for p in 0..pages {
        let object = if p % 2 == 0 {
            "<< /Type /Page /Parent 2 0 R >>"
        } else {
            "<</Type/Page/Parent 2 0 R>>"
        };
        pdf.extend_from_slice(format!("{} 0 obj {object} endobj\n", p + 3).as_bytes());
    }
    pdf.extend_from_slice(b"9 0 obj << /Length 0 >> stream\n");
    pdf.extend((0..padding).map(|i| (i * 7919 % 251) as u8));
    pdf.extend_from_slice(b"\nendstream endobj\n%%EOF\n");
    pdf
}

fn encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                A[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

fn count(e: &Estimator, block: serde_json::Value) -> u64 {
    let m: Message =
        serde_json::from_value(json!({"uuid": "a", "role": "user", "content": [block]})).unwrap();
    e.message(&m)
}

#[test]
fn r1_6b_a_one_megabyte_pdf_counts_its_pages_in_every_shape() {
    let e = Estimator::default();
    let bytes = pdf(3, 1_000_000);
    let b64 = encode(&bytes);
    assert_eq!(base64(&b64).as_deref(), Some(&bytes[..]));
    let three = 3 * e.document_page_tokens;
    assert!(three < 10_000);
    // Anthropic's base64 document (was 333k tokens as base64 text).
    let anthropic = json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64}});
    assert_eq!(count(&e, anthropic), three);
    // The AI SDK's file part: base64, a data URL, a Buffer's JSON, a Uint8Array's JSON.
    let buffer = json!({"type": "Buffer", "data": bytes});
    for data in [
        json!(b64),
        json!(format!("data:application/pdf;base64,{b64}")),
        buffer,
    ] {
        assert_eq!(
            count(
                &e,
                json!({"type": "file", "mediaType": "application/pdf", "data": data})
            ),
            three
        );
    }
    // A Uint8Array's JSON keeps its keys in index order (a JSON map here would sort them).
    let indexed: Vec<String> = bytes
        .iter()
        .enumerate()
        .map(|(i, b)| format!("\"{i}\":{b}"))
        .collect();
    let text = format!(
        r#"{{"uuid":"a","role":"user","content":[{{"type":"file","mediaType":"application/pdf","data":{{{}}}}}]}}"#,
        indexed.join(",")
    );
    let m: Message = serde_json::from_str(&text).unwrap();
    assert_eq!(e.message(&m), three);
    // Chat Completions' file part, Responses' input_file.
    let url = format!("data:application/pdf;base64,{b64}");
    assert_eq!(
        count(
            &e,
            json!({"type": "file", "file": {"filename": "a.pdf", "file_data": url}})
        ),
        three
    );
    assert_eq!(
        count(
            &e,
            json!({"type": "input_file", "filename": "a.pdf", "file_data": url})
        ),
        three
    );
}

#[test]
fn r1_6b_documents_the_engine_cannot_read_count_the_stated_figure() {
    let e = Estimator::default();
    let figure = e.document_tokens;
    for block in [
        json!({"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}),
        json!({"type": "document", "source": {"type": "file", "file_id": "file_011"}}),
        json!({"type": "file", "mediaType": "application/pdf", "data": "https://example.com/a.pdf"}),
        json!({"type": "input_file", "file_id": "file-abc"}),
        // Page objects in compressed object streams: no page to count.
        json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": encode(b"%PDF-1.7\n<< /Type /ObjStm >> stream x endstream")}}),
    ] {
        assert_eq!(count(&e, block.clone()), figure, "{block}");
    }
    // A text document is its text; an image file an image.
    let text = json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "12345678"}});
    assert_eq!(count(&e, text), 2);
    let plain = json!({"type": "file", "mediaType": "text/plain", "data": encode(b"12345678")});
    assert_eq!(count(&e, plain), 2);
    let png = json!({"type": "file", "mediaType": "image/png", "data": encode(&[0x89, b'P', b'N', b'G'])});
    assert_eq!(count(&e, png), e.image_tokens);
    // Blocks of other kinds still count as their JSON.
    assert_eq!(
        count(
            &e,
            json!({"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}})
        ),
        Estimator::default().json_object(
            &serde_json::from_value(json!({"id": "s", "name": "web_search", "input": {}})).unwrap()
        )
    );
}

#[test]
fn a_kept_estimate_is_read_only_for_its_message_under_its_rule() {
    let with = |chars: u64| Estimator {
        chars_per_token: chars,
        ..Estimator::default()
    };
    let a = Arc::new(Message::user("u1", "x".repeat(40)));
    // The same uuid and text, another message.
    let b = Arc::new(Message::user("u1", "x".repeat(40)));
    let mut known = None;
    assert_eq!(with(4).known(&a, &mut known), 10);
    let kept = |k: &Option<Estimate>| k.as_ref().map(|e| (Arc::as_ptr(&e.of), e.rule[0], e.tokens));
    assert_eq!(kept(&known), Some((Arc::as_ptr(&a), 4, 10)));
    // Read: the estimate kept, even one that no longer matches the text.
    if let Some(e) = known.as_mut() {
        e.tokens = 11;
    }
    assert_eq!(with(4).known(&a, &mut known), 11);
    // Another message, another rule: estimated again and kept instead.
    assert_eq!(with(4).known(&b, &mut known), 10);
    assert_eq!(kept(&known), Some((Arc::as_ptr(&b), 4, 10)));
    assert_eq!(with(2).known(&b, &mut known), 20);
    assert_eq!(kept(&known), Some((Arc::as_ptr(&b), 2, 20)));
    // A host's counter counts every time and keeps nothing.
    let counted = Estimator {
        counter: Some(TokenCounter::new(|t| t.len() as u64)),
        ..with(2)
    };
    let mut none = None;
    assert_eq!(counted.known(&a, &mut none), 40);
    assert!(none.is_none());
}
