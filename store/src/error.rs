//! Typed errors of the store. The app maps each to its error table; storage failures are never shown to clients.
use std::fmt;

/// Why a field value was refused. The app renders these into its zh/en messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldProblem {
    Required,
    WrongType(&'static str),
    TooLong(usize),
    OutOfRange { min: Option<i64>, max: Option<i64> },
    Pattern(&'static str),
    Unknown,
    ReadOnly,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `label` is the field's label where the caller knows its declaration (empty otherwise): the app's
    /// Chinese message names the field as its screen does (请输入参数键值), the English one by its key.
    #[error("invalid field {field}: {problem:?}")]
    Invalid { field: String, problem: FieldProblem, label: String, choose: bool },
    #[error("record not found")]
    NotFound,
    #[error("duplicate value for {field}")]
    Duplicate { field: String, label: String },
    #[error("business rule: {0}")]
    Rule(String),
    #[error("data file is in use by another process")]
    Locked,
    #[error("{}", too_new(*found, *supported, written_by, binary))]
    TooNew { found: u32, supported: u32, written_by: String, binary: String },
    #[error("storage: {0}")]
    Storage(String),
    #[error("store is closed")]
    Closed,
    /// A walk over records stopped at its deadline, or because its caller went away.
    #[error("walk interrupted: {0:?}")]
    Interrupted(crate::query::Interrupt),
    /// An earlier write, sync or truncate of the log or a commit of the data file failed: the store takes no more
    /// writes until it is restarted (reads go on). The text says what failed.
    #[error("storage failed, writes stopped: {0}")]
    Failed(String),
    /// The write-ahead log holds something opening cannot trust (damage before valid records, a gap, a log of a
    /// newer copy of the data file): the store refuses to open rather than guess.
    #[error("{0}")]
    LogRefused(Box<crate::wal::Refusal>),
    /// The store takes no writes now: a standby following a primary, or a primary another machine replaced. The
    /// text says why (and where writes go).
    #[error("read only: {0}")]
    ReadOnly(String),
}

fn too_new(found: u32, supported: u32, written_by: &str, binary: &str) -> String {
    let by = if written_by.is_empty() { "a newer release".to_string() } else { written_by.to_string() };
    let me = if binary.is_empty() { "this binary".to_string() } else { binary.to_string() };
    format!(
        "the file is in format {found}, written by {by}; {me} reads format {supported} at most and has not touched it. \
         Install {by} (or newer) again, or restore a backup taken before the upgrade (zhizhuang restore; the upgrade kept \
         before-upgrade-*.redb beside the data file). \
         文件格式为 {found}(由 {by} 写入),本程序({me})最高只读格式 {supported},未做任何改动。请重新安装 {by} 或更新版本,或恢复升级前的备份(升级时已在数据目录保留 before-upgrade-*.redb)。"
    )
}

impl StoreError {
    /// Storage-level failures abort a whole group commit; the others only reject their own operation.
    pub fn is_storage(&self) -> bool {
        matches!(self, StoreError::Storage(_) | StoreError::Closed | StoreError::Failed(_))
    }
    /// A refused value of a parameter no declaration describes (hand-written routes).
    pub fn invalid(field: &str, problem: FieldProblem) -> Self {
        StoreError::Invalid { field: field.to_string(), problem, label: String::new(), choose: false }
    }
    /// A refused value of a declared field, named by its label too; `choose`: its value is picked, not typed (a
    /// dictionary, a reference, a switch: 请选择, not 请输入).
    pub fn field(f: &crate::resource::FieldDef, problem: FieldProblem) -> Self {
        let choose = f.dict.is_some() || f.refers.is_some() || matches!(f.kind, crate::resource::FieldKind::Flag);
        StoreError::Invalid { field: f.name.clone(), problem, label: f.label.clone(), choose }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

macro_rules! storage_from {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self { StoreError::Storage(e.to_string()) }
        }
    )*};
}
storage_from!(
    redb::Error,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::CompactionError,
    redb::SetDurabilityError,
    std::io::Error,
    serde_json::Error
);

impl From<redb::DatabaseError> for StoreError {
    fn from(e: redb::DatabaseError) -> Self {
        match e {
            redb::DatabaseError::DatabaseAlreadyOpen => StoreError::Locked,
            other => StoreError::Storage(other.to_string()),
        }
    }
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
