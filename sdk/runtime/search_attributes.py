"""Rath's search attributes on a namespace: registered when allowed. See docs/modules.md."""

from __future__ import annotations

import sys
import threading

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.service import RPCError

from rath.runtime.devserver import DEFAULT_SEARCH_ATTRIBUTES
from rath.settings import Settings

_KEYWORD = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
_warned = threading.Event()


async def usable_search_attributes(client: Client, settings: Settings) -> bool:
    """True when runs in ``client``'s namespace may carry Rath's search attributes."""
    if not settings.search_attributes:
        return False
    namespace = client.namespace
    service = client.operator_service
    try:
        listed = await service.list_search_attributes(
            ListSearchAttributesRequest(namespace=namespace)
        )
        missing = sorted(set(DEFAULT_SEARCH_ATTRIBUTES) - set(listed.custom_attributes))
        if missing:
            await service.add_search_attributes(
                AddSearchAttributesRequest(
                    namespace=namespace, search_attributes=dict.fromkeys(missing, _KEYWORD)
                )
            )
    except RPCError as exc:
        _warn_once(namespace, exc.message)
        return False
    return True


def _warn_once(namespace: str, reason: str) -> None:
    if _warned.is_set():
        return
    _warned.set()
    create = " && ".join(
        f"temporal operator search-attribute create --namespace {namespace} --name {name} "
        "--type Keyword"
        for name in DEFAULT_SEARCH_ATTRIBUTES
    )
    sys.stderr.write(
        f"rath: runs in namespace {namespace!r} go on without Rath's search attributes "
        f"(they are missing and could not be added: {reason}). To add them: {create} "
        "(or set RATH_SEARCH_ATTRIBUTES=0 to stop trying)\n"
    )
    sys.stderr.flush()
