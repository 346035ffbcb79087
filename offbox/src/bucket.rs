//! One bucket behind Apache OpenDAL: S3 and the stores that speak it (MinIO, SeaweedFS, Qiniu Kodo), Aliyun OSS,
//! Tencent COS and Huawei OBS through their own APIs. Every call has a timeout; errors become a `Problem` that
//! says what to fix (keys, bucket name, address) in Chinese and English, never the secret.
use std::time::Duration;

use bytes::Bytes;
use opendal::{ErrorKind, Operator};

use crate::guard;

/// Which API the bucket speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Amazon S3 and compatibles: MinIO, SeaweedFS, Qiniu Kodo's S3 endpoint.
    S3,
    /// Aliyun OSS.
    Oss,
    /// Tencent COS.
    Cos,
    /// Huawei OBS.
    Obs,
}

/// Where a bucket is and how to sign in to it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Target {
    pub kind: Kind,
    /// `https://oss-cn-hangzhou.aliyuncs.com`, `http://127.0.0.1:9000`; a bare host gets `https://`.
    pub endpoint: String,
    pub bucket: String,
    /// S3's signing region (`us-east-1` when empty).
    #[serde(default)]
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    /// Every object's name starts with this (no leading or trailing `/`).
    #[serde(default)]
    pub prefix: String,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the keys.
        write!(f, "{}", self.describe())
    }
}

impl Target {
    /// `s3://bucket/prefix`, signed in with the standard variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_REGION` and `AWS_ENDPOINT_URL` (for a store that is not AWS). `var` reads them (the environment, or a
    /// credentials file's lines).
    pub fn from_url(url: &str, var: impl Fn(&str) -> Option<String>) -> Result<Target, String> {
        let rest = url.strip_prefix("s3://").ok_or_else(|| format!("{url}: expected s3://bucket/prefix"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!("{url}: no bucket name"));
        }
        let need = |k: &str| var(k).filter(|v| !v.is_empty()).ok_or_else(|| format!("{k} is not set"));
        let region = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")).unwrap_or_default();
        let endpoint = var("AWS_ENDPOINT_URL").or_else(|| var("AWS_ENDPOINT_URL_S3")).unwrap_or_else(|| {
            let r = if region.is_empty() { "us-east-1".to_string() } else { region.clone() };
            format!("https://s3.{r}.amazonaws.com")
        });
        Ok(Target {
            kind: Kind::S3,
            endpoint,
            bucket: bucket.to_string(),
            region,
            access_key: need("AWS_ACCESS_KEY_ID")?,
            secret_key: need("AWS_SECRET_ACCESS_KEY")?,
            prefix: prefix.trim_matches('/').to_string(),
        })
    }

    /// The bucket for people (and logs): kind, endpoint, bucket, prefix — no keys.
    pub fn describe(&self) -> String {
        let kind = match self.kind {
            Kind::S3 => "s3",
            Kind::Oss => "oss",
            Kind::Cos => "cos",
            Kind::Obs => "obs",
        };
        if self.prefix.is_empty() { format!("{kind}://{}@{}", self.bucket, self.endpoint) } else { format!("{kind}://{}/{}@{}", self.bucket, self.prefix, self.endpoint) }
    }

    /// The same bucket with `sub` added to the prefix.
    pub fn under(&self, sub: &str) -> Target {
        let mut t = self.clone();
        let sub = sub.trim_matches('/');
        t.prefix = if t.prefix.is_empty() { sub.to_string() } else { format!("{}/{sub}", t.prefix) };
        t
    }
}

/// What went wrong talking to a bucket, in words an admin can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub what: What,
    /// The store's own words (no secret), for the log and the status screen.
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// The access key or secret key is wrong.
    Credentials,
    /// The keys are right but may not do this.
    Denied,
    /// No bucket of that name at that endpoint.
    NoBucket,
    /// The endpoint did not answer (address, network, TLS, timeout).
    Unreachable,
    /// The configuration itself is unusable (an endpoint that is not a URL…).
    Config,
    /// A conditional write lost (someone else wrote the object first).
    Conflict,
    /// The endpoint (or what its name resolves to) is an address the server may not connect to
    /// (`guard`: loopback, private, metadata… unless the operator allows it).
    Forbidden,
    /// A step refused for a reason of its own (the detail says why and what to do).
    Refused,
    Other,
}

