//! blade-resource: OSS and SMS provider configs (per tenant; keys write-only; one enabled per tenant; 测试连接 of an
//! OSS config), SMS sending through a provider interface, and attachments (removal frees their chunks and quota,
//! or removes their object from the tenant's bucket).
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::engine::{Api, Guard, crud};
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

/// `<base>/list|detail|schema|export|submit|remove|enable` of `oss` or `sms`.
pub fn provider_routes(api: Api, base: &str, name: &str) -> Api {
    let def = api.def(name);
    let (d2, d3) = (def.clone(), def.clone());
    let (gs, ge, gt) = (Guard::write(&def, &["add", "edit"]), Guard::write(&def, &["enable"]), Guard::write(&def, &["edit"]));
    let api = api.read(base, name).remove(base, name).post(format!("{base}/enable"), ge, move |st, s, p| enable(st, s, p, d2.clone()));
    if name == "oss" {
        let d4 = def.clone();
        api.post(format!("{base}/submit"), gs, move |st, s, b| submit_oss(st, s, b, d4.clone())).post(format!("{base}/test"), gt, move |st, s, p| test_oss(st, s, p, d3.clone()))
    } else {
        api.post(format!("{base}/submit"), gs, move |st, s, b| crate::engine::crud::secret_submit(st, s, b, def.clone(), crate::engine::crud::no_prepare))
    }
}

/// POST oss/submit: as every secret-holding submit, and the endpoint first checked against the server's rule
/// (`offbox::guard`: http or https, no loopback, LAN or metadata address unless the operator allows it); an edit
/// that changes the endpoint must give the secret again.
async fn submit_oss(State(st): State<AppState>, s: Session, body: crate::http::JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = crud::body_id(&body.0)?;
    crud::check_write(&s, &def, if id.is_some() { "edit" } else { "add" })?;
    let text = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let endpoint = text(&body.0, "endpoint");
    if let Some(id) = id {
        let old = crud::get_scoped(&st, &s, &def, id).await?;
        if body.0.contains_key("endpoint") {
            crate::engine::objects::secret_needed_again(&text(&old, "endpoint"), &endpoint, &text(&body.0, "secretKey"))?;
        }
    }
    crate::engine::objects::check_endpoint(&st.settings.bucket_rule, &endpoint).await?;
    crud::secret_submit(State(st), s, body, def, crud::no_prepare).await
}

/// POST enable?id=: this config becomes the tenant's one enabled config of its kind.
async fn enable(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "enable")?;
    let id = crud::parse_id(p.get("id"))?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    st.write(move |w| {
        w.get(&d, &t, id)?.ok_or(store::StoreError::NotFound)?;
        for r in w.all(&d, &t)? {
            let rid = r.get("id").and_then(Value::as_u64).unwrap_or(0);
            let want = i64::from(rid == id);
            if r.get("enabled").and_then(Value::as_i64).unwrap_or(0) != want {
                let mut patch = Map::new();
                patch.insert("enabled".into(), json!(want));
                w.update(&d, &t, rid, patch, &actor)?;
            }
        }
        Ok(())
    })
    .await?;
    Ok(ok(Value::Null))
}

/// Delivers a message. Real gateways plug in here; the built-in one writes to the server log.
pub trait SmsProvider: Send + Sync {
    /// The name recorded with each message (`log` for the built-in provider).
    fn name(&self) -> &'static str;
    fn send(&self, tenant: &str, template: &str, phones: &[String], params: &Map<String, Value>) -> Result<(), String>;
}

/// The built-in provider: nothing leaves the server; each message is a line in the server log.
pub struct LogProvider;

impl SmsProvider for LogProvider {
    fn name(&self) -> &'static str {
        "log"
    }
    fn send(&self, tenant: &str, template: &str, phones: &[String], params: &Map<String, Value>) -> Result<(), String> {
        tracing::info!(target: "zz::sms", tenant, template, phones = phones.len(), params = params.len(), "sms delivered to the log (built-in provider)");
        Ok(())
    }
}

