//! Timestamps in Relay's wire format. Records carry `created`, `updated` and date fields as
//! PocketBase-style UTC strings with millisecond precision (`2026-12-02 12:57:11.123Z`). This
//! module converts between epoch milliseconds and that form, and parses the ISO-8601 variants
//! clients send (`T` or space separator, optional fraction, `Z` or `+hh:mm` offset). Pure
//! arithmetic on the proleptic Gregorian calendar; no clock is read here.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid date/time {0:?}")]
pub struct DateParseError(pub String);

const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Formats epoch milliseconds as `YYYY-MM-DD HH:MM:SS.mmmZ`.
pub fn format_ms(epoch_ms: i64) -> String {
    let days = epoch_ms.div_euclid(MS_PER_DAY);
    let rem = epoch_ms.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let (h, rem) = (rem / 3_600_000, rem % 3_600_000);
    let (min, rem) = (rem / 60_000, rem % 60_000);
    let (s, ms) = (rem / 1000, rem % 1000);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{min:02}:{s:02}.{ms:03}Z")
}

/// Formats epoch milliseconds as a date key `YYYY-MM-DD` (UTC).
pub fn date_key(epoch_ms: i64) -> String {
    let (y, m, d) = civil_from_days(epoch_ms.div_euclid(MS_PER_DAY));
    format!("{y:04}-{m:02}-{d:02}")
}

fn digits(s: &str, raw: &str) -> Result<u32, DateParseError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DateParseError(raw.to_string()));
    }
    s.parse().map_err(|_| DateParseError(raw.to_string()))
}

/// Parses `YYYY-MM-DD[( |T)HH:MM[:SS[.fff]]][Z|±hh:mm]` into epoch milliseconds (UTC when no
/// offset is given). A bare date means midnight UTC.
pub fn parse_datetime(raw: &str) -> Result<i64, DateParseError> {
    let err = || DateParseError(raw.to_string());
    let s = raw.trim();
    if s.len() < 10 || s.len() > 40 || !s.is_ascii() {
        return Err(err());
    }
    let (date, rest) = s.split_at(10);
    let mut parts = date.split('-');
    let (y, m, d) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(y), Some(m), Some(d), None) if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
            (digits(y, raw)? as i64, digits(m, raw)?, digits(d, raw)?)
        }
        _ => return Err(err()),
    };
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(err());
    }
    let mut ms = days_from_civil(y, m, d) * MS_PER_DAY;
    if rest.is_empty() {
        return Ok(ms);
    }
    let rest = rest.strip_prefix(['T', ' ']).ok_or_else(err)?;
    let (clock, offset_ms) = split_offset(rest).ok_or_else(err)?;
    let (hms, frac) = match clock.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (clock, None),
    };
    let fields: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&fields.len()) || fields.iter().any(|f| f.len() != 2) {
        return Err(err());
    }
    let h = digits(fields[0], raw)?;
    let min = digits(fields[1], raw)?;
    let sec = if fields.len() == 3 { digits(fields[2], raw)? } else { 0 };
    if h > 23 || min > 59 || sec > 59 {
        return Err(err());
    }
    let frac_ms = match frac {
        Some(f) if !f.is_empty() && f.len() <= 9 => {
            let padded = format!("{f:0<3}");
            digits(&padded[..3], raw)? as i64
        }
        Some(_) => return Err(err()),
        None => 0,
    };
    ms += (h as i64 * 3600 + min as i64 * 60 + sec as i64) * 1000 + frac_ms;
    Ok(ms - offset_ms)
}

/// Splits a trailing `Z` or `±hh:mm` offset from a clock string, returning the offset in ms.
fn split_offset(s: &str) -> Option<(&str, i64)> {
    if let Some(clock) = s.strip_suffix('Z') {
        return Some((clock, 0));
    }
    if s.len() > 6 {
        let (clock, off) = s.split_at(s.len() - 6);
        let sign = match off.as_bytes()[0] {
            b'+' => 1,
            b'-' => -1,
            _ => return Some((s, 0)),
        };
        let (hh, mm) = off[1..].split_once(':')?;
        if hh.len() != 2 || mm.len() != 2 {
            return None;
        }
        let (hh, mm): (i64, i64) = (hh.parse().ok()?, mm.parse().ok()?);
        if hh > 23 || mm > 59 {
            return None;
        }
        return Some((clock, sign * (hh * 3600 + mm * 60) * 1000));
    }
    Some((s, 0))
}

/// Normalizes any accepted date string to the wire format.
pub fn normalize_datetime(raw: &str) -> Result<String, DateParseError> {
    parse_datetime(raw).map(format_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_epoch_and_known_instants() {
        assert_eq!(format_ms(0), "1970-01-01 00:00:00.000Z");
        assert_eq!(format_ms(1_796_216_231_123), "2026-12-02 12:57:11.123Z");
        assert_eq!(format_ms(951_782_400_000), "2000-02-29 00:00:00.000Z");
        assert_eq!(date_key(1_796_216_231_123), "2026-12-02");
    }

    #[test]
    fn parses_variants_and_round_trips() {
        let t = 1_796_216_231_123;
        for s in [
            "2026-12-02 12:57:11.123Z",
            "2026-12-02T12:57:11.123Z",
            "2026-12-02T12:57:11.123456Z",
            "2026-12-02T06:57:11.123-06:00",
            "2026-12-02T13:57:11.123+01:00",
        ] {
            assert_eq!(parse_datetime(s), Ok(t), "{s}");
        }
        assert_eq!(parse_datetime("2026-12-02"), Ok(t - t % MS_PER_DAY));
        assert_eq!(parse_datetime("2026-12-02T12:57"), Ok(t - 11_123));
        for ms in [0, 86_399_999, 4_102_444_800_000, t] {
            assert_eq!(parse_datetime(&format_ms(ms)), Ok(ms));
        }
    }

    #[test]
    fn rejects_malformed_dates() {
        for s in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-12-02X12:00",
            "2026-12-02T25:00:00Z",
            "2026-12-02T12:00:00.Z",
            "2026-12-02T12:00:00+1:00",
            "2026-1-02",
            "２０２６-12-02",
        ] {
            assert!(parse_datetime(s).is_err(), "{s}");
        }
    }
}
