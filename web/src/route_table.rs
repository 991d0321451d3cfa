//! Route tables: every HTTP route is registered from one small table per module, kept next to
//! the module's handlers (`const ROUTES: RouteTable`), and the listeners mount those tables under
//! their scopes through [`Mount`]s (`crate::DATA_API` for the data API, `gateway::MOUNTS` for
//! Relay Web).
//!
//! actix-web offers no public listing of an `App`'s routes, so the tables are the listing: the
//! `route_coverage` test reads the same `Mount`s the listeners register and holds every
//! (method, path, listener) to `docs/openapi.json`. Register routes only through a table; a
//! `cfg.route(…)` or `web::resource(…)` anywhere else would be invisible to that test, which
//! therefore also refuses such calls in `web/src`.

use actix_web::{web, Resource, Route};

/// The HTTP methods Relay's routes answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Get,
    Post,
    Patch,
    Delete,
}

impl Verb {
    fn route(self) -> Route {
        match self {
            Verb::Get => web::get(),
            Verb::Post => web::post(),
            Verb::Patch => web::patch(),
            Verb::Delete => web::delete(),
        }
    }

    /// The method as an OpenAPI path item names it (`get`, `post`, …).
    #[cfg(test)]
    pub(crate) fn openapi_name(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::Post => "post",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
        }
    }
}

/// Binds a handler to a method's route: `|r| r.to(handler)`.
pub(crate) type Bind = fn(Route) -> Route;

/// One resource: its path pattern relative to the scope the table is mounted under, the methods
/// it answers (each with the binding of its handler) and per-resource setup such as a body limit.
pub(crate) struct Endpoint {
    pub(crate) path: &'static str,
    pub(crate) methods: &'static [(Verb, Bind)],
    setup: fn(Resource) -> Resource,
}

impl Endpoint {
    pub(crate) const fn new(path: &'static str, methods: &'static [(Verb, Bind)]) -> Endpoint {
        Endpoint { path, methods, setup: |resource| resource }
    }

    /// The same endpoint with per-resource setup (`|r| r.app_data(…)`).
    pub(crate) const fn with(self, setup: fn(Resource) -> Resource) -> Endpoint {
        Endpoint { setup, ..self }
    }

    fn resource(&self) -> Resource {
        self.methods
            .iter()
            .fold((self.setup)(web::resource(self.path)), |resource, (verb, bind)| resource.route(bind(verb.route())))
    }
}

/// A module's routes, registered in order.
pub(crate) struct RouteTable {
    pub(crate) endpoints: &'static [Endpoint],
    mounted: fn() -> bool,
}

impl RouteTable {
    pub(crate) const fn new(endpoints: &'static [Endpoint]) -> RouteTable {
        RouteTable { endpoints, mounted: || true }
    }

    /// The same table, registered only while `mounted()` holds (a test switch); the coverage
    /// test still requires its routes to be documented.
    pub(crate) const fn mounted_when(self, mounted: fn() -> bool) -> RouteTable {
        RouteTable { mounted, ..self }
    }

    pub(crate) fn register(&self, cfg: &mut web::ServiceConfig) {
        if (self.mounted)() {
            for endpoint in self.endpoints {
                cfg.service(endpoint.resource());
            }
        }
    }
}

/// Route tables mounted under one scope prefix of a listener, in registration order.
pub(crate) struct Mount {
    pub(crate) prefix: &'static str,
    pub(crate) tables: &'static [&'static RouteTable],
}

impl Mount {
    /// Registers every table of the mount (on the scope whose path is `self.prefix`).
    pub(crate) fn register(&self, cfg: &mut web::ServiceConfig) {
        for table in self.tables {
            table.register(cfg);
        }
    }
}
