//! blade-resource: files kept inside the data file (`files`), OSS and SMS provider configs and attachments
//! (`providers`).
pub mod files;
pub mod providers;

use crate::engine::{Api, Guard};

const R: &str = "/api/blade-resource";

pub fn routes(api: Api) -> Api {
    let api = api.post_upload(format!("{R}/oss/endpoint/put-file"), Guard::Signed, files::put_file);
    let api = providers::provider_routes(api, &format!("{R}/oss"), "oss");
    let api = providers::provider_routes(api, &format!("{R}/sms"), "sms");
    let api = api.post(format!("{R}/sms/send-message"), Guard::code("sms_send"), providers::send_message);
    providers::attach_routes(api, &format!("{R}/attach"))
}

/// 资源: files, OSS and SMS configurations, attachments: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("resource", routes);
