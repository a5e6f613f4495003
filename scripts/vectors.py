#!/usr/bin/env python3
"""Generates Tests/WebAppLaunchTests/Vectors/vectors.json: the launch-token test vectors.

An independent implementation of SPEC.md (format version 2) in Python, using only the
standard library and the `cryptography` package (HMAC, HKDF, AES-GCM), and reading nothing
but what the specification itself consists of: SPEC.md's rules as written here, and its
normative name-scalar table SPEC.name-scalars.txt (section 10.3). It never calls or reads the
Swift code: the Swift suite (VectorTests.swift) checks itself against what this script
writes, so the two implementations keep each other honest.

    python3 scripts/vectors.py            # rewrite the vectors file
    python3 scripts/vectors.py --check    # exit 1 if the file on disk differs

Every input is fixed (secrets, nonces and IVs are derived from labels with SHA-256), so
the output is byte-for-byte reproducible.
"""

import base64
import hashlib
import json
import os
import struct
import sys
import unicodedata

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Tests", "WebAppLaunchTests", "Vectors", "vectors.json")

# SPEC.md, "Labels".
APP_KEY_INFO = b"WebAppLaunch-v2 app key"
TOKEN_MAC_LABEL = b"WebAppLaunch-v2 token"
MAC_KEY_INFO = b"WebAppLaunch-v2 mac key"
SEAL_KEY_INFO = b"WebAppLaunch-v2 seal key"
SESSION_KEY_INFO = b"WebAppLaunch-v2 session key"
REPLAY_KEY_INFO = b"WebAppLaunch-v2 replay key"
SESSION_AAD_LABEL = b"WebAppLaunch-v2 session"

VERSION = 2
SESSION_VERSION = 2
MODES = {"signed": 1, "sealed": 2}
KID_BYTES = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
SKEW = 60


# ---------------------------------------------------------------- primitives

