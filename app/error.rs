//! The one error table: every failure has a stable code, an HTTP status and a Chinese and an English message.
//! Errors render into the Blade envelope `{code, success:false, msg, data:null}` (or the OAuth error body on the
//! token endpoint) in the request's language. Internal causes are logged with the request id, never sent.
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use store::{FieldProblem, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Zh,
    En,
}

tokio::task_local! {
    /// The language of the request being handled (set by the access log): dictionary labels beside coded values
    /// follow it.
    pub static LANG: Lang;
}

impl Lang {
    /// The language of the request being handled, Chinese outside one.
    pub fn current() -> Lang {
        LANG.try_with(|l| *l).unwrap_or(Lang::Zh)
    }

    /// `en` when the first language the client prefers is English; Chinese otherwise.
    pub fn from_accept(v: Option<&str>) -> Lang {
        match v.and_then(|s| s.split(',').next()).map(|s| s.trim().to_ascii_lowercase()) {
            Some(s) if s.starts_with("en") => Lang::En,
            _ => Lang::Zh,
        }
    }
}

/// Every failure the server can answer with. `arg` fills the `{}` of the message (a field or parameter name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BadJson,
    NotAnObject,
    WrongType,
    Missing,
    UnknownField,
    /// A read-only field (moved by its own actions) sent with a value other than the stored one.
    ReadOnlyField,
    TooLong,
    OutOfRange,
    BadFormat,
    BadPhone,
    UnknownFilter,
    UnknownSort,
    BadId,
    BadPaging,
    NoneSelected,
    Duplicate,
    NotFound,
    Unauthorized,
    Forbidden,
    PlatformOnly,
    ApiScopeDenied,
    LastAdmin,
    OwnAccount,
    RoleInUse,
    SmsCodeWrong,
    BadRule,
    TooManyRequests,
    ReportsOverBudget,
    Starting,
    UploadsBusy,
    UnknownRoute,
    MethodNotAllowed,
    UnsupportedMediaType,
    PayloadTooLarge,
    FileTooLarge,
    ImportBusy,
    Sealed,
    FileType,
    QuotaExceeded,
    PasswordWrong,
    OldPasswordWrong,
    PasswordsDiffer,
    PasswordSame,
    MustChangePassword,
    WeakPassword,
    // Sign-in (rendered as OAuth error bodies on the token endpoint).
    BadCredentials,
    TenantNotFound,
    TenantExpired,
    CaptchaWrong,
    CaptchaRequired,
    WorkerRefused,
    NoRole,
    RoleRequired,
    AccountDisabled,
    BadClient,
    UnsupportedGrant,
    SocialNotConfigured,
    BadRefreshToken,
    DictCodeRequired,
    DictNameRequired,
    DictSortRequired,
    DictSealedRequired,
    DictKeyRequired,
    DictCodeTaken,
    DictKeyTaken,
    BadParent,
    HasChildren,
    HasUsers,
    TenantProtected,
    TenantIdTaken,
    NameTaken,
    WalkTimeout,
    IndexBuilding,
    /// A business rule refused the write; the argument is the message in both languages (`error::rule`).
    Rule,
    /// The user may not do this to this record (not its assignee, not a candidate): 403 with the reason in both
    /// languages (`error::refuse`).
    Refused,
    /// A record the request names (in its body: a store, a project) is not one of the tenant's: 404 like an
    /// unknown id in the path, with what is missing in both languages (`error::missing`).
    MissingRecord,
    Internal,
    Unavailable,
    StorageFailed,
    /// A standby refuses writes; the argument is where the primary is.
    Standby,
    /// Another server took over as the primary; the argument is where.
    Fenced,
    /// The tenant's object storage failed; the argument says what to fix (both languages).
    ObjectStorage,
}

struct Spec {
    code: &'static str,
    status: u16,
    zh: &'static str,
    en: &'static str,
}

const fn s(code: &'static str, status: u16, zh: &'static str, en: &'static str) -> Spec {
    Spec { code, status, zh, en }
}

