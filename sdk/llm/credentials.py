"""API keys: resolved on the worker from references, never carried in workflow payloads.

``env:NAME``, ``local:<token>``; OpenRath's :func:`resolve_credential` (docs/providers.md,
"Credentials and fallback keys").
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from collections.abc import Iterable, Sequence

from rath.errors import ConfigError

_SECRET_SHAPES = re.compile(r"\b(sk|pk|rk|key|tok)[-_][A-Za-z0-9_\-*.]{6,}")


class CredentialVault:
    """In-memory keys of this process, by opaque token. Labelled global state: one per process."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        self._by_key: dict[str, str] = {}
        self._handed_out: set[str] = set()
        self._lock = threading.Lock()

    def register(self, key: str) -> str:
        """Keep ``key`` and return its reference ``local:<token>`` (the same key, the same ref)."""
        with self._lock:
            ref = self._by_key.get(key)
            if ref is None:
                ref = f"local:{secrets.token_hex(8)}"
                self._keys[ref] = key
                self._by_key[key] = ref
            return ref

    def resolve(self, ref: str | None, *, default_env: str) -> str | None:
        """The key a reference names, or ``None`` when the worker has none.

        Raises:
            ConfigError: A ``local:`` reference from another process.
        """
        if ref is None:
            return os.environ.get(default_env) or None
        if ref.startswith("env:"):
            return os.environ.get(ref[4:]) or None
        with self._lock:
            key = self._keys.get(ref)
        if key is None:
            raise ConfigError(
                "this worker cannot resolve the run's API key (it was given to another process "
                "as Provider(api_key=...)); set the key in the worker's environment and use "
                "Provider(api_key_env='NAME') instead"
            )
        return key

    def resolve_all(self, refs: Sequence[str], *, default_env: str | None) -> list[str]:
        """The keys ``refs`` name (else ``default_env``'s), in order, once; redacted from then on.

        Raises:
            ConfigError: A ``local:`` reference from another process.
        """
        keys: list[str] = []
        if refs:
            for ref in refs:
                key = self.resolve(ref, default_env="")
                if key is not None and key not in keys:
                    keys.append(key)
        elif default_env:
            key = os.environ.get(default_env) or None
            keys = [key] if key else []
        with self._lock:
            self._handed_out.update(keys)
        return keys

    def note_handed_out(self, key: str) -> None:
        """Redact ``key`` from error messages from now on (a key found another way)."""
        with self._lock:
            self._handed_out.add(key)

    def redact(self, text: str) -> str:
        """``text`` with every known key and anything shaped like a key replaced by ``***``."""
        with self._lock:
            known = [*self._keys.values(), *self._handed_out]
        return redact_secrets(text, [*known, *(os.environ.get(n, "") for n in _KEY_ENV_NAMES)])


def redact_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` and anything shaped like a key replaced by ``***``."""
    for secret in secrets:
        # A very short "key" (a placeholder such as "x") would garble every message.
        if len(secret) >= 6:
            text = text.replace(secret, "***")
    return _SECRET_SHAPES.sub("***", text)


_KEY_ENV_NAMES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")

VAULT = CredentialVault()
"""The process-wide vault (global state: keys registered by clients in this process)."""


def resolve_credential(*candidates: str | None, vault: CredentialVault = VAULT) -> str:
    """The first candidate that holds a key, stripped; ``""`` when none does (OpenRath's).

    Candidates are keys or references (``env:NAME``, ``local:<token>``); ``None``, blank ones
    and unset variables are skipped.

    Raises:
        ConfigError: A ``local:`` reference from another process.
    """
    for candidate in candidates:
        key = (candidate or "").strip()
        if key.startswith(("env:", "local:")):
            key = (vault.resolve(key, default_env="") or "").strip()
        if key:
            return key
    return ""
