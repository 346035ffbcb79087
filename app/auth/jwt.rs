//! Access tokens: HS256 JWTs signed with a key derived from a random 256-bit key created at first start and kept
//! in the data file, and the install's secret key kept apart from it (`crate::secrets`): the data file (or a
//! backup of it) alone cannot sign a token.
//! A token only names the session; roles and rights are always read from the server's own records.
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use store::Store;

pub const ISSUER: &str = "zhizhuang";
pub const AUDIENCE: &str = "zhizhuang-web";
const KEY_META: &str = "jwt_key";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub jti: String,
    /// Tenant id.
    pub tid: String,
    /// User id (decimal string).
    pub uid: String,
    /// Session (refresh-token family) id.
    pub sid: String,
    /// The user's token version when issued; a password change bumps it.
    pub ver: i64,
}

pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
}

impl Keys {
    /// Reads the install's signing key, creating it on first start.
    pub fn load(store: &Store, secrets: &crate::secrets::Secrets) -> anyhow::Result<Keys> {
        let keys = |stored: &[u8]| {
            let k = secrets.derive("jwt", stored);
            Keys { enc: EncodingKey::from_secret(&k), dec: DecodingKey::from_secret(&k) }
        };
        // Read first: a standby holds the primary's key and takes no writes.
        if let Some(k) = store.read(|r| r.meta(KEY_META))?.filter(|k| k.len() >= 32) {
            return Ok(keys(&k));
        }
        let key = store.write(|w| match w.meta(KEY_META)? {
            Some(k) if k.len() >= 32 => Ok(k),
            _ => {
                let mut k = vec![0u8; 32];
                rand::rng().fill_bytes(&mut k);
                w.put_meta(KEY_META, &k)?;
                Ok(k)
            }
        })?;
        Ok(keys(&key))
    }

    pub fn sign(&self, c: &Claims) -> String {
        encode(&Header::new(Algorithm::HS256), c, &self.enc).expect("HS256 signing cannot fail")
    }

    /// Only HS256, our issuer and audience, unexpired (no leeway). Everything else is `None`.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        let mut v = Validation::new(Algorithm::HS256);
        v.set_issuer(&[ISSUER]);
        v.set_audience(&[AUDIENCE]);
        v.leeway = 0;
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        decode::<Claims>(token, &self.dec, &v).ok().map(|d| d.claims)
    }
}
