//! The one credential of swingdb's network services (`swingdb serve`, pipes
//! across hosts): a token that every call must carry as `authorization:
//! Bearer <token>`. A client that has only a user name and password (JDBC,
//! ADBC's `username`/`password`) gets the bearer header from the Flight
//! handshake by sending the token as the password of HTTP basic
//! authentication (any user name).

use base64::prelude::{Engine, BASE64_STANDARD_NO_PAD};
use tonic::metadata::MetadataMap;
use tonic::Status;

/// The environment variable that holds the token when no file is given.
pub const TOKEN_VARIABLE: &str = "SWINGDB_TOKEN";

/// The token every call is checked against.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// `text` as the token, refused when it is too short to resist guessing
    /// or holds what an HTTP header cannot carry.
    pub fn new(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.len() < 16 {
            return Err(format!("the token is {} characters long; use at least 16", text.len()));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the token may hold only visible ASCII characters (no spaces)".into());
        }
        Ok(Self(text.to_string()))
    }

    /// The token in `file` (surrounding white space ignored).
    pub fn from_file(file: &std::path::Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(file).map_err(|e| format!("cannot read the token file {}: {e}", file.display()))?;
        Self::new(&text).map_err(|e| format!("{}: {e}", file.display()))
    }

    /// The token in `$SWINGDB_TOKEN`, if it is set.
    pub fn from_env() -> Option<Result<Self, String>> {
        let text = std::env::var(TOKEN_VARIABLE).ok()?;
        Some(Self::new(&text).map_err(|e| format!("${TOKEN_VARIABLE}: {e}")))
    }

    /// A new random token: 32 bytes of the kernel's randomness, as hex.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The header value a client sends with every call.
    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// Whether `candidate` is the token, compared in time independent of
    /// where they differ.
    fn matches(&self, candidate: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Checks the bearer header of a call.
    pub fn check(&self, metadata: &MetadataMap) -> Result<(), Status> {
        let header = header(metadata)?;
        match header.strip_prefix("Bearer ") {
            Some(candidate) if self.matches(candidate.trim()) => Ok(()),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => Err(Status::unauthenticated(
                "send the token as 'authorization: Bearer <token>', or as the password of the Flight handshake",
            )),
        }
    }

    /// Checks the credentials of a handshake: basic authentication whose
    /// password is the token, or the bearer header itself.
    pub fn check_handshake(&self, metadata: &MetadataMap) -> Result<(), Status> {
        let header = header(metadata)?;
        let Some(encoded) = header.strip_prefix("Basic ") else {
            return self.check(metadata);
        };
        // With or without padding: Go's Flight client sends it without.
        let decoded = BASE64_STANDARD_NO_PAD
            .decode(encoded.trim().trim_end_matches('='))
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| {
                Status::invalid_argument("the basic authorization header is not base64 of 'user:password'")
            })?;
        let (_user, password) = decoded
            .split_once(':')
            .ok_or_else(|| Status::invalid_argument("basic authorization without a password"))?;
        if self.matches(password) {
            Ok(())
        } else {
            Err(Status::unauthenticated("wrong token (the handshake takes the token as the password)"))
        }
    }
}

/// The `authorization` header of a call.
fn header(metadata: &MetadataMap) -> Result<&str, Status> {
    metadata
        .get("authorization")
        .ok_or_else(|| {
            Status::unauthenticated("no token: this server needs 'authorization: Bearer <token>' on every call")
        })?
        .to_str()
        .map_err(|_| Status::unauthenticated("the authorization header is not text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_header(value: &str) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        metadata.insert("authorization", value.parse().unwrap());
        metadata
    }

    #[test]
    fn bearer_and_basic_credentials_are_checked_against_the_token() {
        let token = Token::new("0123456789abcdef-token").unwrap();
        assert!(token.check(&with_header("Bearer 0123456789abcdef-token")).is_ok());
        assert!(token.check(&with_header("Bearer 0123456789abcdef-tokem")).is_err());
        assert!(token.check(&with_header("Bearer 0123456789abcdef-token-longer")).is_err());
        assert!(token.check(&MetadataMap::new()).is_err());
        // user:token, padded (as most clients send it) and unpadded (as Go's Flight client does).
        let padded = base64::prelude::BASE64_STANDARD.encode("me:0123456789abcdef-token");
        assert!(padded.ends_with("=="), "this case needs padding: {padded}");
        let unpadded = padded.trim_end_matches('=').to_string();
        for encoded in [padded, unpadded] {
            assert!(token.check_handshake(&with_header(&format!("Basic {encoded}"))).is_ok(), "{encoded}");
        }
        let wrong = BASE64_STANDARD_NO_PAD.encode("me:0123456789abcdef-tokem");
        assert_eq!(
            token.check_handshake(&with_header(&format!("Basic {wrong}"))).unwrap_err().code(),
            tonic::Code::Unauthenticated
        );
        assert!(Token::new("short").is_err() && Token::new("has a space in it, sadly").is_err());
        assert_eq!(Token::generate().unwrap().as_str().len(), 64);
    }
}
