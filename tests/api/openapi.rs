//! The checked-in contract (architecture principle 10): `openapi.json` is what `zhizhuang openapi` prints, it
//! covers every route of `api::table` with the right security, and every reference in it resolves.
use serde_json::Value;

fn committed() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json")).expect("openapi.json at the repository root")
}

#[test]
fn committed_openapi_json_is_what_the_binary_prints() {
    let (code, printed) = crate::net::run(&["openapi"]);
    assert_eq!(code, 0, "{printed}");
    assert!(
        printed == committed(),
        "openapi.json is stale: run `cargo run -- openapi --out openapi.json` and commit the result"
    );
}

#[test]
fn every_route_is_documented_with_its_security() {
    let doc: Value = serde_json::from_str(&committed()).unwrap();
    let all = crate::support::routes();
    for r in &all {
        let (method, path) = (r.method, r.path.as_str());
        let op = &doc["paths"][path][method.to_ascii_lowercase()];
        assert!(op.is_object(), "{method} {path} missing from openapi.json");
        let security = op["security"].as_array().unwrap_or_else(|| panic!("{method} {path}: no security"));
        if path == "/api/blade-auth/oauth/token" {
            assert_eq!(security[0]["Client"], serde_json::json!([]), "{path}");
        } else if r.guard.is_public() {
            assert!(security.is_empty(), "{method} {path} is public");
        } else {
            assert_eq!(security[0]["BladeAuth"], serde_json::json!([]), "{method} {path} needs a session");
            assert!(op["responses"]["401"].is_object() && op["responses"]["403"].is_object(), "{method} {path}");
        }
    }
    let ops: usize = doc["paths"].as_object().unwrap().values().map(|p| p.as_object().unwrap().len()).sum();
    assert_eq!(ops, all.len(), "openapi.json documents routes that are not served");
    // Resource routes carry their declarations: the parameter page lists its filters and returns Param records.
    let list = &doc["paths"]["/api/blade-system/param/list"]["get"];
    let names: Vec<&str> = list["parameters"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"paramName") && names.contains(&"current") && names.contains(&"size"), "{names:?}");
    assert!(list.to_string().contains("#/components/schemas/Param"));
    assert_eq!(doc["components"]["schemas"]["Param"]["required"], serde_json::json!(["paramName", "paramKey", "paramValue"]));
    // Secrets are write-only in the contract as on the wire.
    assert_eq!(doc["components"]["schemas"]["Client"]["properties"]["clientSecret"]["writeOnly"], true);
}

#[test]
fn every_reference_resolves() {
    let doc: Value = serde_json::from_str(&committed()).unwrap();
    fn walk(v: &Value, doc: &Value, n: &mut usize) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    let ptr = r.strip_prefix('#').unwrap_or_else(|| panic!("external $ref {r}"));
                    assert!(doc.pointer(ptr).is_some(), "unresolved $ref {r}");
                    *n += 1;
                }
                m.values().for_each(|x| walk(x, doc, n));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, doc, n)),
            _ => {}
        }
    }
    let mut n = 0;
    walk(&doc, &doc, &mut n);
    assert!(n > crate::support::routes().len(), "expected references to the shared envelope and errors, found {n}");
}
