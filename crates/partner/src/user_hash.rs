use hmac::{Hmac, Mac as _};
use sha2::Sha256;

/// `user.userHash` for the app user `external_id`: the hex HMAC-SHA256 of `external_id`, keyed
/// with the UTF-8 bytes of an active launch-key secret of the campaign. Compute it on your server
/// and hand it to the app; the secret never goes to a device.
#[must_use]
pub fn user_hash(launch_key_secret: &str, external_id: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(launch_key_secret.as_bytes()) else {
        unreachable!("HMAC takes a key of any length")
    };
    mac.update(external_id.as_bytes());
    crate::hex::encode(&mac.finalize().into_bytes())
}
