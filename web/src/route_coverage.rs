//! Every route the server registers is in `docs/openapi.json`, and the document promises no
//! route on a listener that does not register it: the reverse of the black-box
//! `tests/blackbox/openapi.rs`, which calls every documented operation on the running server.
//!
//! actix-web offers no public listing of an `App`'s routes, so the listeners register every
//! route from the per-module tables of `route_table` mounted through `crate::DATA_API` and
//! `gateway::MOUNTS`, and this test reads those very values: what it checks is what the
//! listeners register, with no parsing of source and no second list to keep in step. Method and
//! path (scope prefix plus the resource's pattern, `{name}` segments as in OpenAPI) must name a
//! documented operation whose `x-relay-surfaces` includes the listener. A third test keeps the
//! tables the only way in: it refuses route registration anywhere else in `web/src`. The static
//! UI (`static_ui`, files and the SPA fallback) and the not-found default services are not API
//! operations and are not documented.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::route_table::Mount;

/// (method, path, listener) as `docs/openapi.json` names them: `("get", "/api/health", "data-api")`.
type Operation = (String, String, String);

fn listeners() -> [(&'static str, Vec<&'static Mount>); 2] {
    [("data-api", vec![&crate::DATA_API]), ("gateway", crate::gateway::MOUNTS.to_vec())]
}

fn registered() -> BTreeSet<Operation> {
    let mut operations = BTreeSet::new();
    for (listener, mounts) in listeners() {
        for mount in mounts {
            for table in mount.tables {
                for endpoint in table.endpoints {
                    for (verb, _) in endpoint.methods {
                        let path = format!("{}{}", mount.prefix, endpoint.path);
                        operations.insert((verb.openapi_name().to_string(), path, listener.to_string()));
                    }
                }
            }
        }
    }
    operations
}

fn documented() -> BTreeSet<Operation> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut operations = BTreeSet::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            let listeners = operation["x-relay-surfaces"]
                .as_array()
                .unwrap_or_else(|| panic!("{method} {path} names no x-relay-surfaces"));
            for listener in listeners {
                let listener = listener.as_str().expect("a listener name").to_string();
                operations.insert((method.clone(), path.clone(), listener));
            }
        }
    }
    operations
}

fn listing(operations: Vec<&Operation>) -> String {
    operations.iter().map(|(method, path, listener)| format!("\n  {method} {path} on {listener}")).collect()
}

#[test]
fn every_registered_route_is_documented() {
    let (registered, documented) = (registered(), documented());
    assert!(registered.len() >= 40, "the tables list only {} operations", registered.len());
    let missing: Vec<_> = registered.difference(&documented).collect();
    assert!(missing.is_empty(), "registered but not in docs/openapi.json:{}", listing(missing));
}

#[test]
fn every_documented_operation_is_registered_on_its_listeners() {
    let (registered, documented) = (registered(), documented());
    let phantom: Vec<_> = documented.difference(&registered).collect();
    assert!(phantom.is_empty(), "in docs/openapi.json but not registered there:{}", listing(phantom));
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Registration that would bypass the route tables (and so this test).
const BYPASSES: &[&str] = &[
    ".route(",
    "web::resource(",
    "Resource::new(",
    "web::method(",
    "web::get()",
    "web::post()",
    "web::put()",
    "web::patch()",
    "web::delete()",
    "web::head()",
    "#[get(",
    "#[post(",
    "#[put(",
    "#[patch(",
    "#[delete(",
    "#[route(",
];

/// A scope is opened with a `Mount`'s prefix; the one exception registers no route.
fn is_allowed_scope(rest: &str) -> bool {
    let argument = rest.split(')').next().unwrap_or_default();
    argument.ends_with(".prefix") || rest.starts_with("\"/web/api\").default_service(")
}

#[test]
fn routes_are_registered_only_through_route_tables() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bypasses = Vec::new();
    for file in files {
        let name = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        if name == "route_table.rs" || name == "route_coverage.rs" {
            continue;
        }
        for (number, line) in std::fs::read_to_string(&file).unwrap().lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let bypass = BYPASSES.iter().any(|b| code.contains(b))
                || code.split("web::scope(").skip(1).any(|rest| !is_allowed_scope(rest));
            if bypass {
                bypasses.push(format!("\n  web/src/{name}:{}: {code}", number + 1));
            }
        }
    }
    assert!(bypasses.is_empty(), "register routes through a route_table::RouteTable:{}", bypasses.concat());
}
