"""A small OAuth 2 authorization server on Authlib, for the launcher's tests (loopback only).

It issues real tokens through Authlib's own grants and endpoints, so the launcher is tested
against what a provider actually answers, not against what its authors expected:

- password grant (Authlib's ResourceOwnerPasswordCredentialsGrant) for the native app
  `native-app` and an unrelated client `other-client`, with refresh tokens;
- access tokens either opaque (``--format opaque``) or RFC 9068 JWTs (``--format jwt``,
  Authlib's JWTBearerTokenGenerator, RS256, keys published at /jwks, rotatable);
- RFC 7662 introspection (Authlib's IntrospectionEndpoint) for the client `launcher`; it
  answers for refresh tokens too (``token_type: refresh_token``), as the review found a
  provider doing;
- RFC 8693 token exchange, registered as an extension grant: only `launcher` may exchange,
  only access tokens of `native-app` for the launcher's audience, only for registered
  partner audiences; the issued token's `aud` is the partner's and its `client_id` the
  launcher's.

Test controls under /test/: failures and slow bodies per endpoint, request counts, key
rotation, and forged tokens (expired, foreign key, alg none, HS256 keyed with the public
key) for the attack tests.

Run: python authlib_provider.py --port P [--format jwt|opaque]
"""

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import threading
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.errors import InvalidRequestError, OAuth2Error, UnauthorizedClientError
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from flask import Flask, Response, g, jsonify, request
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from werkzeug.serving import make_server

LAUNCHER_AUDIENCE = "https://launcher.example-insurer.de"
PARTNER_AUDIENCES = {"https://api.healthmagazin.example", "https://api.bonusprogramm.example"}
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
LIFETIME = 600

USERS = {
    "alice": {"given_name": "Jürgen-Quirin", "family_name": "Großmann-Zydeck", "kvnr": "A123456780"},
    "bob": {"given_name": "Bob", "family_name": "Builder", "kvnr": "A123456780"},
}

lock = threading.Lock()
tokens = {}  # token string -> record
counts = {}
failures = {}  # endpoint -> {"status", "retry_after", "times", "body", "www_authenticate", "drip"}
keys = {"current": None, "published": []}
foreign_key = RSAKey.generate_key(2048, parameters={"kid": "foreign", "alg": "RS256", "use": "sig"})


class Record(dict):
    """A stored token, in the shape Authlib's introspection endpoint asks of a token."""

    def is_expired(self):
        return self["exp"] <= time.time()

    def is_revoked(self):
        return False


def new_key():
    return RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(6), "alg": "RS256", "use": "sig"})


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class User:
    def __init__(self, sub):
        self.sub = sub

    def get_user_id(self):
        return self.sub


