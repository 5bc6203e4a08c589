"""Model endpoints over real TLS (a relay on 127.0.0.1): the SDKs' aiohttp transport trusts
the CA named by ``SSL_CERT_FILE``, and says so when it cannot verify the certificate."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from tls_relay import make_pki, tls_relay
from wires import WIRES, complete, fake_server, provider_for

from rath.llm import ProviderError
from rath.testing import text_reply


@pytest.mark.parametrize("wire", WIRES)
def test_a_tls_endpoint_is_trusted_through_ssl_cert_file(
    wire: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pki = make_pki(tmp_path)
    with fake_server(wire, [text_reply("over tls")] * 2) as server:
        plain = urlsplit(server.base_url)
        with tls_relay(plain.netloc, pki) as relay:
            url = server.base_url.replace(f"http://{plain.netloc}", f"https://{relay}")
            provider = provider_for(wire, url)
            # Not trusted yet: the failure names the certificate, and may be retried.
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
            with pytest.raises(ProviderError) as info:
                complete(provider)
            assert info.value.error_type == "LLMConnectionError"
            assert "certificate verify failed" in str(info.value)
            monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))
            assert complete(provider).content == "over tls"
