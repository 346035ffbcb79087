//! Bundles `ui/` with bun (the npm package installed in `ui/`, never a global one) into `$OUT_DIR/ui`: a hashed
//! client bundle and one server bundle, plus `$OUT_DIR/ui_assets.rs` that embeds them. Writes nothing else.
//! Also names the build's commit (`ZZ_COMMIT`): `ZZ_BUILD_COMMIT` when set (the release script), else git's HEAD in
//! release builds, else `dev` (so a debug build is not rebuilt at every commit).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    commit(&root);
    let ui = root.join("ui");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("out dir"));
    let out = out_dir.join("ui");
    for p in ["ui/src", "ui/build.mjs", "ui/preact.mjs", "ui/package.json", "ui/package-lock.json"] {
        println!("cargo:rerun-if-changed={p}");
    }
    let bun = ui.join("node_modules/.bin/bun");
    // Installed once, and again when the lock file changed since (a checkout that gained a package).
    let modified = |p: &str| std::fs::metadata(ui.join(p)).and_then(|m| m.modified()).ok();
    let stale = match (modified("package-lock.json"), modified("node_modules/.package-lock.json")) {
        (Some(lock), Some(installed)) => lock > installed,
        _ => true,
    };
    if !bun.exists() || stale {
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&ui), "npm ci (in ui/)");
    }
    run(Command::new(&bun).arg("build.mjs").arg(&out).current_dir(&ui), "bun build.mjs");

    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).expect("manifest.json")).expect("manifest json");
    let mut code = String::from("/// Hashed client files: (name, bytes).\npub static CLIENT: &[(&str, &[u8])] = &[\n");
    let mut names: Vec<_> = fs::read_dir(out.join("client")).expect("client dir").flatten().map(|e| e.path()).collect();
    names.sort();
    for p in &names {
        let name = p.file_name().and_then(|n| n.to_str()).expect("file name");
        code.push_str(&format!("    ({name:?}, include_bytes!({:?})),\n", lit(p)));
    }
    code.push_str("];\n");
    code.push_str(&format!("pub const SERVER_JS: &str = include_str!({:?});\n", lit(&out.join("server.js"))));
    code.push_str(&format!("pub const APP_JS: &str = {:?};\n", manifest["js"].as_str().unwrap_or("")));
    code.push_str(&format!("pub const APP_CSS: &str = {:?};\n", manifest["css"].as_str().unwrap_or("")));
    // Each part of the screens (ui/src/parts.ts) and the files it needs, for the pages' modulepreload links.
    code.push_str("/// The screens' parts: (name, the client files it needs).\npub static PARTS: &[(&str, &[&str])] = &[\n");
    for (name, files) in manifest["parts"].as_object().into_iter().flatten() {
        let files: Vec<String> = files.as_array().into_iter().flatten().filter_map(|f| f.as_str()).map(|f| format!("{f:?}")).collect();
        code.push_str(&format!("    ({name:?}, &[{}]),\n", files.join(", ")));
    }
    code.push_str("];\n");
    fs::write(out_dir.join("ui_assets.rs"), code).expect("write ui_assets.rs");
}

fn commit(root: &Path) {
    println!("cargo:rerun-if-env-changed=ZZ_BUILD_COMMIT");
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let from_git = || {
        let out = Command::new("git").args(["rev-parse", "--short=10", "HEAD"]).current_dir(root).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|c| !c.is_empty())
    };
    let commit = match env::var("ZZ_BUILD_COMMIT").ok().filter(|c| !c.is_empty()) {
        Some(c) => c,
        None if release => {
            if let Ok(head) = fs::read_to_string(root.join(".git/HEAD")) {
                println!("cargo:rerun-if-changed=.git/HEAD");
                if let Some(r) = head.strip_prefix("ref: ") {
                    println!("cargo:rerun-if-changed=.git/{}", r.trim());
                }
            }
            from_git().unwrap_or_else(|| "unknown".into())
        }
        None => "dev".into(),
    };
    println!("cargo:rustc-env=ZZ_COMMIT={commit}");
}

fn lit(p: &Path) -> String {
    p.to_str().expect("utf-8 path").to_string()
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{what} failed with {s}: the UI could not be bundled"),
        Err(e) => panic!("{what} could not start ({e}); Node.js and npm are needed to bundle the UI"),
    }
}
