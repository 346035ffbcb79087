//! HTTP scenario tests of the root package, compiled as one binary.
mod cli;
mod contract;
mod crash;
mod net;
mod security;
mod signin;
mod support;
