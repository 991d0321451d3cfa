fn main() {
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(&[
        "open_external",
        "open_service_desk",
        "open_aux_window",
        "connection_info",
        "reveal_passphrase",
        "sign_in",
        "health",
    ])))
    .expect("tauri-build");
}
