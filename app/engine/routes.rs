//! The route table. Every HTTP route is registered through `Api` with its method, path and `Guard`; the same
//! registration builds the axum router, the contract (`openapi.json`) and the route list the security tests walk.
//!
//! The guard runs as a layer in front of the handler, before any extractor reads the body: no session is a 401
//! and a session without one of the route's codes is a 403 whatever the body holds (a malformed or forbidden body
//! must never answer 400 to someone who may not call the route at all). Handlers still check the exact code once
//! they know the action (a `submit` is `_add` without an id and `_edit` with one): the guard admits a caller who
//! holds either, never one who holds neither.
use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRequestParts, Request};
use axum::handler::Handler;
use axum::middleware::{Next, from_fn};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use store::ResourceDef;

use crate::auth::session::Session;
use crate::decl::Resources;
use crate::error::{ApiError, Kind};
use crate::state::AppState;

/// Where generated resources are served (`/api/blade-gen/{resource}/...`).
pub const GEN_BASE: &str = "/api/blade-gen";

/// Who may call a route, decided before the request body is read.
#[derive(Clone, Debug)]
pub enum Guard {
    /// Answered without a session (security rule 3: keep these few).
    Public,
    /// Any signed-in user: self-service on one's own account and session.
    Signed,
    /// A session holding at least one of these permission codes.
    Codes(Arc<[String]>),
    /// As `Codes`, and only the platform administrator (writes of platform-wide data).
    Platform(Arc<[String]>),
    /// A generated resource named by the path segment after `/api/blade-gen/`: one of the codes made of its name
    /// and these suffixes (`""` is the read code).
    Generated(&'static [&'static str]),
    /// As `Platform`, or a monitoring system bearing the configured scrape token (`--metrics-token`).
    Scrape(Arc<[String]>),
}

impl Guard {
    pub fn code(c: &str) -> Guard {
        Guard::Codes(Arc::from(vec![c.to_string()]))
    }
    pub fn any(codes: &[&str]) -> Guard {
        Guard::Codes(codes.iter().map(|c| c.to_string()).collect())
    }
    pub fn platform(codes: &[&str]) -> Guard {
        Guard::Platform(codes.iter().map(|c| c.to_string()).collect())
    }
    /// Reading a declared resource: its menu code (the resource name).
    pub fn read(def: &ResourceDef) -> Guard {
        Guard::code(def.code())
    }
    /// Writing a declared resource: one of `<name>_<action>`; platform data only for the platform administrator.
    pub fn write(def: &ResourceDef, actions: &[&str]) -> Guard {
        let codes: Arc<[String]> = actions.iter().map(|a| format!("{}_{a}", def.code())).collect();
        if def.platform { Guard::Platform(codes) } else { Guard::Codes(codes) }
    }
    pub fn is_public(&self) -> bool {
        matches!(self, Guard::Public)
    }
    /// The codes named (for the contract); generated resources name a pattern.
    pub fn describe(&self) -> String {
        match self {
            Guard::Public => "public".into(),
            Guard::Signed => "any signed-in user".into(),
            Guard::Codes(c) => format!("one of the permission codes: {}", c.join(", ")),
            Guard::Platform(c) => format!("the platform administrator, with one of: {}", c.join(", ")),
            Guard::Scrape(c) => format!("the platform administrator, with one of: {}; or `Authorization: Bearer <the scrape token>`", c.join(", ")),
            Guard::Generated(s) => {
                let codes: Vec<String> = s.iter().map(|x| format!("{{res}}{x}")).collect();
                format!("one of the permission codes: {}", codes.join(", "))
            }
        }
    }

    /// Checks a session against the guard.
    pub fn admits(&self, st: &AppState, s: &Session) -> Result<(), ApiError> {
        match self {
            Guard::Public | Guard::Signed => Ok(()),
            Guard::Codes(c) => s.require_any(&c.iter().map(String::as_str).collect::<Vec<_>>()),
            Guard::Platform(c) | Guard::Scrape(c) => {
                s.require_any(&c.iter().map(String::as_str).collect::<Vec<_>>())?;
                if s.is_platform_admin() { Ok(()) } else { Err(ApiError::new(Kind::PlatformOnly)) }
            }
            Guard::Generated(suffixes) => {
                let name = s.path.strip_prefix(GEN_BASE).and_then(|r| r.split('/').nth(1)).unwrap_or("");
                // An unknown name is answered by the handler (404); a known one needs its codes.
                if st.res.generated(name).is_none() {
                    return Ok(());
                }
                let codes: Vec<String> = suffixes.iter().map(|x| format!("{name}{x}")).collect();
                s.require_any(&codes.iter().map(String::as_str).collect::<Vec<_>>())
            }
        }
    }
}