fn spec(k: Kind) -> Spec {
    use Kind::*;
    match k {
        BadJson => s("bad_json", 400, "请求体不是合法的JSON", "The request body is not valid JSON"),
        NotAnObject => s("not_an_object", 400, "请求体必须是JSON对象", "The request body must be a JSON object"),
        WrongType => s("wrong_type", 400, "字段 {} 的类型不正确", "Field {} has the wrong type"),
        Missing => s("missing", 400, "请输入 {}", "{} is required"),
        UnknownField => s("unknown_field", 400, "未知字段: {}", "Unknown field: {}"),
        ReadOnlyField => s("read_only_field", 400, "字段 {} 为只读,由系统维护,不能直接修改", "Field {} is read-only: the system keeps it and it cannot be set directly"),
        TooLong => s("too_long", 400, "字段 {} 超出长度限制", "Field {} is too long"),
        OutOfRange => s("out_of_range", 400, "字段 {} 超出允许范围", "Field {} is out of range"),
        BadFormat => s("bad_format", 400, "字段 {} 格式不正确", "Field {} has a bad format"),
        BadPhone => s("bad_phone", 400, "手机号码格式不正确", "The phone number has a bad format"),
        UnknownFilter => s("unknown_filter", 400, "不支持的查询条件: {}", "Unsupported filter: {}"),
        UnknownSort => s("unknown_sort", 400, "不支持的排序字段: {}", "Unsupported sort field: {}"),
        BadId => s("bad_id", 400, "无效的ID: {}", "Invalid id: {}"),
        BadPaging => s("bad_paging", 400, "分页参数不正确: {}", "Invalid paging parameter: {}"),
        NoneSelected => s("none_selected", 400, "请选择至少一条数据", "Please select at least one record"),
        Duplicate => s("duplicate", 400, "{} 已存在", "{} already exists"),
        NotFound => s("not_found", 404, "数据不存在", "Record not found"),
        Unauthorized => s("unauthorized", 401, "请求未授权,请重新登录", "Not signed in or the session has ended"),
        Forbidden => s("forbidden", 403, "缺失权限: {}", "Permission required: {}"),
        PlatformOnly => s("platform_only", 403, "仅平台管理员可修改平台数据", "Only the platform administrator may change platform data"),
        ApiScopeDenied => s("api_scope_denied", 403, "接口权限不足: {}", "This endpoint is outside your API scope: {}"),
        LastAdmin => s("last_admin", 400, "不能删除或降级最后一个管理员", "The last administrator cannot be removed or demoted"),
        OwnAccount => s("own_account", 400, "不能删除当前登录的账号", "You cannot remove your own account"),
        RoleInUse => s("role_in_use", 400, "角色仍被用户使用,请先解除授权: {}", "The role is still assigned to users, revoke it first: {}"),
        SmsCodeWrong => s("sms_code_wrong", 400, "短信验证码不正确或已过期", "The SMS code is wrong or has expired"),
        BadRule => s("bad_rule", 400, "数据权限规则不正确: {}", "Invalid data scope rule: {}"),
        TooManyRequests => s("too_many_requests", 429, "尝试次数过多,请 {} 秒后重试", "Too many attempts, retry in {} seconds"),
        UnknownRoute => s("unknown_route", 404, "接口不存在: {}", "No such endpoint: {}"),
        MethodNotAllowed => s("method_not_allowed", 405, "不支持的请求方法", "Method not allowed"),
        UnsupportedMediaType => s("unsupported_media_type", 415, "不支持的内容类型", "Unsupported content type"),
        PayloadTooLarge => s("payload_too_large", 413, "请求体过大", "The request body is too large"),
        FileTooLarge => s("file_too_large", 413, "文件过大,最大 {}", "The file is too large; at most {}"),
        Starting => s("starting", 503, "系统正在启动,请稍候再试", "The server is starting; try again in a moment"),
        ReportsOverBudget => s("reports_over_budget", 429, "本小时上传的错误日志已达上限,请 {} 秒后再试", "Too many error reports this hour; try again in {} seconds"),
        UploadsBusy => s("uploads_busy", 429, "正在上传的文件过多,请 {} 秒后再试", "Too many uploads at once; try again in {} seconds"),
        ImportBusy => s("import_busy", 429, "本单位已有一个导入正在进行,请等它完成后再试", "An import of your organisation is already running; try again when it has finished"),
        Sealed => s("sealed", 400, "封存的数据不可修改或删除", "Sealed entries cannot be changed or removed"),
        FileType => s("file_type", 400, "文件内容与类型不符或类型不允许", "The file's content does not match its type, or the type is not allowed"),
        QuotaExceeded => s("quota_exceeded", 400, "存储空间已用完,请联系管理员", "The storage quota is used up, contact the administrator"),
        PasswordWrong => s("password_wrong", 400, "密码不正确", "Wrong password"),
        OldPasswordWrong => s("old_password_wrong", 400, "原密码不正确", "The old password is not correct"),
        PasswordsDiffer => s("passwords_differ", 400, "两次密码输入不一致", "The two new passwords differ"),
        PasswordSame => s("password_same", 400, "新密码不能与原密码相同", "The new password must differ from the old one"),
        MustChangePassword => s("must_change_password", 403, "您的密码由管理员设置,请先修改密码", "Your password was set by an administrator: set your own first"),
        WeakPassword => s("weak_password", 400, "密码过于常见,请换一个不易被猜到的密码", "That password is too common: choose one that is hard to guess"),
        BadCredentials => s("bad_credentials", 400, "用户名或密码错误", "Wrong account or password"),
        TenantNotFound => s("tenant_not_found", 400, "租户ID未找到", "Tenant not found"),
        TenantExpired => s("tenant_expired", 400, "租户授权已过期,请联系管理员", "The tenant's licence has expired, contact the administrator"),
        CaptchaWrong => s("captcha_wrong", 400, "验证码不正确", "Wrong captcha"),
        CaptchaRequired => s("captcha_required", 400, "该账号近期多次登录失败,请输入验证码", "Several sign-ins of this account failed recently; enter the captcha"),
        WorkerRefused => s("worker_refused", 400, "技术工人无法登录系统", "Technical workers cannot sign in"),
        NoRole => s("no_role", 400, "未获得用户的角色信息", "The user has no role; ask an administrator to grant one"),
        RoleRequired => s("role_required", 400, "请选择所属角色", "Choose the user's role"),
        AccountDisabled => s("account_disabled", 400, "该账号已停用或待审核", "This account is disabled or awaiting approval"),
        BadClient => s("bad_client", 401, "客户端认证失败", "Client authentication failed"),
        UnsupportedGrant => s("unsupported_grant", 400, "不支持的授权类型: {}", "Unsupported grant type: {}"),
        SocialNotConfigured => s("social_not_configured", 400, "第三方登录未配置", "Third-party sign-in is not configured"),
        BadRefreshToken => s("bad_refresh_token", 401, "刷新令牌无效或已过期,请重新登录", "The refresh token is invalid or expired, sign in again"),
        DictCodeRequired => s("dict_code_required", 400, "请输入字典编号", "Enter the dictionary code"),
        DictNameRequired => s("dict_name_required", 400, "请输入字典名称", "Enter the dictionary name"),
        DictSortRequired => s("dict_sort_required", 400, "请输入字典排序", "Enter the dictionary sort order"),
        DictSealedRequired => s("dict_sealed_required", 400, "请选择封存", "Choose whether the entry is sealed"),
        DictKeyRequired => s("dict_key_required", 400, "请输入字典键值", "Enter the dictionary key"),
        DictCodeTaken => s("dict_code_taken", 400, "字典编号已存在", "The dictionary code already exists"),
        DictKeyTaken => s("dict_key_taken", 400, "字典键值已存在", "The dictionary key already exists"),
        BadParent => s("bad_parent", 400, "上级节点不正确", "The parent is not valid"),
        HasChildren => s("has_children", 400, "请先删除子节点", "Remove the child entries first"),
        HasUsers => s("has_users", 400, "该机构下存在用户,不可删除", "The department still has users"),
        TenantProtected => s("tenant_protected", 400, "平台租户不可删除", "The platform tenant cannot be removed"),
        TenantIdTaken => s("tenant_id_taken", 400, "租户ID已存在", "The tenant id already exists"),
        NameTaken => s("name_taken", 400, "名称 {} 已被占用", "The name {} is already in use"),
        WalkTimeout => s(
            "walk_timeout",
            503,
            "按条件 {} 查询需要逐条比对记录，未能在限定时间内完成，请补充更精确的条件（如编号、状态、日期）后重试",
            "The filter {} has to examine every record and did not finish in time; add a more specific condition (a code, status or date) and retry",
        ),
        Rule => s("business_rule", 400, "{}", "{}"),
        Refused => s("refused", 403, "{}", "{}"),
        MissingRecord => s("not_found", 404, "{}", "{}"),
        IndexBuilding => s("index_building", 503, "搜索索引正在建立,请稍后重试", "The search index is being built; retry shortly"),
        Internal => s("internal", 500, "服务异常,请与管理员联系", "Server error, contact the administrator"),
        Unavailable => s("unavailable", 503, "服务正在停止,请稍后重试", "The server is stopping, retry shortly"),
        StorageFailed => s("storage_failed", 503, "存储写入故障，已停止写入，请检查磁盘后重启", "Writing to storage failed; writes are stopped. Check the disk, then restart the server"),
        Standby => s("standby", 503, "本机是只读备用服务器，不能保存修改；请到主服务器操作：{}", "This server is a read-only standby and saves no changes; make them on the primary: {}"),
        ObjectStorage => s("object_storage", 502, "对象存储出错：{}", "Object storage failed: {}"),
        Fenced => s("fenced", 503, "另一台服务器已接替为主服务器，本机不再保存修改；请到新的主服务器操作：{}", "Another server has taken over as the primary and this one saves no changes; make them on the new primary: {}"),
    }
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub kind: Kind,
    pub arg: String,
    /// A field's label where its declaration gave one: the Chinese message names the field by it (请输入参数键值),
    /// the English one by its key. Parameters of hand-written routes are named from `param_label`.
    pub label: String,
    /// The field is picked rather than typed: a missing one is 请选择…, not 请输入….
    pub choose: bool,
    pub retry_after: Option<u64>,
    /// Rendered as an OAuth error body (token endpoint) instead of the envelope.
    pub oauth: bool,
    /// The cause of an internal error: logged (and kept in the error log with the request id), never sent.
    pub cause: Option<std::sync::Arc<str>>,
}

