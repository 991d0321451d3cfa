//! Upload rules: the size bounds and chunk plan (5 B, 50 MiB, 50 MiB + 1, a short last
//! chunk), the chunk hook's refusals one by one (identity, owner, states, index, sizes,
//! checksum) all with the same operator message, the PDF signature, and batch file names
//! (count, duplicates ignoring case, extension, length, path separators, control characters),
//! plus a property: for every accepted size, each planned chunk passes and they add up.

use super::*;
use crate::problem::HttpProblem;
use proptest::prelude::*;

const MIB: u64 = 1024 * 1024;
const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn binding(byte_size: u64) -> UploadBinding<'static> {
    UploadBinding {
        upload_id: "upl1",
        batch_id: "bat1",
        account_id: "acc1",
        device_id: "dev1",
        plan: UploadPlan::for_size(byte_size).unwrap(),
        state: UploadState::Uploading,
        batch_active: true,
    }
}

fn claim(index: f64, byte_size: u64) -> ChunkClaim<'static> {
    ChunkClaim {
        batch_id: "bat1",
        upload_id: "upl1",
        account_id: "acc1",
        device_id: "dev1",
        index,
        byte_size,
        actual_len: byte_size,
        sha256: DIGEST,
    }
}

#[test]
fn file_sizes_from_five_bytes_to_fifty_mib_are_planned() {
    assert_eq!(UploadPlan::for_size(0), Err(UploadError::TooSmall));
    assert_eq!(UploadPlan::for_size(4), Err(UploadError::TooSmall));
    let smallest = UploadPlan::for_size(5).unwrap();
    assert_eq!((smallest.byte_size(), smallest.chunk_count()), (5, 1));
    let largest = UploadPlan::for_size(50 * MIB).unwrap();
    assert_eq!((largest.byte_size(), largest.chunk_count()), (50 * MIB, 13));
    assert_eq!(UploadPlan::for_size(50 * MIB + 1), Err(UploadError::TooLarge));
    assert_eq!(UploadPlan::for_size(u64::MAX), Err(UploadError::TooLarge));
}

#[test]
fn chunk_count_is_the_size_divided_by_four_mib_rounded_up() {
    for (size, count) in
        [(4 * MIB - 1, 1), (4 * MIB, 1), (4 * MIB + 1, 2), (8 * MIB, 2), (8 * MIB + 1, 3), (48 * MIB, 12)]
    {
        assert_eq!(UploadPlan::for_size(size).unwrap().chunk_count(), count, "{size}");
    }
}

#[test]
fn every_chunk_is_four_mib_except_a_shorter_last_one() {
    let plan = UploadPlan::for_size(10 * MIB + 7).unwrap();
    assert_eq!(plan.chunk_count(), 3);
    assert_eq!(expected_chunk_bytes(plan, 0), Some(4 * MIB));
    assert_eq!(expected_chunk_bytes(plan, 1), Some(4 * MIB));
    assert_eq!(expected_chunk_bytes(plan, 2), Some(2 * MIB + 7));
    assert_eq!(expected_chunk_bytes(plan, 3), None);
    assert_eq!(expected_chunk_bytes(plan, u32::MAX), None);
    let exact = UploadPlan::for_size(8 * MIB).unwrap();
    assert_eq!(expected_chunk_bytes(exact, 1), Some(4 * MIB), "an exact multiple has a full last chunk");
    let tiny = UploadPlan::for_size(5).unwrap();
    assert_eq!(expected_chunk_bytes(tiny, 0), Some(5));
    let total: u64 = (0..plan.chunk_count()).filter_map(|i| expected_chunk_bytes(plan, i)).sum();
    assert_eq!(total, plan.byte_size());
}

#[test]
fn a_record_plan_must_be_exactly_the_computed_plan() {
    assert_eq!(UploadPlan::from_record(9 * MIB, 4 * MIB, 3), Ok(UploadPlan::for_size(9 * MIB).unwrap()));
    assert_eq!(UploadPlan::from_record(9 * MIB, 2 * MIB, 5), Err(ChunkError::PlanMismatch));
    assert_eq!(UploadPlan::from_record(9 * MIB, 4 * MIB, 2), Err(ChunkError::PlanMismatch));
    assert_eq!(UploadPlan::from_record(9 * MIB, 4 * MIB, 4), Err(ChunkError::PlanMismatch));
    assert_eq!(UploadPlan::from_record(51 * MIB, 4 * MIB, 13), Err(ChunkError::PlanMismatch));
    assert_eq!(UploadPlan::from_record(4, 4 * MIB, 1), Err(ChunkError::PlanMismatch));
}

