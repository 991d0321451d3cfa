//! WebKitGTK and GTK environment defaults that keep the desktop's memory down (issue #41 item 4).
//! Relay's renderer is forms, lists and text: it needs no GPU compositing. With compositing on,
//! WebKit's web process keeps ~70 MiB more (layer backing stores; under a software GL such as
//! Xvfb's llvmpipe, the GL context's buffers too). With compositing and the DMA-BUF renderer off,
//! the app process needs no GL at all, yet GTK still probes GLX at display open and WebKit's UI
//! process opens an EGL display only to find the DRM render node it names to the web process;
//! each loads the GL driver (with Mesa, libLLVM: ~20 MiB of relocated data and code per
//! process). So [`apply_env`], first thing in `main` (before any thread, and before GTK or WebKit
//! read the environment), sets what is missing of:
//!
//! - `WEBKIT_DISABLE_COMPOSITING_MODE=1` and `WEBKIT_DISABLE_DMABUF_RENDERER=1`;
//! - and, only while compositing stays off, `GDK_GL=disable` and `WEBKIT_WEB_RENDER_DEVICE_FILE`
//!   set to the first DRM render node (`/dev/dri/renderD*`, what WebKit itself falls back to), or
//!   to `/dev/null` on a machine without one (a VM, Xvfb), where there is nothing to name.
//!
//! A variable that is already set, whatever its value, is the operator's choice and stays:
//! `WEBKIT_DISABLE_COMPOSITING_MODE=0` brings compositing back, and then neither GL variable is
//! touched. The WebKit child processes inherit the result.

use std::ffi::OsString;
use std::path::Path;

pub const COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
pub const DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
pub const GDK_GL: &str = "GDK_GL";
pub const RENDER_DEVICE: &str = "WEBKIT_WEB_RENDER_DEVICE_FILE";

/// The variables to set, given how the environment reads (`get`) and the render node to name
/// (`render_node`, asked for only when needed). Pure: the caller applies them.
pub fn defaults(
    get: impl Fn(&str) -> Option<OsString>,
    render_node: impl FnOnce() -> String,
) -> Vec<(&'static str, String)> {
    let mut set = Vec::new();
    for name in [COMPOSITING, DMABUF] {
        if get(name).is_none() {
            set.push((name, "1".to_string()));
        }
    }
    // WebKit reads the compositing variable as "off unless it is 0".
    let compositing_off = get(COMPOSITING).is_none_or(|v| v != "0");
    if compositing_off {
        if get(GDK_GL).is_none() {
            set.push((GDK_GL, "disable".to_string()));
        }
        if get(RENDER_DEVICE).is_none() {
            set.push((RENDER_DEVICE, render_node()));
        }
    }
    set
}

/// The first DRM render node under `dri` (`renderD128`, ...), else `/dev/null`.
pub fn first_render_node(dri: &Path) -> String {
    let mut nodes: Vec<_> = std::fs::read_dir(dri)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("renderD"))
        .collect();
    nodes.sort();
    match nodes.first() {
        Some(n) => dri.join(n).to_string_lossy().into_owned(),
        None => "/dev/null".to_string(),
    }
}

/// Sets the missing [`defaults`] in this process's environment (Linux only); answers what it set.
/// Must run before any other thread exists (the environment is process-global).
pub fn apply_env() -> Vec<(&'static str, String)> {
    if !cfg!(target_os = "linux") {
        return Vec::new();
    }
    let set = defaults(|name| std::env::var_os(name), || first_render_node(Path::new("/dev/dri")));
    for (name, value) in &set {
        std::env::set_var(name, value);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn an_empty_environment_gets_compositing_off_and_no_gl_in_the_app_process() {
        let set = defaults(env(&[]), || "/dev/dri/renderD128".into());
        let want = [(COMPOSITING, "1"), (DMABUF, "1"), (GDK_GL, "disable"), (RENDER_DEVICE, "/dev/dri/renderD128")];
        assert_eq!(set, want.map(|(n, v)| (n, v.to_string())).to_vec());
    }

    #[test]
    fn a_variable_already_set_is_left_to_the_operator_whatever_its_value() {
        let set =
            defaults(env(&[(DMABUF, "0"), (GDK_GL, ""), (RENDER_DEVICE, "/dev/dri/renderD129")]), || unreachable!());
        assert_eq!(set, vec![(COMPOSITING, "1".to_string())]);
    }

    #[test]
    fn compositing_kept_on_by_the_operator_keeps_gl_untouched() {
        let set = defaults(env(&[(COMPOSITING, "0")]), || unreachable!());
        assert_eq!(set, vec![(DMABUF, "1".to_string())]);
        // Any other value means off, as WebKit reads it.
        let set = defaults(env(&[(COMPOSITING, "yes"), (DMABUF, "1")]), || "/dev/null".into());
        assert_eq!(set, vec![(GDK_GL, "disable".to_string()), (RENDER_DEVICE, "/dev/null".to_string())]);
    }

    #[test]
    fn the_render_node_is_the_first_renderd_entry_else_dev_null() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(first_render_node(dir.path()), "/dev/null");
        assert_eq!(first_render_node(&dir.path().join("missing")), "/dev/null");
        for name in ["card0", "renderD129", "renderD128"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(first_render_node(dir.path()), dir.path().join("renderD128").to_string_lossy());
    }
}
