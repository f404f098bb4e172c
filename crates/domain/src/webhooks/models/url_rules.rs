//! Webhook URLs and the address rules that keep deliveries off private networks.

use crate::error::{Error, ErrorCode, Result};
use crate::webhooks::models::MAX_URL_CHARS;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::Url;

/// A webhook URL that passed the checks needing no network: absolute, `https` (or `http` when
/// private targets are allowed), a host, no user info, no fragment. Whether its host resolves to
/// public addresses is the transport's check, at registration and again at every send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(Url);

impl WebhookUrl {
    /// # Errors
    /// `ValidationFailed` naming `url`.
    pub fn parse(text: &str, allow_private: bool) -> Result<Self> {
        let invalid = |problem: &str| Error::validation("url", problem);
        if text.chars().count() > MAX_URL_CHARS {
            return Err(invalid(&format!("must be at most {MAX_URL_CHARS} characters")));
        }
        let url = Url::parse(text).map_err(|_| invalid("is not an absolute URL"))?;
        match url.scheme() {
            "https" => {}
            "http" if allow_private => {}
            _ => return Err(invalid("must be an https:// URL")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("must not carry a user name or password; authenticate deliveries by their signature"));
        }
        if url.fragment().is_some() {
            return Err(invalid("must not carry a #fragment: it is never sent"));
        }
        if url.host().is_none() {
            return Err(invalid("must name a host"));
        }
        Ok(Self(url))
    }

    pub fn as_url(&self) -> &Url {
        &self.0
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Why an address may not receive webhooks, or `None` for a public unicast address. IPv6 forms
/// that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address.
pub fn address_refusal(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => ipv4_refusal(v4),
        IpAddr::V6(v6) => ipv6_refusal(v6),
    }
}

fn ipv4_refusal(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "unspecified (0.0.0.0/8)",
        (127, _, _) => "loopback",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "private",
        (100, 64..=127, _) => "carrier-grade NAT",
        (169, 254, _) => "link-local",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (192, 0, 0) => "IETF protocol assignments",
        (192, 88, 99) => "6to4 relay anycast",
        (198, 18..=19, _) => "benchmarking",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved or broadcast",
        _ => return None,
    })
}

fn ipv6_refusal(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified (::)");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return ipv4_refusal(v4).map(|_| "IPv4-mapped non-public address");
    }
    let embedded_v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match segments {
        // IPv4-compatible (deprecated) and NAT64 (well-known and local-use): judged by the address
        // they carry.
        [0, 0, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 1, _, _, _, hi, lo] => {
            return ipv4_refusal(embedded_v4(hi, lo)).map(|_| "IPv6 form of a non-public IPv4 address");
        }
        [0x2002, hi, lo, ..] => return ipv4_refusal(embedded_v4(hi, lo)).map(|_| "6to4 form of a non-public address"),
        [s, ..] if s & 0xff00 == 0xff00 => "multicast",
        [s, ..] if s & 0xfe00 == 0xfc00 => "private (unique local)",
        [s, ..] if s & 0xffc0 == 0xfe80 => "link-local",
        [s, ..] if s & 0xffc0 == 0xfec0 => "site-local",
        [0x2001, 0x0db8, ..] => "documentation",
        [0x3fff, s, ..] if s & 0xf000 == 0 => "documentation",
        [0x0100, 0, 0, 0, ..] => "discard-only",
        [0x2001, 0, ..] => "Teredo",
        [0x2001, s, ..] if s < 0x0200 => "IETF protocol assignments",
        _ => return None,
    })
}

/// A webhook refusal of the address check, naming the host and the kind of address.
pub fn refused_address(host: &str, address: IpAddr, why: &str) -> Error {
    Error::refused(
        ErrorCode::ValidationFailed,
        format!("`url`: {host} resolves to {address} ({why}); webhooks go to public addresses only"),
    )
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;
    use crate::webhooks::models::MAX_URL_CHARS;

    #[test]
    fn every_forbidden_range_is_refused_and_public_addresses_pass() {
        for refused in [
            "0.0.0.0",
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "224.0.0.1",
            "239.255.255.250",
            "192.0.2.10",
            "198.51.100.7",
            "203.0.113.200",
            "255.255.255.255",
            "198.18.0.1",
            "::",
            "::1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:c0a8:0101::1",
            "::127.0.0.1",
            "64:ff9b:1::a00:1",
            "3fff::1",
        ] {
            let ip: IpAddr = refused.parse().expect("an address");
            assert!(address_refusal(ip).is_some(), "{refused} should be refused");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "3ff0::1",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = public.parse().expect("an address");
            assert_eq!(address_refusal(ip), None, "{public} is public");
        }
    }

    #[test]
    fn urls_must_be_https_with_a_host_and_no_credentials() {
        assert!(WebhookUrl::parse("https://hooks.example.com/pulse?x=1", false).is_ok());
        for bad in [
            "http://hooks.example.com/",
            "ftp://hooks.example.com/",
            "https://user:pw@hooks.example.com/",
            "https://hooks.example.com/#frag",
            "hooks.example.com/path",
            "",
        ] {
            assert!(WebhookUrl::parse(bad, false).is_err(), "{bad}");
        }
        assert!(WebhookUrl::parse("http://127.0.0.1:9000/", true).is_ok());
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(WebhookUrl::parse(&long, false).is_err());
    }
}
