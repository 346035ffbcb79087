//! Issue 28's lag figures against the real binary: paced creates on a replicating server while this process
//! watches the replica's bucket — each change's time from its commit (the primary's clock, in the record) to the
//! moment its segment is first listed (polled every 20 ms, so figures include up to 20 ms of polling) — and
//! optionally samples a standby's status (`replica.lagMs`: how old the newest change was when it was applied).
use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::load;

fn pct(v: &mut [i64], p: f64) -> i64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
}

#[allow(clippy::too_many_arguments)]
pub async fn run(addr: String, token: String, replica: String, rate: f64, conns: usize, secs: u64, standby: Option<String>, standby_token: Option<String>) -> anyhow::Result<()> {
    let target = offbox::Target::from_url(&replica, |k| std::env::var(k).ok()).map_err(|e| anyhow::anyhow!(e))?;
    let bucket = offbox::Bucket::open(&target, Duration::from_secs(10)).map_err(|p| anyhow::anyhow!("{p}"))?;
    let owner = offbox::restore::owner(&bucket).await.map_err(|p| anyhow::anyhow!("{p}"))?.ok_or_else(|| anyhow::anyhow!("no owner object: is the server replicating?"))?;
    let generation = owner.generation;
    let dir = offbox::layout::level_dir(&generation, 0);
    // Segments already there are not measured.
    let mut seen: HashSet<String> = bucket.list(&dir, None).await.map_err(|p| anyhow::anyhow!("{p}"))?.into_iter().collect();
    let spec = load::Spec {
        addr: addr.clone(),
        method: "POST".into(),
        path: "/api/blade-system/param/submit".into(),
        body: Some(r#"{"paramName":"异地{n}","paramKey":"lag.{n}","paramValue":"v"}"#.into()),
        bodies: Vec::new(),
        headers: vec![("blade-auth".into(), format!("bearer {token}"))],
        conns,
        duration: Duration::from_secs(secs),
        once: false,
        rate: Some(rate),
        open: false,
    };
    let writer = tokio::spawn(load::run(spec));
    let sampler = standby.map(|s| {
        let tok = standby_token.unwrap_or_default();
        tokio::spawn(async move {
            let mut lags = Vec::new();
            let end = Instant::now() + Duration::from_secs(secs);
            while Instant::now() < end {
                let auth = format!("bearer {tok}");
                if let Ok((200, body)) = load::once(&s, "GET", "/api/blade-system/status", &[("blade-auth", &auth)]).await
                    && let Ok(v) = serde_json::from_str::<serde_json::Value>(&body)
                    && let Some(l) = v["data"]["replica"]["lagMs"].as_i64() {
                    lags.push(l);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            lags
        })
    });
    let mut lat: Vec<i64> = Vec::new();
    let mut segments = 0u64;
    let end = Instant::now() + Duration::from_secs(secs + 3);
    while Instant::now() < end {
        let t = Instant::now();
        let names = bucket.list(&dir, None).await.map_err(|p| anyhow::anyhow!("{p}"))?;
        let now = offbox::now_ms();
        for n in names {
            if !seen.insert(n.clone()) {
                continue;
            }
            let Some(body) = bucket.get(&n).await.map_err(|p| anyhow::anyhow!("{p}"))? else { continue };
            let recs = offbox::layout::decode_segment(&body, 256 << 20).map_err(|e| anyhow::anyhow!(e))?;
            segments += 1;
            lat.extend(recs.iter().filter_map(|r| r.commit_ms).map(|c| now - c));
        }
        tokio::time::sleep(Duration::from_millis(20).saturating_sub(t.elapsed())).await;
    }
    let rep = writer.await??;
    println!("{}", rep.line("paced creates"));
    let n = lat.len();
    let (p50, p99) = (pct(&mut lat, 0.50), pct(&mut lat, 0.99));
    println!("commit → in the bucket: {n} changes in {segments} segments, p50={p50}ms p99={p99}ms max={}ms", lat.last().copied().unwrap_or(0));
    if let Some(s) = sampler {
        let mut lags = s.await?;
        let k = lags.len();
        let (p50, p99) = (pct(&mut lags, 0.50), pct(&mut lags, 0.99));
        println!("standby behind the primary (status sampled {k} times): p50={p50}ms p99={p99}ms max={}ms", lags.last().copied().unwrap_or(0));
    }
    Ok(())
}