#[test]
fn a_matching_chunk_is_accepted_with_its_index() {
    let upload = binding(10 * MIB + 7);
    assert_eq!(check_chunk(&upload, &claim(0.0, 4 * MIB)), Ok(0));
    assert_eq!(check_chunk(&upload, &claim(1.0, 4 * MIB)), Ok(1));
    assert_eq!(check_chunk(&upload, &claim(2.0, 2 * MIB + 7)), Ok(2), "the shorter last chunk");
    assert_eq!(check_chunk(&binding(5), &claim(0.0, 5)), Ok(0));
}

#[test]
fn a_chunk_for_another_upload_batch_account_or_device_is_refused() {
    let upload = binding(5);
    let ok = claim(0.0, 5);
    assert_eq!(check_chunk(&upload, &ChunkClaim { upload_id: "upl2", ..ok }), Err(ChunkError::UploadMismatch));
    assert_eq!(check_chunk(&upload, &ChunkClaim { batch_id: "bat2", ..ok }), Err(ChunkError::BatchMismatch));
    assert_eq!(check_chunk(&upload, &ChunkClaim { account_id: "acc2", ..ok }), Err(ChunkError::AccountMismatch));
    assert_eq!(check_chunk(&upload, &ChunkClaim { device_id: "dev2", ..ok }), Err(ChunkError::DeviceMismatch));
    assert_eq!(check_chunk(&upload, &ChunkClaim { account_id: "", ..ok }), Err(ChunkError::AccountMismatch));
    assert_eq!(check_chunk(&upload, &ChunkClaim { account_id: "ACC1", ..ok }), Err(ChunkError::AccountMismatch));
}

#[test]
fn a_chunk_is_refused_unless_the_upload_is_uploading_in_an_active_batch() {
    let ok = claim(0.0, 5);
    for state in UploadState::ALL.into_iter().filter(|s| *s != UploadState::Uploading) {
        let upload = UploadBinding { state, ..binding(5) };
        assert_eq!(check_chunk(&upload, &ok), Err(ChunkError::UploadNotUploading), "{state:?}");
    }
    let upload = UploadBinding { batch_active: false, ..binding(5) };
    assert_eq!(check_chunk(&upload, &ok), Err(ChunkError::BatchNotActive));
}

#[test]
fn the_index_must_be_a_whole_number_below_the_chunk_count() {
    let upload = binding(10 * MIB);
    for index in [0.5, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-9] {
        assert_eq!(check_chunk(&upload, &claim(index, 4 * MIB)), Err(ChunkError::IndexNotInteger), "{index}");
    }
    assert_eq!(check_chunk(&upload, &claim(-1.0, 4 * MIB)), Err(ChunkError::IndexOutOfRange));
    assert_eq!(check_chunk(&upload, &claim(3.0, 2 * MIB)), Err(ChunkError::IndexOutOfRange), "index == chunk_count");
    assert_eq!(check_chunk(&upload, &claim(1e12, 4 * MIB)), Err(ChunkError::IndexOutOfRange));
    assert_eq!(check_chunk(&upload, &claim(-0.0, 4 * MIB)), Ok(0), "negative zero is index 0");
}

#[test]
fn declared_and_received_sizes_must_both_equal_the_expected_size() {
    let upload = binding(10 * MIB + 7);
    assert_eq!(check_chunk(&upload, &claim(2.0, 4 * MIB)), Err(ChunkError::ByteSizeMismatch), "last is short");
    assert_eq!(check_chunk(&upload, &claim(0.0, 2 * MIB + 7)), Err(ChunkError::ByteSizeMismatch));
    assert_eq!(check_chunk(&upload, &claim(0.0, 4 * MIB + 1)), Err(ChunkError::ByteSizeMismatch));
    let short_file = ChunkClaim { actual_len: 4 * MIB - 1, ..claim(0.0, 4 * MIB) };
    assert_eq!(check_chunk(&upload, &short_file), Err(ChunkError::FileSizeMismatch));
    let empty_file = ChunkClaim { actual_len: 0, ..claim(2.0, 2 * MIB + 7) };
    assert_eq!(check_chunk(&upload, &empty_file), Err(ChunkError::FileSizeMismatch));
}

