//! Lower-case hexadecimal, as partners see digests and signatures.

use std::fmt::Write as _;

pub fn encode(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _infallible = write!(out, "{b:02x}");
        out
    })
}

/// The bytes of `text`, or `None` when it is not an even number of hex digits (either case).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    // `from_str_radix` alone would take a sign (`+f`) as part of a pair.
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_and_decoding_refuses_what_is_not_hex() {
        assert_eq!(encode(&[0, 255, 16]), "00ff10");
        assert_eq!(decode("00FF10"), Some(vec![0, 255, 16]));
        assert_eq!(decode("0g"), None);
        assert_eq!(decode("abc"), None);
        assert_eq!(decode("é1"), None);
        assert_eq!(decode("+f"), None, "a sign is no digit");
    }
}
