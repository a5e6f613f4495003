#!/usr/bin/env python3
"""A web app that is not Swift, for the gate's tests: Python standard library only.

Listens on 127.0.0.1 (port from argv[1], 0 = any), over TLS when argv[2] and argv[3] name a
PEM certificate and key (an https upstream; argv[4] "tls1.1" makes it speak TLS 1.1 and nothing
newer, as an outdated server would), prints "listening PORT" once it is bound, and
answers every request with JSON describing what it received:

  {"method", "path", "headers": [[name, value], ...] (as received, duplicates kept),
   "identity": {header: decoded value} for the X-WebApp-Launch-* headers (percent-decoded
   UTF-8, as any upstream would decode them), "body_length", "peer_port" (the client's
   port: which of its connections the request came on), "tls" (the TLS version, or null)}

Special paths: /slow?seconds=N waits before answering; /big?bytes=N answers N bytes;
/hop answers with hop-by-hop headers (Connection: X-Hop-Secret, X-Hop-Secret, Keep-Alive);
/page answers an HTML page greeting the user from the identity headers and listing them
(decoded; the KVNR masked) with the Cookie header the app received.
"""
import html
import signal
import ssl
import json
import sys
import time
import urllib.parse
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PREFIX = "x-webapp-launch-"


def identity(headers):
    return {name: urllib.parse.unquote(value, encoding="utf-8", errors="strict")
            for name, value in headers if name.lower().startswith(PREFIX)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep the test output quiet
        pass

    def answer(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        body_length = 0
        if length:
            body_length = len(self.rfile.read(length))
        elif self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body_length += len(self.rfile.read(size))
                self.rfile.readline()
        if url.path == "/slow":
            time.sleep(float(query.get("seconds", ["5"])[0]))
        headers = [[name, value] for name, value in self.headers.items()]
        extra = []
        if url.path == "/big":
            payload = b"x" * int(query.get("bytes", ["0"])[0])
            content_type = "application/octet-stream"
        elif url.path == "/page":
            who = identity(headers)
            names = {k.lower(): v for k, v in who.items()}
            first = html.escape(names.get("x-webapp-launch-first-name", "?"))
            last = html.escape(names.get("x-webapp-launch-last-name", "?"))
            rows = []
            for name in sorted(names):
                value = names[name]
                if name in ("x-webapp-launch-kvnr", "x-webapp-launch-subject") and len(value) > 2:  # masked, as the Swift page shows a KVNR
                    value = value[0] + "*" * (len(value) - 2) + value[-1]
                key = name[len(PREFIX):]
                rows.append(f"<dt>X-WebApp-Launch-{html.escape('KVNR' if key == 'kvnr' else key.title())}</dt>"
                            f"<dd id=\"header-{html.escape(key)}\">{html.escape(value)}</dd>")
            cookies = html.escape(self.headers.get("Cookie") or "(none)")
            payload = (f"<!doctype html><html lang=de><meta charset=utf-8><title>Python upstream</title>"
                       f"<style>body{{font-family:sans-serif;margin:1rem}}dt{{font-weight:600}}dd{{margin:0 0 .5rem 0}}</style>"
                       f"<body><h1 id=greeting>Hallo {first} {last}</h1>"
                       f"<p>Served by Python's http.server behind the WebAppLaunch gate.</p>"
                       f"<h2>Identity headers as received</h2><dl id=identity>{''.join(rows)}</dl>"
                       f"<p>Cookie header seen by the app: <code id=cookies>{cookies}</code></p></body></html>").encode("utf-8")
            content_type = "text/html; charset=utf-8"
        else:
            payload = json.dumps({
                "method": self.command,
                "path": self.path,
                "headers": headers,
                "identity": identity(headers),
                "body_length": body_length,
                "peer_port": self.client_address[1],
                "tls": self.connection.version() if isinstance(self.connection, ssl.SSLSocket) else None,
            }).encode("utf-8")
            content_type = "application/json"
            if url.path == "/hop":
                extra = [("Connection", "X-Hop-Secret"), ("X-Hop-Secret", "1"), ("Keep-Alive", "timeout=5"),
                         ("X-WebApp-Launch-Subject", "from-upstream")]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Upstream", "python")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = answer


def main():
    # A parent may have left SIGTERM ignored or blocked (both are inherited); stop when asked.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    if len(sys.argv) > 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        if sys.argv[4:] == ["tls1.1"]:
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = context.maximum_version = ssl.TLSVersion.TLSv1_1
            context.set_ciphers("DEFAULT:@SECLEVEL=0")  # OpenSSL 3 refuses TLS 1.1 at its default level
        # The handshake runs in the request's thread, not in accept(): a client that refuses
        # the certificate (or stalls) never holds up the others.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
