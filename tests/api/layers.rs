//! The app's layering, checked over its source (issue 30): who may name whom.
//!
//! - `decl` (declarations) is the lowest layer: it names no other part of the app but `assets`.
//! - The engine and what it stands on (`decl`, `auth`, `engine`, `http`, `state`, `logsink`, `indexer`, `cache`,
//!   `wire`, `error`, `metrics`, `assets`) name no area (`crate::api`), no page (`crate::pages`), no seeding
//!   (`crate::seed`) and not the contract printer (`crate::openapi`).
//! - Areas read each other only through the few functions below, and never in a circle.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The functions one area may call of another, and why.
const SIBLING_READS: &[(&str, &str, &str)] = &[
    ("finance", "scm::daywork_total", "project cost counts the day work of a project's constructs"),
    ("finance", "scm::rebuild_daywork_totals", "the cost totals' upgrade rebuilds them"),
    ("finance", "wms::ledger::project_material", "project cost counts the material the depot issued to the project"),
    ("finance", "wms::ledger::rebuild_project_totals", "the cost totals' upgrade rebuilds them"),
    ("flow", "worklist::urgent", "the desk's counts show the urgent work orders beside the approvals"),
    ("resource", "flow::approval::file_visible", "an approval file is downloaded by whoever may see its approval"),
    ("search", "system::menu::user_routes", "the search box finds the menus the user may open"),
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without comments (a doc comment may name anything).
fn code(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every `crate::<module>::<path>` a source names, with the module.
fn named(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + 7..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        out.push(rest[..end].trim_end_matches(':').to_string());
    }
    out
}

fn app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("app")
}

#[test]
fn the_engine_and_below_name_no_area_page_seed_or_contract() {
    let mut all = Vec::new();
    files(&app(), &mut all);
    let lower = |p: &Path| {
        let rel = p.strip_prefix(app()).unwrap().to_string_lossy().into_owned();
        ["decl/", "auth/", "engine/"].iter().any(|d| rel.starts_with(d))
            || ["http.rs", "state.rs", "secrets.rs", "logsink.rs", "indexer.rs", "cache.rs", "wire.rs", "error.rs", "metrics.rs", "assets.rs"].contains(&rel.as_str())
    };
    let mut found = Vec::new();
    for p in all.iter().filter(|p| lower(p)) {
        for n in named(&code(p)) {
            if ["api", "pages", "seed", "openapi"].iter().any(|m| n == *m || n.starts_with(&format!("{m}::"))) {
                found.push(format!("{} names crate::{n}", p.strip_prefix(app()).unwrap().display()));
            }
        }
    }
    assert!(found.is_empty(), "lower layers reach up:\n{}", found.join("\n"));
    for p in all.iter().filter(|p| p.strip_prefix(app()).unwrap().starts_with("decl")) {
        for n in named(&code(p)) {
            assert!(n.starts_with("decl") || n.starts_with("assets"), "{} names crate::{n}: declarations are the lowest layer", p.display());
        }
    }
}

#[test]
fn areas_read_each_other_only_through_the_listed_functions_and_never_in_a_circle() {
    let api = app().join("api");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut unlisted = Vec::new();
    for e in std::fs::read_dir(&api).unwrap().flatten().filter(|e| e.path().is_dir()) {
        let area = e.file_name().to_string_lossy().into_owned();
        let mut srcs = Vec::new();
        files(&e.path(), &mut srcs);
        for p in srcs {
            for n in named(&code(&p)) {
                let Some(path) = n.strip_prefix("api::") else { continue };
                let other = path.split("::").next().unwrap_or("");
                // The area registry itself (`api::AREAS`, `api::rules`, `api::Area`) is not an area.
                if other == area || !api.join(other).is_dir() {
                    continue;
                }
                graph.entry(area.clone()).or_default().insert(other.to_string());
                if !SIBLING_READS.iter().any(|(from, f, _)| *from == area && *f == path) {
                    unlisted.push(format!("{} reads crate::api::{path}", p.strip_prefix(app()).unwrap().display()));
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "areas reading each other outside SIBLING_READS:\n{}", unlisted.join("\n"));
    // No circle: a depth-first walk never meets an area on its own path.
    fn walk(g: &BTreeMap<String, BTreeSet<String>>, at: &str, path: &mut Vec<String>) {
        assert!(!path.iter().any(|p| p == at), "areas in a circle: {} -> {at}", path.join(" -> "));
        path.push(at.to_string());
        for next in g.get(at).into_iter().flatten() {
            walk(g, next, path);
        }
        path.pop();
    }
    for a in graph.keys() {
        walk(&graph, a, &mut Vec::new());
    }
}

#[test]
fn every_declaration_lives_in_its_areas_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/resources");
    let mut loose = Vec::new();
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            // A folder per area (`app/api/<area>`), and `engine` for what the engine itself writes (change history).
            assert!(name == "engine" || app().join("api").join(&name).is_dir(), "assets/resources/{name}/ is no area");
        } else {
            loose.push(name);
        }
    }
    assert!(loose.is_empty(), "declarations outside an area's folder: {loose:?}");
    // And each is loaded: the registry knows every file.
    let res = zhizhuang::decl::Resources::load().unwrap();
    let mut files = Vec::new();
    files_of(&root, &mut files);
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(res.find(&name).is_some(), "{} not loaded", f.display());
    }
}

fn files_of(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            files_of(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}
