//! pi-ai's `shortHash`: the short stable id wires derive from longer ids
//! (OpenAI Responses message ids, Mistral tool-call ids).

/// pi's `shortHash`: two 32-bit multiplicative hashes over the UTF-16 code
/// units of `text`, printed in base 36 (second, then first) and joined.
///
/// ```
/// assert_eq!(pi_ai::short_hash("a"), "m8735310ae7sx");
/// ```
pub fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    let mut out = base36(h2);
    out.push_str(&base36(h1));
    out
}

/// `n.toString(36)`.
fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::with_capacity(7);
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    out.into_iter().map(char::from).collect()
}

#[cfg(test)]
mod tests {
    use super::short_hash;

    #[test]
    fn short_hash_matches_pi() {
        // Values printed by pi-ai 0.73.1's `shortHash` under Node.
        let cases = [
            ("", "k4n83c7h0j2b"),
            ("a", "m8735310ae7sx"),
            (
                "msg_0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
                "9qla0oue4xpw",
            ),
            ("héllo 🙈 wörld", "m097wb17j8ve5"),
            ("rs_abc|fc_def", "1120wa3pv1o0n"),
        ];
        for (input, expected) in cases {
            assert_eq!(short_hash(input), expected, "{input:?}");
        }
    }
}
