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

/// The UI's bundles, written by `build.rs`.
pub mod ui {
    include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));
}

/// The server bundle, for starting the render pool.
pub fn server_bundle() -> &'static str {
    ui::SERVER_JS
}