impl Problem {
    pub fn zh(&self) -> String {
        let head = match self.what {
            What::Credentials => "访问密钥(accessKey/secretKey)不正确",
            What::Denied => "密钥没有该空间的读写权限",
            What::NoBucket => "空间(bucket)不存在",
            What::Unreachable => "无法连接对象存储地址,请检查资源地址和网络",
            What::Config => "对象存储配置不正确",
            What::Conflict => "对象已被其他服务器写入",
            What::Forbidden => "不允许连接该资源地址",
            What::Refused => "操作被拒绝",
            What::Other => "对象存储出错",
        };
        let detail = match self.detail.as_str() {
            "connection refused" => "连接被拒绝".to_string(),
            "timed out" => "连接超时".to_string(),
            "the name does not resolve" => "域名无法解析".to_string(),
            "no connection" => "无法建立连接".to_string(),
            "address not allowed" => "地址不在允许范围内".to_string(),
            d => d.replace("(redirects are not followed)", "(不跟随重定向)"),
        };
        format!("{head}:{detail}")
    }

    pub fn en(&self) -> String {
        let head = match self.what {
            What::Credentials => "The access key or secret key is wrong",
            What::Denied => "The keys may not read and write this bucket",
            What::NoBucket => "No such bucket",
            What::Unreachable => "The object storage endpoint cannot be reached; check the address and the network",
            What::Config => "The object storage configuration is not usable",
            What::Conflict => "Another server wrote the object first",
            What::Forbidden => "The server may not connect to that endpoint",
            What::Refused => "Refused",
            What::Other => "Object storage error",
        };
        format!("{head}: {}", self.detail)
    }

    /// A failed call in our own words: what kind of failure, and the HTTP status when the store answered one.
    /// Never the store's answer itself: a body echoed back would let whoever sets the endpoint read whatever
    /// answers there (the full error goes to the server's log at debug level only).
    fn of(e: opendal::Error) -> Problem {
        // The whole chain of causes: a refused address or connection is named only deep inside it.
        let mut text = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            text.push_str(" <- ");
            text.push_str(&c.to_string());
            cause = c.source();
        }
        tracing::debug!(target: "zz::offbox", error = %text, "bucket call failed");
        let has = |c: &str| text.contains(c);
        let status = text.match_indices("status: ").find_map(|(i, m)| text.get(i + m.len()..i + m.len() + 3)).and_then(|s| s.parse::<u16>().ok());
        let what = match e.kind() {
            ErrorKind::ConditionNotMatch => What::Conflict,
            _ if has(guard::REFUSED) => What::Forbidden,
            _ if has("InvalidAccessKeyId") || has("SignatureDoesNotMatch") || has("InvalidSecretId") || has("AuthFailure") || has("InvalidAccessKey") => What::Credentials,
            _ if has("NoSuchBucket") || has("BucketNotExist") => What::NoBucket,
            ErrorKind::PermissionDenied => What::Denied,
            ErrorKind::ConfigInvalid => What::Config,
            _ if status.is_none() && (has("error sending request") || has("connect") || has("dns") || has("timed out") || has("timeout") || has("Connection refused")) => What::Unreachable,
            _ => What::Other,
        };
        let detail = match (what, status) {
            (What::Forbidden, _) => "address not allowed".to_string(),
            (What::Unreachable, _) if has("Connection refused") => "connection refused".to_string(),
            (What::Unreachable, _) if has("timed out") || has("timeout") => "timed out".to_string(),
            (What::Unreachable, _) if has("dns") || has("resolve") || has("lookup") => "the name does not resolve".to_string(),
            (What::Unreachable, _) => "no connection".to_string(),
            (_, Some(s)) if (300..400).contains(&s) => format!("HTTP {s} (redirects are not followed)"),
            (_, Some(s)) => format!("HTTP {s}"),
            (What::Config, None) => "configuration".to_string(),
            (_, None) => format!("{:?}", e.kind()),
        };
        Problem { what, detail }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.en())
    }
}

/// The process's TLS provider and HTTP client, installed once.
fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
        opendal_http_transport_reqwest::install_default();
    });
}

/// A bucket (under its target's prefix).
#[derive(Clone)]
pub struct Bucket {
    op: Operator,
    target: Target,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bucket({})", self.target.describe())
    }
}

/// How long connecting to a bucket may take (a closed port or a black hole answers quickly either way).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The HTTP client of a bucket: no redirects followed, a short connect timeout, and for a guarded bucket its
/// resolver and no proxy from the environment.
fn client(rule: &guard::Rule, endpoint: &str, timeout: Duration) -> Result<reqwest::Client, Problem> {
    let mut b = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).connect_timeout(CONNECT_TIMEOUT.min(timeout)).read_timeout(timeout);
    if let Some(r) = rule.resolver(endpoint) {
        b = b.no_proxy().dns_resolver(r);
    }
    b.build().map_err(|_| Problem { what: What::Config, detail: "http client".into() })
}

impl Bucket {
    /// A bucket whose calls give up after `timeout` (each retried twice on a temporary error), reachable
    /// anywhere: the operator's own (`--replicate`, `restore --from`).
    pub fn open(t: &Target, timeout: Duration) -> Result<Bucket, Problem> {
        Bucket::open_with(t, timeout, &guard::Rule::Open)
    }

