//! Format characters and reserved device names: detection and the display form of a stored name.

use super::*;

#[test]
fn format_characters_are_category_cf() {
    for c in ['\u{202E}', '\u{202A}', '\u{200E}', '\u{200F}', '\u{2066}', '\u{2069}', '\u{200B}', '\u{200D}'] {
        assert!(is_format_char(c), "{:04X}", c as u32);
    }
    for c in ['\u{FEFF}', '\u{00AD}', '\u{061C}', '\u{E0001}', '\u{E007F}', '\u{1D173}'] {
        assert!(is_format_char(c), "{:04X}", c as u32);
    }
    for c in ['a', ' ', 'é', '东', '\u{2028}', '\u{00A0}', '\u{2070}', '\u{0300}', '😀'] {
        assert!(!is_format_char(c), "{:04X}", c as u32);
    }
}

#[test]
fn reserved_device_names_match_in_any_case_with_or_without_an_extension() {
    for name in ["CON", "con", "Prn.pdf", "aux.txt", "NUL.tar.pdf", "COM0.pdf", "com9", "LPT1.pdf", "lpt³.pdf"] {
        assert!(is_reserved_device_name(name), "{name}");
    }
    for name in ["NUL .pdf", "conin$.pdf", "CONOUT$"] {
        assert!(is_reserved_device_name(name), "{name}");
    }
    for name in ["", "CONS.pdf", "xNUL.pdf", "COM.pdf", "COM10.pdf", "LPTX.pdf", "NUL_.pdf", ".NUL.pdf"] {
        assert!(!is_reserved_device_name(name), "{name}");
    }
}

#[test]
fn stored_names_are_neutralized_for_display_and_downloads() {
    assert_eq!(display_file_name("Runbook (v2).pdf"), "Runbook (v2).pdf", "an ordinary name is unchanged");
    assert_eq!(display_file_name("东京.pdf"), "东京.pdf");
    assert_eq!(display_file_name("invoice\u{202E}fdp.exe.pdf"), "invoicefdp.exe.pdf");
    assert_eq!(display_file_name("\u{2066}a\u{200F}b\u{2069}.pdf"), "ab.pdf");
    assert_eq!(display_file_name("CON.pdf"), "_CON.pdf");
    assert_eq!(display_file_name("nul.pdf"), "_nul.pdf");
    assert_eq!(display_file_name("\u{200B}NUL.pdf"), "_NUL.pdf", "hidden behind a format character");
    assert_eq!(display_file_name("a/b\\c\n.pdf"), "a_b_c.pdf");
    assert_eq!(display_file_name("\u{202E}\u{200E}"), "document.pdf");
}
