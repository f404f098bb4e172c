//! Lower-case hexadecimal, as Pulse writes HMACs.

pub(crate) fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// `None` for an odd length or a character that is not a hex digit (either case).
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let value = |digit: u8| char::from(digit).to_digit(16).and_then(|v| u8::try_from(v).ok());
    digits.chunks_exact(2).map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_and_refuses_what_is_not_hex() {
        let bytes = [0x00, 0x7f, 0xa5, 0xff];
        assert_eq!(super::encode(&bytes), "007fa5ff");
        assert_eq!(super::decode("007FA5ff"), Some(bytes.to_vec()));
        for bad in ["0", "0g", "zz", "é0"] {
            assert_eq!(super::decode(bad), None, "{bad}");
        }
    }
}
