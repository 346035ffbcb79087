//! Password hashing: Argon2id (46 MiB, t=1) over the lowercase hex MD5 the client sends. Where a person's
//! password arrives in clear (an admin typing it), the server derives the same MD5 first.
use argon2::{Algorithm, Argon2, Params, PasswordHash, PasswordHasher, PasswordVerifier, Version};
use md5::{Digest, Md5};

fn argon() -> Argon2<'static> {
    let params = Params::new(47_104, 1, 1, None).expect("valid argon2 params");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

pub fn md5_hex(s: &str) -> String {
    hex::encode(Md5::digest(s.as_bytes()))
}

/// Passwords every guesser tries first (the top of the public leak lists, Chinese ones among them, and this
/// product's own names). Clients send the MD5, so the check is against theirs.
const COMMON: &[&str] = &[
    "1", "12", "123", "1234", "12345", "123456", "1234567", "12345678", "123456789", "1234567890", "0", "000000", "00000000",
    "111111", "11111111", "112233", "121212", "123123", "123321", "654321", "666666", "888888", "88888888", "520520", "5201314",
    "147258369", "a123456", "123456a", "a12345678", "abc123", "abc123456", "qwerty", "qwe123", "qwerty123", "asdfgh", "zxcvbnm",
    "1qaz2wsx", "password", "password1", "passw0rd", "p@ssw0rd", "admin", "admin123", "admin888", "root", "test", "test123",
    "iloveyou", "woaini", "woaini1314", "zhizhuang", "zhizhuang123", "saber", "bladex",
];

/// Whether the password behind this MD5 is one of the `COMMON` ones.
pub fn is_common(md5: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| COMMON.iter().map(|p| md5_hex(p)).collect()).contains(&md5.to_ascii_lowercase())
}

/// The secret as the client should have sent it: 32 lowercase hex digits, else the MD5 of what was given.
pub fn normalize(secret: &str) -> String {
    if secret.len() == 32 && secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        secret.to_ascii_lowercase()
    } else {
        md5_hex(secret)
    }
}

/// A PHC string (`$argon2id$v=19$m=47104,t=1,p=1$salt$hash`) with a fresh random salt.
pub fn hash(md5: &str) -> String {
    argon().hash_password(md5.as_bytes()).expect("argon2 hashing").to_string()
}

pub fn verify(md5: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(h) => argon().verify_password(md5.as_bytes(), &h).is_ok(),
        Err(_) => false,
    }
}

/// Verified against when the account does not exist, so unknown and known accounts cost the same.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash(&md5_hex("no such account")))
}

/// A random password a person can type: 14 characters without look-alikes.
pub fn random_password() -> String {
    use rand::Rng;
    const CHARS: &[u8] = b"abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rng();
    (0..14).map(|_| CHARS[rng.random_range(0..CHARS.len())] as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_known_vector_and_normalize() {
        assert_eq!(md5_hex("admin"), "21232f297a57a5a743894a0e4a801fc3");
        assert_eq!(normalize("21232F297A57A5A743894A0E4A801FC3"), "21232f297a57a5a743894a0e4a801fc3");
        assert_eq!(normalize("admin"), "21232f297a57a5a743894a0e4a801fc3");
    }

    #[test]
    fn hash_and_verify() {
        let h = hash(&md5_hex("s3cret"));
        assert!(h.starts_with("$argon2id$v=19$m=47104,t=1,p=1$"));
        assert!(verify(&md5_hex("s3cret"), &h));
        assert!(!verify(&md5_hex("S3cret"), &h));
        assert!(!verify(&md5_hex("s3cret"), "garbage"));
        assert_ne!(hash(&md5_hex("s3cret")), h, "salts differ");
    }
}
