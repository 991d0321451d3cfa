//! Process guards: a panic hook that logs a redacted, single-line report (no dialog).

/// The redacted one-line form of a panic payload.
pub fn describe_panic(payload: &(dyn std::any::Any + Send), location: Option<String>) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    let msg = domain::redact::escape_line_breaks(&domain::redact::redact_text(&msg));
    match location {
        Some(at) => format!("{msg} at {at}"),
        None => msg,
    }
}

pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
        let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
        let report = describe_panic(info.payload(), location);
        tracing::error!(target: "relay::panic", thread = %thread, "panic: {report}");
        eprintln!("relay-desktop: panic in thread {thread}: {report}");
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_reports_are_redacted_single_lines() {
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("bad token=abc.def.ghi\npassword: hunter2"));
        let report = describe_panic(payload.as_ref(), Some("x.rs:1".into()));
        assert!(!report.contains('\n'), "{report}");
        assert!(!report.contains("hunter2"), "{report}");
        assert!(report.ends_with("at x.rs:1"));
        let payload: Box<dyn std::any::Any + Send> = Box::new(42u8);
        assert_eq!(describe_panic(payload.as_ref(), None), "non-string panic payload");
    }
}
