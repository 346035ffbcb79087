//! Captchas: a real PNG from the `captcha` crate, kept in memory for five minutes, usable once.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine;
use captcha::Captcha;
use captcha::filters::{Noise, Wave};
use rand::RngCore;

const TTL: Duration = Duration::from_secs(300);
/// Outstanding captchas kept at most; past that the oldest are dropped.
const CAP: usize = 20_000;

#[derive(Default)]
pub struct Captchas(Mutex<HashMap<String, (String, Instant)>>);

impl Captchas {
    /// A new captcha: `(key, data-URL PNG)`.
    pub fn issue(&self) -> (String, String) {
        let (code, png) = render();
        let mut k = [0u8; 16];
        rand::rng().fill_bytes(&mut k);
        let key = hex::encode(k);
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if m.len() >= CAP {
            m.retain(|_, (_, exp)| *exp > now);
            if m.len() >= CAP {
                let oldest = m.iter().min_by_key(|(_, (_, exp))| *exp).map(|(k, _)| k.clone());
                if let Some(o) = oldest {
                    m.remove(&o);
                }
            }
        }
        m.insert(key.clone(), (code.to_lowercase(), now + TTL));
        let b64 = base64::engine::general_purpose::STANDARD.encode(png);
        (key, format!("data:image/png;base64,{b64}"))
    }

    /// Checks and consumes: a captcha answers once, right or wrong.
    pub fn check(&self, key: &str, code: &str) -> bool {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match m.remove(key) {
            Some((expected, exp)) => exp > Instant::now() && !code.is_empty() && expected == code.trim().to_lowercase(),
            None => false,
        }
    }

    /// The expected answer, for tests that sign in through the captcha grant. Not reachable over HTTP.
    #[doc(hidden)]
    pub fn peek(&self, key: &str) -> Option<String> {
        self.0.lock().ok()?.get(key).map(|(c, _)| c.clone())
    }
}

fn render() -> (String, Vec<u8>) {
    let (code, png, _) = render_sized();
    (code, png)
}

/// The code, the PNG, and the text's own width and height.
fn render_sized() -> (String, Vec<u8>, (u32, u32)) {
    let mut c = Captcha::new();
    c.add_chars(4).apply_filter(Noise::new(0.15)).apply_filter(Wave::new(1.5, 8.0));
    // The image is the text's own area with a margin for the wave: a fixed 130×48 view cut the last character at
    // the image's edge. The page scales it into its box.
    let a = c.text_area();
    let text = (a.right.saturating_sub(a.left), a.bottom.saturating_sub(a.top));
    // The wave moves glyphs down more than up (the cut was always at the bottom or right): more room there.
    c.extract(captcha::Geometry::new(a.left.saturating_sub(12), a.right + 20, a.top.saturating_sub(6), a.bottom + 18));
    let png = c.as_png().unwrap_or_default();
    (c.chars_as_string(), png, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The image holds the whole text with a margin (the last character was cut at the edge of a fixed view).
    #[test]
    fn the_image_holds_the_whole_text() {
        for _ in 0..50 {
            let (_, png, (tw, th)) = render_sized();
            let (w, h) = (u32::from_be_bytes(png[16..20].try_into().unwrap()), u32::from_be_bytes(png[20..24].try_into().unwrap()));
            assert!(w >= tw + 32 && h >= th + 24, "{w}×{h} for text {tw}×{th}");
        }
    }

    #[test]
    fn single_use_png() {
        let c = Captchas::default();
        let (key, img) = c.issue();
        assert!(img.starts_with("data:image/png;base64,iVBOR"));
        let code = c.peek(&key).unwrap();
        assert!(!c.check(&key, "wrong"));
        assert!(!c.check(&key, &code), "a captcha is consumed by the first try");
        let (key, _) = c.issue();
        let code = c.peek(&key).unwrap();
        assert!(c.check(&key, &code.to_uppercase()));
    }
}
