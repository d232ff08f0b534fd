// Signature Version 4 for the console's DynamoDB requests, computed with
// WebCrypto (the browser's, or Node's in the tests). Kura checks these
// signatures when authentication is on, exactly as it checks the SDKs'.

const encoder = new TextEncoder();

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(text) {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

async function hmac(key, text) {
  const raw = typeof key === "string" ? encoder.encode(key) : key;
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, encoder.encode(text));
}

// amzDate is SigV4's request time: ISO 8601 basic format, whole seconds.
export function amzDate(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

// sign returns headers with the X-Amz-Date, Authorization (and, for
// temporary credentials, X-Amz-Security-Token) that sign a POST of body to
// path "/" of host. Every header given is signed, and host.
export async function sign({ host, region, service = "dynamodb", credentials, headers, body, now = new Date() }) {
  if (!globalThis.crypto?.subtle) {
    throw new Error("This page cannot sign requests: browsers offer WebCrypto only to https:// pages and to " +
      "localhost. Serve Kura over HTTPS (--tls-cert) or open the console through localhost (an SSH tunnel).");
  }
  const stamp = amzDate(now);
  const day = stamp.slice(0, 8);
  const out = { ...headers, "X-Amz-Date": stamp };
  if (credentials.sessionToken) {
    out["X-Amz-Security-Token"] = credentials.sessionToken;
  }
  const fields = { host };
  for (const [name, value] of Object.entries(out)) {
    fields[name.toLowerCase()] = String(value).trim().replace(/\s+/g, " ");
  }
  const names = Object.keys(fields).sort();
  const signedHeaders = names.join(";");
  const canonical = [
    "POST", "/", "",
    names.map((n) => `${n}:${fields[n]}\n`).join(""),
    signedHeaders,
    hex(await sha256(body)),
  ].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, hex(await sha256(canonical))].join("\n");
  let key = await hmac("AWS4" + credentials.secretAccessKey, day);
  for (const part of [region, service, "aws4_request"]) {
    key = await hmac(key, part);
  }
  const signature = hex(await hmac(key, stringToSign));
  out.Authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return out;
}
