"""TLS for scenario servers: a throwaway test PKI (one CA and its leaves per process, in a temp dir), the server's
SSL contexts, and the handshake evidence the journal records.

The PKI is made with `cryptography` (EC P-256 keys: a few milliseconds for all of it) the first time a TLS server
starts, kept for the process, and removed with its temp dir when the process exits. Nothing is written anywhere
else. The lab CA signs the valid, expired and wrong-host leaves and the client certificate for mutual TLS; a second
CA, never handed to anyone, signs the unknown-CA leaf.

Evidence: a client that refuses a certificate aborts the handshake, so no HTTP request arrives; one that does not
verify completes it and sends requests. Every TLS connection is journaled when its ClientHello arrives (an `EntryKind.
TLS` entry, `completed` once the handshake is done), and every request says which connection kind carried it.
"""

from __future__ import annotations

import atexit
import datetime
import ipaddress
import shutil
import ssl
import tempfile
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from a2a_lab.contract.journal_record import TlsInfo
from a2a_lab.contract.scenario import ServerCertificate, Tls

from .faults import TRANSPORT_KEY

#: The names every valid lab leaf certificate carries: what a client on this machine dials.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: The only name of the wrong-host leaf (`.invalid` never resolves, RFC 2606).
WRONG_HOST = "wrong.a2a-lab.invalid"
#: The subject of the client certificate handed over for mutual TLS.
CLIENT_NAME = "a2a-lab test client"
_DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class Pki:
    """Where this process's throwaway PKI lives (PEM files in one temp dir)."""

    directory: Path
    #: The lab CA: what clients are told to trust.
    ca_file: Path
    #: Per server certificate kind: (certificate chain file, key file).
    leaves: dict[ServerCertificate, tuple[Path, Path]]
    #: The client certificate (signed by the lab CA, clientAuth) and its key, for mutual TLS.
    client_cert_file: Path
    client_key_file: Path


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(common: str) -> x509.Name:
    return x509.Name(
        [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "a2a-lab"), x509.NameAttribute(NameOID.COMMON_NAME, common)]
    )


