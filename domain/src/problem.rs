//! The one contract between a subsystem's error enum and an HTTP answer, with no HTTP library:
//! [`HttpProblem`] says which status, stable code, message, `Retry-After` and `data` an error
//! has, and [`problem_body`] renders the JSON body every Relay error answer uses, PocketBase's
//! `{status, message, data}`. Error enums in `domain` and `actors` implement the trait and
//! nothing else; `web::error::Problem` is the single adapter that turns one into a response.
//! This module refuses to know about routes, headers or any error family by name.

use serde_json::Value;

/// An error that can be answered over HTTP. Implement `status` and `code`; override the rest
/// only when the family needs it.
pub trait HttpProblem: std::error::Error {
    /// The HTTP status code (400-599).
    fn status(&self) -> u16;

    /// A stable, machine-readable code (`snake_case`); never changes when the message does.
    fn code(&self) -> &'static str;

    /// The text shown to the caller. Must never echo a secret; defaults to `Display`.
    fn message(&self) -> String {
        self.to_string()
    }

    /// Seconds the caller should wait before retrying (sent as `Retry-After`, at least 1).
    fn retry_after_secs(&self) -> Option<u64> {
        None
    }

    /// The body's `data` member. Relay's own families say `{"code": …}`; the PocketBase record
    /// family overrides this with its field map (`field -> {code, message}`) or `{}`.
    fn data(&self) -> Value {
        serde_json::json!({ "code": self.code() })
    }
}

/// The JSON error body: `{"status": …, "message": …, "data": …}`.
pub fn problem_body(problem: &dyn HttpProblem) -> Value {
    serde_json::json!({ "status": problem.status(), "message": problem.message(), "data": problem.data() })
}

/// The `Retry-After` value in whole seconds (never 0, so clients do not spin), if any.
pub fn retry_after_header(problem: &dyn HttpProblem) -> Option<u64> {
    problem.retry_after_secs().map(|secs| secs.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    enum Sample {
        #[error("slow down")]
        Limited(u64),
        #[error("no")]
        Refused,
    }

    impl HttpProblem for Sample {
        fn status(&self) -> u16 {
            match self {
                Sample::Limited(_) => 429,
                Sample::Refused => 403,
            }
        }
        fn code(&self) -> &'static str {
            match self {
                Sample::Limited(_) => "rate_limited",
                Sample::Refused => "refused",
            }
        }
        fn retry_after_secs(&self) -> Option<u64> {
            match self {
                Sample::Limited(s) => Some(*s),
                Sample::Refused => None,
            }
        }
    }

    #[test]
    fn defaults_render_status_message_and_code() {
        let body = problem_body(&Sample::Refused);
        assert_eq!(body, serde_json::json!({"status": 403, "message": "no", "data": {"code": "refused"}}));
        assert_eq!(retry_after_header(&Sample::Refused), None);
    }

    #[test]
    fn retry_after_is_at_least_one_second() {
        assert_eq!(retry_after_header(&Sample::Limited(0)), Some(1));
        assert_eq!(retry_after_header(&Sample::Limited(7)), Some(7));
    }
}