/// One registered route, as the contract and the tests see it.
#[derive(Clone, Debug)]
pub struct RouteInfo {
    pub method: &'static str,
    pub path: String,
    pub guard: Guard,
    /// The declared resource whose base prefixes the path, if any (for the contract's schemas).
    pub resource: Option<String>,
    /// The path after that base (`list`, `detail`, `retrieve-password/update`, ...); the last segment otherwise.
    pub action: String,
    /// A hand-written route's contract: its summary and what each parameter means (path segments first).
    pub doc: Option<(String, Vec<(String, String)>)>,
    /// Answers without changing anything (a GET, or a POST that lists with its filter in the body): the api log's
    /// `writes` mode leaves it out.
    pub read: bool,
    /// Takes a multipart file (`post_upload`): the upload matrices post hostile files to every such route.
    pub upload: bool,
}

/// The route table under construction.
pub struct Api {
    router: Router<AppState>,
    routes: Vec<RouteInfo>,
    /// Path prefixes that belong to a declared resource: (base, resource name).
    bases: Vec<(String, String)>,
    pub res: Resources,
}

impl Api {
    pub fn new(res: &Resources) -> Api {
        Api { router: Router::new(), routes: Vec::new(), bases: Vec::new(), res: res.clone() }
    }

    /// A built-in declaration (its name is fixed in code).
    pub fn def(&self, name: &str) -> Arc<ResourceDef> {
        self.res.get(name)
    }

    /// Marks `base` as the prefix of resource `name`'s routes (their contract carries its schema).
    pub fn base(mut self, base: &str, name: &str) -> Api {
        self.bases.push((base.to_string(), name.to_string()));
        self
    }

    pub fn get<H, T>(self, path: impl AsRef<str>, guard: Guard, h: H) -> Api
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add("GET", path.as_ref(), guard, axum::routing::get(h))
    }

    /// A POST taking a multipart file: the body may be as large as the largest file (`files::MAX_FILE`) plus
    /// the form around it; every other route keeps axum's 2 MB body limit.
    pub fn post_upload<H, T>(self, path: impl AsRef<str>, guard: Guard, h: H) -> Api
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let limit = axum::extract::DefaultBodyLimit::max(crate::engine::uploads::MAX_FILE + 64 * 1024);
        let mut api = self.add("POST", path.as_ref(), guard, axum::routing::post(h).layer(limit));
        if let Some(r) = api.routes.last_mut() {
            r.upload = true;
        }
        api
    }

    pub fn post<H, T>(self, path: impl AsRef<str>, guard: Guard, h: H) -> Api
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add("POST", path.as_ref(), guard, axum::routing::post(h))
    }

    fn add(mut self, method: &'static str, path: &str, guard: Guard, mr: MethodRouter<AppState>) -> Api {
        let mr = match &guard {
            Guard::Public => mr,
            g => {
                let g = g.clone();
                mr.route_layer(from_fn(move |req: Request, next: Next| check(g.clone(), req, next)))
            }
        };
        self.router = self.router.route(path, mr);
        let action = path.rsplit('/').next().unwrap_or("").to_string();
        self.routes.push(RouteInfo { method, path: path.to_string(), guard, resource: None, action, doc: None, read: method == "GET", upload: false });
        self
    }

    /// Documents the route added last (`openapi.json`): a summary and the meaning of its parameters.
    pub fn doc(mut self, summary: &str, params: &[(&str, &str)]) -> Api {
        if let Some(r) = self.routes.last_mut() {
            r.doc = Some((summary.to_string(), params.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()));
        }
        self
    }

    /// Marks the route added last as a read although it is a POST (a list with its filter in the body).
    pub fn reads(mut self) -> Api {
        if let Some(r) = self.routes.last_mut() {
            r.read = true;
        }
        self
    }

    /// The router and the table. Each route learns the resource of the longest base that prefixes it.
    pub fn finish(self) -> (Router<AppState>, Vec<RouteInfo>) {
        let mut bases = self.bases;
        bases.sort_by_key(|(b, _)| std::cmp::Reverse(b.len()));
        let mut routes = self.routes;
        for r in &mut routes {
            let found = bases.iter().find_map(|(b, n)| r.path.strip_prefix(b.as_str()).and_then(|rest| rest.strip_prefix('/')).map(|a| (n, a)));
            if let Some((name, action)) = found {
                r.action = action.to_string();
                r.resource = Some(name.clone());
            }
        }
        (self.router, routes)
    }
}

