//! The registration lists agree with `COMMANDS` (the handler, build.rs's generated permissions,
//! `permissions/relay-bridge.toml`, the UI's desktop transport), the default capability grants
//! nothing else, and every registered command, driven through Tauri's mock runtime, refuses
//! callers that are not its allowed bridge windows on the app origin; a Relay sign-out
//! (`share_session` with `null`) ends the Administration session.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::{WebviewUrl, WebviewWindow, WebviewWindowBuilder};

use super::COMMANDS;
use crate::bridge::{self, Access, Bridge, Command};
use crate::{
    admin_cmd, admin_logo_cmd, admin_wiki_cmd, backup_cmd, discovery_cmd, dynatrace_cmd, guards, laptop_cmd,
    launcher_link, offline_cmd, radar_cmd, recovery_cmd, secrets_cmd, session_cmd, setup_cmd, update_cmd,
    wiki_save_cmd,
};

/// Registered commands the shared renderer does not invoke yet. `tests/desktop/webdriver_bridge.py`
/// exercises them; wiring one into `ui/src/transport/desktop.ts` means removing it here.
const NOT_INVOKED_BY_THE_UI: &[&str] = &["open_service_desk", "open_aux_window", "health"];

/// Every command's descriptor, with a payload that passes argument parsing but that the command
/// itself refuses or answers harmlessly (never opening a browser or restarting), so a missing
/// caller check shows up as a reply other than `forbidden`.
fn table() -> Vec<(Command, Value)> {
    vec![
        (bridge::OPEN_EXTERNAL, json!({"url": "https://evil.example/phish"})),
        (bridge::OPEN_SERVICE_DESK, json!({"url": "http://servicedesk.corp.example/"})),
        (bridge::OPEN_AUX_WINDOW, json!({"route": "../settings"})),
        (bridge::OPEN_DYNATRACE, json!({"url": "https://evil.example/"})),
        (secrets_cmd::CONNECTION_INFO, json!({})),
        (secrets_cmd::REVEAL_PASSPHRASE, json!({})),
        (secrets_cmd::REMEMBER_PASSPHRASE, json!({"passphrase": "correct horse battery staple"})),
        (secrets_cmd::FORGET_PASSPHRASE, json!({})),
        (secrets_cmd::SIGN_IN, json!({"passphrase": null})),
        (bridge::HEALTH, json!({})),
        (guards::STABILITY_STATUS, json!({})),
        (discovery_cmd::COMMAND, json!({})),
        (session_cmd::SHARE_SESSION, json!({"token": null})),
        (session_cmd::AUX_SESSION, json!({})),
        (
            setup_cmd::SAVE_SETUP,
            json!({"setup": {"mode": "client", "serverUrl": "javascript:alert(1)", "allowInsecureHttp": false}}),
        ),
        (setup_cmd::RESET_SETUP, json!({})),
        (backup_cmd::BACKUP_STATUS, json!({})),
        (backup_cmd::BACKUP_LIST, json!({})),
        (backup_cmd::BACKUP_CREATE, json!({})),
        (backup_cmd::BACKUP_VERIFY, json!({"name": "../relay.db"})),
        (backup_cmd::BACKUP_RESTORE, json!({"name": "../relay.db"})),
        (offline_cmd::OFFLINE_STATUS, json!({})),
        (offline_cmd::OFFLINE_CACHE_PUT, json!({"collection": "contacts", "records": []})),
        (offline_cmd::OFFLINE_CACHE_READ, json!({"collection": "contacts"})),
        (offline_cmd::OFFLINE_MUTATE, json!({"mutation": {"collection": "contacts", "action": "create", "data": {}}})),
        (offline_cmd::OFFLINE_REPLAY, json!({})),
        (offline_cmd::PENDING_CHANGES, json!({"request": {"action": "list"}})),
        (admin_cmd::ADMIN_STATUS, json!({})),
        (admin_cmd::ADMIN_SIGN_IN, json!({"username": "ryan", "password": "not the password"})),
        (admin_cmd::ADMIN_CONFIRM_PASSWORD, json!({"password": "not the password"})),
        (admin_cmd::ADMIN_LOCK, json!({})),
        (admin_cmd::ADMIN_COMMAND, json!({"command": "admin.snapshot", "payload": {}, "expectedRevision": null})),
        (admin_logo_cmd::ADMIN_SET_LOGO, json!({"kind": "company", "imageBase64": "AAAA"})),
        (admin_logo_cmd::ADMIN_REMOVE_LOGO, json!({"kind": "footer"})),
        (admin_wiki_cmd::ADMIN_WIKI_UPLOAD, json!({"replacementDocumentId": null, "onProgress": "__CHANNEL__:1"})),
        // Server mode in the mock app: each answers `unavailable` after the caller check.
        (laptop_cmd::LAPTOP_STATUS, json!({})),
        (laptop_cmd::LAPTOP_PAIR, json!({"username": "pat", "code": "123456", "label": "NOC laptop"})),
        (laptop_cmd::LAPTOP_SIGN_IN, json!({"password": "not the password"})),
        (laptop_cmd::LAPTOP_CONFIRM_PASSWORD, json!({"password": "not the password"})),
        (laptop_cmd::LAPTOP_LOCK, json!({})),
        (
            laptop_cmd::LAPTOP_COMMAND,
            json!({"command": "wiki.category.create", "payload": {"name": "x"}, "expectedRevision": null}),
        ),
        (laptop_cmd::LAPTOP_FORGET, json!({})),
        (laptop_cmd::wiki::LAPTOP_WIKI_UPLOAD, json!({"replacementDocumentId": null, "onProgress": "__CHANNEL__:2"})),
        // A JSON body, not the raw PDF bytes the command takes: refused after the caller check.
        (wiki_save_cmd::WIKI_SAVE_PDF, json!({})),
        (dynatrace_cmd::CLEAR_DYNATRACE_SESSION, json!({})),
        (dynatrace_cmd::DYNATRACE_POPOUTS, json!({})),
        (dynatrace_cmd::CLOSE_DYNATRACE, json!({"key": "../main"})),
        (radar_cmd::OPEN_RADAR_SIGN_IN, json!({})),
        (radar_cmd::FINISH_RADAR_SIGN_IN, json!({})),
        // No updater in the mock app: each answers `unavailable` after the caller check.
        (update_cmd::UPDATE_STATUS, json!({})),
        (update_cmd::UPDATE_CHECK, json!({})),
        (update_cmd::UPDATE_DOWNLOAD, json!({})),
        (update_cmd::UPDATE_CANCEL, json!({})),
        (update_cmd::UPDATE_PREPARE, json!({})),
        (update_cmd::UPDATE_RESTART, json!({})),
        (recovery_cmd::RECOVERY_STATUS, json!({})),
        (recovery_cmd::RECOVERY_ROLLBACK, json!({"build": "v1-0-0-aaaaaaaa"})),
        (recovery_cmd::RECOVERY_REPAIR, json!({"build": "v1-0-0-aaaaaaaa"})),
        (update_cmd::UPDATE_RELEASE_NOTES, json!({})),
        // No link in the mock app: answers nothing after the caller check.
        (launcher_link::SHELL_MOUNTED, json!({})),
    ]
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = manifest_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn set(names: impl IntoIterator<Item = impl Into<String>>) -> BTreeSet<String> {
    names.into_iter().map(Into::into).collect()
}

fn commands() -> BTreeSet<String> {
    set(COMMANDS.iter().copied())
}

#[test]
fn the_command_list_has_no_duplicates_and_every_command_has_a_descriptor() {
    assert_eq!(commands().len(), COMMANDS.len(), "duplicate in COMMANDS");
    let table = table();
    assert_eq!(set(table.iter().map(|(c, _)| c.name)), commands(), "descriptors vs COMMANDS");
    assert_eq!(table.len(), COMMANDS.len(), "duplicate descriptor");
}

#[test]
fn auxiliary_windows_may_call_only_the_documented_commands() {
    // docs/security.md: non-main windows may call only these.
    let aux: BTreeSet<String> = set(table().iter().filter(|(c, _)| c.access != Access::MainOnly).map(|(c, _)| c.name));
    assert_eq!(aux, set(["open_external", "health", "stability_status", "aux_session"]));
    let aux_only: Vec<&str> =
        table().iter().filter(|(c, _)| c.access == Access::AuxOnly).map(|(c, _)| c.name).collect();
    assert_eq!(aux_only, ["aux_session"]);
}

/// The command names (last path segments) inside `generate_handler![..]` in `registry.rs`, sorted.
fn handler_names() -> Vec<String> {
    let src = read("src/registry.rs");
    let start =
        src.find("generate_handler![").expect("registry.rs calls generate_handler!") + "generate_handler![".len();
    let end = start + src[start..].find(']').expect("generate_handler! is closed");
    let mut names: Vec<String> = src[start..end]
        .split(',')
        .map(|path| path.rsplit("::").next().unwrap().trim().to_string())
        .filter(|name| !name.is_empty())
        .collect();
    names.sort();
    names
}

#[test]
fn the_handler_registers_exactly_the_command_list() {
    assert_eq!(handler_names(), Vec::from_iter(commands()), "generate_handler! vs COMMANDS");
    assert!(read("src/main.rs").contains(".invoke_handler(registry::handler())"), "main installs registry::handler");
}

#[test]
fn build_rs_generates_one_permission_per_command() {
    let build = read("build.rs");
    assert!(build.contains("#[path = \"src/registry/names.rs\"]") && build.contains(".commands(names::COMMANDS)"));
    // What tauri-build wrote from that list; a file left over from a removed command is an
    // `allow-*` permission nobody should be able to grant.
    let generated: BTreeSet<String> = std::fs::read_dir(manifest_dir().join("permissions/autogenerated"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .map(|f| f.strip_suffix(".toml").unwrap_or_else(|| panic!("unexpected file {f}")).to_string())
        .collect();
    assert_eq!(generated, commands(), "permissions/autogenerated/*.toml vs COMMANDS");
}

/// Every permission file under `permissions/`: `[[permission]]` identifier → `commands.allow`,
/// and `[[set]]` identifier → its permissions.
fn permission_files() -> (BTreeMap<String, Vec<String>>, BTreeMap<String, Vec<String>>) {
    fn strings(v: Option<&toml::Value>) -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .map(|a| a.iter().map(|s| s.as_str().expect("a string").to_string()).collect())
            .unwrap_or_default()
    }
    let dir = manifest_dir().join("permissions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.extend(std::fs::read_dir(dir.join("autogenerated")).unwrap().map(|e| e.unwrap().path()));
    let (mut permissions, mut sets) = (BTreeMap::new(), BTreeMap::new());
    for file in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        let doc: toml::Table = std::fs::read_to_string(&file).unwrap().parse().unwrap();
        for p in doc.get("permission").and_then(toml::Value::as_array).into_iter().flatten() {
            let allow = strings(p.get("commands").and_then(|c| c.get("allow")));
            permissions.insert(p["identifier"].as_str().unwrap().to_string(), allow);
        }
        for s in doc.get("set").and_then(toml::Value::as_array).into_iter().flatten() {
            sets.insert(s["identifier"].as_str().unwrap().to_string(), strings(s.get("permissions")));
        }
    }
    (permissions, sets)
}

#[test]
fn the_relay_bridge_permission_allows_exactly_the_command_list() {
    let (permissions, sets) = permission_files();
    let mut allowed = BTreeSet::new();
    let mut todo = vec!["relay-bridge".to_string()];
    while let Some(id) = todo.pop() {
        if let Some(members) = sets.get(&id) {
            todo.extend(members.iter().cloned());
        } else {
            let allow = permissions.get(&id).unwrap_or_else(|| panic!("relay-bridge grants unknown {id}"));
            allowed.extend(allow.iter().cloned());
        }
    }
    assert_eq!(allowed, commands(), "commands.allow reachable from relay-bridge vs COMMANDS");
}

/// The command names `ui/src/transport/desktop.ts` invokes (`invoke('x'`, `invoke<T>('x'`,
/// `call('x'`).
fn ui_invoked() -> BTreeSet<String> {
    let src = read("../../ui/src/transport/desktop.ts");
    let re = regex::Regex::new(r#"\b(?:invoke|call)\s*(?:<[^>()]*>)?\(\s*['"`]([A-Za-z0-9_]+)['"`]"#).unwrap();
    re.captures_iter(&src).map(|c| c[1].to_string()).collect()
}

#[test]
fn the_ui_desktop_transport_invokes_exactly_the_registered_commands() {
    let ui = ui_invoked();
    assert!(ui.contains("connection_info") && ui.contains("sign_in"), "the UI parse found {ui:?}");
    let expected: BTreeSet<String> =
        commands().difference(&set(NOT_INVOKED_BY_THE_UI.iter().copied())).cloned().collect();
    assert!(set(NOT_INVOKED_BY_THE_UI.iter().copied()).is_subset(&commands()), "NOT_INVOKED_BY_THE_UI vs COMMANDS");
    assert_eq!(ui, expected, "ui/src/transport/desktop.ts vs COMMANDS minus NOT_INVOKED_BY_THE_UI");
}

#[test]
fn the_default_capability_grants_only_the_relay_bridge() {
    let cap: Value = serde_json::from_str(&read("capabilities/default.json")).unwrap();
    let keys: BTreeSet<&str> = cap.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, BTreeSet::from(["$schema", "identifier", "description", "windows", "permissions"]), "no remote");
    assert_eq!(cap["identifier"], "default");
    assert_eq!(cap["windows"], json!(["main", "aux-*"]));
    assert_eq!(cap["permissions"], json!(["relay-bridge"]));

    let files: Vec<String> = std::fs::read_dir(manifest_dir().join("capabilities"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["default.json"], "no other capability file");
    let conf: Value = serde_json::from_str(&read("tauri.conf.json")).unwrap();
    assert_eq!(conf["app"]["security"].get("capabilities"), None, "no inline capability in tauri.conf.json");

    // What tauri-build resolved and the binary embeds.
    let built: Value =
        serde_json::from_str(&std::fs::read_to_string(concat!(env!("OUT_DIR"), "/capabilities.json")).unwrap())
            .unwrap();
    let built = built.as_object().unwrap();
    assert_eq!(built.keys().collect::<Vec<_>>(), ["default"]);
    assert_eq!(built["default"]["permissions"], json!(["relay-bridge"]));
    assert_eq!(built["default"]["windows"], json!(["main", "aux-*"]));
}

/// The registered handler on the mock runtime with every state a command needs (server mode).
fn mock_app(tmp: &tempfile::TempDir) -> tauri::App<MockRuntime> {
    let dir = infra::datadir::DataDir::open(tmp.path().join("data")).unwrap();
    let store =
        infra::secret_store::SecretStore::with_storage(&dir, domain::secret_policy::SecretStorage::OwnerOnlyFile);
    mock_builder()
        .manage(Bridge::for_tests("", Some("correct horse battery staple")))
        .manage(Arc::new(secrets_cmd::Secrets::new(store, None).unwrap()))
        .manage(session_cmd::SharedSession::default())
        .manage(admin_cmd::AdminSession::default())
        .manage(Arc::new(laptop_cmd::LaptopState::new(
            tmp.path(),
            None,
            Box::new(laptop_cmd::OsKeys::new(tmp.path())),
            Arc::new(infra::clock::SystemClock),
        )))
        .manage(dynatrace_cmd::DynatraceSession::new(tmp.path()))
        .manage(setup_cmd::SetupStore::new(dir))
        .manage(crate::updater_host::UpdaterHost::absent())
        .manage(launcher_link::LinkState::default())
        .invoke_handler(super::handler())
        .build(mock_context(noop_assets()))
        .unwrap()
}

/// Invokes `command` from `window`. The IPC request itself comes from the app origin, so Tauri
/// lets it through and only the command's own caller check (over the webview's URL) decides.
fn invoke(window: &WebviewWindow<MockRuntime>, command: &str, args: &Value) -> Result<Value, Value> {
    let request = tauri::webview::InvokeRequest {
        cmd: command.into(),
        callback: tauri::ipc::CallbackFn(0),
        error: tauri::ipc::CallbackFn(1),
        url: bridge::trusted_origin().parse().unwrap(),
        body: tauri::ipc::InvokeBody::Json(args.clone()),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.into(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

fn forbidden(reply: &Result<Value, Value>) -> bool {
    matches!(reply, Err(e) if e["code"] == "forbidden")
}

#[test]
fn every_registered_command_refuses_foreign_callers() {
    let tmp = tempfile::tempdir().unwrap();
    let app = mock_app(&tmp);
    let trusted = format!("{}/index.html", bridge::trusted_origin());
    let window = |label: &str, url: &str| {
        WebviewWindowBuilder::new(&app, label, WebviewUrl::External(url.parse().unwrap())).build().unwrap()
    };
    // Bridge windows on the app origin.
    let main = window("main", &trusted);
    let aux = window("aux-oncall", &format!("{}/?popout=oncall", bridge::trusted_origin()));
    // Foreign: windows that are not bridge windows, and bridge windows off the app origin.
    let foreign = [
        window("dynatrace", &trusted),
        window("evil", &trusted),
        window("aux-settings", &trusted),
        window("aux-popout-board", "https://evil.example/"),
    ];
    let off_origin = ["https://evil.example/", "tauri://localhost.evil/", "http://127.0.0.1:8090/"];

    for (command, args) in table() {
        let name = command.name;
        for w in &foreign {
            let reply = invoke(w, name, &args);
            assert!(forbidden(&reply), "{name} from window {:?}: {reply:?}", w.label());
        }
        for url in off_origin {
            main.navigate(url.parse().unwrap()).unwrap();
            let reply = invoke(&main, name, &args);
            assert!(forbidden(&reply), "{name} from main on {url}: {reply:?}");
        }
        main.navigate(trusted.parse().unwrap()).unwrap();
        let (allowed, refused): (Vec<&WebviewWindow<MockRuntime>>, Vec<&WebviewWindow<MockRuntime>>) =
            match command.access {
                Access::MainOnly => (vec![&main], vec![&aux]),
                Access::AuxOk => (vec![&main, &aux], vec![]),
                Access::AuxOnly => (vec![&aux], vec![&main]),
            };
        for w in refused {
            let reply = invoke(w, name, &args);
            assert!(forbidden(&reply), "{name} ({:?}) from {:?}: {reply:?}", command.access, w.label());
        }
        // The control: an allowed window gets past the caller check and into the command
        // (`reset_setup` would then restart the app, which the mock runtime cannot do).
        if name == setup_cmd::RESET_SETUP.name {
            continue;
        }
        for w in allowed {
            let reply = invoke(w, name, &args);
            assert!(!forbidden(&reply), "{name} from {:?}: {reply:?}", w.label());
            if let Err(e) = &reply {
                assert!(e.get("code").is_some(), "{name} from {:?} reached the command: {reply:?}", w.label());
            }
        }
    }
}

#[test]
fn a_relay_sign_out_in_the_main_window_ends_the_administration_session() {
    use tauri::Manager;
    let tmp = tempfile::tempdir().unwrap();
    let app = mock_app(&tmp);
    let trusted = format!("{}/index.html", bridge::trusted_origin());
    let main = WebviewWindowBuilder::new(&app, "main", WebviewUrl::External(trusted.parse().unwrap())).build().unwrap();
    let admin = app.state::<admin_cmd::AdminSession>();
    admin.set(Some("local-session".into()));
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWxheSJ9.c2lnbmF0dXJlLWJ5dGVz";
    assert_eq!(invoke(&main, "share_session", &json!({ "token": token })), Ok(Value::Null));
    assert_eq!(admin.get().as_deref(), Some("local-session"), "a new token is no sign-out");
    assert_eq!(invoke(&main, "share_session", &json!({ "token": null })), Ok(Value::Null));
    assert_eq!(admin.get(), None, "the Relay sign-out ended the Administration session");
}
