//! OAuth credentials as pi stores them in auth.json:
//! `{"type": "oauth", "refresh": …, "access": …, "expires": <ms>, …}` with
//! provider fields (`accountId` for ChatGPT, `enterpriseUrl` for Copilot).

use serde_json::{Map, Value};

/// One provider's OAuth credentials: the stored fields, in pi's order,
/// without `type`.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthCredentials {
    fields: Map<String, Value>,
}

impl OAuthCredentials {
    /// Credentials with pi's three common fields.
    pub fn new(refresh: &str, access: &str, expires: i64) -> Self {
        let mut fields = Map::new();
        fields.insert("refresh".to_owned(), Value::from(refresh));
        fields.insert("access".to_owned(), Value::from(access));
        fields.insert("expires".to_owned(), Value::from(expires));
        Self { fields }
    }

    /// Credentials from raw fields (the order is kept as given).
    pub fn from_fields(fields: Map<String, Value>) -> Self {
        Self { fields }
    }

    /// The credentials of an auth.json entry, when it is an `oauth` one.
    pub fn from_entry(entry: &Value) -> Option<Self> {
        let object = entry.as_object()?;
        if object.get("type")?.as_str()? != "oauth" {
            return None;
        }
        let fields = object
            .iter()
            .filter(|(k, _)| k.as_str() != "type")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some(Self { fields })
    }

    /// The auth.json entry: `{"type": "oauth", ...fields}`.
    pub fn to_entry(&self) -> Value {
        let mut entry = Map::with_capacity(self.fields.len() + 1);
        entry.insert("type".to_owned(), Value::from("oauth"));
        entry.extend(self.fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        Value::Object(entry)
    }

    /// Sets (or appends) a field.
    pub fn set(&mut self, name: &str, value: Value) {
        self.fields.insert(name.to_owned(), value);
    }

    /// A field.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }

    /// The access token (the provider's API key).
    pub fn access(&self) -> &str {
        self.str_field("access").unwrap_or_default()
    }

    /// The refresh token (for Copilot: the GitHub access token).
    pub fn refresh(&self) -> &str {
        self.str_field("refresh").unwrap_or_default()
    }

    /// When the access token stops being used, in ms since the epoch (0 when
    /// missing, so such a token is refreshed).
    pub fn expires(&self) -> i64 {
        match self.fields.get("expires") {
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .unwrap_or(0),
            _ => 0,
        }
    }

    /// Whether the access token must be refreshed at `now_ms` (pi:
    /// `Date.now() >= expires`).
    pub fn is_expired(&self, now_ms: i64) -> bool {
        now_ms >= self.expires()
    }

    /// A string field.
    pub fn str_field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).and_then(Value::as_str)
    }
}

/// Milliseconds since the Unix epoch (pi's `Date.now()`).
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_round_trips_with_its_order_and_extra_fields() {
        let text = r#"{"type":"oauth","access":"a","refresh":"r","expires":1700000000000,"accountId":"acc"}"#;
        let entry: Value = serde_json::from_str(text).unwrap();
        let creds = OAuthCredentials::from_entry(&entry).unwrap();
        assert_eq!(creds.access(), "a");
        assert_eq!(creds.refresh(), "r");
        assert_eq!(creds.expires(), 1_700_000_000_000);
        assert_eq!(creds.str_field("accountId"), Some("acc"));
        assert_eq!(serde_json::to_string(&creds.to_entry()).unwrap(), text);
        assert!(creds.is_expired(1_700_000_000_000));
        assert!(!creds.is_expired(1_699_999_999_999));
        let key = serde_json::json!({"type": "api_key", "key": "k"});
        assert_eq!(OAuthCredentials::from_entry(&key), None);
    }

    #[test]
    fn a_fractional_or_missing_expiry_is_read_leniently() {
        let entry =
            serde_json::json!({"type": "oauth", "access": "a", "refresh": "r", "expires": 5.5});
        assert_eq!(OAuthCredentials::from_entry(&entry).unwrap().expires(), 5);
        let entry = serde_json::json!({"type": "oauth", "access": "a"});
        assert!(OAuthCredentials::from_entry(&entry).unwrap().is_expired(0));
    }
}