    /// A bucket whose connections follow `rule` (`guard`): a tenant's, or one set on a web screen.
    pub fn open_with(t: &Target, timeout: Duration, rule: &guard::Rule) -> Result<Bucket, Problem> {
        init();
        let root = format!("/{}", t.prefix);
        let endpoint = guard::with_scheme(&t.endpoint);
        rule.check_endpoint(&endpoint).map_err(|r| Problem { what: if matches!(r, guard::Refusal::Address(_)) { What::Forbidden } else { What::Config }, detail: r.en() })?;
        let http = client(rule, &endpoint, timeout)?;
        let config = |e: opendal::Error| Problem { what: What::Config, detail: e.to_string().lines().next().unwrap_or("").to_string() };
        let op = match t.kind {
            Kind::S3 => {
                let region = if t.region.is_empty() { "us-east-1" } else { &t.region };
                Operator::new(
                    opendal::services::S3::default()
                        .root(&root)
                        .bucket(&t.bucket)
                        .endpoint(&endpoint)
                        .region(region)
                        .access_key_id(&t.access_key)
                        .secret_access_key(&t.secret_key)
                        .disable_config_load()
                        .disable_ec2_metadata(),
                )
                .map_err(config)?
            }
            Kind::Oss => Operator::new(
                opendal::services::Oss::default().root(&root).bucket(&t.bucket).endpoint(&endpoint).access_key_id(&t.access_key).access_key_secret(&t.secret_key),
            )
            .map_err(config)?,
            Kind::Cos => Operator::new(
                opendal::services::Cos::default().root(&root).bucket(&t.bucket).endpoint(&endpoint).secret_id(&t.access_key).secret_key(&t.secret_key).disable_config_load(),
            )
            .map_err(config)?,
            Kind::Obs => Operator::new(
                opendal::services::Obs::default().root(&root).bucket(&t.bucket).endpoint(&endpoint).access_key_id(&t.access_key).secret_access_key(&t.secret_key),
            )
            .map_err(config)?,
        };
        let op = op
            .with_context(opendal::OperationContext::new().with_http_transport(opendal::HttpTransporter::new(opendal_http_transport_reqwest::ReqwestTransport::new(http))))
            .layer(opendal::layers::RetryLayer::new().with_max_times(2).with_min_delay(Duration::from_millis(100)).with_max_delay(Duration::from_secs(1)))
            .layer(opendal::layers::TimeoutLayer::new().with_timeout(timeout).with_io_timeout(timeout));
        Ok(Bucket { op, target: t.clone() })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Writes an object (replacing one of that name).
    pub async fn put(&self, key: &str, bytes: impl Into<Bytes>) -> Result<(), Problem> {
        self.op.write(key, bytes.into()).await.map(|_| ()).map_err(Problem::of)
    }

    /// Writes an object only if none has that name: false when one has (If-None-Match: *).
    pub async fn put_new(&self, key: &str, bytes: impl Into<Bytes>) -> Result<bool, Problem> {
        match self.op.write_with(key, bytes.into()).if_not_exists(true).await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::ConditionNotMatch => Ok(false),
            Err(e) => Err(Problem::of(e)),
        }
    }