#[test]
fn the_checksum_must_be_64_lowercase_hex_digits() {
    let upload = binding(5);
    let bad = [
        "",
        &DIGEST[..63],
        &format!("{DIGEST}0"),
        &DIGEST.to_uppercase(),
        &format!("{}g", &DIGEST[..63]),
        &format!(" {}", &DIGEST[..63]),
        &format!("{}é", &DIGEST[..62]),
    ];
    for sha256 in bad {
        assert_eq!(check_chunk(&upload, &ChunkClaim { sha256, ..claim(0.0, 5) }), Err(ChunkError::InvalidChecksum));
    }
    assert!(is_sha256_hex(DIGEST));
    assert!(is_sha256_hex(&"f".repeat(64)));
}

#[test]
fn every_chunk_refusal_shows_the_same_message_and_a_distinct_code() {
    let all = [
        ChunkError::UploadMismatch,
        ChunkError::BatchMismatch,
        ChunkError::AccountMismatch,
        ChunkError::DeviceMismatch,
        ChunkError::UploadNotUploading,
        ChunkError::BatchNotActive,
        ChunkError::PlanMismatch,
        ChunkError::IndexNotInteger,
        ChunkError::IndexOutOfRange,
        ChunkError::ByteSizeMismatch,
        ChunkError::FileSizeMismatch,
        ChunkError::InvalidChecksum,
    ];
    let mut codes = std::collections::HashSet::new();
    for error in all {
        assert_eq!(error.to_string(), INVALID_CHUNK_MESSAGE);
        assert_eq!(HttpProblem::status(&error), 400);
        assert_eq!(HttpProblem::code(&error), error.code());
        assert!(codes.insert(error.code()), "{error:?}");
    }
    assert_eq!(INVALID_CHUNK_MESSAGE, "Invalid upload chunk.");
}

#[test]
fn only_files_starting_with_the_pdf_signature_are_pdfs() {
    assert_eq!(check_pdf_signature(b"%PDF-1.7\n%\xe2\xe3"), Ok(()));
    assert_eq!(check_pdf_signature(b"%PDF-"), Ok(()));
    for bytes in [&b""[..], b"%PDF", b"%pdf-1.4", b" %PDF-1.4", b"\xef\xbb\xbf%PDF-1.4", b"PK\x03\x04"] {
        assert_eq!(check_pdf_signature(bytes), Err(UploadError::NotPdf), "{bytes:?}");
    }
}

#[test]
fn file_names_must_be_plain_pdf_names() {
    for name in ["Runbook.pdf", "a.PDF", "x.Pdf", "VPN reset (v2).pdf", "东京.pdf", "..hidden.pdf"] {
        assert_eq!(check_file_name(name), Ok(()), "{name:?}");
    }
    for name in ["..\\x.pdf", "../x.pdf", "dir/x.pdf", "C:\\x.pdf", "\\\\server\\share.pdf"] {
        assert_eq!(check_file_name(name), Err(UploadError::InvalidFileName), "{name:?}");
    }
    for name in ["a\u{0}.pdf", "a\n.pdf", "a\t.pdf", "a\u{7f}.pdf", "a\u{9b}.pdf", "a\u{2028}.pdf"] {
        assert_eq!(check_file_name(name), Err(UploadError::InvalidFileName), "{name:?}");
    }
    for name in ["", ".pdf", "x.pdf.exe", "x.pd", "x", "x.pdf ", "xpdf"] {
        assert_eq!(check_file_name(name), Err(UploadError::NotPdfFileName), "{name:?}");
    }
}

#[test]
fn file_names_with_format_characters_or_reserved_device_names_are_refused() {
    for name in [
        "invoice\u{202E}fdp.exe.pdf",
        "a\u{200E}.pdf",
        "a\u{200F}.pdf",
        "\u{2066}x\u{2069}.pdf",
        "a\u{200B}b.pdf",
        "a\u{FEFF}.pdf",
        "a\u{00AD}.pdf",
        "a\u{E0041}.pdf",
    ] {
        assert_eq!(check_file_name(name), Err(UploadError::InvalidFileName), "{name:?}");
    }
    for name in ["CON.pdf", "nul.pdf", "Com1.pdf", "LPT9.pdf", "aux.tar.pdf", "PRN .pdf", "com¹.pdf", "CONOUT$.pdf"] {
        assert_eq!(check_file_name(name), Err(UploadError::ReservedFileName), "{name:?}");
    }
    for name in ["CONSOLE.pdf", "nullable.pdf", "COM10.pdf", "LPT.pdf", "my CON.pdf", "icon.pdf"] {
        assert_eq!(check_file_name(name), Ok(()), "{name:?}");
    }
    assert_eq!(check_batch(&["ok.pdf", "NUL.pdf"]), Err(UploadError::ReservedFileName));
}