pub type ApiResult<T> = Result<T, ApiError>;

/// Separates the Chinese and English text of a business rule's message.
const RULE_SEP: char = '\u{1e}';

/// A business rule's refusal, raised inside a write transaction (nothing of the write commits) and answered 400
/// with the message in the client's language.
pub fn rule(zh: impl std::fmt::Display, en: impl std::fmt::Display) -> StoreError {
    StoreError::Rule(format!("{zh}{RULE_SEP}{en}"))
}

/// Marks a refusal because a record the request names does not exist (404, not 400).
const MISSING_MARK: char = '\u{1d}';

/// A record the request names (a `refers` field of the body) is not one of the tenant's: 404 with its name, as an
/// unknown id in the path is (another tenant's record is never told apart from none).
pub fn missing(zh: impl std::fmt::Display, en: impl std::fmt::Display) -> StoreError {
    StoreError::Rule(format!("{MISSING_MARK}{zh}{RULE_SEP}{en}"))
}

/// Marks a rule's refusal as a permission refusal (403, not 400).
const REFUSE_MARK: char = '\u{1f}';

/// A refusal because of who asks (not the assignee of a task, not a candidate), raised inside a write: 403 with
/// the message in the client's language.
pub fn refuse(zh: impl std::fmt::Display, en: impl std::fmt::Display) -> StoreError {
    StoreError::Rule(format!("{REFUSE_MARK}{zh}{RULE_SEP}{en}"))
}

