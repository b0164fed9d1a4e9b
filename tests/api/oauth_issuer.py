"""An OAuth issuer for tests: its own RSA and EC keys, its metadata and JWKS served on 127.0.0.1 by a
real HTTP server, and access tokens it signs."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

Key = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


class Issuer:
    """``published`` keys are in the JWKS; a token may be signed with any key, published or not."""

    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.published: dict[str, Key] = {"rsa-1": self.rsa, "ec-1": self.ec}
        self.requests: Counter[str] = Counter()
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.requests[self.path] += 1
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks.json"}
                elif self.path == "/jwks.json":
                    body = issuer.jwks()
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Issuer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in self.published.items():
            if isinstance(key, rsa.RSAPrivateKey):
                jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
                jwk["alg"] = "RS256"
            else:
                jwk = ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
                jwk["alg"] = "ES256"
            keys.append({**jwk, "kid": kid, "use": "sig"})
        return {"keys": keys}

    def token(
        self,
        audience: str,
        *,
        key: Key | None = None,
        kid: str | None = "rsa-1",
        algorithm: str | None = None,
        issuer: str | None = None,
        expires_in: float = 600,
        **claims: Any,
    ) -> str:
        """An access token; ``claims`` default to tenant acme, role agent, subject alice."""
        key = key if key is not None else self.published.get(kid or "", self.rsa)
        algorithm = algorithm or ("RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256")
        now = int(time.time())
        payload = {
            "iss": issuer or self.url,
            "aud": audience,
            "sub": "alice",
            "iat": now,
            "exp": now + int(expires_in),
            "jti": str(uuid.uuid4()),
            "tenant": "acme",
            "role": "agent",
            **claims,
        }
        headers = {"kid": kid} if kid is not None else None
        return jwt.encode(payload, key, algorithm=algorithm, headers=headers)
