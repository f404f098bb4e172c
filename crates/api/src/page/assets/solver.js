// The respondent page's worker: solves the proof-of-work challenge (ALTCHA v2, PBKDF2/SHA-256) an
// open start may need, off the page's thread, so the consent screen stays responsive meanwhile.
// Plain JavaScript, served as written. It gets the challenge's parameters and answers the
// solution (`counter`, `derivedKey`, and `time` in milliseconds, as ALTCHA solvers report it), or
// null when it cannot solve them.
"use strict";

self.addEventListener("message", async (event) => {
  try {
    self.postMessage(await solve(event.data));
  } catch {
    // No WebCrypto (outside a secure context) or malformed parameters: the page starts without
    // a solution, and start says whether one was needed.
    self.postMessage(null);
  }
});

function bytes(hex) {
  return Uint8Array.from(hex.match(/[0-9a-f]{2}/gi) ?? [], (pair) => parseInt(pair, 16));
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Counts from 0 until the key derived from the nonce and the counter starts with the prefix: the
// service drew the counter, so only trying finds it.
async function solve({ algorithm, cost, keyLength, keyPrefix, nonce, salt }) {
  if (algorithm !== "PBKDF2/SHA-256") return null;
  const began = performance.now();
  const prefix = keyPrefix.toLowerCase();
  const nonceBytes = bytes(nonce);
  // The password of try n: the nonce's bytes, then n as four big-endian bytes.
  const password = new Uint8Array(nonceBytes.length + 4);
  password.set(nonceBytes);
  const counterBytes = new DataView(password.buffer, nonceBytes.length);
  const params = { name: "PBKDF2", hash: "SHA-256", salt: bytes(salt), iterations: cost };
  for (let counter = 0; ; counter += 1) {
    counterBytes.setUint32(0, counter);
    const key = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
    const derivedKey = hex(await crypto.subtle.deriveBits(params, key, keyLength * 8));
    if (derivedKey.startsWith(prefix)) {
      return { counter, derivedKey, time: Math.round(performance.now() - began) };
    }
  }
}
