//! The install's secret key, kept apart from the data file, and what it protects: the secrets companies store
//! (object-storage keys, SMS keys, WeChat AppSecrets and tokens, payment-channel keys, data-source passwords —
//! fields declared `sealed`) are encrypted at rest with it (ChaCha20-Poly1305, from `ring`, which the TLS stack
//! already brings), and the token signing key is derived from it and the random key in the data file. So a
//! copied data file or backup alone gives away neither the secrets nor a way to forge tokens.
//!
//! Where the key is: `ZZ_SECRET_KEY` (64 hex digits, for a service whose environment file holds it), else
//! `DIR/secret.key` beside the data file (made at first start, mode 0600). A restored or followed copy needs the
//! same key: copy `secret.key` with the backup (`backup` says so), or set `ZZ_SECRET_KEY` on the standby. Without
//! it the server still starts; sealed secrets then cannot be opened (the status screen and the log say so, and
//! the company re-enters them) and everyone signs in again.
//!
//! A sealed value reads `zzsec1:<key id>:<base64 of nonce and ciphertext>`; the key id is the first 8 hex digits
//! of the key's SHA-256, so a value sealed under another key is told apart from a damaged one. Values written
//! before sealing existed are plain text: they are read as they are and sealed at the next start.
use std::path::{Path, PathBuf};

use base64::Engine;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};
use sha2::{Digest, Sha256};

/// The key file beside the data file.
pub const KEY_FILE: &str = "secret.key";
/// The environment variable that holds the key instead of the file.
pub const KEY_ENV: &str = "ZZ_SECRET_KEY";
const PREFIX: &str = "zzsec1:";

pub struct Secrets {
    key: LessSafeKey,
    raw: [u8; 32],
    id: String,
    /// Where the key came from, for the log and the status screen.
    pub source: String,
}

/// Why a sealed value could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsealable {
    /// Sealed under another key (its id).
    OtherKey(String),
    /// Not a value this key sealed (damaged, or moved from another tenant or field).
    Damaged,
}

impl Secrets {
    /// The key of the data directory `dir`: `ZZ_SECRET_KEY`, else `DIR/secret.key`, made (0600) when missing.
    pub fn load(dir: &Path) -> anyhow::Result<Secrets> {
        if let Ok(v) = std::env::var(KEY_ENV)
            && !v.trim().is_empty() {
            let raw = parse_key(&v).ok_or_else(|| anyhow::anyhow!("{KEY_ENV} must be 64 hex digits (32 bytes)"))?;
            let s = Secrets::from_raw(raw, KEY_ENV.to_string());
            // The variable wins over the file. When they differ (a restored data directory brought the old
            // server's secret.key, the environment file kept the new install's key), say which is used: secrets
            // sealed with the other cannot be opened until the right key is in the environment file.
            let path = key_path(dir);
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Some(file_raw) = parse_key(&text)
                && file_raw != raw {
                let file_id = Secrets::from_raw(file_raw, String::new()).id;
                tracing::warn!(target: "zz::secrets", file = %path.display(), file_key = %file_id, used_key = %s.id,
                    "{KEY_ENV} and {} hold different keys: {KEY_ENV} is used; if this data came from another server, put its key (the file's) into {KEY_ENV}", path.display());
            }
            return Ok(s);
        }
        let path = key_path(dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let raw = parse_key(&text).ok_or_else(|| anyhow::anyhow!("{} is not a key (64 hex digits)", path.display()))?;
                Ok(Secrets::from_raw(raw, path.display().to_string()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut raw = [0u8; 32];
                rand::RngCore::fill_bytes(&mut rand::rng(), &mut raw);
                write_key(&path, &raw)?;
                tracing::info!(target: "zz::secrets", file = %path.display(), "made the install's secret key: keep it with your backups");
                Ok(Secrets::from_raw(raw, path.display().to_string()))
            }
            Err(e) => Err(anyhow::anyhow!("read {}: {e}", path.display())),
        }
    }

    /// The key of the directory holding the data file `data`.
    pub fn for_data_file(data: &Path) -> anyhow::Result<Secrets> {
        Secrets::load(data.parent().unwrap_or(Path::new(".")))
    }

    pub fn from_raw(raw: [u8; 32], source: String) -> Secrets {
        let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &raw).expect("a 32-byte key"));
        let id = hex::encode(&Sha256::digest(raw)[..4]);
        Secrets { key, raw, id, source }
    }

    /// The key's id (the first 8 hex digits of its SHA-256): what sealed values carry.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `plain` sealed for `tenant`'s field `field` (the two are bound to it: a value moved elsewhere does not open).
    pub fn seal(&self, tenant: &str, field: &str, plain: &str) -> String {
        let mut nonce = [0u8; 12];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut nonce);
        let mut buf = plain.as_bytes().to_vec();
        let aad = format!("{tenant}\u{1f}{field}");
        self.key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad.as_bytes()), &mut buf).expect("sealing cannot fail");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&buf);
        format!("{PREFIX}{}:{}", self.id, base64::engine::general_purpose::STANDARD_NO_PAD.encode(out))
    }

    /// The plain value of a stored one: a sealed value opened, a plain one (written before sealing) as it is.
    pub fn open(&self, tenant: &str, field: &str, stored: &str) -> Result<String, Unsealable> {
        let Some(rest) = stored.strip_prefix(PREFIX) else { return Ok(stored.to_string()) };
        let (id, b64) = rest.split_once(':').ok_or(Unsealable::Damaged)?;
        if id != self.id {
            return Err(Unsealable::OtherKey(id.to_string()));
        }
        let mut bytes = base64::engine::general_purpose::STANDARD_NO_PAD.decode(b64).map_err(|_| Unsealable::Damaged)?;
        if bytes.len() < 12 + 16 {
            return Err(Unsealable::Damaged);
        }
        let nonce: [u8; 12] = bytes[..12].try_into().map_err(|_| Unsealable::Damaged)?;
        let aad = format!("{tenant}\u{1f}{field}");
        let plain = self.key.open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(aad.as_bytes()), &mut bytes[12..]).map_err(|_| Unsealable::Damaged)?;
        String::from_utf8(plain.to_vec()).map_err(|_| Unsealable::Damaged)
    }

    /// A key for `purpose` derived from this one and `material` (HMAC-SHA256): the token signing key is the
    /// data file's random key passed through this, so the data file alone cannot sign a token.
    pub fn derive(&self, purpose: &str, material: &[u8]) -> [u8; 32] {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &self.raw);
        let mut ctx = ring::hmac::Context::with_key(&key);
        ctx.update(purpose.as_bytes());
        ctx.update(&[0]);
        ctx.update(material);
        ctx.sign().as_ref().try_into().expect("32 bytes")
    }
}

