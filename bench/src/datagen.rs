//! The data generator: bulk-inserts parameter records into a data file that the real binary seeded, through
//! the store's own write path (indexes, unique keys and counters stay consistent; `verify` passes).
use std::path::Path;
use std::time::Instant;

use serde_json::{Map, Value, json};
use store::{Actor, Options, ResourceDef, Store};

const PARAM: &str = include_str!("../../assets/resources/param.json");

pub fn params(file: &Path, tenant: &str, count: u64, value_bytes: usize) -> anyhow::Result<()> {
    let def: ResourceDef = serde_json::from_str(PARAM)?;
    let st = Store::open(file, &Options::default())?;
    let start = Instant::now();
    let already = st.read(|r| r.count(&def, tenant))?;
    let filler: String = "装修材料参数说明".chars().cycle().take(value_bytes / 3).collect();
    let mut done = 0;
    while done < count {
        let n = (count - done).min(20_000);
        let (d, t, f, base) = (def.clone(), tenant.to_string(), filler.clone(), already + done);
        st.write(move |w| {
            for i in base..base + n {
                let mut m = Map::new();
                m.insert("paramName".into(), json!(format!("参数{}", i % 5000)));
                m.insert("paramKey".into(), json!(format!("bench.key.{i}")));
                m.insert("paramValue".into(), Value::String(format!("{i}:{f}")));
                m.insert("remark".into(), json!("基准测试数据"));
                w.insert(&d, &t, m, &Actor { user_id: 1, dept_id: 1 })?;
            }
            Ok(())
        })?;
        done += n;
        if done % 200_000 == 0 || done == count {
            eprintln!("  generated {done}/{count} in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    st.close();
    Ok(())
}
