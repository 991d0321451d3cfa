//! The parts of a Wiki PDF's authored file name that could mislead a reader or a downloading
//! system: Unicode format characters (general category Cf: the bidirectional overrides, embeddings
//! and isolates U+202A..U+202E and U+2066..U+2069, the marks U+200E/U+200F, zero-width and other
//! invisible characters), which make a name read differently from what it is (`invoice`, U+202E,
//! `fdp.exe` shows as `invoiceexe.pdf`), and the reserved device names of Windows (`CON`, `PRN`,
//! `AUX`, `NUL`, `COM0`..`COM9`, `LPT0`..`LPT9` and their superscript-digit forms, `CONIN$`,
//! `CONOUT$`, in any case, with or without an extension), which a Windows machine opens as a
//! device instead of saving as a file. An upload refuses both ([`super::check_file_name`]);
//! [`display_file_name`] neutralizes a name stored before that rule for showing and for
//! `Content-Disposition`.

/// Whether `c` is a Unicode format character (general category Cf, Unicode 15.1).
pub fn is_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// Windows' reserved device names, compared in ASCII upper case.
const RESERVED_DEVICE_NAMES: &[&str] = &["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];

/// Whether `name` is a reserved device name on Windows: its part before the first `.`, without
/// trailing spaces, is one of [`RESERVED_DEVICE_NAMES`] or `COM`/`LPT` followed by one digit
/// (`0`..`9`, `¹`, `²`, `³`), in any case.
pub fn is_reserved_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or("").trim_end_matches(' ');
    let upper = stem.to_uppercase();
    if RESERVED_DEVICE_NAMES.contains(&upper.as_str()) {
        return true;
    }
    let mut chars = upper.chars();
    let prefix: String = chars.by_ref().take(3).collect();
    let digit = chars.next();
    (prefix == "COM" || prefix == "LPT")
        && chars.next().is_none()
        && digit.is_some_and(|d| d.is_ascii_digit() || matches!(d, '¹' | '²' | '³'))
}

/// `name` as it may be shown or offered for saving: format and control characters dropped, path
/// separators replaced by `_`, and a reserved device name prefixed with `_`; `document.pdf`
/// when nothing is left.
pub fn display_file_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .filter(|&c| !is_format_char(c) && !super::is_forbidden_char(c))
        .map(|c| if c == '/' || c == '\\' { '_' } else { c })
        .collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        return "document.pdf".to_string();
    }
    if is_reserved_device_name(cleaned) {
        return format!("_{cleaned}");
    }
    cleaned.to_string()
}

#[cfg(test)]
#[path = "file_name_tests.rs"]
mod tests;