/// Whether a stored value is sealed.
pub fn is_sealed(v: &str) -> bool {
    v.starts_with(PREFIX)
}

/// The key file of a data directory.
pub fn key_path(dir: &Path) -> PathBuf {
    dir.join(KEY_FILE)
}

fn parse_key(text: &str) -> Option<[u8; 32]> {
    let t = text.trim();
    let bytes = hex::decode(t).ok()?;
    bytes.try_into().ok()
}

/// Written whole under another name with mode 0600, then renamed into place.
fn write_key(path: &Path, raw: &[u8; 32]) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension("key.tmp");
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
    f.write_all(format!("{}\n", hex::encode(raw)).as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(d) = path.parent() {
        std::fs::File::open(d)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_tenant_and_field() {
        let a = Secrets::from_raw([7; 32], "test".into());
        let s = a.seal("157270", "oss.secretKey", "SK-123");
        assert!(is_sealed(&s) && !s.contains("SK-123"), "{s}");
        assert_ne!(s, a.seal("157270", "oss.secretKey", "SK-123"), "a fresh nonce each time");
        assert_eq!(a.open("157270", "oss.secretKey", &s), Ok("SK-123".to_string()));
        assert_eq!(a.open("741487", "oss.secretKey", &s), Err(Unsealable::Damaged));
        assert_eq!(a.open("157270", "sms.secretKey", &s), Err(Unsealable::Damaged));
        let b = Secrets::from_raw([8; 32], "test".into());
        assert_eq!(b.open("157270", "oss.secretKey", &s), Err(Unsealable::OtherKey(a.id().to_string())));
        // A value from before sealing reads as it is.
        assert_eq!(b.open("157270", "oss.secretKey", "plain"), Ok("plain".to_string()));
        assert_ne!(a.derive("jwt", b"k"), b.derive("jwt", b"k"));
    }

    #[test]
    fn the_key_file_is_made_once_readable_by_the_server_only() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let a = Secrets::load(d.path()).unwrap();
        let mode = std::fs::metadata(key_path(d.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let b = Secrets::load(d.path()).unwrap();
        assert_eq!(a.id(), b.id());
    }
}
