//! Files embedded in the binary as they are: seed data, resource declarations, static assets.
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
pub struct Assets;

/// An embedded JSON file, parsed. Panics only on a file the build itself shipped broken (covered by tests).
pub fn json(path: &str) -> serde_json::Value {
    let f = Assets::get(path).unwrap_or_else(|| panic!("embedded asset {path} is missing"));
    serde_json::from_slice(&f.data).unwrap_or_else(|e| panic!("embedded asset {path}: {e}"))
}
