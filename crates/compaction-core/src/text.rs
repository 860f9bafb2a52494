//! Strings joined without `format!` (model layer: named by every layer).

/// `a` then `b` in one new string: `format!("{a}{b}")`'s text, in less code
/// at each place than a `format!` (its arguments and their formatters; the
/// wasm modules hold dozens of such messages and field paths).
#[inline(never)]
pub fn concat(a: &str, b: &str) -> String {
    let mut text = String::with_capacity(a.len() + b.len());
    text.push_str(a);
    text.push_str(b);
    text
}

/// `a`, `b` and `c` in one new string: `format!("{a}{b}{c}")`'s text, as
/// [`concat`].
#[inline(never)]
pub fn concat3(a: &str, b: &str, c: &str) -> String {
    let mut text = String::with_capacity(a.len() + b.len() + c.len());
    text.push_str(a);
    text.push_str(b);
    text.push_str(c);
    text
}

#[cfg(test)]
mod concat_tests {
    use super::{concat, concat3};

    #[test]
    fn concat_writes_what_format_writes() {
        let (field, e) = ("messages[3]".to_owned(), String::from("é: not \"text\""));
        assert_eq!(concat(&field, ".uuid"), format!("{field}.uuid"));
        assert_eq!(concat("session", &e), format!("session{e}"));
        assert_eq!(concat3(&field, ": ", &e), format!("{field}: {e}"));
        assert_eq!(concat3("`", &e, "` is not JSON"), format!("`{e}` is not JSON"));
        assert_eq!(concat("", ""), "");
    }
}