    /// Replaces an object only if it is still the version read (its ETag): false when someone changed it since.
    pub async fn put_if(&self, key: &str, bytes: impl Into<Bytes>, etag: &str) -> Result<bool, Problem> {
        match self.op.write_with(key, bytes.into()).if_match(etag).await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::ConditionNotMatch => Ok(false),
            Err(e) => Err(Problem::of(e)),
        }
    }

    /// Writes a large object from a file, in parts of 8 MiB, two at a time (a snapshot).
    pub async fn put_file(&self, key: &str, path: &std::path::Path) -> Result<u64, Problem> {
        self.put_file_in(key, path, 8 << 20, 2).await
    }

    /// Writes an object from a file in parts of `part` bytes (5 MiB at least, S3's smallest), `concurrent` at a
    /// time: what it holds in memory is about `part × (concurrent + 1)`.
    pub async fn put_file_in(&self, key: &str, path: &std::path::Path, part: usize, concurrent: usize) -> Result<u64, Problem> {
        use tokio::io::AsyncReadExt;
        let mut f = tokio::fs::File::open(path).await.map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
        let mut w = self.op.writer_with(key).chunk(part).concurrent(concurrent).await.map_err(Problem::of)?;
        let mut total = 0u64;
        loop {
            let mut buf = vec![0u8; part];
            let mut n = 0;
            while n < buf.len() {
                let got = f.read(&mut buf[n..]).await.map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
                if got == 0 {
                    break;
                }
                n += got;
            }
            if n == 0 {
                break;
            }
            buf.truncate(n);
            total += n as u64;
            w.write(buf).await.map_err(Problem::of)?;
        }
        w.close().await.map_err(Problem::of)?;
        Ok(total)
    }

    /// Reads a whole object; None when there is none of that name.
    pub async fn get(&self, key: &str) -> Result<Option<Bytes>, Problem> {
        match self.op.read(key).await {
            Ok(b) => Ok(Some(b.to_bytes())),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Problem::of(e)),
        }
    }

    /// Reads a whole object and its ETag.
    pub async fn get_tagged(&self, key: &str) -> Result<Option<(Bytes, String)>, Problem> {
        let meta = match self.op.stat(key).await {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Problem::of(e)),
        };
        let etag = meta.etag().unwrap_or("").to_string();
        // Read the version stat saw: if it changed in between, the conditional write later fails and is retried.
        match self.op.read_with(key).if_match(&etag).await {
            Ok(b) => Ok(Some((b.to_bytes(), etag))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == ErrorKind::ConditionNotMatch => Err(Problem { what: What::Conflict, detail: format!("{key} changed while read") }),
            Err(e) => Err(Problem::of(e)),
        }
    }

    /// An object as a stream of chunks (a download passed through to the browser), and its length.
    pub async fn stream(&self, key: &str) -> Result<Option<(impl futures_core::Stream<Item = std::io::Result<Bytes>> + Send + Unpin + 'static, u64)>, Problem> {
        let meta = match self.op.stat(key).await {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Problem::of(e)),
        };
        let r = self.op.reader_with(key).chunk(1 << 20).await.map_err(Problem::of)?;
        let s = r.into_bytes_stream(..).await.map_err(Problem::of)?;
        Ok(Some((s, meta.content_length())))
    }

    /// Removes an object (none of that name is fine).
    pub async fn delete(&self, key: &str) -> Result<(), Problem> {
        self.op.delete(key).await.map_err(Problem::of)
    }

    /// Names of the objects under `dir` (ending in `/`), after `start_after` (a full name) when given, in name
    /// order: names relative to the bucket's prefix.
    pub async fn list(&self, dir: &str, start_after: Option<&str>) -> Result<Vec<String>, Problem> {
        let mut l = self.op.list_with(dir).recursive(true);
        if let Some(s) = start_after {
            l = l.start_after(s);
        }
        let mut names: Vec<String> = l.await.map_err(Problem::of)?.into_iter().filter(|e| !e.path().ends_with('/')).map(|e| e.path().to_string()).collect();
        names.sort();
        Ok(names)
    }

    /// The names of the folders right under `dir` (ending in `/`), without the `dir` part or the slash.
    pub async fn dirs(&self, dir: &str) -> Result<Vec<String>, Problem> {
        let entries = self.op.list(dir).await.map_err(Problem::of)?;
        let mut out: Vec<String> = entries
            .into_iter()
            .filter(|e| e.path().ends_with('/') && e.path() != dir)
            .filter_map(|e| e.path().strip_prefix(dir).map(|s| s.trim_end_matches('/').to_string()))
            .filter(|s| !s.is_empty())
            .collect();
        out.sort();
        Ok(out)
    }

    /// Copies an object into a file, in chunks (a snapshot: never whole in memory). Returns its bytes.
    pub async fn get_to_file(&self, key: &str, path: &std::path::Path) -> Result<u64, Problem> {
        use tokio::io::AsyncWriteExt;
        let local = |e: std::io::Error| Problem { what: What::Other, detail: e.to_string() };
        let r = self.op.reader_with(key).chunk(8 << 20).await.map_err(Problem::of)?;
        let meta = self.op.stat(key).await.map_err(Problem::of)?;
        let len = meta.content_length();
        let mut f = tokio::fs::File::create(path).await.map_err(local)?;
        let mut at = 0u64;
        while at < len {
            let end = (at + (8 << 20)).min(len);
            let buf = r.read(at..end).await.map_err(Problem::of)?;
            for chunk in buf {
                f.write_all(&chunk).await.map_err(local)?;
            }
            at = end;
        }
        f.sync_all().await.map_err(local)?;
        Ok(len)
    }

    /// Checks the configuration works: an object written, read back and removed. Says what is wrong otherwise.
    pub async fn probe(&self) -> Result<(), Problem> {
        // Listing names a missing bucket as such (a write to one may answer only "access denied").
        self.op.list_with("").limit(1).await.map_err(Problem::of)?;
        let key = format!(".zhizhuang-probe-{:016x}", rand::random::<u64>());
        let body = Bytes::from_static(b"zhizhuang connection test");
        self.put(&key, body.clone()).await?;
        let back = self.get(&key).await?;
        self.delete(&key).await?;
        if back.as_deref() != Some(&body[..]) {
            return Err(Problem { what: What::Other, detail: "the object read back differs from the one written".into() });
        }
        Ok(())
    }
}