def hkdf(secret: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(secret)


def hmac_sha256(key: bytes, data: bytes) -> bytes:
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    assert b64url(data) == text, "not canonical base64url"
    return data


def fixed(label: str, count: int) -> bytes:
    """Deterministic 'random' bytes for vectors: SHA-256 in counter mode over a label."""
    out = b""
    counter = 0
    while len(out) < count:
        out += hashlib.sha256(f"{label}/{counter}".encode()).digest()
        counter += 1
    return out[:count]


# ---------------------------------------------------------------- KVNR

def kvnr_check_digit(letter: str, digits: str) -> int:
    position = ord(letter) - ord("A") + 1
    sequence = [position // 10, position % 10] + [int(d) for d in digits]
    total = 0
    for index, digit in enumerate(sequence):
        product = digit * (1 if index % 2 == 0 else 2)
        total += product // 10 + product % 10
    return total % 10


def kvnr(letter: str, digits: str) -> str:
    assert len(digits) == 8
    return f"{letter}{digits}{kvnr_check_digit(letter, digits)}"


def kvnr_with_wrong_check_digit(letter: str, digits: str) -> str:
    return f"{letter}{digits}{(kvnr_check_digit(letter, digits) + 1) % 10}"


# ---------------------------------------------------------------- registered URLs

class Refused(Exception):
    """A registry, URL or keyring that SPEC.md refuses, with its error code."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


# SPEC.md 8.1 rule 8: RFC 3986 pchar and "/", without ";" and ",".
PATH_BYTES = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+=:@%/")
DIGITS = set("0123456789")
HEX_DIGITS = set("0123456789abcdefABCDEF")


def is_numeric_label(label: str) -> bool:
    """SPEC.md 8.1 rule 6: a label a URL parser reads as a number (WHATWG "ends in a number")."""
    if label and set(label) <= DIGITS:
        return True
    return label.startswith("0x") and set(label[2:]) <= HEX_DIGITS


def is_canonical_ipv4(labels) -> bool:
    return len(labels) == 4 and all(
        1 <= len(o) <= 3 and set(o) <= DIGITS and (len(o) == 1 or o[0] != "0") and int(o) <= 255 for o in labels)


def is_valid_host(host: str) -> bool:
    """SPEC.md 8.1 rules 5 and 6, for a lower-case host."""
    if not 1 <= len(host.encode()) <= 253:
        return False
    if host.startswith("["):
        return len(host) > 2 and host.endswith("]") and set(host[1:-1]) <= HEX_DIGITS | {":", "."}
    labels = host.split(".")
    if is_numeric_label(labels[-1]):
        return is_canonical_ipv4(labels)
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-")
    return all(1 <= len(l) <= 63 and l[0] != "-" and l[-1] != "-" and set(l) <= allowed for l in labels)


def is_loopback(host: str) -> bool:
    """SPEC.md 8.1 rule 10."""
    labels = host.split(".")
    return host in ("localhost", "[::1]") or (is_canonical_ipv4(labels) and labels[0] == "127")


def ascii_lower(text: str) -> str:
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in text)


def parse_registered_url(url: str):
    """SPEC.md 8.1, every rule: (canonical text, host) or Refused("invalid_url")."""
    data = url.encode()
    if not (1 <= len(data) <= 2048 and all(0x21 <= b <= 0x7E for b in data)):
        raise Refused("invalid_url")
    scheme, sep, rest = url.partition("://")
    scheme = ascii_lower(scheme)
    if not sep or scheme not in ("http", "https") or "#" in url:
        raise Refused("invalid_url")
    end = min([i for i in (rest.find("/"), rest.find("?")) if i >= 0], default=len(rest))
    authority, after = rest[:end], rest[end:]
    if "@" in authority:
        raise Refused("invalid_url")
    port = None
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            raise Refused("invalid_url")
        host, tail = authority[: close + 1], authority[close + 1:]
        if tail:
            if not tail.startswith(":"):
                raise Refused("invalid_url")
            port = tail[1:]
    elif ":" in authority:
        host, port = authority.rsplit(":", 1)
    else:
        host = authority
    host = ascii_lower(host)
    if not is_valid_host(host):
        raise Refused("invalid_url")
    if port is not None:
        if not (1 <= len(port) <= 5 and set(port) <= DIGITS and 1 <= int(port) <= 65535):
            raise Refused("invalid_url")
        port = None if int(port) == (443 if scheme == "https" else 80) else int(port)
    path, qmark, query = after.partition("?")
    path = path or "/"
    if not (path.startswith("/") and set(path.encode()) <= PATH_BYTES):
        raise Refused("invalid_url")
    if any(seg in (".", "..") for seg in path.split("/")):
        raise Refused("invalid_url")
    lower = path.lower()
    if "%2e" in lower or "%2f" in lower or "%5c" in lower:
        raise Refused("invalid_url")
    for i, ch in enumerate(path):
        if ch == "%" and not (i + 2 < len(path) and path[i + 1] in HEX_DIGITS and path[i + 2] in HEX_DIGITS):
            raise Refused("invalid_url")
    if query:
        if "?" in query:
            raise Refused("invalid_url")
        for piece in query.split("&"):
            name = piece.split("=", 1)[0]
            if not piece or not name or name == "launch":
                raise Refused("invalid_url")
    if scheme == "http" and not is_loopback(host):
        raise Refused("invalid_url")
    text = f"{scheme}://{host}"
    if port is not None:
        text += f":{port}"
    text += path
    if query:
        text += "?" + query
    return text, host


def normalise_url(url: str) -> str:
    return parse_registered_url(url)[0]


# ---------------------------------------------------------------- registry (SPEC.md 8.3)

ID_BYTES = KID_BYTES


def is_valid_identifier(text: str) -> bool:
    data = text.encode()
    return 1 <= len(data) <= 64 and set(data) <= ID_BYTES


def is_optional(value, kind) -> bool:
    return value is None or isinstance(value, kind)


def is_string_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def registry_shape_ok(doc) -> bool:
    """SPEC.md 8.3: the whole file's JSON shape, checked before any value."""
    if not isinstance(doc, dict) or not isinstance(doc.get("apps"), list):
        return False
    for entry in doc["apps"]:
        if not isinstance(entry, dict):
            return False
        if not all(isinstance(entry.get(k), str) for k in ("id", "title", "url")):
            return False
        if not all(is_optional(entry.get(k), str) for k in ("summary", "iconURL", "category")):
            return False
        links = entry.get("deepLinks")
        if links is None:
            continue
        if not isinstance(links, dict) or not is_optional(links.get("scheme"), str) or not is_string_list(links.get("hosts")):
            return False
        if not all(links.get(k) is None or is_string_list(links[k]) for k in ("pathPrefixes", "queryKeys")):
            return False
    return True


def check_deep_links(links):
    scheme = ascii_lower("navidapro" if links.get("scheme") is None else links["scheme"])
    hosts = [ascii_lower(h) for h in links["hosts"]]
    prefixes = links.get("pathPrefixes") or []
    keys = links.get("queryKeys") or []
    scheme_ok = (scheme and "a" <= scheme[0] <= "z" and set(scheme) <= set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
                 and scheme not in ("http", "https", "javascript", "data", "file"))
    host_ok = hosts and all(1 <= len(h.encode()) <= 253 and set(h) <= set("abcdefghijklmnopqrstuvwxyz0123456789.-") for h in hosts)
    prefix_ok = all(p.startswith("/") and "%" not in p and ".." not in p and "\\" not in p for p in prefixes)
    key_ok = all(k and not set(k) & set("=&%") for k in keys)
    if not (scheme_ok and host_ok and prefix_ok and key_ok):
        raise Refused("invalid_allowlist")
    return {"scheme": scheme, "hosts": hosts, "pathPrefixes": prefixes, "queryKeys": keys}


def check_category(category: str):
    if not 1 <= len(category.encode()) <= 64 or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in category):
        raise Refused("invalid_category")


def check_registry(text: str):
    """SPEC.md 8.3: the entries a registry file holds, or Refused with the first error."""
    try:
        doc = json.loads(text)
    except ValueError:
        raise Refused("invalid_json")
    if not registry_shape_ok(doc):
        raise Refused("invalid_json")
    apps = []
    for entry in doc["apps"]:
        if not is_valid_identifier(entry["id"]):
            raise Refused("invalid_app_id")
        url = normalise_url(entry["url"])
        links = check_deep_links(entry["deepLinks"]) if entry.get("deepLinks") is not None else None
        icon = None
        if entry.get("iconURL") is not None:
            try:
                icon = normalise_url(entry["iconURL"])
            except Refused:
                raise Refused("invalid_icon_url")
        category = entry.get("category")
        category = "general" if category is None else category
        check_category(category)
        apps.append({"id": entry["id"], "title": entry["title"], "summary": entry.get("summary") or "",
                     "url": url, "deepLinks": links, "iconURL": icon, "category": category})
    ids, urls = set(), set()
    for app in apps:
        if app["id"] in ids or app["url"] in urls:
            raise Refused("duplicate_app")
        ids.add(app["id"])
        urls.add(app["url"])
    return apps


# ---------------------------------------------------------------- keyring files (SPEC.md 13)

B64URL_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def strict_b64url_decode(text: str):
    """SPEC.md 7, strictly: None for anything but the one canonical unpadded form."""
    if not set(text) <= B64URL_ALPHABET or len(text) % 4 == 1:
        return None
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    return data if b64url(data) == text else None


def check_keyring(text: str):
    """SPEC.md 13: what a keyring file holds (kind, app, development, kids and statuses), or
    Refused with the first error in the section's order."""
    try:
        doc = json.loads(text)
    except ValueError:
        raise Refused("invalid_json")
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise Refused("invalid_json")
    if not (is_optional(doc.get("kind"), str) and is_optional(doc.get("app"), str) and is_optional(doc.get("development"), bool)):
        raise Refused("invalid_json")
    for key in doc["keys"]:
        if not (isinstance(key, dict) and isinstance(key.get("kid"), str) and key.get("status") in ("active", "verify-only", "revoked")
                and is_optional(key.get("secret"), str) and is_optional(key.get("app_key"), str)):
            raise Refused("invalid_json")
    kind = "launcher" if doc.get("kind") is None else doc["kind"]
    app = doc.get("app")
    if kind not in ("launcher", "app") or (kind == "launcher") != (app is None):
        raise Refused("invalid_json")
    member, other = ("app_key", "secret") if kind == "app" else ("secret", "app_key")
    if any(key.get(member) is None or key.get(other) is not None for key in doc["keys"]):
        raise Refused("invalid_json")
    if kind == "app" and not is_valid_identifier(app):
        raise Refused("invalid_app_id")
    if not doc["keys"]:
        raise Refused("empty_keyring")
    for key in doc["keys"]:
        if not is_valid_identifier(key["kid"]):
            raise Refused("invalid_kid")
        secret = strict_b64url_decode(key[member])
        if secret is None or not (len(secret) == 32 if kind == "app" else 32 <= len(secret) <= 128):
            raise Refused("invalid_secret")
    kids = [key["kid"] for key in doc["keys"]]
    if len(set(kids)) != len(kids):
        raise Refused("duplicate_kid")
    return {"kind": kind, "app": app, "development": bool(doc.get("development")),
            "keys": [{"kid": key["kid"], "status": key["status"]} for key in doc["keys"]]}


def launch_url(audience: str, token: str) -> str:
    return audience + ("&" if "?" in audience else "?") + "launch=" + token


# ---------------------------------------------------------------- claim rules (SPEC.md 10)

NAME_SCALARS_FILE = os.path.join(ROOT, "SPEC.name-scalars.txt")
# SPEC.md 10.3: the allowed White_Space scalars, which a name must not start or end with.
EDGE_SPACES = {0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000}


def load_name_scalars():
    """SPEC.name-scalars.txt, the normative table of SPEC.md 10.3 (inclusive hex ranges)."""
    ranges = []
    with open(NAME_SCALARS_FILE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            low, high = line.strip().split("..")
            ranges.append((int(low, 16), int(high, 16)))
    return ranges


NAME_SCALARS = load_name_scalars()


def name_scalar_allowed(value: int) -> bool:
    import bisect
    index = bisect.bisect_right(NAME_SCALARS, (value, 0x10FFFF + 1)) - 1
    return index >= 0 and NAME_SCALARS[index][0] <= value <= NAME_SCALARS[index][1]


def is_valid_name(name: str) -> bool:
    """SPEC.md 10.3, as a verifier applies it (the minter NFC-normalises first). Every
    allowed scalar is assigned in Unicode 14.0, so this Python's NFC (14.0) gives the answer
    every normaliser of 14.0 or later gives."""
    data = name.encode("utf-8")
    if not 1 <= len(data) <= 256:
        return False
    if not all(name_scalar_allowed(ord(c)) for c in name):
        return False
    if ord(name[0]) in EDGE_SPACES or ord(name[-1]) in EDGE_SPACES:
        return False
    return unicodedata.normalize("NFC", name) == name


def is_valid_access_token(token: bytes) -> bool:
    return 1 <= len(token) <= 8192 and all(0x21 <= b <= 0x7E for b in token)


def is_valid_kvnr(text: str) -> bool:
    return (len(text) == 10 and "A" <= text[0] <= "Z" and text[1:].isascii() and text[1:].isdigit()
            and kvnr_check_digit(text[0], text[1:9]) == int(text[9]))


# ---------------------------------------------------------------- token

def u8_prefixed(field: bytes) -> bytes:
    assert len(field) <= 0xFF
    return struct.pack(">B", len(field)) + field


def u16_prefixed(field: bytes) -> bytes:
    assert len(field) <= 0xFFFF
    return struct.pack(">H", len(field)) + field


def header_bytes(version, mode, kid: bytes, iat, exp, nonce: bytes, app: bytes, aud: bytes) -> bytes:
    return (
        struct.pack(">BB", version, mode)
        + u8_prefixed(kid)
        + struct.pack(">QQ", iat, exp)
        + nonce
        + u8_prefixed(app)
        + u16_prefixed(aud)
    )


def claims_block(access_token: bytes, first: bytes, last: bytes, kvnumber: bytes) -> bytes:
    return u16_prefixed(access_token) + u16_prefixed(first) + u16_prefixed(last) + u16_prefixed(kvnumber)


def assemble(mac_key: bytes, header: bytes, body: bytes):
    blob = header + struct.pack(">I", len(body)) + body
    mac_input = TOKEN_MAC_LABEL + blob
    mac = hmac_sha256(mac_key, mac_input)
    return blob + mac, mac_input, mac


def app_key(root_secret: bytes, app_id: str) -> bytes:
    """SPEC.md 2.2: the app key, HKDF over the root secret with the length-prefixed app id."""
    return hkdf(root_secret, APP_KEY_INFO + u8_prefixed(app_id.encode()))


def derived_keys(app_key_bytes: bytes):
    """SPEC.md 2.3: an app's four keys, from its app key."""
    return {
        "app": app_key_bytes,
        "mac": hkdf(app_key_bytes, MAC_KEY_INFO),
        "seal": hkdf(app_key_bytes, SEAL_KEY_INFO),
        "session": hkdf(app_key_bytes, SESSION_KEY_INFO),
        "replay": hkdf(app_key_bytes, REPLAY_KEY_INFO),
    }


def app_keys(root_secret: bytes, app_id: str):
    return derived_keys(app_key(root_secret, app_id))


def mint(secret, kid, app_id, registered_url, iat, lifetime, mode, user, nonce, iv):
    keys = app_keys(secret, app_id)
    audience = normalise_url(registered_url)
    first = unicodedata.normalize("NFC", user["firstname"])
    last = unicodedata.normalize("NFC", user["lastname"])
    assert is_valid_name(first) and is_valid_name(last) and is_valid_kvnr(user["kvnumber"])
    assert is_valid_access_token(user["access_token"].encode())
    header = header_bytes(VERSION, MODES[mode], kid.encode(), iat, iat + lifetime, nonce, app_id.encode(), audience.encode())
    claims = claims_block(user["access_token"].encode(), first.encode(), last.encode(), user["kvnumber"].encode())
    if mode == "sealed":
        body = iv + AESGCM(keys["seal"]).encrypt(iv, claims, header)
    else:
        body = claims
    blob, mac_input, mac = assemble(keys["mac"], header, body)
    token = b64url(blob)
    return {
        "keys": keys,
        "audience": audience,
        "header": header,
        "claims": claims,
        "body": body,
        "mac_input": mac_input,
        "mac": mac,
        "token": token,
        "launch_url": launch_url(audience, token),
        "replay_id": hmac_sha256(keys["replay"], nonce)[:16],
        "first": first,
        "last": last,
    }


# ---------------------------------------------------------------- positive vectors

def dev_secret(kid):
    with open(os.path.join(ROOT, "keys", "dev.keyring.json")) as f:
        for key in json.load(f)["keys"]:
            if key["kid"] == kid:
                return b64url_decode(key["secret"])
    raise KeyError(kid)


def positive_vectors():
    jwt_like = ".".join(b64url(fixed(f"jwt part {i}", n)) for i, n in enumerate((36, 2000, 1036)))
    assert len(jwt_like) >= 4000
    long_query = "&".join(f"p{i:03d}={b64url(fixed(f'q{i}', 9))}" for i in range(100))
    long_url = "https://Very-Long.Example.ORG:443/" + "segment/" * 20 + "end?" + long_query
    assert 1800 < len(long_url) <= 2048, len(long_url)
    cases = [
        dict(description="signed, plain ASCII app, German umlaut and ß in names",
             secret=bytes(range(32)), kid="2026-11", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_000, lifetime=60, mode="signed",
             user=dict(access_token="eyJhbGciOiJSUzI1NiJ9.e30.sig", firstname="Jürgen", lastname="Groß", kvnumber=kvnr("A", "12345678"))),
        dict(description="sealed, same inputs as the first vector",
             secret=bytes(range(32)), kid="2026-11", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_000, lifetime=60, mode="sealed",
             user=dict(access_token="eyJhbGciOiJSUzI1NiJ9.e30.sig", firstname="Jürgen", lastname="Groß", kvnumber=kvnr("A", "12345678"))),
        dict(description="signed, apostrophes, hyphens and diacritics",
             secret=fixed("secret 3", 32), kid="k3", app_id="bonus",
             registered_url="https://bonus.example/start", iat=1_800_000_123, lifetime=300, mode="signed",
             user=dict(access_token="t0k3n_~+/=", firstname="Zoë-Chloé", lastname="O'Brien-Müller", kvnumber=kvnr("M", "00000001"))),
        dict(description="sealed, decomposed (NFD) input names are minted in NFC",
             secret=fixed("secret 4", 48), kid="nfd", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_500, lifetime=120, mode="sealed",
             user=dict(access_token="abc", firstname="Ju\u0308rgen", lastname="Stra\u00dfe-Mu\u0308ller", kvnumber=kvnr("B", "98765432"))),
        dict(description="signed, a JWT-like access token over 4 KB",
             secret=fixed("secret 5", 32), kid="2026-11", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_000, lifetime=60, mode="signed",
             user=dict(access_token=jwt_like, firstname="Anna Maria", lastname="von der Lühe", kvnumber=kvnr("C", "11111111"))),
        dict(description="sealed, a JWT-like access token over 4 KB",
             secret=fixed("secret 5", 32), kid="2026-11", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_000, lifetime=60, mode="sealed",
             user=dict(access_token=jwt_like, firstname="Anna Maria", lastname="von der Lühe", kvnumber=kvnr("C", "11111111"))),
        dict(description="sealed, registered URL with its own query: launch is joined with &",
             secret=fixed("secret 7", 32), kid="2026-11", app_id="bonus",
             registered_url="https://bonus.example/start?tenant=demo&lang=de", iat=1_795_000_000, lifetime=60, mode="sealed",
             user=dict(access_token="at", firstname="Jürgen", lastname="Groß", kvnumber=kvnr("A", "12345678"))),
        dict(description="signed, registered URL normalised: scheme and host case, default port, empty path",
             secret=fixed("secret 8", 32), kid="2026-11", app_id="bonus",
             registered_url="HTTPS://Bonus.EXAMPLE:443?tenant=a%20b&x", iat=1_795_000_000, lifetime=60, mode="signed",
             user=dict(access_token="at", firstname="Ørjan", lastname="Ærø", kvnumber=kvnr("D", "24681357"))),
        dict(description="sealed, loopback http with a port, the development keyring's active key",
             secret=dev_secret("dev-2026-11"), kid="dev-2026-11", app_id="healthmagazin",
             registered_url="http://127.0.0.1:8080/apps/healthmagazin", iat=1_795_000_000, lifetime=60, mode="sealed",
             user=dict(access_token="dev-token", firstname="Erika", lastname="Mustermann", kvnumber=kvnr("X", "11022500"))),
        dict(description="sealed, maximum-length fields: 64-byte kid and app id, 256-byte names, 8192-byte access token, ~2 KB URL, 128-byte secret",
             secret=fixed("secret 10", 128), kid="k" * 60 + ".v_1", app_id="app-" + "x" * 60,
             registered_url=long_url, iat=1_795_000_000, lifetime=300, mode="sealed",
             user=dict(access_token=b64url(fixed("token 10", 6144)), firstname="ß" * 128, lastname="Ö" * 127 + "n",
                       kvnumber=kvnr("Z", "99999999"))),
        dict(description="signed, maximum-length fields, issued at 0 with a one-second lifetime",
             secret=fixed("secret 11", 64), kid="-" * 64, app_id="_" * 64,
             registered_url=long_url, iat=0, lifetime=1, mode="signed",
             user=dict(access_token="~" * 8192, firstname="é" * 128, lastname="Ÿ" * 128, kvnumber=kvnr("Q", "00000000"))),
        dict(description="sealed, non-Latin and precomposed Vietnamese names, emoji",
             secret=fixed("secret 12", 32), kid="2026-12", app_id="healthmagazin",
             registered_url="https://magazin.example/app", iat=1_795_000_000, lifetime=60, mode="sealed",
             user=dict(access_token="x", firstname="李 小龍", lastname="Nguyễn 😀", kvnumber=kvnr("Z", "99999999"))),
        dict(description="sealed, IPv6 loopback, large issue time",
             secret=fixed("secret 13", 32), kid="v6", app_id="local",
             registered_url="http://[::1]:9000/x/y", iat=1 << 40, lifetime=5, mode="sealed",
             user=dict(access_token="!", firstname="A", lastname="B", kvnumber=kvnr("K", "13579246"))),
        dict(description="signed, one-character fields",
             secret=fixed("secret 14", 32), kid="a", app_id="b",
             registered_url="https://c.example", iat=1_795_000_000, lifetime=1, mode="signed",
             user=dict(access_token="t", firstname="J", lastname="K", kvnumber=kvnr("E", "55555555"))),
    ]
    vectors = []
    for index, case in enumerate(cases, start=1):
        nonce = fixed(f"vector {index} nonce", 16)
        iv = fixed(f"vector {index} iv", 12) if case["mode"] == "sealed" else None
        m = mint(case["secret"], case["kid"], case["app_id"], case["registered_url"], case["iat"],
                 case["lifetime"], case["mode"], case["user"], nonce, iv)
        # Self-check: the sealed body opens under the same key and associated data.
        if iv is not None:
            assert AESGCM(m["keys"]["seal"]).decrypt(iv, m["body"][12:], m["header"]) == m["claims"]
        vectors.append({
            "name": f"v{index:02d}",
            "description": case["description"],
            "inputs": {
                "secret_hex": case["secret"].hex(),
                "kid": case["kid"],
                "app_id": case["app_id"],
                "registered_url": case["registered_url"],
                "iat": case["iat"],
                "lifetime": case["lifetime"],
                "mode": case["mode"],
                "user": case["user"],
                "nonce_hex": nonce.hex(),
                "iv_hex": iv.hex() if iv is not None else None,
            },
            "intermediates": {
                "app_key_hex": m["keys"]["app"].hex(),
                "mac_key_hex": m["keys"]["mac"].hex(),
                "seal_key_hex": m["keys"]["seal"].hex(),
                "session_key_hex": m["keys"]["session"].hex(),
                "replay_key_hex": m["keys"]["replay"].hex(),
                "audience": m["audience"],
                "exp": case["iat"] + case["lifetime"],
                "claims_block_hex": m["claims"].hex(),
                "header_hex": m["header"].hex(),
                "body_hex": m["body"].hex(),
                "mac_input_hex": m["mac_input"].hex(),
                "mac_hex": m["mac"].hex(),
                "replay_id_hex": m["replay_id"].hex(),
            },
            "expected": {
                "token": m["token"],
                "launch_url": m["launch_url"],
                "claims": {
                    "access_token": case["user"]["access_token"],
                    "firstname": m["first"],
                    "lastname": m["last"],
                    "kvnumber": case["user"]["kvnumber"],
                },
            },
        })
    return vectors


# ---------------------------------------------------------------- negative vectors

NEG_SECRET = fixed("negative secret", 32)
NEG_KID = "neg-1"
NEG_APP = "healthmagazin"
NEG_URL = "https://magazin.example/app"
NEG_IAT = 1_795_000_000
NEG_USER = dict(access_token="at", firstname="Jürgen", lastname="Groß", kvnumber=kvnr("A", "12345678"))


def forge(*, version=VERSION, mode="signed", kid=NEG_KID, iat=NEG_IAT, exp=NEG_IAT + 60, app=NEG_APP,
          aud=NEG_URL, claims=None, body=None, mac_secret=NEG_SECRET, seal_secret=NEG_SECRET,
          key_app=NEG_APP, iv=None, nonce=None, tamper_tag=False, mac_key=None, raw_header=None,
          aud_bytes=None, body_len=None):
    """A properly MACed token with arbitrary header and claim values. The MAC and sealing keys
    are those of `key_app` under the root secrets (the verifier's app by default), whatever
    the header's `app` says; `mac_key` overrides the MAC key outright."""
    nonce = nonce if nonce is not None else fixed("negative nonce", 16)
    mode_byte = MODES[mode] if isinstance(mode, str) else mode
    header = raw_header if raw_header is not None else header_bytes(
        version, mode_byte, kid.encode(), iat, exp, nonce, app.encode(), aud_bytes if aud_bytes is not None else aud.encode())
    if claims is None:
        claims = claims_block(*(NEG_USER[k].encode() for k in ("access_token", "firstname", "lastname", "kvnumber")))
    if body is None:
        if mode == "sealed":
            iv = iv or fixed("negative iv", 12)
            sealed = bytearray(AESGCM(app_keys(seal_secret, key_app)["seal"]).encrypt(iv, claims, header))
            if tamper_tag:
                sealed[-1] ^= 0x01
            body = iv + bytes(sealed)
        else:
            body = claims
    key = mac_key or app_keys(mac_secret, key_app)["mac"]
    if body_len is not None:
        # A declared body length that disagrees with the body, properly MACed (step 5).
        unmaced = header + struct.pack(">I", body_len) + body
        return unmaced + hmac_sha256(key, TOKEN_MAC_LABEL + unmaced)
    blob, _, _ = assemble(key, header, body)
    return blob


def launcher_keyring(*keys):
    """A launcher keyring for a vector: (kid, status, root secret) triples."""
    return {"kind": "launcher", "app": None,
            "keys": [{"kid": kid, "status": status, "secret_hex": secret.hex()} for kid, status, secret in keys]}


def app_keyring(app_id, *keys):
    """The app keyring of `app_id` exported from a launcher keyring's (kid, status, root secret) triples."""
    return {"kind": "app", "app": app_id,
            "keys": [{"kid": kid, "status": status, "app_key_hex": app_key(secret, app_id).hex()} for kid, status, secret in keys]}


NEG_KEYRING = launcher_keyring((NEG_KID, "active", NEG_SECRET))


def negative_vectors():
    good = forge()
    good_token = b64url(good)
    flipped = bytearray(good)
    flipped[-1] ^= 0x80
    # A blob whose length is not a multiple of 3 has unused trailing bits to abuse.
    odd = forge(claims=claims_block(b"at1", "Jürgen".encode(), "Groß".encode(), NEG_USER["kvnumber"].encode()))
    if len(odd) % 3 == 0:
        odd = forge(claims=claims_block(b"at12", "Jürgen".encode(), "Groß".encode(), NEG_USER["kvnumber"].encode()))
    odd_token = b64url(odd)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(odd_token[-1])
    non_canonical = odd_token[:-1] + alphabet[last | 1]
    assert non_canonical != odd_token
    nfd_claims = claims_block(b"at", "Ju\u0308rgen".encode(), "Groß".encode(), NEG_USER["kvnumber"].encode())
    bad_kvnr_claims = claims_block(b"at", "Jürgen".encode(), "Groß".encode(), kvnr_with_wrong_check_digit("A", "12345678").encode())
    lower_kvnr_claims = claims_block(b"at", "Jürgen".encode(), "Groß".encode(), NEG_USER["kvnumber"].lower().encode())
    # Per-app keys (SPEC.md 2.2): the launcher mints for `bonus` under the same root secret and kid.
    bonus_keys = app_keys(NEG_SECRET, "bonus")
    for_bonus = b64url(forge(app="bonus", aud="https://bonus.example/start", key_app="bonus"))
    magazin_app_keyring = app_keyring(NEG_APP, (NEG_KID, "active", NEG_SECRET))
    cases = [
        ("the reference token of the negative vectors verifies", dict(token=good_token), None),
        ("last MAC bit flipped", dict(token=b64url(bytes(flipped))), "bad_signature"),
        ("MACed with another secret under the same kid", dict(token=b64url(forge(mac_secret=fixed("other", 32)))), "bad_signature"),
        ("kid not in the keyring", dict(token=b64url(forge(kid="neg-2"))), "unknown_key"),
        ("format version 3", dict(token=b64url(forge(version=3))), "unsupported_version"),
        ("mode byte 3", dict(token=b64url(forge(mode=3))), "unsupported_mode"),
        ("padding appended", dict(token=odd_token + "=" * (-len(odd_token) % 4)), "malformed"),
        ("non-canonical trailing bits", dict(token=non_canonical), "malformed"),
        ("standard-alphabet character", dict(token="+" + good_token[1:]), "malformed"),
        ("token longer than 16384 bytes", dict(token="A" * 16385), "too_large"),
        ("expired: now = exp + skew", dict(token=good_token, now=NEG_IAT + 60 + SKEW), "expired"),
        ("still valid: now = exp + skew - 1", dict(token=good_token, now=NEG_IAT + 60 + SKEW - 1), None),
        ("not yet valid: now = iat - skew - 1", dict(token=good_token, now=NEG_IAT - SKEW - 1), "not_yet_valid"),
        ("exp equal to iat", dict(token=b64url(forge(exp=NEG_IAT))), "invalid_lifetime"),
        ("lifetime of 301 seconds", dict(token=b64url(forge(exp=NEG_IAT + 301))), "lifetime_too_long"),
        ("audience with a trailing slash", dict(token=b64url(forge(aud=NEG_URL + "/"))), "wrong_audience"),
        ("audience with upper-case host", dict(token=b64url(forge(aud="https://Magazin.example/app"))), "wrong_audience"),
        ("another app id in a header MACed with this app's keys", dict(token=b64url(forge(app="bonus"))), "wrong_app"),
        ("extra query parameter", dict(query="launch=" + good_token + "&debug=1"), "unexpected_parameters"),
        ("launch given twice", dict(query="launch=" + good_token + "&launch=" + good_token), "malformed"),
        ("KVNR with a wrong check digit", dict(token=b64url(forge(claims=bad_kvnr_claims))), "invalid_claims"),
        ("KVNR with a lower-case letter", dict(token=b64url(forge(claims=lower_kvnr_claims))), "invalid_claims"),
        ("first name in NFD", dict(token=b64url(forge(claims=nfd_claims))), "invalid_claims"),
        ("sealed, GCM tag altered then re-MACed", dict(token=b64url(forge(mode="sealed", tamper_tag=True))), "invalid_claims"),
        ("sealed under another secret's seal key, MAC correct", dict(token=b64url(forge(mode="sealed", seal_secret=fixed("other", 32)))), "invalid_claims"),
        # Keys and statuses.
        ("kid revoked in the keyring", dict(token=good_token, keyring=launcher_keyring((NEG_KID, "revoked", NEG_SECRET))), "revoked_key"),
        ("kid verify-only in the keyring still verifies", dict(token=good_token, keyring=launcher_keyring((NEG_KID, "verify-only", NEG_SECRET))), None),
        ("format version 1 (before per-app keys)", dict(token=b64url(forge(version=1))), "unsupported_version"),
        # Per-app keys.
        ("this app's app keyring verifies a launch the launcher minted for this app", dict(token=good_token, keyring=magazin_app_keyring), None),
        ("minted for another app (same root secret and kid), verified with this app's app keyring",
         dict(token=for_bonus, keyring=magazin_app_keyring), "bad_signature"),
        ("minted for another app (same root secret and kid), verified with the launcher keyring for this app",
         dict(token=for_bonus), "bad_signature"),
        ("another app's app key used as this app's root secret",
         dict(token=b64url(forge(mac_secret=bonus_keys["app"]))), "bad_signature"),
        ("MACed with another app's MAC key, header naming this app",
         dict(token=b64url(forge(mac_key=bonus_keys["mac"]))), "bad_signature"),
        ("MACed with the root secret's own HKDF keys (no app key step)",
         dict(token=b64url(forge(mac_key=hkdf(NEG_SECRET, MAC_KEY_INFO)))), "bad_signature"),
        ("sealed with another app's seal key, MACed with this app's keyring",
         dict(token=b64url(forge_sealed_with(bonus_keys["seal"])), keyring=magazin_app_keyring), "invalid_claims"),
    ]
    cases += step5_cases() + request_cases(good_token) + url_cases(good_token) + name_cases() + short_blob_cases()
    out = []
    for index, (description, inputs, error) in enumerate(cases, start=1):
        entry = {
            "name": f"n{index:02d}",
            "description": description,
            "keyring": inputs.get("keyring", NEG_KEYRING),
            "app_id": NEG_APP,
            "registered_url": NEG_URL,
            "now": inputs.get("now", NEG_IAT),
            "token": inputs.get("token"),
            "query": inputs.get("query"),
            "form": inputs.get("form"),
            "url": inputs.get("url"),
            "expected_error": error,
        }
        out.append(entry)
    return out


def short_blob_cases():
    """SPEC.md 11 step 2: a blob under 77 bytes is malformed before its version or kid is
    read; the 77-byte one beside them shows the boundary (and what the check hides)."""
    smallest = forge(kid="z", app="b", aud="x", body=b"")
    version_1 = forge(version=1, kid="z", app="b", aud="x", body=b"")[:-1]
    # This kid is 5 bytes long: four more than the smallest shape's, cut from the MAC.
    mode_3 = forge(mode=3, app="b", aud="x", body=b"")[:-5]
    assert len(smallest) == 77 and len(version_1) == 76 and len(mode_3) == 76
    return [
        ("a 77-byte blob (the smallest shape) with a kid not in the keyring", dict(token=b64url(smallest)), "unknown_key"),
        ("a 76-byte blob with a kid not in the keyring (one byte of the MAC cut)", dict(token=b64url(smallest[:-1])), "malformed"),
        ("a 76-byte blob of version 1", dict(token=b64url(version_1)), "malformed"),
        ("a 76-byte blob of mode 3 under this kid", dict(token=b64url(mode_3)), "malformed"),
    ]


def step5_cases():
    """SPEC.md 11 step 5: structure read only after the MAC; every case properly MACed."""
    body = claims_block(*(NEG_USER[k].encode() for k in ("access_token", "firstname", "lastname", "kvnumber")))
    long_aud = NEG_URL + "/" + "a" * (3000 - len(NEG_URL) - 1)
    boundary_aud = NEG_URL + "/" + "b" * (2048 - len(NEG_URL) - 1)
    assert len(long_aud) == 3000 and len(boundary_aud) == 2048
    return [
        ("step 5: body_len runs past the MAC", dict(token=b64url(forge(body_len=len(body) + 1))), "malformed"),
        ("step 5: bytes left between the body and the MAC", dict(token=b64url(forge(body_len=len(body) - 1))), "malformed"),
        ("step 5: body_len of 2^32 - 1", dict(token=b64url(forge(body_len=0xFFFFFFFF))), "malformed"),
        ("step 5: an app id with a character outside [A-Za-z0-9._-]", dict(token=b64url(forge(app="health/magazin"))), "malformed"),
        ("step 5: an empty app id", dict(token=b64url(forge(app=""))), "malformed"),
        ("step 5: a 65-byte app id", dict(token=b64url(forge(app="a" * 65))), "malformed"),
        ("step 5: an audience that is not UTF-8", dict(token=b64url(forge(aud_bytes=b"https://magazin.example/\xff"))), "malformed"),
        ("step 5: an empty audience", dict(token=b64url(forge(aud=""))), "malformed"),
        ("step 5: a 3000-byte audience (over the layout's 2048)", dict(token=b64url(forge(aud=long_aud))), "malformed"),
        ("a 2048-byte audience that is not registered", dict(token=b64url(forge(aud=boundary_aud))), "wrong_audience"),
    ]


def request_cases(token):
    """SPEC.md 11, "Request": GET queries and POST forms; every malformed condition wins
    over unexpected_parameters, whatever the order of the pieces."""
    launch = "launch=" + token
    return [
        ("form: launch alone", dict(form=launch), None),
        ("form: launch and an empty query", dict(query="", form=launch), None),
        ("form: launch then another field", dict(form=launch + "&x=1"), "unexpected_parameters"),
        ("form: another field then launch", dict(form="x=1&" + launch), "unexpected_parameters"),
        ("form: a field that only starts with launch", dict(form=launch + "&launchx=1"), "unexpected_parameters"),
        ("launch in both query and form", dict(query=launch, form=launch), "malformed"),
        ("launch in the query, form with another field then launch", dict(query=launch, form="x=1&" + launch), "malformed"),
        ("launch in the query, form with launch then another field", dict(query=launch, form=launch + "&x=1"), "malformed"),
        ("form: launch given twice and another field", dict(form="x=1&" + launch + "&" + launch), "malformed"),
        ("form: another field and an empty piece", dict(form="x=1&" + launch + "&"), "malformed"),
        ("form: an empty launch value and another field", dict(form="x=1&launch="), "malformed"),
        ("form: another field, no launch anywhere", dict(form="x=1"), "malformed"),
        ("query: launch without '='", dict(query="launch"), "malformed"),
        ("query: an empty piece", dict(query=launch + "&&"), "malformed"),
        ("query: a percent-encoded token", dict(query="launch=" + token[:10] + "%41" + token[11:]), "malformed"),
    ]


def url_cases(token):
    """SPEC.md 11, "Whole launch URL": checked after step 10 (claims), before replay."""
    bad_claims = b64url(forge(claims=claims_block(b"at", "Ju\u0308rgen".encode(), "Groß".encode(), NEG_USER["kvnumber"].encode())))
    return [
        ("URL: the launch URL as minted", dict(url=launch_url(NEG_URL, token)), None),
        ("URL: scheme and host in upper case are the same registered URL", dict(url="HTTPS://MAGAZIN.EXAMPLE:443/app?launch=" + token), None),
        ("URL: another host", dict(url="https://evil.example/app?launch=" + token), "wrong_audience"),
        ("URL: a trailing slash on the path", dict(url="https://magazin.example/app/?launch=" + token), "wrong_audience"),
        ("URL: a fragment", dict(url=launch_url(NEG_URL, token) + "#x"), "malformed"),
        ("URL: no query", dict(url=NEG_URL), "malformed"),
        ("URL: an extra parameter (step 9 before the URL check)", dict(url=launch_url(NEG_URL, token) + "&x=1"), "unexpected_parameters"),
        ("URL: invalid claims at another host (step 10 before the URL check)", dict(url="https://evil.example/app?launch=" + bad_claims), "invalid_claims"),
        ("URL: expired at another host (step 7 before the URL check)", dict(url="https://evil.example/app?launch=" + token, now=NEG_IAT + 60 + SKEW), "expired"),
    ]


# SPEC.md 10.3: scalars assigned after Unicode 14.0 (issue 17's list), refused everywhere.
POST_14_SCALARS = [0x1E030, 0x1FAE8, 0x0CF3, 0x2EBF0, 0x1C89, 0x1FAE9, 0x1FAEA, 0x323B0]


def name_cases():
    def with_first(name):
        block = claims_block(b"at", name.encode(), "Groß".encode(), NEG_USER["kvnumber"].encode())
        return b64url(forge(claims=block))
    out = []
    for value in POST_14_SCALARS:
        name = "Anna" + chr(value)
        assert not is_valid_name(name)
        out.append((f"a first name with U+{value:04X} (not assigned in Unicode 14.0)", dict(token=with_first(name)), "invalid_claims"))
    accepted = [
        ("Anna\U0001FAE0", "U+1FAE0 MELTING FACE, assigned in Unicode 14.0"),
        ("Anna\u3000Maria", "an inner U+3000 IDEOGRAPHIC SPACE"),
        ("\u0CF2", "U+0CF2 alone (assigned long before 14.0)"),
        ("\U0002B736", "U+2B736, a CJK ideograph of extension C"),
    ]
    refused = [
        ("\u00A0Anna", "a leading U+00A0 NO-BREAK SPACE"),
        ("Anna\u3000", "a trailing U+3000 IDEOGRAPHIC SPACE"),
        ("Anna\u202F", "a trailing U+202F NARROW NO-BREAK SPACE"),
        ("Anna\u200B", "U+200B ZERO WIDTH SPACE (Cf)"),
        ("Anna\uE000", "U+E000 (private use)"),
        ("Anna\u2028", "U+2028 LINE SEPARATOR (Zl)"),
        ("A\u0301nna", "A followed by U+0301 COMBINING ACUTE (not NFC)"),
        ("Anna\u2000Maria", "an inner U+2000 EN QUAD (in the table, but not NFC)"),
    ]
    for name, what in accepted:
        assert is_valid_name(name), name
        out.append((f"a first name with {what}: accepted", dict(token=with_first(name)), None))
    for name, what in refused:
        assert not is_valid_name(name), name
        out.append((f"a first name with {what}: refused", dict(token=with_first(name)), "invalid_claims"))
    return out


def forge_sealed_with(seal_key: bytes) -> bytes:
    """A sealed token whose claims are sealed under `seal_key`, MACed with this app's MAC key."""
    nonce = fixed("negative nonce", 16)
    header = header_bytes(VERSION, MODES["sealed"], NEG_KID.encode(), NEG_IAT, NEG_IAT + 60, nonce,
                          NEG_APP.encode(), NEG_URL.encode())
    claims = claims_block(*(NEG_USER[k].encode() for k in ("access_token", "firstname", "lastname", "kvnumber")))
    iv = fixed("negative iv", 12)
    body = iv + AESGCM(seal_key).encrypt(iv, claims, header)
    blob, _, _ = assemble(app_keys(NEG_SECRET, NEG_APP)["mac"], header, body)
    return blob


# ---------------------------------------------------------------- session cookies

def session_aad(app_id: str, kid: str) -> bytes:
    return SESSION_AAD_LABEL + u8_prefixed(app_id.encode()) + u8_prefixed(kid.encode())


def seal_cookie(session_key: bytes, app_id: str, kid: str, iv: bytes, payload: bytes) -> str:
    sealed = AESGCM(session_key).encrypt(iv, payload, session_aad(app_id, kid))
    return b64url(bytes([SESSION_VERSION]) + u8_prefixed(kid.encode()) + iv + sealed)


def session_payload(fields) -> bytes:
    """SPEC.md 12.2: the session payload."""
    out = struct.pack(">Q", fields["expires_at"]) + u8_prefixed(fields["app"].encode()) + u8_prefixed(fields["kid"].encode())
    out += bytes.fromhex(fields["launch_id_hex"])
    out += u16_prefixed(fields["firstname"].encode()) + u16_prefixed(fields["lastname"].encode()) + u16_prefixed(fields["kvnumber"].encode())
    if fields["access_token"] is None:
        return out + b"\x00"
    return out + b"\x01" + u16_prefixed(fields["access_token"].encode())


SESSION_APP = "healthmagazin"
SESSION_NOW = 1_795_000_100


def session_vectors():
    """Cookies a sealer for app_id with keyring MUST produce (seal with iv) and open to
    payload; then cookies it MUST NOT open (expected payload null) at now."""
    out = []
    cases = [
        (fixed("session secret 1", 32), "s1", SESSION_APP,
         dict(expires_at=SESSION_NOW + 1800, app=SESSION_APP, kid="s1", launch_id_hex=fixed("launch 1", 16).hex(),
              firstname="Jürgen", lastname="O'Brien-Müller", kvnumber=kvnr("A", "12345678"), access_token="eyJhbGciOiJSUzI1NiJ9.e30.sig")),
        (fixed("session secret 2", 32), "2026-11", "bonus",
         dict(expires_at=SESSION_NOW + 60, app="bonus", kid="2026-10", launch_id_hex=fixed("launch 2", 16).hex(),
              firstname="李 小龍", lastname="Nguyễn 😀", kvnumber=kvnr("Z", "99999999"), access_token=None)),
        (fixed("session secret 3", 128), "k" * 64, "a" * 64,
         dict(expires_at=(1 << 64) - 1, app="a" * 64, kid="-" * 64, launch_id_hex="00" * 16,
              firstname="ß" * 128, lastname="Ö" * 127 + "n", kvnumber=kvnr("Q", "00000000"), access_token="~" * 2000)),
    ]
    for index, (secret, kid, app_id, fields) in enumerate(cases, start=1):
        keys = app_keys(secret, app_id)
        iv = fixed(f"session {index} iv", 12)
        payload = session_payload(fields)
        out.append({
            "name": f"s{index:02d}",
            "description": f"a session of {app_id}, sealed under kid {kid[:8]}",
            "keyring": launcher_keyring((kid, "active", secret)),
            "app_id": app_id,
            "now": SESSION_NOW,
            "payload": fields,
            "payload_hex": payload.hex(),
            "iv_hex": iv.hex(),
            "app_key_hex": keys["app"].hex(),
            "session_key_hex": keys["session"].hex(),
            "cookie": seal_cookie(keys["session"], app_id, kid, iv, payload),
        })
    out += rejected_session_vectors(len(out) + 1)
    return out


def rejected_session_vectors(first_index):
    """SPEC.md 12.4: everything that is not a session of this app, now."""
    secret = fixed("session secret r", 32)
    kid = "r1"
    keyring = launcher_keyring((kid, "active", secret))
    keys = app_keys(secret, SESSION_APP)
    iv = fixed("session r iv", 12)
    good = dict(expires_at=SESSION_NOW + 1800, app=SESSION_APP, kid=kid, launch_id_hex=fixed("launch r", 16).hex(),
                firstname="Jürgen", lastname="Groß", kvnumber=kvnr("A", "12345678"), access_token="at")

    def cookie(fields=None, payload=None, session_key=None, app_id=SESSION_APP, cookie_kid=kid, version=SESSION_VERSION, aad=None):
        payload = payload if payload is not None else session_payload(fields or good)
        sealed = AESGCM(session_key or keys["session"]).encrypt(iv, payload, aad if aad is not None else session_aad(app_id, cookie_kid))
        return b64url(bytes([version]) + u8_prefixed(cookie_kid.encode()) + iv + sealed)

    reference = cookie()
    tampered = bytearray(b64url_decode(reference))
    tampered[-1] ^= 1
    v1_aad = b"WebAppLaunch-v1 session" + kid.encode()
    rows = [
        ("the reference cookie opens", reference, {}, good),
        ("expired: now = expires_at", reference, dict(now=good["expires_at"]), None),
        ("one second before expires_at it opens", reference, dict(now=good["expires_at"] - 1), good),
        ("GCM tag altered", b64url(bytes(tampered)), {}, None),
        ("sealed for another app (bonus) under the same root secret and kid", cookie(session_key=app_keys(secret, "bonus")["session"], app_id="bonus"), {}, None),
        ("this app's session key, another app in the associated data", cookie(app_id="bonus"), {}, None),
        ("payload naming another app, sealed correctly for this app", cookie(fields=dict(good, app="bonus")), {}, None),
        ("kid not in the keyring", cookie(cookie_kid="r2"), {}, None),
        ("kid revoked in the keyring", reference, dict(keyring=launcher_keyring((kid, "revoked", secret))), None),
        ("kid verify-only in the keyring still opens", reference, dict(keyring=launcher_keyring((kid, "verify-only", secret))), good),
        ("this app's app keyring opens it", reference, dict(keyring=app_keyring(SESSION_APP, (kid, "active", secret))), good),
        ("another app's app keyring (for a verifier of that app)", reference, dict(keyring=app_keyring("bonus", (kid, "active", secret)), app_id="bonus"), None),
        ("cookie version 1 (before per-app keys)", cookie(version=1, session_key=hkdf(secret, b"WebAppLaunch-v1 session key"), aad=v1_aad), {}, None),
        ("cookie version 3", cookie(version=3), {}, None),
        ("payload with a trailing byte", cookie(payload=session_payload(good) + b"\x00"), {}, None),
        ("payload cut short", cookie(payload=session_payload(good)[:-1]), {}, None),
        ("payload with has_token = 2", cookie(payload=session_payload(dict(good, access_token=None))[:-1] + b"\x02"), {}, None),
        ("payload with a KVNR whose check digit is wrong", cookie(fields=dict(good, kvnumber=kvnr_with_wrong_check_digit("A", "12345678"))), {}, None),
        ("payload with a first name in NFD", cookie(fields=dict(good, firstname="Ju\u0308rgen")), {}, None),
        ("payload with U+1FAE8 in a name", cookie(fields=dict(good, firstname="Anna\U0001FAE8")), {}, None),
        ("payload with an access token holding a space", cookie(fields=dict(good, access_token="a t")), {}, None),
        ("cookie text of 8193 bytes", "A" * 8193, {}, None),
        ("cookie with padding", reference + "=" * (-len(reference) % 4) if len(reference) % 4 else reference + "==", {}, None),
        ("cookie with kid_len 0", b64url(bytes([SESSION_VERSION, 0]) + iv + b"\x00" * 16), {}, None),
        ("empty cookie", "", {}, None),
    ]
    out = []
    for offset, (description, text, overrides, expected) in enumerate(rows):
        out.append({
            "name": f"s{first_index + offset:02d}",
            "description": description,
            "keyring": overrides.get("keyring", keyring),
            "app_id": overrides.get("app_id", SESSION_APP),
            "now": overrides.get("now", SESSION_NOW),
            "payload": expected,
            "payload_hex": session_payload(expected).hex() if expected else None,
            "iv_hex": None,
            "app_key_hex": None,
            "session_key_hex": None,
            "cookie": text,
        })
    return out


# ---------------------------------------------------------------- registered URLs, registries, keyrings

URL_CASES = [
    # (description, url)
    ("upper-case scheme and host, default port", "HTTPS://Magazin.EXAMPLE:443/app"),
    ("no path, a query of its own", "HTTPS://Bonus.EXAMPLE:443?tenant=a%20b&x"),
    ("IPv6 loopback over http with a port", "http://[::1]:9000/x/y"),
    ("IPv6 loopback without port or path", "http://[::1]"),
    ("another IPv6 spelling of loopback is not loopback (http refused)", "http://[0:0:0:0:0:0:0:1]/"),
    ("another IPv6 spelling of loopback over https", "https://[0:0:0:0:0:0:0:1]/"),
    ("IPv6 without a closing bracket", "https://[::1/"),
    ("text after the IPv6 host", "https://[::1]x/"),
    ("empty brackets", "https://[]/"),
    ("canonical IPv4 loopback over http", "http://127.0.0.1:8080/apps/healthmagazin"),
    ("any canonical 127/8 address is loopback", "http://127.255.0.9/"),
    ("localhost over http", "http://LocalHost:8080/"),
    ("localhost with a trailing dot", "http://localhost./"),
    ("a DNS name over http is refused", "http://magazin.example/app"),
    ("a canonical IPv4 address over https", "https://1.2.3.4/"),
    ("zero-padded loopback octets", "http://127.000.000.001/"),
    ("zero-padded loopback octets over https", "https://127.000.000.001/"),
    ("one zero-padded octet", "https://127.0.0.01/"),
    ("one zero-padded last octet", "https://1.2.3.04/"),
    ("an octet over 255", "https://256.1.1.1/"),
    ("three numeric labels", "https://1.2.3/"),
    ("one number", "https://123/"),
    ("a 32-bit number", "https://2130706433/"),
    ("five numeric labels", "https://1.2.3.4.5/"),
    ("a hex first octet, numeric last label", "https://0x7f.0.0.1/"),
    ("a hex last label", "https://1.2.3.0x4/"),
    ("a bare 0x last label", "https://example.0x/"),
    ("a DNS name ending in a numeric label", "https://example.123/"),
    ("a DNS name ending in a hex-looking label that is not a number", "https://example.0xg/"),
    ("numeric labels before a name", "https://123.456.example/"),
    ("an IPv4 address with a trailing dot", "https://1.2.3.4./"),
    ("an empty label", "https://a..example/"),
    ("a label starting with a hyphen", "https://-a.example/"),
    ("a label ending with a hyphen", "https://a-.example/"),
    ("an underscore in the host", "https://a_b.example/"),
    ("a 63-byte label", "https://" + "a" * 63 + ".example/"),
    ("a 64-byte label", "https://" + "a" * 64 + ".example/"),
    ("a 253-byte host", "https://" + ".".join(["a" * 63] * 3) + "." + "b" * 61 + "/"),
    ("a 254-byte host", "https://" + ".".join(["a" * 63] * 3) + "." + "b" * 62 + "/"),
    ("a punycode host", "https://XN--mnchen-3ya.example/"),
    ("userinfo", "https://user@magazin.example/app"),
    ("a fragment", "https://magazin.example/app#top"),
    ("an empty fragment", "https://magazin.example/app#"),
    ("scheme ftp", "ftp://magazin.example/app"),
    ("no ://", "https:magazin.example/app"),
    ("a space", "https://magazin.example/a b"),
    ("a non-ASCII byte", "https://magazin.example/\u00e4"),
    ("the empty string", ""),
    ("a port with leading zeros is its number", "https://magazin.example:0443/app"),
    ("a five-digit zero-padded port", "http://127.0.0.1:08080/"),
    ("a six-digit port", "http://127.0.0.1:000080/"),
    ("port 0", "https://magazin.example:0/"),
    ("port 65535", "https://magazin.example:65535/"),
    ("port 65536", "https://magazin.example:65536/"),
    ("an empty port", "https://magazin.example:/"),
    ("http's default port over http", "http://127.0.0.1:80/"),
    ("https's port over http is kept", "http://127.0.0.1:443/"),
    ("a signed port", "https://magazin.example:+443/"),
    ("path: RFC 3986 sub-delimiters, : and @", "https://magazin.example/a!$&'()*+=:@~_-.b"),
    ("path: percent escapes kept as written", "https://magazin.example/a%20b/%C3%A4"),
    ("path: a double quote", 'https://magazin.example/a"b'),
    ("path: <", "https://magazin.example/a<b"),
    ("path: >", "https://magazin.example/a>b"),
    ("path: [", "https://magazin.example/a[b"),
    ("path: ]", "https://magazin.example/a]b"),
    ("path: ^", "https://magazin.example/a^b"),
    ("path: backquote", "https://magazin.example/a`b"),
    ("path: {", "https://magazin.example/a{b"),
    ("path: |", "https://magazin.example/a|b"),
    ("path: }", "https://magazin.example/a}b"),
    ("path: ,", "https://magazin.example/a,b"),
    ("path: ;", "https://magazin.example/a;b"),
    ("path: backslash", "https://magazin.example/a\\b"),
    ("path: a . segment", "https://magazin.example/a/./b"),
    ("path: a .. segment", "https://magazin.example/a/../b"),
    ("path: dots inside a segment are fine", "https://magazin.example/a/..b/c.d"),
    ("path: an encoded dot", "https://magazin.example/a/%2E%2e/b"),
    ("path: an encoded slash", "https://magazin.example/a%2Fb"),
    ("path: an encoded backslash", "https://magazin.example/a%5cb"),
    ("path: a bad percent escape", "https://magazin.example/a%zz"),
    ("path: a cut percent escape", "https://magazin.example/a%4"),
    ("path: upper case kept", "https://magazin.example/App/X"),
    ("query: characters refused in a path are kept in a query", 'https://magazin.example/app?a=[x]&b={"y"}&c=1,2;3|^`<>\\'),
    ("query: empty counts as none", "https://magazin.example/app?"),
    ("query: a second ?", "https://magazin.example/app?a=1?b"),
    ("query: an empty piece", "https://magazin.example/app?a=1&&b=2"),
    ("query: an empty name", "https://magazin.example/app?=1"),
    ("query: a launch parameter", "https://magazin.example/app?launch=x"),
    ("query: a bare launch", "https://magazin.example/app?a&launch"),
    ("query: a name that only starts with launch", "https://magazin.example/app?launcher=1"),
    ("query: a valueless name", "https://magazin.example/app?debug"),
]


def url_vectors():
    out = []
    for index, (description, url) in enumerate(URL_CASES, start=1):
        try:
            canonical, host = parse_registered_url(url)
            loopback = is_loopback(host)
        except Refused:
            canonical, loopback = None, None
        out.append({"name": f"u{index:02d}", "description": description, "url": url,
                    "canonical": canonical, "loopback": loopback})
    return out


def registry_json(*entries, top=None) -> str:
    doc = {"apps": list(entries)}
    if top:
        doc.update(top)
    return json.dumps(doc, ensure_ascii=False)


def app_entry(app_id="magazin", url="https://magazin.example/app", **members):
    entry = {"id": app_id, "title": "Magazin", "url": url}
    entry.update(members)
    return {k: v for k, v in entry.items() if v is not OMIT}


OMIT = object()
LINKS = {"scheme": "navidapro", "hosts": ["magazin"], "pathPrefixes": ["/details"], "queryKeys": ["article_id"]}


def links(**members):
    value = dict(LINKS)
    value.update(members)
    return {k: v for k, v in value.items() if v is not OMIT}


REGISTRY_CASES = [
    ("every member, in the sample's shape",
     registry_json(app_entry(summary="Articles.", deepLinks=LINKS, iconURL="HTTPS://CDN.example:443/i.png", category="health"),
                   app_entry("bonus", "http://127.0.0.1:8080/apps/bonus?tenant=demo", title="Bonus"))),
    ("no apps at all", registry_json()),
    ("null optional members count as absent",
     registry_json(app_entry(summary=None, deepLinks=None, iconURL=None, category=None))),
    ("unknown members are ignored at every level",
     registry_json(app_entry(extra=1, deepLinks=links(extra=[1])), top={"version": "x"})),
    ("not JSON", '{"apps": ['),
    ("apps missing", json.dumps({"app": []})),
    ("apps not a list", json.dumps({"apps": {}})),
    ("an entry without title", registry_json(app_entry(title=OMIT))),
    ("an entry without url", registry_json(app_entry(url=OMIT))),
    ("an entry with a null id", registry_json(app_entry(app_id=None))),
    ("a title that is a number", registry_json(app_entry(title=5))),
    ("a summary that is a number", registry_json(app_entry(summary=5))),
    ("a category that is a number", registry_json(app_entry(category=5))),
    ("an iconURL that is a list", registry_json(app_entry(iconURL=["https://cdn.example/i.png"]))),
    ("deepLinks that is a list", registry_json(app_entry(deepLinks=["navidapro"]))),
    ("deepLinks without hosts", registry_json(app_entry(deepLinks=links(hosts=OMIT)))),
    ("deepLinks hosts that is a string", registry_json(app_entry(deepLinks=links(hosts="magazin")))),
    ("deepLinks queryKeys holding a number", registry_json(app_entry(deepLinks=links(queryKeys=[1])))),
    ("a type error in a later entry wins over a bad id in an earlier one",
     registry_json(app_entry(app_id="bad id"), app_entry("b", "https://b.example/", title=1))),
    ("an invalid id", registry_json(app_entry(app_id="bad id"))),
    ("a 65-byte id", registry_json(app_entry(app_id="a" * 65))),
    ("an invalid id and an invalid URL: the id first", registry_json(app_entry(app_id="", url="ftp://x/"))),
    ("an invalid URL", registry_json(app_entry(url="http://magazin.example/app"))),
    ("an invalid URL and invalid deep links: the URL first", registry_json(app_entry(url="https://x.example/a;b", deepLinks=links(hosts=[])))),
    ("invalid deep links and an invalid icon: the deep links first",
     registry_json(app_entry(deepLinks=links(scheme="https"), iconURL="http://cdn.example/i.png"))),
    ("an invalid icon and an invalid category: the icon first", registry_json(app_entry(iconURL="javascript:alert(1)", category=""))),
    ("deep links: scheme http in upper case", registry_json(app_entry(deepLinks=links(scheme="HTTP")))),
    ("deep links: scheme JavaScript", registry_json(app_entry(deepLinks=links(scheme="JavaScript")))),
    ("deep links: scheme FILE", registry_json(app_entry(deepLinks=links(scheme="FILE")))),
    ("deep links: scheme data", registry_json(app_entry(deepLinks=links(scheme="data")))),
    ("deep links: a scheme starting with a digit", registry_json(app_entry(deepLinks=links(scheme="1app")))),
    ("deep links: an empty scheme", registry_json(app_entry(deepLinks=links(scheme="")))),
    ("deep links: a scheme with +, - and . and upper case, lower-cased",
     registry_json(app_entry(deepLinks=links(scheme="Navida.Pro+x-1", hosts=["Magazin", "a.b-c"])))),
    ("deep links: only hosts given, defaults for the rest", registry_json(app_entry(deepLinks={"hosts": ["magazin"]}))),
    ("deep links: no hosts", registry_json(app_entry(deepLinks=links(hosts=[])))),
    ("deep links: a host with an underscore", registry_json(app_entry(deepLinks=links(hosts=["a_b"])))),
    ("deep links: an empty host", registry_json(app_entry(deepLinks=links(hosts=[""])))),
    ("deep links: a non-ASCII host (the Kelvin sign is not k)", registry_json(app_entry(deepLinks=links(hosts=["\u212aiosk"])))),
    ("deep links: a path prefix without /", registry_json(app_entry(deepLinks=links(pathPrefixes=["details"])))),
    ("deep links: a path prefix with ..", registry_json(app_entry(deepLinks=links(pathPrefixes=["/a/../b"])))),
    ("deep links: a path prefix with %", registry_json(app_entry(deepLinks=links(pathPrefixes=["/a%2f"])))),
    ("deep links: a path prefix with a backslash", registry_json(app_entry(deepLinks=links(pathPrefixes=["/a\\b"])))),
    ("deep links: an empty query key", registry_json(app_entry(deepLinks=links(queryKeys=[""])))),
    ("deep links: a query key with =", registry_json(app_entry(deepLinks=links(queryKeys=["a=b"])))),
    ("icon: plain http off loopback", registry_json(app_entry(iconURL="http://cdn.example/i.png"))),
    ("icon: http on loopback", registry_json(app_entry(iconURL="http://127.0.0.1:9000/i.png"))),
    ("icon: userinfo", registry_json(app_entry(iconURL="https://u:p@cdn.example/i.png"))),
    ("icon: a data URL", registry_json(app_entry(iconURL="data:image/png;base64,AA"))),
    ("icon: a fragment", registry_json(app_entry(iconURL="https://cdn.example/i.svg#x"))),
    ("icon: a zero-padded IPv4 host", registry_json(app_entry(iconURL="https://1.2.3.04/i.png"))),
    ("icon: a query is kept", registry_json(app_entry(iconURL="https://cdn.example/i.png?v=2"))),
    ("category: 64 bytes", registry_json(app_entry(category="é" * 32))),
    ("category: 65 bytes", registry_json(app_entry(category="é" * 32 + "x"))),
    ("category: empty", registry_json(app_entry(category=""))),
    ("category: a tab", registry_json(app_entry(category="a\tb"))),
    ("category: U+0085 (a C1 control)", registry_json(app_entry(category="a\u0085b"))),
    ("category: U+200B (format, not a control) is kept", registry_json(app_entry(category="a\u200bb"))),
    ("two entries with one id", registry_json(app_entry(), app_entry(url="https://other.example/"))),
    ("two entries with one canonical URL", registry_json(app_entry(), app_entry("other", "HTTPS://MAGAZIN.example:443/app"))),
    ("a duplicate before an invalid entry: every entry is checked first",
     registry_json(app_entry(), app_entry(), app_entry("c", "ftp://c/"))),
]


def registry_vectors():
    out = []
    for index, (description, text) in enumerate(REGISTRY_CASES, start=1):
        try:
            apps, error = check_registry(text), None
        except Refused as refusal:
            apps, error = None, refusal.code
        out.append({"name": f"r{index:02d}", "description": description, "json": text,
                    "apps": apps, "expected_error": error})
    return out


def keyring_json(keys, **members) -> str:
    doc = {k: v for k, v in members.items() if v is not OMIT}
    doc["keys"] = keys
    return json.dumps(doc)


def key(kid="k1", status="active", secret=None, app_key=None, **extra):
    entry = {"kid": kid, "status": status}
    if secret is not None:
        entry["secret"] = secret
    if app_key is not None:
        entry["app_key"] = app_key
    entry.update(extra)
    return {k: v for k, v in entry.items() if v is not OMIT}


ROOT_TEXT = b64url(fixed("keyring root", 32))
# 32 bytes are 43 characters: the last one carries two unused bits, here set.
NON_CANONICAL_ROOT_TEXT = ROOT_TEXT[:-1] + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(ROOT_TEXT[-1]) | 1]
APP_KEY_TEXT = b64url(fixed("keyring app key", 32))

KEYRING_CASES = [
    ("a launcher keyring without kind", keyring_json([key("2026-10", "verify-only", ROOT_TEXT), key("2026-11", secret=b64url(fixed("r2", 128)))])),
    ("a launcher keyring with kind, development and a revoked key",
     keyring_json([key("old", "revoked", ROOT_TEXT), key(secret=b64url(fixed("r2", 64)))], kind="launcher", development=True)),
    ("an app keyring", keyring_json([key("2026-11", secret=None, app_key=APP_KEY_TEXT)], kind="app", app="healthmagazin")),
    ("null members count as absent", keyring_json([key(secret=ROOT_TEXT, app_key=None)], kind=None, app=None, development=None)),
    ("unknown members are ignored, in the file and in a key",
     keyring_json([key(secret=ROOT_TEXT, created="2026-11-01")], comment="rotated monthly")),
    ("not JSON", "{"),
    ("keys missing", json.dumps({"kind": "launcher"})),
    ("keys null", keyring_json(None)),
    ("kind other", keyring_json([key(secret=ROOT_TEXT)], kind="partner")),
    ("kind empty", keyring_json([key(secret=ROOT_TEXT)], kind="")),
    ("kind a number", keyring_json([key(secret=ROOT_TEXT)], kind=2)),
    ("development a string", keyring_json([key(secret=ROOT_TEXT)], development="yes")),
    ("a launcher keyring carrying app", keyring_json([key(secret=ROOT_TEXT)], app="healthmagazin")),
    ("a launcher keyring (kind given) carrying app", keyring_json([key(secret=ROOT_TEXT)], kind="launcher", app="healthmagazin")),
    ("an app keyring without app", keyring_json([key(app_key=APP_KEY_TEXT)], kind="app")),
    ("an app keyring with app a number", keyring_json([key(app_key=APP_KEY_TEXT)], kind="app", app=7)),
    ("a launcher keyring with app a number", keyring_json([key(secret=ROOT_TEXT)], app=7)),
    ("a status not one of the three", keyring_json([key(status="disabled", secret=ROOT_TEXT)])),
    ("a status in upper case", keyring_json([key(status="ACTIVE", secret=ROOT_TEXT)])),
    ("a key without status", keyring_json([key(status=OMIT, secret=ROOT_TEXT)])),
    ("a key without kid", keyring_json([key(kid=OMIT, secret=ROOT_TEXT)])),
    ("a kid that is a number", keyring_json([key(kid=5, secret=ROOT_TEXT)])),
    ("a launcher key without secret", keyring_json([key()])),
    ("a launcher key with app_key", keyring_json([key(app_key=ROOT_TEXT)])),
    ("a launcher key with both", keyring_json([key(secret=ROOT_TEXT, app_key=ROOT_TEXT)])),
    ("an app key with secret", keyring_json([key(secret=APP_KEY_TEXT)], kind="app", app="healthmagazin")),
    ("order: a key's bad secret member (shape) wins over an earlier key's bad secret",
     keyring_json([key("a", secret="!!"), key("b", app_key=ROOT_TEXT)])),
    ("order: a bad app id wins over an empty key list", keyring_json([], kind="app", app="bad id")),
    ("order: a shape error wins over a bad app id", keyring_json([key(secret=APP_KEY_TEXT)], kind="app", app="bad id")),
    ("an app id of 65 bytes", keyring_json([key(app_key=APP_KEY_TEXT)], kind="app", app="a" * 65)),
    ("no keys", keyring_json([])),
    ("an invalid kid", keyring_json([key("bad kid", secret=ROOT_TEXT)])),
    ("a 65-byte kid", keyring_json([key("k" * 65, secret=ROOT_TEXT)])),
    ("order: a bad kid wins over the same key's bad secret", keyring_json([key("bad kid", secret="x")])),
    ("order: an earlier key's bad secret wins over a later key's bad kid",
     keyring_json([key("a", secret="x"), key("bad kid", secret=ROOT_TEXT)])),
    ("order: a bad secret wins over duplicate kids", keyring_json([key(secret=ROOT_TEXT), key(secret=ROOT_TEXT), key("c", secret="x")])),
    ("duplicate kids", keyring_json([key(secret=ROOT_TEXT), key(status="revoked", secret=b64url(fixed("r2", 32)))])),
    ("a root secret of 31 bytes", keyring_json([key(secret=b64url(fixed("short", 31)))])),
    ("a root secret of 129 bytes", keyring_json([key(secret=b64url(fixed("long", 129)))])),
    ("a root secret with padding", keyring_json([key(secret=b64url(fixed("pad", 32)) + "=")])),
    ("a root secret in the standard alphabet",
     keyring_json([key(secret=base64.b64encode(b"\xfb" + fixed("std", 31)).decode().rstrip("="))])),
    ("a root secret with non-canonical trailing bits", keyring_json([key(secret=NON_CANONICAL_ROOT_TEXT)])),
    ("an app key of 33 bytes", keyring_json([key(app_key=b64url(fixed("ak", 33)))], kind="app", app="healthmagazin")),
    ("an app key of 64 bytes (a valid root secret length)", keyring_json([key(app_key=b64url(fixed("ak", 64)))], kind="app", app="healthmagazin")),
]


def keyring_vectors():
    out = []
    for index, (description, text) in enumerate(KEYRING_CASES, start=1):
        try:
            summary, error = check_keyring(text), None
        except Refused as refusal:
            summary, error = None, refusal.code
        out.append({"name": f"k{index:02d}", "description": description, "json": text,
                    "keyring": summary, "expected_error": error})
    return out


COOKIE_CASES = [
    ("plain http (loopback): the fixed name, scoped to the registered path", "http://127.0.0.1:8080/apps/healthmagazin"),
    ("plain http with a registered query: the path alone scopes it; the query comes back in Location", "http://127.0.0.1:8080/apps/healthmagazin?tenant=demo"),
    ("https: the __Host- name with the app id, Path=/ and Secure", "https://magazin.example/apps/healthmagazin"),
    ("https with a registered query", "https://magazin.example/apps/healthmagazin?tenant=demo&lang=de"),
    ("https at the root path", "https://magazin.example"),
]
COOKIE_APP = "healthmagazin"
COOKIE_LIFETIME = 1800


def cookie_vectors():
    """SPEC.md 12.3: the session cookie's name and attributes, and the 303's Location, for a
    launch of COOKIE_APP accepted at each served URL."""
    out = []
    for index, (description, served) in enumerate(COOKIE_CASES, start=1):
        canonical, _ = parse_registered_url(served)
        scheme, rest = canonical.split("://", 1)
        path_and_query = rest[rest.index("/"):]
        path = path_and_query.split("?", 1)[0]
        if scheme == "https":
            name = "__Host-webapp_launch_session_" + COOKIE_APP
            attributes = [f"Max-Age={COOKIE_LIFETIME}", "Path=/", "Secure", "HttpOnly", "SameSite=Lax"]
        else:
            name = "webapp_launch_session"
            attributes = [f"Max-Age={COOKIE_LIFETIME}", f"Path={path}", "HttpOnly", "SameSite=Lax"]
        out.append({"name": f"c{index:02d}", "description": description, "served_url": served, "app_id": COOKIE_APP,
                    "session_lifetime": COOKIE_LIFETIME, "cookie_name": name, "attributes": attributes,
                    "location": path_and_query})
    return out


def main():
    document = {
        "format": "WebAppLaunch launch token, version 2 (SPEC.md)",
        "generator": "scripts/vectors.py (Python, cryptography package; independent of the Swift code)",
        "notes": [
            "All hex is lower case. Integers are JSON numbers; iat and exp are seconds since 1970.",
            "A keyring object is {kind, app, keys}: kind launcher (keys carry secret_hex, a root secret) or app (keys carry app_key_hex, the app key of app, SPEC.md 2.2).",
            "Positive vectors: minting with the given nonce (and IV for sealed) must give exactly the intermediates, token and launch_url; verifying the token at now = iat with a launcher keyring holding secret under kid (or the app keyring of app_id holding app_key under kid), for app_id at registered_url, must give exactly expected.claims.",
            "Negative vectors: a verifier with keyring, for app_id at registered_url, with the default policy (skew 60, maximum lifetime 300, maximum token length 16384 bytes), at now, must reject token (verified alone) or query and form (verified as a request) with expected_error; null means it must accept.",
            "Session vectors: a session sealer for app_id with keyring, at now, must open cookie to exactly payload (payload_hex is its encoding), or to no session when payload is null; when iv_hex is given, sealing payload with it must give exactly cookie.",
            "URL vectors (SPEC.md 8.1): url parses to exactly canonical, and its host is loopback exactly when loopback is true; canonical null means it is refused (invalid_url).",
            "Registry vectors (SPEC.md 8.3): the registry file json loads to exactly apps (url and iconURL as canonical text, deepLinks with defaults filled in and lower-cased), or is refused with expected_error.",
            "Cookie vectors (SPEC.md 12.3): a launch of app_id accepted at served_url with a session lifetime of session_lifetime seconds answers 303 with Location location and sets the cookie cookie_name with exactly attributes, in this order (the order is this server's; it is not significant).",
            "Keyring vectors (SPEC.md 13): the keyring file json loads to exactly keyring (kind, app, development, kids and statuses in order), or is refused with expected_error.",
        ],
        "vectors": positive_vectors(),
        "negative": negative_vectors(),
        "sessions": session_vectors(),
        "urls": url_vectors(),
        "registries": registry_vectors(),
        "keyrings": keyring_vectors(),
        "cookies": cookie_vectors(),
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        with open(OUTPUT, encoding="utf-8") as f:
            if f.read() != text:
                print("vectors.json is out of date; run scripts/vectors.py", file=sys.stderr)
                sys.exit(1)
        print("vectors.json is up to date")
        return
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {len(document['vectors'])} vectors, {len(document['negative'])} negative vectors, "
          f"{len(document['sessions'])} session vectors, {len(document['urls'])} URL vectors, "
          f"{len(document['registries'])} registry vectors, {len(document['keyrings'])} keyring vectors, "
          f"{len(document['cookies'])} cookie vectors "
          f"to {os.path.relpath(OUTPUT, ROOT)}")


if __name__ == "__main__":
    main()