/// POST sms/send-message (code, phones, params): validated, delivered through the provider, recorded.
pub async fn send_message(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("sms_send")?;
    let code = p.get("code").map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, "code"))?.to_string();
    let phones_raw = p.get("phones").map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, "phones"))?;
    let phones: Vec<String> = phones_raw.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
    if phones.is_empty() || phones.len() > 100 {
        return Err(ApiError::with(Kind::OutOfRange, "phones"));
    }
    if phones.iter().any(|ph| !store::pattern_ok(store::Pattern::Phone, ph)) {
        return Err(ApiError::new(Kind::BadPhone));
    }
    let params: Map<String, Value> = match p.get("params").map(str::trim).filter(|v| !v.is_empty()) {
        None => Map::new(),
        Some(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(m)) if raw.len() <= 2000 => m,
            _ => return Err(ApiError::with(Kind::BadFormat, "params")),
        },
    };
    let (def, t, c2) = (st.res.get("sms"), s.tenant.clone(), code.clone());
    let config = st
        .read(move |r| match r.find_unique(&def, &t, "smsCode", &c2)? {
            Some(id) => r.get(&def, &t, id),
            None => Ok(None),
        })
        .await?
        .ok_or_else(|| ApiError::new(Kind::NotFound))?;
    let template = config.get("templateId").and_then(Value::as_str).unwrap_or("").to_string();
    let provider: &dyn SmsProvider = &LogProvider;
    let result = match provider.send(&s.tenant, &template, &phones, &params) {
        Ok(()) => "sent".to_string(),
        Err(e) => format!("failed: {e}"),
    };
    let doc = json!({"smsCode": code, "phones": phones.join(","), "params": Value::Object(params).to_string(), "provider": provider.name(), "result": result});
    let (def, t, actor) = (st.res.get("sms_message"), s.tenant.clone(), s.actor());
    let doc = doc.as_object().cloned().unwrap_or_default();
    let saved = st.write(move |w| w.insert(&def, &t, doc.clone(), &actor)).await?;
    Ok(ok(crate::wire::record(&st.res.get("sms_message"), st.settings.zone, saved)))
}

// ---- attachments ----

pub fn attach_routes(api: Api, base: &str) -> Api {
    let g = Guard::write(&api.def("attach"), &["delete"]);
    api.read(base, "attach").post(format!("{base}/remove"), g, attach_remove)
}

/// Removes attachments: the record, its chunks, and its bytes from the tenant's quota, in one transaction.
async fn attach_remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let def = st.res.get("attach");
    crud::check_write(&s, &def, "delete")?;
    let ids = crud::removable_ids(&st, &s, &def, p.get("ids")).await?;
    let (t, actor) = (s.tenant.clone(), s.actor());
    let (n, objects) = st
        .write(move |w| {
            let mut live = Vec::new();
            let mut objects = Vec::new();
            for id in &ids {
                if let Some(rec) = w.get(&def, &t, *id)? {
                    live.push(*id);
                    if let (Some(oss), Some(key)) = (rec.get("ossId").and_then(Value::as_u64), rec.get("objectKey").and_then(Value::as_str)) {
                        objects.push((oss, key.to_string()));
                    }
                }
            }
            for id in &live {
                let bytes = w.delete_file(&t, *id)?;
                w.add_counter(&t, crate::engine::uploads::QUOTA_COUNTER, -(bytes as i64))?;
            }
            Ok((w.remove(&def, &t, &live, &actor)?, objects))
        })
        .await?;
    if n == 0 {
        return Err(ApiError::new(Kind::NotFound));
    }
    // The objects go once their records are gone (a failed removal leaves an orphan object, never a record
    // pointing at nothing).
    crate::engine::objects::remove_objects(&st, &s.tenant, objects).await;
    Ok(ok(Value::Null))
}

/// POST /api/blade-resource/oss/test?id=: 测试连接 — writes, reads back and removes a small object with the saved
/// configuration, and says what is wrong (keys, bucket, address) when it fails.
async fn test_oss(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "edit")?;
    let id = crud::parse_id(p.get("id"))?;
    crud::get_scoped(&st, &s, &def, id).await?;
    let bucket = crate::engine::objects::bucket_of(&st, &s.tenant, id).await?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    let started = std::time::Instant::now();
    match bucket.probe().await {
        Ok(()) => Ok(ok(json!({"ok": true, "ms": started.elapsed().as_millis() as u64, "target": bucket.target().describe()}))),
        Err(p) => Err(ApiError::rule(format!("连接失败：{}", p.zh()), format!("Connection failed: {}", p.en()))),
    }
}
