//! Resources served by the generic engine at a fixed base with a generic list screen, besides those whose
//! declaration names them (`api.base`, `api.screen`): (resource, API base, screen path).
use super::Resources;

/// Resources with a generic list screen: (resource, API base, screen path). Users, roles, menus, departments,
/// tenants and both dictionaries have screens of their own in the UI (`ui/src/routes.tsx` ADMIN_SCREENS) whose
/// first screen `pages::admin_page` fills from their own API functions. The page handler renders the
/// screen at the path with the first page of data; the API base serves list/detail/submit/remove/schema/export.
pub const SCREENS: &[(&str, &str, &str)] = &[
    ("param", "/api/blade-system/param", "/system/param"),
    ("post", "/api/blade-system/post", "/system/post"),
    ("client", "/api/blade-system/client", "/system/client"),
    ("region", "/api/blade-system/region", "/base/region"),
    ("log_usual", "/api/blade-log/usual", "/monitor/log/usual"),
    ("log_api", "/api/blade-log/api", "/monitor/log/api"),
    ("log_error", "/api/blade-log/error", "/monitor/log/error"),
    ("log_login", "/api/blade-log/login", "/monitor/log/login"),
    ("notice", "/api/blade-desk/notice", "/desk/notice"),
    ("oss", "/api/blade-resource/oss", "/resource/oss"),
    ("attach", "/api/blade-resource/attach", "/resource/attach"),
    ("sms", "/api/blade-resource/sms", "/resource/sms"),
    ("code", "/api/blade-develop/code", "/tool/code"),
    ("datasource", "/api/blade-develop/datasource", "/tool/datasource"),
    ("report", "/api/blade-report/report/rest", "/report/reportlist"),
    ("topmenu", "/api/blade-system/topmenu", "/system/topmenu"),
    ("datascope", "/api/blade-system/data-scope", "/authority/datascope"),
    ("apiscope", "/api/blade-system/api-scope", "/authority/apiscope"),
];

/// Every generic list screen: `SCREENS` and the screens of the resources declared with a dialect
/// (`engine::dialect`: their declaration names base and screen).
pub fn screens(res: &Resources) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = SCREENS.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
    for (def, decl) in res.declared() {
        if let Some(screen) = &decl.screen {
            v.push((def.name.clone(), decl.base.clone(), screen.clone()));
        }
    }
    v
}

