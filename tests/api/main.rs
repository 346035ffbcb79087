//! HTTP scenario tests of the root package, compiled as one binary.
mod admin;
mod authz;
mod cli;
mod contract;
mod crash;
mod files;
mod net;
mod openapi;
mod pages;
mod saber;
mod scm;
mod security;
mod search;
mod signin;
mod walks;
mod wms;
mod support;