/// A short title per route for the api log (BladeX's `@ApiLog` value): the resource's label and the action,
/// keyed `METHOD path-pattern` as the access log sees the matched route; with it, whether the route only reads.
/// A route of no resource is named by its summary's area (`施工审批 · …`) or its path's, and its action.
pub fn titles(routes: &[RouteInfo], res: &Resources) -> std::collections::HashMap<String, (String, bool)> {
    fn verb(a: &str) -> &str {
        match a {
        "list" | "parent-list" | "child-list" | "page" | "user-list" | "ledgerList" | "menu-list" | "lazy-menu-list" | "subList" | "topList" | "syncList" | "goods_list" | "goods" => "列表",
        "detail" | "platform-detail" => "详情",
        "data" => "数据",
        "task/data" => "上报进度",
        "ope/record" => "操作记录",
        "submit" => "新增或修改",
        "save" | "add" | "item" => "新增",
        "update" | "update-info" | "update-platform" => "修改",
        "update-password" => "修改密码",
        "remove" | "delete" | "deleteByIds" | "delete-deployment" | "delete-process-instance" => "删除",
        "export" | "export-user" => "导出",
        "import" | "import-user" => "导入",
        "import-template" | "export-template" | "template" => "导入模板",
        "getImportStatus" => "导入进度",
        "schema" => "表单结构",
        "tree" | "lazy-tree" | "lazy-list" | "grant-tree" | "grant-top-tree" | "role-tree-keys" | "top-tree-keys" | "roleTree" | "menuTree" | "tree-by-id" => "树",
        "routes" | "top-menu" | "buttons" => "菜单",
        "info" => "信息",
        "dictionary" => "字典项",
        "type" => "类型",
        "card" => "库存卡",
        "disable" => "停用",
        "sendSms" => "发送验证码",
        "select" => "选项",
        "grant" => "授权",
        "token" => "登录",
        "logout" => "退出登录",
        "captcha" | "vertifyCode" => "验证码",
        "user-info" => "当前用户",
        "clear-cache" => "清除缓存",
        "start" | "start-process" => "发起",
        "complete" | "complete-task" => "办理",
        "claim-task" => "签收",
        "withdraw" => "撤回",
        "cancel" => "取消",
        "cancel/task" => "撤回申请",
        "cancel/record" => "撤回记录",
        "reassign" => "转办",
        "change-state" => "变更状态",
        "deploy" | "deploy-upload" => "部署",
        "check" => "检查",
        "diagram" => "流程图",
        "history-flow-list" => "流转记录",
        "record" => "记录",
        "todo-list" => "待办",
        "done-list" => "办结",
        "send-list" => "已发",
        "claim-list" => "待签",
        "start-list" => "可发起的流程",
        "counts" => "数量",
        "users" => "人员",
        "search" => "搜索",
        "status" => "状态",
        "replica" => "副本",
        "health" => "健康检查",
        "ready" => "就绪检查",
        "metrics" => "指标",
        "upload" | "put-file" => "上传",
        "enable" => "启用",
        "test" => "测试连接",
        "send-message" => "发送",
        "bind" | "bindUserPhone" => "绑定",
        "unbind" => "解绑",
        "manager" => "指派负责人",
        "release" => "下发",
        "ship" => "发货",
        "finish" => "完成",
        "execute" => "执行",
        "sync" => "重发",
        "copy" => "复制",
        "gen-code" => "生成代码",
        "setting" => "设置",
        "datasource" => "数据源",
        "audit-pass" => "审核通过",
        "avatar" => "头像",
        "check-password" => "核对密码",
        "reset-password" => "重置密码",
        "register-guest" => "注册",
        "work-clock-in" => "打卡",
        "reset" => "重置",
        "category" => "分类",
        "lookup" => "查找",
        "close-short" => "短收完成",
        "makeup" => "补卡",
        "files" => "附件",
        "days" => "天数",
        "figures" => "金额汇总",
        "pick" => "选择",
        "unread-count" => "未读数",
        "read" => "标为已读",
        "read-all" => "全部已读",
        "desk" | "companyinfo" | "monthvalueover" | "monthcarryovertarget" | "getCostComparison" | "getGrossProfitRate" | "getInformationDetails" | "getMaterialDetailList" => "统计",
        other => other,
        }
    }
    /// The area of a route no resource serves: its summary's (`施工审批 · …`), or its path's.
    fn area(r: &RouteInfo) -> &str {
        let from_doc = r.doc.as_ref().and_then(|(s, _)| s.split_once(" · ")).map(|(a, _)| a).filter(|a| a.chars().any(|c| c > '\u{2e80}'));
        const BY_PATH: &[(&str, &str)] = &[
            ("/api/blade-auth/", ""),
            ("/api/blade-flow/work/", "我的事务"),
            ("/api/blade-flow/manager/", "流程管理"),
            ("/api/blade-flow/follow/", "流程跟踪"),
            ("/api/blade-flow/process/", "流程"),
            ("/api/blade-desk/process/leave/", "请假流程"),
            ("/api/blade-biz/statistic/", "首页"),
            ("/api/blade-system/status", "系统状态"),
            ("/api/blade-search/", "全局搜索"),
            ("/api/blade-gen/", "生成的资源"),
            ("/api/blade-api/edu-sub-account/receivables/", "应收款"),
            ("/blade-api/edu-sub-account/receivables/", "应收款"),
            ("/bladeDict/", "字典"),
            ("/api/", ""),
        ];
        from_doc.or_else(|| BY_PATH.iter().find(|(p, _)| r.path.starts_with(p)).map(|(_, a)| *a)).unwrap_or("")
    }
    // The action's word: the last path segment with a name for it, parameters and numbers left out
    // (`detail/{taskId}` is a detail, `delete/{id}/{parentId}/1` a delete), else the last such segment as it is.
    let word = |a: &str| {
        let named: Vec<&str> = a.rsplit('/').filter(|s| !s.is_empty() && !s.starts_with('{') && !s.bytes().all(|b| b.is_ascii_digit())).collect();
        let last = named.first().copied().unwrap_or("");
        let pair = (named.len() > 1).then(|| format!("{}/{}", named[1], named[0]));
        pair.iter().map(|p| verb(p)).chain(named.iter().map(|s| verb(s))).find(|w| w.chars().any(|c| c > '\u{2e80}')).unwrap_or(last).to_string()
    };
    // An area named after its action (`待签事务` of a claim list) is not repeated.
    let titled = |area: &str, w: String| if area.contains(w.as_str()) { area.to_string() } else { format!("{area} {w}").trim().to_string() };
    routes
        .iter()
        .map(|r| {
            let title = match r.resource.as_deref().and_then(|n| res.find(n)) {
                Some(def) => titled(&def.label, word(&r.action)),
                None => titled(area(r), word(&r.path)),
            };
            (format!("{} {}", r.method, r.path), (title.chars().take(100).collect(), r.read))
        })
        .collect()
}

/// The token of `Authorization: Bearer <token>` (a monitoring system's; sessions use `Blade-Auth`).
fn scrape_token(h: &axum::http::HeaderMap) -> Option<&str> {
    let v = h.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, tok) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| tok.trim()).filter(|t| !t.is_empty())
}

/// The guard layer: session, then codes; the admitted session is handed to the handler's extractor.
async fn check(g: Guard, req: Request, next: Next) -> Response {
    let Some(st) = req.extensions().get::<AppState>().cloned() else {
        return ApiError::internal("guard without application state").into_response();
    };
    if let Guard::Scrape(_) = &g
        && let Some(token) = st.settings.metrics_token.as_deref()
        && scrape_token(req.headers()).is_some_and(|t| crate::auth::token::constant_eq(t.as_bytes(), token.as_bytes())) {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    let s = match Session::from_request_parts(&mut parts, &st).await {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = g.admits(&st, &s) {
        return e.into_response();
    }
    parts.extensions.insert(s);
    next.run(Request::from_parts(parts, body)).await
}