impl ApiError {
    /// A business rule's refusal outside a transaction (checks made before writing).
    pub fn rule(zh: impl std::fmt::Display, en: impl std::fmt::Display) -> ApiError {
        ApiError::with(Kind::Rule, format!("{zh}{RULE_SEP}{en}"))
    }
}

impl ApiError {
    pub fn new(kind: Kind) -> Self {
        ApiError { kind, arg: String::new(), label: String::new(), choose: false, retry_after: None, oauth: false, cause: None }
    }
    pub fn with(kind: Kind, arg: impl Into<String>) -> Self {
        ApiError { kind, arg: arg.into(), label: String::new(), choose: false, retry_after: None, oauth: false, cause: None }
    }
    pub fn oauth(mut self) -> Self {
        self.oauth = true;
        self
    }
    /// An unexpected failure: logged with its cause, answered with the generic 500 message.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(target: "zz::error", cause = %cause, "internal error");
        let text: String = cause.to_string().chars().take(2000).collect();
        ApiError { cause: Some(text.into()), ..ApiError::new(Kind::Internal) }
    }
    pub fn status(&self) -> u16 {
        spec(self.kind).status
    }
    pub fn code(&self) -> &'static str {
        spec(self.kind).code
    }
    pub fn message(&self, lang: Lang) -> String {
        let sp = spec(self.kind);
        // A field named by its label in Chinese, as its screen names it: 请输入参数键值, not 请输入 paramValue.
        if lang == Lang::Zh
            && let Some(t) = labelled(self.kind) {
            let named = if self.label.is_empty() { param_label(&self.arg) } else { Some((self.label.as_str(), self.choose)) };
            if let Some((label, choose)) = named {
                let t = if choose && self.kind == Kind::Missing { "请选择{}" } else { t };
                return t.replace("{}", label);
            }
        }
        let t = if lang == Lang::En { sp.en } else { sp.zh };
        // An argument in two languages (`zh\u{1e}en`, business rules) gives each language its own text.
        let arg = match self.arg.split_once(RULE_SEP) {
            Some((zh, en)) => if lang == Lang::En { en } else { zh },
            None => self.arg.as_str(),
        };
        t.replace("{}", arg)
    }

    /// The response body in `lang`.
    pub fn render(&self, lang: Lang) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let msg = self.message(lang);
        let body = if self.oauth {
            json!({"error": self.code(), "error_code": oauth_code(self.kind), "error_description": msg})
        } else {
            json!({"code": status.as_u16(), "success": false, "data": null, "msg": msg})
        };
        let mut resp = (status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after
            && let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

/// The Chinese message of a kind whose argument is a field, for a field named by its label (no spaces around it,
/// as around a key).
fn labelled(k: Kind) -> Option<&'static str> {
    Some(match k {
        Kind::Missing => "请输入{}",
        Kind::WrongType | Kind::BadFormat => "{}格式不正确",
        Kind::TooLong => "{}超出长度限制",
        Kind::OutOfRange => "{}超出允许范围",
        Kind::ReadOnlyField => "{}为只读,由系统维护,不能直接修改",
        Kind::Duplicate => "{}已存在",
        _ => return None,
    })
}

