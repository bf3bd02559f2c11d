"""HTTPS through the pinned connection: we connect to the checked address
but verify the certificate against the host name from the URL."""

from __future__ import annotations

import datetime
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from core.ingest import IngestError, ingest_url

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402


def self_signed(tmp_path: Path, hostname: str) -> tuple[Path, Path]:
    """A certificate valid for ``hostname`` only (no IP address in it)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / f"{hostname}.pem", tmp_path / f"{hostname}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@pytest.fixture
def https_server(tmp_path, monkeypatch):
    """An HTTPS server on 127.0.0.1 whose certificate names `localhost`; its
    certificate is the only one trusted (SSL_CERT_FILE)."""
    cert_path, key_path = self_signed(tmp_path, "localhost")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_path))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><head><title>Secure page</title></head><body><p>Over TLS.</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_https_verifies_certificate_against_url_host(https_server, dest, connections):
    """https://localhost connects to the checked 127.0.0.1 yet checks the certificate for `localhost`."""
    result = ingest_url(dest, f"https://localhost:{https_server}/", allow_loopback=True)
    assert result.title == "Secure page"
    assert "Over TLS." in (dest / "page.md").read_text()
    assert connections and all(host in ("127.0.0.1", "::1") for host in connections)


def test_https_certificate_for_other_name_is_refused(https_server, dest, leftovers):
    """Reaching the same server by its address fails: the certificate does not name 127.0.0.1."""
    with pytest.raises(IngestError, match="certificate verify failed"):
        ingest_url(dest, f"https://127.0.0.1:{https_server}/", allow_loopback=True)
    assert leftovers() == []
