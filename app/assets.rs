//! Files embedded in the binary: seed data, resource declarations and static assets as they are, and the UI's
//! bundles as `build.rs` made them (`ui`: the hashed client files, the server bundle the render pool loads).
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
pub struct Assets;

/// An embedded JSON file, parsed. Panics only on a file the build itself shipped broken (covered by tests).
pub fn json(path: &str) -> serde_json::Value {
    let f = Assets::get(path).unwrap_or_else(|| panic!("embedded asset {path} is missing"));
    serde_json::from_slice(&f.data).unwrap_or_else(|e| panic!("embedded asset {path}: {e}"))
}

/// The codes of the seeded menus marked `business` and of everything below them: screens of a company's records
/// (projects, the depot, approvals, WeChat), which the platform tenant never holds.
pub fn business_codes() -> &'static std::collections::HashSet<String> {
    static CODES: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    CODES.get_or_init(business_codes_of_seed)
}

fn business_codes_of_seed() -> std::collections::HashSet<String> {
    fn walk(nodes: &serde_json::Value, inherited: bool, out: &mut std::collections::HashSet<String>) {
        for n in nodes.as_array().into_iter().flatten() {
            let business = inherited || n["business"].as_bool().unwrap_or(false);
            if business {
                out.insert(n["code"].as_str().unwrap_or("").to_string());
            }
            walk(&n["children"], business, out);
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(&json("seed/menus.json"), false, &mut out);
    out
}

/// The UI's bundles, written by `build.rs`.
pub mod ui {
    include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));
}

/// The server bundle, for starting the render pool.
pub fn server_bundle() -> &'static str {
    ui::SERVER_JS
}