/// Chinese names of the parameters hand-written routes check (a declared field's error carries its own label), and
/// whether each is picked rather than typed.
/// Parameters only a program sends (ids, JSON bodies, paging) keep their keys: they name what to fix in a request.
fn param_label(key: &str) -> Option<(&'static str, bool)> {
    Some(match key {
        "account" | "username" => ("账号", false),
        "password" => ("密码", false),
        "password2" => ("确认密码", false),
        "oldPassword" => ("原密码", false),
        "newPassword" => ("新密码", false),
        "newPassword1" => ("确认新密码", false),
        "phone" | "phones" => ("手机号码", false),
        "avatar" => ("头像", false),
        "accountNumber" => ("账号额度", false),
        "reason" => ("原因", false),
        "remark" => ("备注", false),
        "comment" => ("审批意见", false),
        "result" | "pass" => ("审批结果", true),
        "applyType" => ("申请类型", true),
        "category" => ("流程分类", true),
        "leaveType" => ("请假类型", true),
        "startTime" => ("开始时间", false),
        "endTime" => ("结束时间", false),
        "day" => ("日期", false),
        "time" => ("时间", false),
        "since" => ("起始日期", false),
        "year" => ("年份", false),
        "taskId" => ("待办任务", true),
        "taskGroupId" => ("任务组", true),
        "processDefinitionId" | "processId" => ("流程", true),
        "modelName" => ("模型名称", false),
        "file" | "files" => ("文件", true),
        "projectId" => ("所属项目", true),
        "contractId" => ("合同", true),
        "constructId" => ("施工单", true),
        "businessId" => ("业务单据", true),
        "workerId" => ("工人", true),
        "managerId" => ("项目经理", true),
        "taskCode" => ("任务编号", false),
        "percent" => ("完成度(%)", false),
        "distance" => ("距工地(米)", false),
        "entryType" => ("分录类型", true),
        "amount" => ("金额", false),
        "node" => ("收款节点", false),
        "dueDate" => ("应收日期", false),
        "invoiceNo" => ("发票号", false),
        "goodsId" => ("商品", true),
        "storeId" => ("仓库", true),
        "storeIds" => ("可操作仓库", true),
        "stockId" => ("库存行", true),
        "orderId" => ("单据", true),
        "lineId" => ("明细", true),
        "items" => ("明细", false),
        "qty" => ("数量", false),
        "consume" => ("消耗数量", false),
        "countedQty" => ("盘点数量", false),
        "orderStatus" | "transferStatus" => ("状态", true),
        "productType" => ("产品类型", true),
        "rooms" => ("房间尺寸", false),
        "scopeType" => ("权限类型", true),
        "userIds" => ("人员", true),
        "tenantId" => ("租户ID", false),
        "tenantIds" => ("租户", true),
        _ => return None,
    })
}