def _ca(common: str, now: datetime.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _key()
    name = _name(common)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _DAY)
        .not_valid_after(now + 30 * _DAY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # keyCertSign, cRLSign
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _san(names: tuple[str, ...]) -> x509.SubjectAlternativeName:
    general: list[x509.GeneralName] = []
    for name in names:
        try:
            general.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            general.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(general)


def _leaf(
    issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    common: str,
    names: tuple[str, ...],
    valid: tuple[datetime.datetime, datetime.datetime],
    usage: x509.ObjectIdentifier = ExtendedKeyUsageOID.SERVER_AUTH,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    ca_cert, ca_key = issuer
    key = _key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()),  # type: ignore[arg-type]
            critical=False,
        )
    )
    if names:
        builder = builder.add_extension(_san(names), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def _write(directory: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey | None = None) -> Path:
    path = directory / f"{stem}.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    if key is not None:
        key_path = directory / f"{stem}-key.pem"
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return path


def make_pki(directory: Path) -> Pki:
    """Make a fresh CA, a second (unknown) CA, the four server leaves and a client certificate in `directory`."""
    now = datetime.datetime.now(datetime.UTC)
    lab = _ca("a2a-lab test CA (throwaway)", now)
    stranger = _ca("a2a-lab unknown CA (never trusted)", now)
    current = (now - _DAY, now + 7 * _DAY)
    made = {
        ServerCertificate.VALID: _leaf(lab, "localhost", LOOPBACK_NAMES, current),
        ServerCertificate.UNKNOWN_CA: _leaf(stranger, "localhost", LOOPBACK_NAMES, current),
        ServerCertificate.EXPIRED: _leaf(lab, "localhost", LOOPBACK_NAMES, (now - 30 * _DAY, now - 2 * _DAY)),
        ServerCertificate.WRONG_HOST: _leaf(lab, WRONG_HOST, (WRONG_HOST,), current),
    }
    leaves = {}
    for kind, (cert, key) in made.items():
        path = _write(directory, f"server-{kind.value}", cert, key)
        leaves[kind] = (path, directory / f"server-{kind.value}-key.pem")
    client_cert, client_key = _leaf(lab, CLIENT_NAME, (), current, ExtendedKeyUsageOID.CLIENT_AUTH)
    client = _write(directory, "client", client_cert, client_key)
    return Pki(directory, _write(directory, "ca", lab[0]), leaves, client, directory / "client-key.pem")


_lock = threading.Lock()
_pki: Pki | None = None


def pki() -> Pki:
    """This process's PKI, made on first use in a temp dir that is removed when the process exits."""
    global _pki
    with _lock:
        if _pki is None:
            directory = Path(tempfile.mkdtemp(prefix="a2a-lab-tls-"))
            atexit.register(shutil.rmtree, directory, True)
            _pki = make_pki(directory)
        return _pki


class Handshakes:
    """What a TLS server saw of its handshakes, journaled: `hello` when a ClientHello arrives (an entry, not yet
    completed), `completed` when the handshake is done. `journal` says where entries go (None: nowhere, e.g. a
    catalogue server, whose scenario is known only from a request's path)."""

    def __init__(self, certificate: ServerCertificate, journal: Callable[[], Any] | None) -> None:
        self.certificate = certificate
        self._journal = journal
        self._open: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def hello(self, ssl_object: Any, server_name: str | None) -> None:
        if self._journal is None:
            return
        entry = self._journal().open_tls(TlsInfo(self.certificate, completed=False, server_name=server_name))
        self._open[ssl_object] = entry

    def completed(self, ssl_object: Any) -> None:
        entry = self._open.pop(ssl_object, None)
        if entry is not None and entry.tls is not None:
            entry.tls.completed = True
            entry.tls.version = ssl_object.version()
            entry.tls.client_certificate = client_certificate(ssl_object, entry.tls.client_certificate)


def client_certificate(ssl_object: Any, asked: str | None) -> str | None:
    """`verified` when the client presented a certificate the server verified, `absent` when the server asked for
    one and got none, None when it did not ask."""
    if ssl_object.context.verify_mode == ssl.CERT_NONE:
        return asked
    return "verified" if ssl_object.getpeercert() else "absent"


class LabSSLContext(ssl.SSLContext):
    """A server SSL context that knows which certificate it serves and where its handshakes are journaled."""

    handshakes: Handshakes


def server_context(
    certificate: ServerCertificate, client_certificate: bool = False, journal: Callable[[], Any] | None = None
) -> LabSSLContext:
    """A server context serving the lab leaf of that kind; with `client_certificate`, it asks for a client
    certificate (optional at the TLS level, so a client without one is seen and refused by the app, not dropped)."""
    made = pki()
    context = LabSSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert_file, key_file = made.leaves[certificate]
    context.load_cert_chain(cert_file, key_file)
    if client_certificate:
        context.verify_mode = ssl.CERT_OPTIONAL
        context.load_verify_locations(made.ca_file)
    context.handshakes = Handshakes(certificate, journal)

    def hello(ssl_object: Any, server_name: str | None, _context: ssl.SSLContext) -> None:
        context.handshakes.hello(ssl_object, server_name)

    context.sni_callback = hello
    return context


def on_connection(transport: Any) -> Any:
    """Called by the HTTP protocol when a connection is made (for TLS: once its handshake is done); the SSL object,
    or None for a plain connection."""
    ssl_object = transport.get_extra_info("ssl_object")
    if ssl_object is not None:
        context = ssl_object.context
        if isinstance(context, LabSSLContext):
            context.handshakes.completed(ssl_object)
    return ssl_object


def request_info(scope: Any) -> TlsInfo | None:
    """The TLS side of the connection that carried a request (None when it is not a lab TLS connection)."""
    transport = scope.get("extensions", {}).get(TRANSPORT_KEY)
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if ssl_object is None or not isinstance(ssl_object.context, LabSSLContext):
        return None
    return TlsInfo(
        ssl_object.context.handshakes.certificate,
        version=ssl_object.version(),
        client_certificate=client_certificate(ssl_object, None),
    )


def context_for(tls: Tls | None, journal: Callable[[], Any] | None) -> LabSSLContext | None:
    """The server context a scenario's `tls:` asks for (None: plain HTTP); its handshakes go to `journal`."""
    if tls is None:
        return None
    return server_context(tls.certificate, tls.client_certificate, journal)
