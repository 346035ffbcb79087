//! blade-user: user administration (`admin`), the signed-in person's own account (`profile`), guest
//! registration, SMS codes and password retrieval (`account`), and the Excel template (`xls`).
pub mod account;
pub mod admin;
pub mod profile;
pub mod xls;

use crate::engine::{Api, Guard};

const U: &str = "/api/blade-user";

pub fn routes(api: Api) -> Api {
    let g = Guard::code;
    api.base(U, "user")
        .get(format!("{U}/info"), Guard::Signed, profile::info)
        .post(format!("{U}/update-password"), Guard::Signed, profile::update_password)
        .post(format!("{U}/check-password"), Guard::Signed, profile::check_password)
        .post(format!("{U}/update-info"), Guard::Signed, profile::update_info)
        .post(format!("{U}/avatar"), Guard::Signed, profile::avatar)
        .get(format!("{U}/page"), g("user"), admin::page)
        .get(format!("{U}/detail"), g("user"), admin::detail)
        .get(format!("{U}/platform-detail"), g("user"), admin::detail)
        .get(format!("{U}/user-list"), g("user"), admin::user_list)
        .post(format!("{U}/submit"), Guard::any(&["user_add", "user_edit"]), admin::submit)
        .post(format!("{U}/update"), g("user_edit"), admin::update)
        .post(format!("{U}/remove"), g("user_delete"), admin::remove)
        .post(format!("{U}/grant"), g("user_role"), admin::grant)
        .post(format!("{U}/reset-password"), g("user_reset"), admin::reset_password)
        .post(format!("{U}/update-platform"), g("user_platform"), admin::update_platform)
        .post(format!("{U}/audit-pass"), g("user_edit"), admin::audit_pass)
        .post(format!("{U}/register-guest"), Guard::Public, account::register_guest)
        .get(format!("{U}/common/sendSms"), Guard::Signed, account::send_sms)
        // Binding one's own phone needs no code; binding another user's needs `user_edit` (checked inside).
        .post(format!("{U}/common/bindUserPhone/{{userId}}"), Guard::Signed, account::bind_phone)
        .post(format!("{U}/retrieve-password/vertifyCode"), Guard::Public, account::retrieve_code)
        .post(format!("{U}/retrieve-password/update"), Guard::Public, account::retrieve_update)
        .get(format!("{U}/export-template"), Guard::any(&["user_import", "user_export"]), xls::template)
        .get(format!("{U}/export-user"), g("user_export"), xls::export)
        .post_upload(format!("{U}/import-user"), g("user_import"), xls::import)
}

/// 用户: accounts, sign-in helpers, the personal screens, Excel of users: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("user", routes);
