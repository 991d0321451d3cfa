//! `relay-desktop`: the Tauri shell around Relay's shared renderer (`ui/dist`). A launch runs
//! what the flags, else the saved setup, say (`cli`, `domain::desktop_setup`), else the setup
//! screen: server mode runs the actor system and HTTP server in this process (see `backend`);
//! client mode uses a validated remote server origin. The renderer reaches Rust only through the
//! typed bridge (`bridge`, `secrets_cmd`, `session_cmd`, `setup_cmd`, `discovery_cmd`,
//! `update_cmd`, `guards`, `laptop_cmd` for the paired laptop in client mode), whose commands are registered once, in `registry`; every window is
//! navigation-locked (`lockdown`); panics go through `guards`. In client and server mode the
//! updater actor runs on its own long-lived thread (`updater_host`), outside the server's
//! restartable generations. A candidate the recovery launcher starts on probation reports
//! mount and health over the launcher link (`launcher_link`), and is then never relaunched by
//! its own guards. Before GTK starts, WebKit's compositing and GL are turned off unless the
//! environment says otherwise (`webkit_tuning`), and once the first page has loaded the start's
//! code pages are given back (`infra::startup`): the desktop's memory, issue #41.

mod admin_cmd;
mod admin_logo_cmd;
mod admin_wiki_cmd;
mod backend;
mod backup_cmd;
mod bridge;
mod cli;
mod csp;
mod discovery_cmd;
mod dynatrace_cmd;
mod fatal_dialog;
mod guards;
mod laptop_cmd;
mod launcher_link;
mod lockdown;
mod offline_cmd;
mod radar_cmd;
mod recovery_cmd;
mod registry;
mod secrets_cmd;
mod session_cmd;
mod setup_cmd;
mod update_cmd;
mod updater_host;
mod webkit_tuning;
mod wiki_pick;
mod wiki_save_cmd;

use std::path::PathBuf;

use clap::Parser;
use tauri::{Manager, RunEvent};

use crate::bridge::Bridge;
use crate::cli::Cli;
use domain::desktop_setup::Launch;

/// Makes unattended runs (screenshots, CI) end by themselves after N seconds.
pub const EXIT_AFTER_ENV: &str = "RELAY_DESKTOP_EXIT_AFTER_SECS";

fn main() {
    // Before any thread: the allocator's arena cap, as in `relay serve` (`infra::startup`).
    infra::startup::begin();
    // The server mode's workers (backup verification, Wiki PDF extraction) are this executable
    // in hidden modes.
    if let Some(code) = infra::worker::run_if_worker() {
        std::process::exit(code);
    }
    // Before the first SQLite connection of either mode (the server's store, the client's cache).
    infra::db::configure_sqlite_once();
    // Before any thread starts: the launcher's variables leave the environment here, and fd 3
    // becomes close-on-exec, so nothing this process starts inherits either.
    let link = launcher_link::take_from_env();
    // Also before any thread, and before GTK and WebKit read it: compositing off (issue #41).
    let webkit_env = webkit_tuning::apply_env();
    let cli = Cli::parse();
    // The same redacted lines also go to DATA_DIR/logs (rotated, owner-only).
    infra::logging::init_with_files(&cli.log_level, Some(&cli.data_dir));
    link.log();
    if !webkit_env.is_empty() {
        tracing::info!(set = ?webkit_env, "WebKit/GTK environment defaults (webkit_tuning; a variable set beforehand is kept)");
    }
    guards::install_panic_hook(build_kind(), !cli.no_fatal_relaunch, link.on_probation());
    if let Err(e) = run(cli, link.into_link()) {
        eprintln!("relay-desktop: {}", domain::redact::redact_text(&e.to_string()));
        std::process::exit(1);
    }
}

/// A `packaged` (release-channel) build refuses to keep remembered secrets in plaintext.
fn build_kind() -> domain::secret_policy::BuildKind {
    if cfg!(feature = "packaged") {
        domain::secret_policy::BuildKind::Packaged
    } else {
        domain::secret_policy::BuildKind::Development
    }
}

/// SIGTERM (session logout, `kill`) and SIGINT end the app through the normal exit path, so the
/// in-process server stops and the mDNS advertisement is withdrawn instead of the process dying.
fn exit_on_signals(handle: tauri::AppHandle) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            tracing::warn!("could not install the SIGTERM/SIGINT handlers");
            return;
        };
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM: exiting"),
            _ = int.recv() => tracing::info!("SIGINT: exiting"),
        }
        handle.exit(0);
    });
}

/// Once the main window's first page has loaded (the sign-in or setup screen is up), the start's
/// run-once code pages of this executable go, as in `relay serve` (`infra::startup`): the server
/// start, Tauri's and the window's set-up ran by then; code that runs later maps back in.
fn release_start_up_code_after_first_load<R: tauri::Runtime>(
    _: tauri::WebviewWindow<R>,
    page: tauri::webview::PageLoadPayload<'_>,
) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if matches!(page.event(), tauri::webview::PageLoadEvent::Finished) {
        ONCE.call_once(|| {
            std::thread::spawn(|| {
                std::thread::sleep(infra::startup::START_SETTLE);
                infra::startup::release_start_up_code();
            });
        });
    }
}

fn ui_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/dist")
}

