//! Strings joined without `format!`, and the last place of a text in
//! another found by forward searches (model layer: named by every layer).

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

/// Where the last `needle` in `haystack` starts: `haystack.rfind(needle)`,
/// found by forward searches from each match on (overlapping matches
/// included), so the wasm modules hold no backward substring search
/// (`TwoWaySearcher::next_back` and its caller, ~0.9 KB raw). `needle` is
/// not empty.
#[inline(never)]
pub fn rfind(haystack: &str, needle: &str) -> Option<usize> {
    let step = needle.chars().next().map_or(1, char::len_utf8);
    let mut last = None;
    let mut from = 0;
    while let Some(at) = haystack[from..].find(needle) {
        last = Some(from + at);
        from += at + step;
    }
    last
}

/// `haystack.rsplit_once(needle)`, through [`rfind`].
pub fn rsplit_once<'a>(haystack: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let at = rfind(haystack, needle)?;
    Some((&haystack[..at], &haystack[at + needle.len()..]))
}

#[cfg(test)]
mod concat_tests {
    use super::{concat, concat3, rfind, rsplit_once};

    #[test]
    fn rfind_finds_what_str_rfind_finds() {
        let hays = [
            "",
            "a",
            "aaa",
            " at line  at line 3 column 4",
            " at line at line ",
            "x: y: z",
            "é: ü: 😀 at line é",
            "<summary>a</summary>b</summary>",
            "ab",
        ];
        let needles = ["a", "aa", " at line ", ": ", "</summary>", "é", "😀", "ab", "b"];
        for hay in hays {
            for needle in needles {
                assert_eq!(rfind(hay, needle), hay.rfind(needle), "{hay:?} {needle:?}");
                assert_eq!(
                    rsplit_once(hay, needle),
                    hay.rsplit_once(needle),
                    "{hay:?} {needle:?}"
                );
            }
        }
    }

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
