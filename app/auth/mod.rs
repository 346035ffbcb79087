//! Sign-in and sessions: password hashing, tokens, captchas, throttling, the session extractor and permissions.
pub mod captcha;
pub mod jwt;
pub mod password;
pub mod perms;
pub mod scope;
pub mod session;
pub mod tenants;
pub mod throttle;
pub mod token;