fn run(cli: Cli, link: Option<launcher_link::LauncherLink>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let data_dir = infra::datadir::DataDir::open(&cli.data_dir)?;
    let saved = data_dir.read_desktop_setup().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "the saved desktop setup is unusable; showing the setup screen");
        None
    });
    let secret_store = infra::secret_store::SecretStore::open(&data_dir, build_kind());
    let backend = match cli.launch(saved)? {
        Launch::Server { bind } => {
            let settings = backend::ServerSettings {
                bind,
                port: cli.port,
                workers: cli.workers,
                ui_dir: Some(ui_dir()),
                mdns: !cli.no_mdns,
                build: build_kind(),
            };
            backend::start_server(&data_dir, settings, &secret_store)?
        }
        Launch::Client { server_url } => {
            backend::start_client(Some(server_url), !cli.no_mdns, data_dir.root().to_path_buf())?
        }
        Launch::Setup => backend::start_client(None, !cli.no_mdns, data_dir.root().to_path_buf())?,
    };
    // Client and server mode: the updater, on its own thread for the life of the shell.
    let updater = match &backend.kind {
        backend::BackendKind::Server { .. } | backend::BackendKind::Client { .. } => updater_host::UpdaterHost::start(),
        backend::BackendKind::Setup => updater_host::UpdaterHost::absent(),
    };
    let client_origin = match &backend.kind {
        backend::BackendKind::Client { url, .. } => Some(url.clone()),
        backend::BackendKind::Server { .. } | backend::BackendKind::Setup => None,
    };
    let laptop = std::sync::Arc::new(laptop_cmd::LaptopState::new(
        data_dir.root(),
        client_origin.clone(),
        Box::new(laptop_cmd::OsKeys::new(data_dir.root())),
        std::sync::Arc::new(infra::clock::SystemClock),
    ));
    let secrets = std::sync::Arc::new(secrets_cmd::Secrets::new(secret_store, client_origin.as_deref())?);
    let server_url = backend.url().to_string();
    tracing::info!(server = %domain::external_links::describe_for_log(&server_url), "relay desktop starting");

    let trusted = bridge::trusted_origin().to_string();
    let mut context = tauri::generate_context!();
    csp::narrow_connect_src(context.config_mut(), &server_url);
    let main_window = context.config().app.windows.iter().find(|w| w.label == bridge::MAIN_LABEL).cloned();
    let signals = link.as_ref().map(|_| std::sync::Arc::new(launcher_link::LinkSignals::default()));
    let link_state = signals.clone().map(launcher_link::LinkState::with).unwrap_or_default();
    let link = link.zip(signals);

    let app = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            tracing::info!("second instance started; focusing the main window");
            if let Some(w) = app.get_webview_window(bridge::MAIN_LABEL) {
                let _ = w.unminimize();
                let _ = w.set_focus();
            }
        }))
        .manage(Bridge::new(&trusted, Some(backend)))
        .manage(secrets)
        .manage(session_cmd::SharedSession::default())
        .manage(admin_cmd::AdminSession::default())
        .manage(laptop)
        .manage(dynatrace_cmd::DynatraceSession::new(data_dir.root()))
        .manage(setup_cmd::SetupStore::new(data_dir))
        .manage(updater)
        .manage(link_state.clone())
        .invoke_handler(registry::handler())
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::Destroyed = event {
                if let Some(route) = bridge::route_of_label(window.label()) {
                    window.state::<Bridge>().forget_aux(route);
                } else if window.label() == bridge::MAIN_LABEL {
                    // Auxiliary and popout windows do not outlive the main window.
                    window.app_handle().exit(0);
                }
            }
        })
        .setup(move |app| {
            guards::attach_app(app.handle().clone());
            let config = main_window.ok_or("tauri.conf.json has no \"main\" window")?;
            let builder = tauri::WebviewWindowBuilder::from_config(app.handle(), &config)?;
            lockdown::apply(builder, trusted.clone()).on_page_load(release_start_up_code_after_first_load).build()?;
            exit_on_signals(app.handle().clone());
            if let Some((link, signals)) = link {
                let timing = launcher_link::LinkTiming::default();
                link.start(signals, timing, launcher_link::bridge_probe(app.handle().clone(), timing))?;
            }
            // Local start-up is complete: the backend runs and the main window exists. The
            // link's `mounted` still waits for the renderer's `shell_mounted`.
            link_state.startup_complete();
            if let Some(secs) = std::env::var(EXIT_AFTER_ENV).ok().and_then(|s| s.parse::<u64>().ok()) {
                let handle = app.handle().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_secs(secs));
                    tracing::info!("{EXIT_AFTER_ENV} elapsed; exiting");
                    handle.exit(0);
                });
            }
            Ok(())
        })
        .build(context)?;

    app.run(|handle, event| {
        if let RunEvent::Exit = event {
            handle.state::<updater_host::UpdaterHost>().stop();
            handle.state::<launcher_link::LinkState>().stop();
            handle.state::<std::sync::Arc<laptop_cmd::LaptopState>>().end_session();
            tracing::info!("stopping the relay backend");
            if let Some(mut backend) = handle.state::<Bridge>().backend.lock().unwrap_or_else(|p| p.into_inner()).take()
            {
                backend.stop();
            }
        }
    });
    Ok(())
}
