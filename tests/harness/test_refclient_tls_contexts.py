"""The reference client reuses a TLS context while the files it was built from are unchanged (a loop-mode client
makes an httpx client per scenario; loading a CA bundle each time cost it a third of its CPU), and builds a new one
as soon as a file is rewritten, so a scenario never verifies against a CA it was not given."""

from __future__ import annotations

import os
import ssl
from pathlib import Path

import pytest

from a2a_lab.harness.clients.refclient import http
from a2a_lab.harness.clients.refclient.failures import UsageFailure
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.server.tls import make_pki


def _ca_names(context: ssl.SSLContext) -> set[str]:
    return {str(rdn[0][1]) for c in context.get_ca_certs() for rdn in c["subject"] if rdn[0][0] == "commonName"}


def test_the_default_context_is_built_once() -> None:
    first, second = http.tls_context(ClientOptions()), http.tls_context(ClientOptions())
    assert first is second
    assert first.verify_mode is ssl.CERT_REQUIRED and first.check_hostname


def test_a_ca_file_is_reused_until_it_is_rewritten(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    options = ClientOptions(ca_file=str(pki.ca_file))
    first = http.tls_context(options)
    assert http.tls_context(options) is first
    old = pki.ca_file.read_bytes()
    make_pki(tmp_path)  # a new CA written to the same path
    os.utime(pki.ca_file, ns=(1, 1))  # whatever the clock's resolution, the stamp differs
    assert pki.ca_file.read_bytes() != old
    rebuilt = http.tls_context(options)
    assert rebuilt is not first
    assert _ca_names(rebuilt) == _ca_names(first)  # the same name, but a new key: only the new one is trusted
    assert rebuilt.get_ca_certs(binary_form=True) == [ssl.PEM_cert_to_DER_cert(pki.ca_file.read_text())]


def test_a_client_certificate_is_part_of_the_key(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    plain = http.tls_context(ClientOptions(ca_file=str(pki.ca_file)))
    mutual = http.tls_context(
        ClientOptions(ca_file=str(pki.ca_file), client_cert=(str(pki.client_cert_file), str(pki.client_key_file)))
    )
    assert mutual is not plain


def test_a_missing_file_is_still_a_usage_failure(tmp_path: Path) -> None:
    with pytest.raises(UsageFailure, match=r"missing\.pem"):
        http.tls_context(ClientOptions(ca_file=str(tmp_path / "missing.pem")))


def test_the_cache_is_bounded(tmp_path: Path) -> None:
    for i in range(http.CONTEXTS_KEPT + 3):
        folder = tmp_path / str(i)
        folder.mkdir()
        http.tls_context(ClientOptions(ca_file=str(make_pki(folder).ca_file)))
    assert len(http._contexts) <= http.CONTEXTS_KEPT
