//! What the bare engine lacks and only the host can give cheaply: console output,
//! `performance.now`, and UTF-8 encoding for the bundle's TextEncoder/TextDecoder polyfill
//! (`__zz_utf8_encode(string) -> Uint8Array`, `__zz_utf8_decode(Uint8Array) -> string`).
//! Timers, MessageChannel and the rest are plain JS and live in the bundle.

use rquickjs::function::{Func, Rest};
use rquickjs::{Coerced, Ctx, Object, Result, TypedArray, Value};
use std::time::Instant;

/// Installs the native globals into a fresh context.
pub(crate) fn install(ctx: &Ctx<'_>, started: Instant) -> Result<()> {
    let g = ctx.globals();

    let console = Object::new(ctx.clone())?;
    // log/info/debug are discarded (renders run hot); warnings and errors go to stderr.
    console.set("log", Func::from(|_: Rest<Value>| {}))?;
    console.set("info", Func::from(|_: Rest<Value>| {}))?;
    console.set("debug", Func::from(|_: Rest<Value>| {}))?;
    console.set("warn", Func::from(|args: Rest<Coerced<String>>| print("warn", &args)))?;
    console.set("error", Func::from(|args: Rest<Coerced<String>>| print("error", &args)))?;
    g.set("console", console)?;

    let perf = Object::new(ctx.clone())?;
    perf.set("now", Func::from(move || started.elapsed().as_secs_f64() * 1000.0))?;
    perf.set("timeOrigin", 0.0)?;
    g.set("performance", perf)?;

    g.set(
        "__zz_utf8_encode",
        Func::from(encode),
    )?;
    g.set("__zz_utf8_decode", Func::from(|v: Value<'_>| -> Result<String> { Ok(decode(&v)) }))?;
    Ok(())
}

fn encode<'js>(ctx: Ctx<'js>, s: Coerced<String>) -> Result<TypedArray<'js, u8>> {
    TypedArray::<u8>::new(ctx, s.0.into_bytes())
}

fn print(level: &str, args: &Rest<Coerced<String>>) {
    let line: Vec<&str> = args.0.iter().map(|a| a.0.as_str()).collect();
    eprintln!("[ssr console.{level}] {}", line.join(" "));
}

/// Lossy UTF-8 decode of a Uint8Array (or any array-like of bytes); anything else decodes
/// to "". Reads element by element: the crate forbids `unsafe`, which a borrowed slice needs.
fn decode(v: &Value<'_>) -> String {
    let Some(obj) = v.as_object() else { return String::new() };
    let len: usize = obj.get::<_, Option<usize>>("length").ok().flatten().unwrap_or(0);
    let mut bytes = Vec::with_capacity(len);
    for i in 0..len {
        bytes.push(obj.get::<_, Option<u8>>(i as u32).ok().flatten().unwrap_or(0));
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
