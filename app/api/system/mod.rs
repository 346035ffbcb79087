//! blade-system: parameters, menus and top menus, roles and grants, data and API scopes, both dictionaries,
//! tenants, posts, departments, clients and regions. Each file owns one resource's hand-written behaviour; the
//! generic ones (parameters, top menus) are served by the engine from their declarations.
pub mod dict;
pub mod menu;
pub mod menus;
pub mod org;
pub mod role;
pub mod scopes;
pub mod status;
pub mod tenant;
pub mod tree;

use crate::engine::{Api, Guard};

const S: &str = "/api/blade-system";

pub fn routes(api: Api) -> Api {
    let api = api
        .get(format!("{S}/menu/routes"), Guard::Signed, menu::routes)
        .get(format!("{S}/menu/buttons"), Guard::Signed, menu::buttons)
        .get(format!("{S}/lookup"), Guard::Signed, crate::engine::lookup::lookup)
        .doc("引用选择 · reference boxes' choices (names, codes, ids) of `resource`, for whoever may read it or any resource whose form or filter refers to it; `keyword` (name, code, pinyin), `ids` (titles of chosen ones), `staff=1` (people who can sign in)", &[])
        .get(format!("{S}/status"), Guard::platform(&["status"]), status::status)
        .post(format!("{S}/status/replica"), Guard::platform(&["status"]), status::set_replica)
        .get("/api/metrics", Guard::Scrape(std::sync::Arc::from(vec!["status".to_string()])), status::metrics)
        .doc("系统状态 · requests per route (counts by status class, latency histograms), the files' sizes, log entries and storage state in the Prometheus text format", &[])
        .crud(&format!("{S}/param"), "param")
        .crud(&format!("{S}/topmenu"), "topmenu")
        .post(format!("{S}/topmenu/grant"), Guard::platform(&["topmenu_setting"]), menus::top_grant);
    let api = role::routes(api);
    let api = menus::routes(api);
    let api = scopes::routes(api);
    let api = dict::routes(api, &format!("{S}/dict"), "dict");
    let api = dict::routes(api, &format!("{S}/dict-biz"), "dictbiz");
    let api = dict::blade_dict_routes(api);
    let api = tenant::routes(api, &format!("{S}/tenant"));
    let api = org::post_routes(api, &format!("{S}/post"));
    let api = org::dept_routes(api, &format!("{S}/dept"));
    let api = org::client_routes(api, &format!("{S}/client"));
    org::region_routes(api, &format!("{S}/region"))
}

/// 系统管理: users and roles aside, the platform's settings, menus, dictionaries, tenants, organisation: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("system", routes);
