//! Serializes `f64` the way JavaScript's `JSON.stringify` does: integral
//! values are written without a fractional part (`0`, not `0.0`), so files
//! written by pi and by pi-rs are value-equal.

use serde::Serializer;

/// Largest integer an `f64` holds exactly (2^53).
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;

/// Serialize an `f64`, writing integral values as integers.
pub(crate) fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    let v = *value;
    if v.fract() == 0.0 && v.abs() <= MAX_SAFE {
        // The guard above makes the cast exact.
        return serializer.serialize_i64(v as i64);
    }
    serializer.serialize_f64(v)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct W(#[serde(serialize_with = "super::serialize")] f64);

    #[test]
    fn integral_values_have_no_fraction() {
        assert_eq!(serde_json::to_string(&W(0.0)).unwrap(), "0");
        assert_eq!(serde_json::to_string(&W(-3.0)).unwrap(), "-3");
        assert_eq!(serde_json::to_string(&W(0.25)).unwrap(), "0.25");
        assert_eq!(serde_json::to_string(&W(1e300)).unwrap(), "1e+300");
    }
}