#[test]
fn file_names_are_bounded_in_characters() {
    let at_limit = format!("{}.pdf", "é".repeat(236));
    assert_eq!(at_limit.chars().count(), 240);
    assert_eq!(check_file_name(&at_limit), Ok(()));
    assert_eq!(check_file_name(&format!("{}.pdf", "é".repeat(237))), Err(UploadError::FileNameTooLong));
}

#[test]
fn a_batch_holds_one_to_a_hundred_distinct_pdfs() {
    let names: Vec<String> = (0..100).map(|i| format!("doc-{i}.pdf")).collect();
    assert_eq!(check_batch(&names), Ok(()));
    let too_many: Vec<String> = (0..101).map(|i| format!("doc-{i}.pdf")).collect();
    assert_eq!(check_batch(&too_many), Err(UploadError::TooManyFiles));
    assert_eq!(check_batch::<&str>(&[]), Err(UploadError::EmptyBatch));
    assert_eq!(check_batch(&["one.pdf"]), Ok(()));
}

#[test]
fn duplicate_names_are_refused_ignoring_case() {
    assert_eq!(check_batch(&["a.pdf", "b.pdf", "a.pdf"]), Err(UploadError::DuplicateFileName));
    assert_eq!(check_batch(&["Runbook.pdf", "RUNBOOK.PDF"]), Err(UploadError::DuplicateFileName));
    assert_eq!(check_batch(&["Straße.pdf", "STRASSE.pdf"]), Ok(()), "case folding, not transliteration");
    assert_eq!(check_batch(&["Émile.pdf", "émile.pdf"]), Err(UploadError::DuplicateFileName));
    assert_eq!(check_batch(&["a.pdf", "a .pdf"]), Ok(()));
}

#[test]
fn a_batch_with_one_bad_name_is_refused() {
    assert_eq!(check_batch(&["ok.pdf", "..\\x.pdf"]), Err(UploadError::InvalidFileName));
    assert_eq!(check_batch(&["ok.pdf", "notes.txt"]), Err(UploadError::NotPdfFileName));
}

#[test]
fn upload_errors_have_stable_codes_and_do_not_echo_names() {
    let all = [
        (UploadError::TooSmall, "file_too_small"),
        (UploadError::TooLarge, "file_too_large"),
        (UploadError::NotPdf, "not_pdf"),
        (UploadError::EmptyBatch, "empty_batch"),
        (UploadError::TooManyFiles, "too_many_files"),
        (UploadError::DuplicateFileName, "duplicate_file_name"),
        (UploadError::NotPdfFileName, "not_pdf_file_name"),
        (UploadError::FileNameTooLong, "file_name_too_long"),
        (UploadError::InvalidFileName, "invalid_file_name"),
        (UploadError::ReservedFileName, "reserved_file_name"),
    ];
    for (error, code) in all {
        assert_eq!(error.code(), code);
        assert_eq!(HttpProblem::code(&error), code);
        assert_eq!(HttpProblem::status(&error), 400);
    }
    assert!(!check_batch(&["secret.pdf", "SECRET.pdf"]).unwrap_err().to_string().contains("secret"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_planned_chunk_is_accepted_and_the_chunks_add_up(size in MIN_PDF_BYTES..=MAX_PDF_BYTES) {
        let upload = binding(size);
        let plan = upload.plan;
        prop_assert_eq!(u64::from(plan.chunk_count()), size.div_ceil(UPLOAD_CHUNK_BYTES));
        let mut total = 0;
        for index in 0..plan.chunk_count() {
            let bytes = expected_chunk_bytes(plan, index).unwrap();
            prop_assert!(bytes > 0 && bytes <= UPLOAD_CHUNK_BYTES);
            if index + 1 < plan.chunk_count() {
                prop_assert_eq!(bytes, UPLOAD_CHUNK_BYTES);
            }
            prop_assert_eq!(check_chunk(&upload, &claim(f64::from(index), bytes)), Ok(index));
            total += bytes;
        }
        prop_assert_eq!(total, size);
        let past_end = f64::from(plan.chunk_count());
        prop_assert_eq!(check_chunk(&upload, &claim(past_end, 1)), Err(ChunkError::IndexOutOfRange));
    }
}