/// Numeric codes some Blade clients look at; 10001 is "wrong account or password".
fn oauth_code(k: Kind) -> u32 {
    match k {
        Kind::BadCredentials => 10001,
        Kind::TenantNotFound => 10002,
        Kind::TenantExpired => 10003,
        Kind::CaptchaWrong => 10004,
        Kind::WorkerRefused => 10005,
        Kind::AccountDisabled => 10006,
        Kind::TooManyRequests => 10007,
        Kind::NoRole => 10008,
        Kind::CaptchaRequired => 10009,
        _ => 10000,
    }
}

/// Marker left on error responses so the language layer can re-render them in the client's language.
#[derive(Clone)]
pub struct Rendered(pub ApiError);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = self.render(Lang::Zh);
        resp.extensions_mut().insert(Rendered(self));
        resp
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Invalid { field, problem, label, choose } => ApiError { label, choose, ..match problem {
                FieldProblem::Required => ApiError::with(Kind::Missing, field),
                FieldProblem::WrongType(_) => ApiError::with(Kind::WrongType, field),
                FieldProblem::TooLong(_) => ApiError::with(Kind::TooLong, field),
                FieldProblem::OutOfRange { .. } => ApiError::with(Kind::OutOfRange, field),
                FieldProblem::Pattern("phone") => ApiError::new(Kind::BadPhone),
                FieldProblem::Pattern(_) => ApiError::with(Kind::BadFormat, field),
                FieldProblem::Unknown => ApiError::with(Kind::UnknownField, field),
                FieldProblem::ReadOnly => ApiError::with(Kind::ReadOnlyField, field),
            } },
            StoreError::NotFound => ApiError::new(Kind::NotFound),
            StoreError::Duplicate { field, label } => ApiError { label, ..ApiError::with(Kind::Duplicate, field) },
            StoreError::Rule(r) if r.starts_with(REFUSE_MARK) && r.contains(RULE_SEP) => ApiError::with(Kind::Refused, r.trim_start_matches(REFUSE_MARK)),
            StoreError::Rule(r) if r.starts_with(MISSING_MARK) && r.contains(RULE_SEP) => ApiError::with(Kind::MissingRecord, r.trim_start_matches(MISSING_MARK)),
            StoreError::Rule(r) if r.contains(RULE_SEP) => ApiError::with(Kind::Rule, r),
            StoreError::Rule(r) => ApiError::internal(format!("unexpected rule failure: {r}")),
            StoreError::Closed => ApiError::new(Kind::Unavailable),
            StoreError::Failed(what) => {
                tracing::error!(target: "zz::error", cause = %what, "write refused: storage failed");
                ApiError { cause: Some(what.chars().take(2000).collect::<String>().into()), ..ApiError::new(Kind::StorageFailed) }
            }
            StoreError::Interrupted(_) => ApiError::with(Kind::WalkTimeout, "-"),
            StoreError::ReadOnly(why) => match why.split_once(':') {
                Some(("fenced", at)) => ApiError::with(Kind::Fenced, at.to_string()),
                Some((_, at)) => ApiError::with(Kind::Standby, at.to_string()),
                None => ApiError::with(Kind::Standby, why),
            },
            other => ApiError::internal(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_both_messages_and_a_4xx_or_5xx() {
        use Kind::*;
        let all = [
            BadJson, NotAnObject, WrongType, Missing, UnknownField, TooLong, OutOfRange, BadFormat, BadPhone,
            UnknownFilter, UnknownSort, BadId, BadPaging, NoneSelected, Duplicate, NotFound, Unauthorized,
            Forbidden, PlatformOnly, ApiScopeDenied, LastAdmin, OwnAccount, RoleInUse, SmsCodeWrong, BadRule, TooManyRequests, ReportsOverBudget, Starting, UploadsBusy, UnknownRoute, MethodNotAllowed, UnsupportedMediaType,
            PayloadTooLarge, FileTooLarge, ImportBusy, CaptchaRequired, Sealed, FileType, QuotaExceeded, PasswordWrong, OldPasswordWrong, PasswordsDiffer, PasswordSame, MustChangePassword, WeakPassword, BadCredentials,
            TenantNotFound, TenantExpired, CaptchaWrong, WorkerRefused, AccountDisabled, BadClient,
            UnsupportedGrant, SocialNotConfigured, NoRole, RoleRequired, BadRefreshToken, WalkTimeout, IndexBuilding, Internal, Unavailable, StorageFailed, Standby, Fenced, ObjectStorage,
            DictCodeRequired, DictNameRequired, DictSortRequired, DictSealedRequired, DictKeyRequired, DictCodeTaken, DictKeyTaken, BadParent, HasChildren, HasUsers, TenantProtected, TenantIdTaken, NameTaken,
        ];
        let mut codes = std::collections::HashSet::new();
        for k in all {
            let sp = spec(k);
            assert!((400..=599).contains(&sp.status));
            assert!(!sp.zh.is_empty() && !sp.en.is_empty());
            assert!(codes.insert(sp.code), "duplicate code {}", sp.code);
        }
    }

    #[test]
    fn language_from_accept_language() {
        assert_eq!(Lang::from_accept(Some("en-US,en;q=0.9")), Lang::En);
        assert_eq!(Lang::from_accept(Some("zh-CN,en;q=0.5")), Lang::Zh);
        assert_eq!(Lang::from_accept(None), Lang::Zh);
        let e = ApiError::with(Kind::UnknownFilter, "foo_bar");
        assert_eq!(e.message(Lang::En), "Unsupported filter: foo_bar");
    }
}
