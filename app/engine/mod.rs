//! The generic engine every area builds on: the route table with its guards (`routes`), the declared resources
//! (`resources`), the generic list/detail/submit/remove handlers (`crud`) and Blade list parameters turned into
//! store queries (`listq`), Excel export and import of declared resources (`xlsx`) and the bounded reader every import uses (`sheet`). Areas under `api/` register their routes here and hand-write only real behaviour.
pub mod attachments;
pub mod crud;
pub mod demo;
pub mod dict;
pub mod dialect;
pub mod layout;
pub mod listq;
pub mod lookup;
pub mod messages;
pub mod names;
pub mod objects;
pub mod params;
pub mod rec;

pub mod routes;
pub mod rules;
pub mod sheet;
pub mod uploads;
pub mod xlsx;

pub use routes::{Api, Guard, RouteInfo};
