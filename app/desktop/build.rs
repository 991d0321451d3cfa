//! Generates Tauri's context and the permissions of the app's own bridge commands. The shared
//! renderer (`ui/dist`) is embedded at compile time; when it has not been built yet (a fresh
//! clone), a placeholder page from `fallback-dist/` is embedded instead so `cargo build
//! --workspace` still works, and a cargo warning says so. `ui/dist` is watched, so rebuilding
//! the UI re-embeds it. The command names come from `src/registry/names.rs`, the same list the
//! app and its tests use.

// Compiled into this build script too, so a change to the list reruns it.
#[path = "src/registry/names.rs"]
mod names;

const UI_DIST: &str = "../../ui/dist";

fn main() {
    println!("cargo:rerun-if-changed={UI_DIST}");
    println!("cargo:rerun-if-changed=fallback-dist");
    if !std::path::Path::new(UI_DIST).join("index.html").is_file() {
        println!(
            "cargo:warning=ui/dist is not built; embedding the placeholder page (cd ui && npm ci && npm run build)"
        );
        let patch = r#"{"build":{"frontendDist":"fallback-dist"}}"#;
        // Read by tauri-build below and, through rustc's environment, by `generate_context!`.
        std::env::set_var("TAURI_CONFIG", patch);
        println!("cargo:rustc-env=TAURI_CONFIG={patch}");
    }
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(names::COMMANDS)),
    )
    .expect("tauri-build");
}
