"""rath.llm.credentials.resolve_credential: OpenRath's "first candidate holding a key wins"."""

from __future__ import annotations

import pytest

from rath.errors import ConfigError
from rath.llm.credentials import CredentialVault, resolve_credential


def test_the_first_non_empty_stripped_candidate_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RATH_TEST_UNSET", raising=False)
    monkeypatch.setenv("RATH_TEST_KEY", "  sk-from-env  ")
    assert resolve_credential(None, "", "   ", "  sk-explicit \n", "sk-later") == "sk-explicit"
    assert resolve_credential(None, "env:RATH_TEST_UNSET", "env:RATH_TEST_KEY") == "sk-from-env"


def test_local_references_resolve_in_the_vault_they_were_registered_in() -> None:
    vault = CredentialVault()
    ref = vault.register("sk-held-in-memory")
    assert resolve_credential(None, ref, vault=vault) == "sk-held-in-memory"
    with pytest.raises(ConfigError, match="cannot resolve"):
        resolve_credential(ref, vault=CredentialVault())


def test_no_key_at_all_is_an_empty_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RATH_TEST_UNSET", raising=False)
    assert resolve_credential(None, " ", "env:RATH_TEST_UNSET") == ""
    assert resolve_credential() == ""
