//! Off the box: object storage for uploaded files, continuous backup of the data file to an S3-compatible bucket
//! with point-in-time restore, and a standby that follows the bucket.
//!
//! - `bucket`: one bucket (S3 and compatibles, Aliyun OSS, Tencent COS, Huawei OBS) behind Apache OpenDAL, with
//!   errors people can act on (`Problem`: wrong keys, no such bucket, unreachable…).
//! - `guard`: which addresses a bucket a tenant or a web screen set may reach (no loopback, LAN or metadata
//!   address unless the operator allows it; checked at every connect; no redirects).
//! - `layout`: the object names of a replica (generations, snapshots, segments, the owner object).
//! - `ship`: the primary's shipper (segments within a second, snapshots, retention, fencing).
//! - `restore`: a data file rebuilt from a snapshot and the segments after it, up to a moment.
//! - `follow`: a standby's loop, applying the primary's segments to its own store.
//!
//! Nothing here knows HTTP routes or the app; the store crate knows nothing of buckets.
pub mod bucket;
pub mod follow;
pub mod guard;
pub mod layout;
pub mod restore;
pub mod ship;
pub mod weed;

pub use bucket::{Bucket, Kind, Problem, Target};

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    store::now_millis()
}
