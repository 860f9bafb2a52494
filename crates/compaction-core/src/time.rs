//! Time as data: RFC 3339 timestamps on messages, and "now" handed in by the
//! host. The engine never reads a clock.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An RFC 3339 timestamp (`2026-11-29T22:32:40.123Z`,
/// `2026-11-29T23:32:40+01:00`), kept as written and as milliseconds since
/// the Unix epoch for arithmetic. The text is a boxed `str` (no spare
/// capacity to carry): 16 bytes in wasm, where a `String` made it 24.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    text: Box<str>,
    unix_ms: i64,
}

impl Timestamp {
    /// Parses RFC 3339; `None` if `text` is not a valid timestamp.
    pub fn parse(text: &str) -> Option<Self> {
        parse_rfc3339(text).map(|unix_ms| Timestamp {
            text: text.into(),
            unix_ms,
        })
    }

    /// A timestamp from milliseconds since the epoch, written in UTC.
    pub fn from_unix_ms(unix_ms: i64) -> Self {
        Timestamp {
            text: format_rfc3339(unix_ms).into_boxed_str(),
            unix_ms,
        }
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_ms(&self) -> i64 {
        self.unix_ms
    }

    /// The timestamp as it was written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.unix_ms
            .cmp(&other.unix_ms)
            .then_with(|| self.text.cmp(&other.text))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(crate::text::concat3("`", &text, "` is not an RFC 3339 timestamp"))
        })
    }
}

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    // A run of ASCII digits (never more than 4 here: no overflow).
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(digits(part))
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end == start {
            return None;
        }
        // Milliseconds: the first three digits, right-padded.
        let first = &b[start..end.min(start + 3)];
        millis = digits(first) * 10_i64.pow(3 - first.len() as u32);
        i = end;
    }
    let offset_minutes = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second.min(59) - offset_minutes * 60;
    Some(secs * 1_000 + millis)
}

/// The number a run of ASCII digits writes (checked by the caller; at most
/// four digits, so no overflow).
fn digits(run: &[u8]) -> i64 {
    run.iter()
        .fold(0, |n, d| n * 10 + i64::from(d.wrapping_sub(b'0')))
}

fn format_rfc3339(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1_000);
    let millis = unix_ms.rem_euclid(1_000);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utc_offsets_and_fractions() {
        let a = Timestamp::parse("2026-11-29T22:32:40.123Z").unwrap();
        let b = Timestamp::parse("2026-11-29T23:32:40.123+01:00").unwrap();
        assert_eq!(a.unix_ms(), b.unix_ms());
        assert_eq!(Timestamp::parse("1970-01-01T00:00:00Z").unwrap().unix_ms(), 0);
        assert_eq!(
            Timestamp::parse("1970-01-01T00:00:01.5Z").unwrap().unix_ms(),
            1_500
        );
        assert_eq!(
            Timestamp::parse("2000-02-29T00:00:00.123456789Z")
                .unwrap()
                .unix_ms(),
            951_782_400_123
        );
    }

    #[test]
    fn rejects_what_is_not_rfc_3339() {
        for bad in [
            "",
            "2026-11-29",
            "2026-11-29T22:32:40",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T22:32:40.Z",
            "2026-11-29T22:32:40+0100",
            "2026-11-29T22:32:40Zjunk",
            "yyyy-mm-ddThh:mm:ssZ",
            "２０２６-11-29T22:32:40Z",
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_and_reparses() {
        for ms in [0, 1, 999, 951_782_400_123, 1_796_000_000_000, -1] {
            let t = Timestamp::from_unix_ms(ms);
            assert_eq!(
                Timestamp::parse(t.as_str()).unwrap().unix_ms(),
                ms,
                "{}",
                t.as_str()
            );
        }
    }
}