class Client:
    def __init__(self, client_id, secret, grant_types):
        self.client_id = client_id
        self.secret = secret
        self.grant_types = grant_types

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        return hmac.compare_digest(client_secret, self.secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return method == "client_secret_basic"

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


CLIENTS = {
    "native-app": Client("native-app", "native-secret", {"password", "refresh_token"}),
    "other-client": Client("other-client", "other-secret", {"password", "refresh_token"}),
    "launcher": Client("launcher", "launcher-secret", {TOKEN_EXCHANGE}),
}


class PasswordGrant(grants.ResourceOwnerPasswordCredentialsGrant):
    def authenticate_user(self, username, password):
        if username in USERS and password == "pw":
            return User(username)
        return None


class InvalidTargetError(OAuth2Error):
    error = "invalid_target"


class TokenExchangeGrant(grants.BaseGrant, grants.TokenEndpointMixin):
    """RFC 8693, as an Authlib extension grant."""

    GRANT_TYPE = TOKEN_EXCHANGE
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic"]

    def validate_token_request(self):
        client = self.authenticate_token_endpoint_client()
        if not client.check_grant_type(self.GRANT_TYPE):
            raise UnauthorizedClientError()
        data = self.request.payload.data
        if data.get("subject_token_type") != ACCESS_TOKEN_TYPE:
            raise InvalidRequestError("subject_token_type must be an access token")
        if data.get("requested_token_type", ACCESS_TOKEN_TYPE) != ACCESS_TOKEN_TYPE:
            raise InvalidRequestError("only access tokens are issued")
        with lock:
            record = tokens.get(data.get("subject_token", ""))
        if (
            record is None
            or record["type"] != "access_token"
            or record["exp"] <= time.time()
            or record["client_id"] != "native-app"
            or record["aud"] != LAUNCHER_AUDIENCE
        ):
            raise InvalidRequestError("the subject token is not the native app's token for the launcher")
        audience = data.get("audience")
        if audience not in PARTNER_AUDIENCES:
            raise InvalidTargetError("unknown audience")
        self.request.client = client
        self.request.user = User(record["sub"])
        g.token_audience = audience

    def create_token_response(self):
        token = self.generate_token(
            user=self.request.user, scope=self.request.payload.scope, include_refresh_token=False
        )
        token["issued_token_type"] = ACCESS_TOKEN_TYPE
        self.save_token(token)
        return 200, token, self.TOKEN_RESPONSE_HEADER


class JWTGenerator(JWTBearerTokenGenerator):
    def get_jwks(self):
        return KeySet([keys["current"]]).as_dict(private=True)

    def get_audiences(self, client, user, scope):
        return g.get("token_audience") or LAUNCHER_AUDIENCE

    def get_extra_claims(self, client, grant_type, user, scope):
        return dict(USERS.get(user.get_user_id(), {})) if user else {}

    def _get_expires_in(self, client, grant_type):
        return LIFETIME


class Introspection(IntrospectionEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic"]

    def query_token(self, token_string, token_type_hint):
        with lock:
            return tokens.get(token_string)

    def introspect_token(self, record):
        answer = {
            "active": True,
            "client_id": record["client_id"],
            "token_type": "Bearer" if record["type"] == "access_token" else "refresh_token",
            "scope": record["scope"],
            "sub": record["sub"],
            "aud": record["aud"],
            "iss": ISSUER,
            "exp": int(record["exp"]),
            "iat": int(record["iat"]),
        }
        answer.update(USERS.get(record["sub"], {}))
        return answer

    def check_permission(self, token, client, request):
        return client.client_id == "launcher"


def save_token(token, req):
    now = time.time()
    record = {
        "client_id": req.client.client_id,
        "sub": req.user.get_user_id() if req.user else req.client.client_id,
        "scope": token.get("scope", ""),
        "aud": g.get("token_audience") or LAUNCHER_AUDIENCE,
        "iat": now,
    }
    with lock:
        tokens[token["access_token"]] = Record(record, type="access_token", exp=now + token.get("expires_in", LIFETIME))
        if token.get("refresh_token"):
            tokens[token["refresh_token"]] = Record(record, type="refresh_token", exp=now + 86400)


app = Flask(__name__)
server = AuthorizationServer(app, query_client=CLIENTS.get, save_token=save_token)
ISSUER = ""


ENDPOINTS = {"/token": "token", "/introspect": "introspect", "/jwks": "jwks"}


@app.before_request
def count_and_fail():
    endpoint = ENDPOINTS.get(request.path)
    if endpoint is None:
        return None
    if endpoint == "token" and request.form.get("grant_type") == TOKEN_EXCHANGE:
        endpoint = "exchange"
    with lock:
        counts[endpoint] = counts.get(endpoint, 0) + 1
        failure = failures.get(endpoint)
        if failure is None or failure["times"] == 0:
            return None
        failure["times"] -= 1
    if failure.get("drip"):
        # A head at once, then one byte of the body every `drip` seconds, forever (bounded).
        def drip():
            for _ in range(600):
                yield b" "
                time.sleep(failure["drip"])

        return Response(drip(), status=200, mimetype="application/json")
    headers = {}
    if failure.get("retry_after"):
        headers["Retry-After"] = str(failure["retry_after"])
    if failure.get("www_authenticate"):
        headers["WWW-Authenticate"] = failure["www_authenticate"]
    return Response(json.dumps(failure.get("body", {"error": "server_error"})), status=failure["status"], headers=headers, mimetype="application/json")


@app.route("/.well-known/openid-configuration")
def discovery():
    return jsonify(
        issuer=ISSUER,
        token_endpoint=ISSUER + "/token",
        introspection_endpoint=ISSUER + "/introspect",
        jwks_uri=ISSUER + "/jwks",
        userinfo_endpoint=ISSUER + "/userinfo",
        grant_types_supported=["password", "refresh_token", TOKEN_EXCHANGE],
    )


@app.route("/token", methods=["POST"])
def token():
    return server.create_token_response()


@app.route("/introspect", methods=["POST"])
def introspect():
    return server.create_endpoint_response(Introspection.ENDPOINT_NAME)


@app.route("/jwks")
def jwks():
    with lock:
        published = list(keys["published"])
    return jsonify(KeySet(published).as_dict(private=False))


@app.route("/test/counts")
def test_counts():
    with lock:
        return jsonify(counts)


@app.route("/test/fail", methods=["POST"])
def test_fail():
    spec = request.get_json()
    with lock:
        failures[spec.pop("endpoint")] = dict({"times": -1}, **spec)
    return ("", 204)


@app.route("/test/rotate", methods=["POST"])
def test_rotate():
    keep_old = request.args.get("keep_old", "1") == "1"
    key = new_key()
    with lock:
        keys["published"] = ([*keys["published"]] if keep_old else []) + [key]
        keys["current"] = key
    return jsonify(kid=key.kid)


@app.route("/test/sign", methods=["POST"])
def test_sign():
    spec = request.get_json()
    claims = spec["claims"]
    header = dict({"typ": "at+jwt"}, **spec.get("header", {}))
    kind = spec.get("key", "current")
    if kind in ("current", "foreign"):
        key = keys["current"] if kind == "current" else foreign_key
        header = dict({"alg": "RS256", "kid": key.kid}, **header)
        return jsonify(token=jwt.encode(header, claims, key))
    current = keys["current"]
    header = dict({"kid": current.kid}, **header)
    if kind == "none":
        header["alg"] = "none"
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        return jsonify(token=signing_input + ".")
    if kind == "hs256-public":
        header["alg"] = "HS256"
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        secret = current.as_pem(private=False)
        signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        return jsonify(token=signing_input + "." + b64(signature))
    return ("unknown key kind", 400)


@app.route("/test/current-kid")
def test_current_kid():
    return jsonify(kid=keys["current"].kid)


def main():
    global ISSUER
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--format", choices=["jwt", "opaque"], default="jwt")
    args = parser.parse_args()
    ISSUER = f"http://127.0.0.1:{args.port}"
    key = new_key()
    keys["current"] = key
    keys["published"] = [key]
    if args.format == "jwt":
        generator = JWTGenerator(ISSUER, refresh_token_generator=lambda **kw: secrets.token_urlsafe(32))
    else:
        generator = BearerTokenGenerator(
            access_token_generator=lambda **kw: secrets.token_urlsafe(32),
            refresh_token_generator=lambda **kw: secrets.token_urlsafe(32),
        )
    server.register_token_generator("default", generator)
    server.register_grant(PasswordGrant)
    server.register_grant(TokenExchangeGrant)
    server.register_endpoint(Introspection)
    make_server("127.0.0.1", args.port, app, threaded=True).serve_forever()


if __name__ == "__main__":
    main()
