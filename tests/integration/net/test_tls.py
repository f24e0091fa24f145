"""TLS over a pinned address: the connection goes to the checked IP, the certificate is still
verified against the URL's host name (httpcore passes it as SNI and for hostname checks)."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

# cryptography is not a declared test dependency yet (it is installed in the dev venv)
pytest.importorskip("cryptography", reason="certificates for the TLS tests need cryptography")

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from netsift.net.guard import AddressPolicy
from netsift.net.resolver import StaticResolver
from netsift.net.transport import GuardedTransport
from tests.offline_web.server import LiveServer, serve

from .apps import SiteState, site_app


def make_certificate(directory: Path, host: str) -> tuple[Path, Path]:
    """A self-signed certificate for `host` (it is its own CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Path]]:
    cert, key = make_certificate(tmp_path_factory.mktemp("tls"), "tls.test")
    state = SiteState()
    with serve(site_app(state), ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        yield server, cert
        state.stopping.set()


def transport(cert: Path, allow: list[str]) -> GuardedTransport:
    resolver = StaticResolver({"tls.test": ["127.0.0.1"], "wrong.test": ["127.0.0.1"]})
    return GuardedTransport(
        resolver, AddressPolicy(allow), verify=ssl.create_default_context(cafile=str(cert))
    )


async def test_pinned_tls_host_verifies_against_its_name(
    tls_site: tuple[LiveServer, Path],
) -> None:
    server, cert = tls_site
    guarded = transport(cert, ["127.0.0.0/8"])
    response = await guarded.handle_async_request(
        httpx.Request("GET", f"https://tls.test:{server.port}/echo")
    )
    await response.aread()
    assert response.status_code == 200
    assert response.json()["headers"]["host"] == f"tls.test:{server.port}"
    with pytest.raises(httpx.ConnectError, match=r"CERTIFICATE_VERIFY_FAILED|match"):
        await guarded.handle_async_request(
            httpx.Request("GET", f"https://wrong.test:{server.port}/echo")
        )
    await guarded.aclose()


async def test_tls_target_on_a_refused_address_is_blocked_before_the_handshake(
    tls_site: tuple[LiveServer, Path],
) -> None:
    from netsift.errors import BlockedAddress

    server, cert = tls_site
    guarded = transport(cert, [])
    with pytest.raises(BlockedAddress):
        await guarded.handle_async_request(
            httpx.Request("GET", f"https://tls.test:{server.port}/echo")
        )
    await guarded.aclose()


async def test_the_default_context_is_built_at_the_first_https_connection_and_shared(
    tls_site: tuple[LiveServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """verify=True: no CA bundle is loaded until an https origin is connected to; then the
    process's one context verifies (certifi's CAs do not include this self-signed server)."""
    from netsift.net import transport as module

    server, _ = tls_site
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setattr(module, "_contexts", {})
    resolver = StaticResolver({"tls.test": ["127.0.0.1"]})
    first = GuardedTransport(resolver, AddressPolicy(["127.0.0.0/8"]))
    second = GuardedTransport(resolver, AddressPolicy(["127.0.0.0/8"]))
    with pytest.raises(httpx.HTTPError):  # the server speaks TLS only: no answer, but...
        await first.handle_async_request(
            httpx.Request("GET", f"http://tls.test:{server.port}/echo")
        )
    assert module._contexts == {}  # ...a plain-http origin built no context
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        await first.handle_async_request(
            httpx.Request("GET", f"https://tls.test:{server.port}/echo")
        )
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        await second.handle_async_request(
            httpx.Request("GET", f"https://tls.test:{server.port}/echo")
        )
    assert len(module._contexts) == 1
    context = module.default_ssl_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    await first.aclose()
    await second.aclose()
