//! Wiki categories and document types. [`normalize_category_name`] turns what a publisher typed
//! into the stored `name` (trimmed, inner whitespace runs collapsed to one space, at most
//! [`MAX_CATEGORY_NAME_CHARS`] characters, no control characters) and its `normalizedName`
//! key (the lowercase of that, which is unique per library); [`can_delete`] keeps the
//! `uncategorized` system category, the fallback every document of a deleted category moves
//! to, from ever being deleted; and [`DocumentType`] is the closed set of document types with
//! their stored values and labels. It refuses to reassign documents or order categories: the
//! server's wiki actor does that in one transaction.

use thiserror::Error;

pub use super::limits::MAX_CATEGORY_NAME_CHARS;

/// The `systemKey` of the fallback category that can never be deleted.
pub const UNCATEGORIZED_KEY: &str = "uncategorized";

/// A refused category name or category operation. Messages never echo the name.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CategoryError {
    #[error("Enter a category name.")]
    EmptyName,
    #[error("Category names must be at most 120 characters long.")]
    NameTooLong,
    #[error("Category names must not contain control characters or line breaks.")]
    InvalidName,
    #[error("This category is built in and cannot be deleted.")]
    SystemCategory,
}

impl CategoryError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            CategoryError::EmptyName => "empty_category_name",
            CategoryError::NameTooLong => "category_name_too_long",
            CategoryError::InvalidName => "invalid_category_name",
            CategoryError::SystemCategory => "system_category",
        }
    }
}

impl crate::problem::HttpProblem for CategoryError {
    fn status(&self) -> u16 {
        400
    }

    fn code(&self) -> &'static str {
        CategoryError::code(self)
    }
}

/// A normalized category name and its uniqueness key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CategoryName {
    /// The display name as stored in `name`.
    pub name: String,
    /// The lowercase key stored in `normalizedName`; two categories may not share it.
    pub key: String,
}

/// Normalizes a category name; see the module doc. Control characters (tabs and line breaks
/// included) are refused rather than collapsed, so a pasted multi-line text is not silently
/// turned into a name.
pub fn normalize_category_name(raw: &str) -> Result<CategoryName, CategoryError> {
    if raw.chars().any(super::is_forbidden_char) {
        return Err(CategoryError::InvalidName);
    }
    let name = crate::text::collapse_whitespace(raw);
    if name.is_empty() {
        return Err(CategoryError::EmptyName);
    }
    if name.chars().count() > MAX_CATEGORY_NAME_CHARS {
        return Err(CategoryError::NameTooLong);
    }
    let key = name.to_lowercase();
    Ok(CategoryName { name, key })
}

/// Whether a category with this `systemKey` (`""` for a category a publisher created) may be
/// deleted. Only user categories may: `uncategorized`, and any system key this build does not
/// know, are kept.
pub fn can_delete(system_key: &str) -> bool {
    system_key.is_empty()
}

/// [`can_delete`] as a typed refusal, for the delete command.
pub fn check_delete(system_key: &str) -> Result<(), CategoryError> {
    if can_delete(system_key) {
        Ok(())
    } else {
        Err(CategoryError::SystemCategory)
    }
}

/// What kind of document a PDF is (`knowledge_documents.documentType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentType {
    /// A standard operating procedure manual.
    Sop,
    /// A short reference sheet.
    Cheatsheet,
}

impl DocumentType {
    /// Every document type, in the order the UI lists them.
    pub const ALL: [DocumentType; 2] = [DocumentType::Sop, DocumentType::Cheatsheet];

    /// Reads the stored value (`sop`, `cheatsheet`; exact, lowercase).
    pub fn parse(value: &str) -> Option<DocumentType> {
        match value {
            "sop" => Some(DocumentType::Sop),
            "cheatsheet" => Some(DocumentType::Cheatsheet),
            _ => None,
        }
    }

    /// The stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentType::Sop => "sop",
            DocumentType::Cheatsheet => "cheatsheet",
        }
    }

    /// The label the UI shows.
    pub fn label(self) -> &'static str {
        match self {
            DocumentType::Sop => "SOP Manual",
            DocumentType::Cheatsheet => "Quick Guide",
        }
    }
}

#[cfg(test)]
#[path = "category_tests.rs"]
mod tests;
