//! Uploaded files in the tenant's own object storage (对象存储). When a tenant has enabled an `oss` configuration,
//! every upload (`put-file`, approval and work-order files, avatars, imports kept as files) stores its bytes in
//! that bucket under the tenant's prefix (`<tenant>/<yyyyMMdd>/<random>.<ext>`), and the attach record names the
//! configuration and the object (`ossId`, `objectKey`); without one, files stay inside the data file as before.
//! Downloads always go through the server, with the same tenant and permission checks; removing an attachment
//! removes its object. The configuration's keys are write-only (never answered) and never logged.
//!
//! Providers (dict `oss`): 1 MinIO and 2 Qiniu speak S3 (Qiniu Kodo's S3 endpoint); 3 Aliyun OSS, 4 Tencent COS
//! and 5 Huawei OBS their own APIs, all through `offbox::Bucket` (Apache OpenDAL).
use std::time::Duration;

use offbox::{Bucket, Kind as BucketKind, Target};
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult, Kind};
use crate::state::AppState;

/// How long one call to a tenant's bucket may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The bucket an `oss` record describes (its keys as stored: `open` opens them).
pub fn target_of(rec: &Map<String, Value>) -> Result<Target, (String, String)> {
    let text = |k: &str| rec.get(k).and_then(Value::as_str).unwrap_or("").trim().to_string();
    let kind = match rec.get("category").and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))) {
        Some(1) | Some(2) => BucketKind::S3,
        Some(3) => BucketKind::Oss,
        Some(4) => BucketKind::Cos,
        Some(5) => BucketKind::Obs,
        _ => return Err(("不支持的对象存储分类".into(), "Unsupported object storage provider".into())),
    };
    let mut bucket = text("bucketName");
    if bucket.is_empty() {
        return Err(("请填写空间名".into(), "The bucket name is required".into()));
    }
    // Tencent COS names buckets `<name>-<appid>`; BladeX's screen keeps the app id apart.
    let app_id = text("appId");
    if kind == BucketKind::Cos && !app_id.is_empty() && !bucket.ends_with(&format!("-{app_id}")) {
        bucket = format!("{bucket}-{app_id}");
    }
    Ok(Target { kind, endpoint: text("endpoint"), bucket, region: text("region"), access_key: text("accessKey"), secret_key: text("secretKey"), prefix: String::new() })
}

/// The bucket of the `oss` record `id` of `tenant` (None when the record is gone), cached until configurations change.
pub async fn bucket_of(st: &AppState, tenant: &str, id: u64) -> ApiResult<Option<Bucket>> {
    let version = st.store.version("oss");
    let key = format!("{tenant}\u{1f}{id}");
    if let Some(b) = st.buckets.get(&key, &version) {
        return Ok(b);
    }
    let (def, t) = (st.res.get("oss"), tenant.to_string());
    let rec = st.read(move |r| r.get(&def, &t, id)).await?;
    let b = match rec {
        None => None,
        Some(rec) => Some(open(st, tenant, &rec)?),
    };
    st.buckets.put(key, version, b.clone());
    Ok(b)
}

/// A tenant's bucket, reachable only where the server's rule allows (`offbox::guard`: checked again at every
/// connect, no redirects).
fn open(st: &AppState, tenant: &str, rec: &Map<String, Value>) -> ApiResult<Bucket> {
    let mut t = target_of(rec).map_err(|(zh, en)| ApiError::rule(zh, en))?;
    let def = st.res.get("oss");
    t.access_key = crate::engine::crud::open_field(&st.secrets, tenant, &def, rec, "accessKey")?;
    t.secret_key = crate::engine::crud::open_field(&st.secrets, tenant, &def, rec, "secretKey")?;
    Bucket::open_with(&t, TIMEOUT, &st.settings.bucket_rule).map_err(|p| failed(&p))
}

/// Checks an endpoint typed on a web screen before it is saved: http or https, and neither it nor the
/// addresses its name resolves to now may be one the server's rule forbids (400 saying why).
pub async fn check_endpoint(rule: &offbox::guard::Rule, endpoint: &str) -> ApiResult<()> {
    if endpoint.trim().is_empty() {
        return Ok(());
    }
    rule.check_resolved(endpoint).await.map_err(|r| ApiError::rule(r.zh(), r.en()))
}

/// A saved configuration's secret may stay blank on an edit only while the address it is sent to stays the
/// same: a changed endpoint needs its secret typed again (else whoever changes the address gets the keys
/// used there).
pub fn secret_needed_again(old_endpoint: &str, new_endpoint: &str, new_secret: &str) -> ApiResult<()> {
    let norm = |e: &str| offbox::guard::with_scheme(e).to_ascii_lowercase();
    if new_secret.trim().is_empty() && norm(old_endpoint) != norm(new_endpoint) {
        return Err(ApiError::rule("更换资源地址后请重新填写 secretKey", "A changed endpoint needs its secretKey again"));
    }
    Ok(())
}

/// The tenant's enabled configuration and its bucket, if it has one.
pub async fn enabled(st: &AppState, tenant: &str) -> ApiResult<Option<(u64, Bucket)>> {
    let version = st.store.version("oss");
    let key = format!("{tenant}\u{1f}enabled");
    let id = match st.enabled_oss.get(&key, &version) {
        Some(id) => id,
        None => {
            let (def, t) = (st.res.get("oss"), tenant.to_string());
            let id = st
                .read(move |r| Ok(r.all(&def, &t)?.into_iter().find(|c| c.get("enabled").and_then(Value::as_i64) == Some(1)).and_then(|c| c.get("id").and_then(Value::as_u64))))
                .await?;
            st.enabled_oss.put(key, version, id);
            id
        }
    };
    match id {
        None => Ok(None),
        Some(id) => Ok(bucket_of(st, tenant, id).await?.map(|b| (id, b))),
    }
}

/// A bucket's failure as the answer: 502 saying what to fix, in the client's language.
pub fn failed(p: &offbox::Problem) -> ApiError {
    tracing::warn!(target: "zz::error", problem = %p, "object storage");
    ApiError::with(Kind::ObjectStorage, format!("{}\u{1e}{}", p.zh(), p.en()))
}

/// The object key of an upload: under the tenant's prefix.
pub fn object_key(tenant: &str, name: &str) -> String {
    format!("{tenant}/{name}")
}

/// Removes objects of removed attachments (after their records are gone); a failure is logged, not answered:
/// the record is gone and the object is an orphan the bucket's owner can see.
pub async fn remove_objects(st: &AppState, tenant: &str, objects: Vec<(u64, String)>) {
    for (oss, key) in objects {
        match bucket_of(st, tenant, oss).await {
            Ok(Some(b)) => {
                if let Err(p) = b.delete(&key).await {
                    tracing::warn!(target: "zz::error", problem = %p, key = %key, "object storage: the object of a removed attachment stays in the bucket");
                }
            }
            _ => tracing::warn!(target: "zz::error", key = %key, "object storage: the configuration of a removed attachment is gone; its object stays in the bucket"),
        }
    }
}
