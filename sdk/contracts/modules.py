"""How a ``Workflow`` reaches a worker: class by name, arguments as JSON. See docs/modules.md."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from pydantic import BaseModel

from rath.contracts.runs import ModuleSpec
from rath.errors import ConfigError
from rath.llm.provider import Provider, ProviderSpec, provider_from_spec
from rath.memory import MemoryStore, memory_spec
from rath.utils.targets import class_target, import_option, import_target

Encoder = Any  # a callable Provider -> ProviderSpec (client-side, resolves secrets)


def module_spec(module: Any, encode_provider: Encoder) -> ModuleSpec:
    """The spec that rebuilds ``module`` on a worker.

    Raises:
        ConfigError: A constructor argument cannot be sent (the message names it).
    """
    cls = type(module)
    args, kwargs = module.__dict__.get("_init_args", ((), {}))
    init_args, init_kwargs = encode_call(args, kwargs, encode_provider, f"{cls.__name__}(...)")
    return ModuleSpec(target=class_target(cls), init_args=init_args, init_kwargs=init_kwargs)


def encode_call(
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    encode_provider: Encoder,
    where: str,
    *,
    first: int = 0,
) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments as tagged JSON (the inverse of :func:`decode_call`).

    An error names ``where`` and the argument: its position (counted from ``first``) or its key.
    """
    positional = [
        encode(value, encode_provider, f"{where} argument {i}")
        for i, value in enumerate(args, first)
    ]
    named = {
        key: encode(value, encode_provider, f"{where} argument {key!r}")
        for key, value in kwargs.items()
    }
    return positional, named


def encode(value: Any, encode_provider: Encoder, where: str) -> Any:
    """``value`` as tagged JSON (see docs/modules.md)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Provider):
        if value.on_budget_exceeded is not None:
            raise ConfigError(
                f"{where}: a Provider's on_budget_exceeded callback cannot run on a worker; "
                "drop it from the provider given to a Workflow"
            )
        spec: ProviderSpec = encode_provider(value)
        return {"$provider": spec.model_dump(mode="json")}
    if isinstance(value, BaseModel):
        return {"$model": class_target(type(value)), "data": value.model_dump(mode="json")}
    if isinstance(value, MemoryStore):  # a store travels as its description (MemorySpec)
        return encode(memory_spec(value), encode_provider, where)
    if isinstance(value, PurePath):
        return {"$path": str(value)}
    if isinstance(value, list | tuple):
        items = [encode(item, encode_provider, f"{where}[{i}]") for i, item in enumerate(value)]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {
            "$dict": {k: encode(v, encode_provider, f"{where}[{k!r}]") for k, v in value.items()}
        }
    raise ConfigError(
        f"{where} is a {type(value).__name__}, which cannot be sent to the worker that runs "
        "the durable forward; pass plain data (str, numbers, lists, dicts, paths, pydantic "
        "models, Provider) and build other objects inside __init__"
    )


def decode(value: Any) -> Any:
    """The inverse of :func:`encode` (run on the worker)."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$provider" in value:
        return provider_from_spec(ProviderSpec.model_validate(value["$provider"]))
    if "$model" in value:
        model = import_target(value["$model"])
        return model.model_validate(value["data"])
    if "$path" in value:
        return Path(value["$path"])
    if "$tuple" in value:
        return tuple(decode(item) for item in value["$tuple"])
    return {key: decode(item) for key, item in value["$dict"].items()}


def decode_call(args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Decoded positional and keyword arguments."""
    return [decode(value) for value in args], {key: decode(v) for key, v in kwargs.items()}


_classes: dict[str, type] = {}
_lock = threading.Lock()


def register_workflow_class(cls: type) -> str:
    """Allow workers in this process to run ``cls.forward``; returns its target name."""
    if not (isinstance(cls, type) and getattr(cls, "_rath_workflow", False)):
        raise ConfigError(f"{cls!r} is not a rath.flow.Workflow subclass")
    target = class_target(cls)
    with _lock:
        _classes[target] = cls
    return target


def register_workflow_target(target: str) -> type:
    """Import ``"package.module:ClassName"`` and register it (the worker CLI's ``--workflows``).

    Raises:
        ConfigError: The target is malformed, cannot be imported, or is not a Workflow.
    """
    cls = import_option("--workflows", target, "package.module:ClassName")
    register_workflow_class(cls)
    return cls  # type: ignore[no-any-return]


def registered_workflow_class(target: str) -> type | None:
    """The class registered under ``target``, or ``None``."""
    with _lock:
        found = _classes.get(target)
        module, _, qualname = target.partition(":")
        if found is None and module == "__main__":
            same_name = [cls for key, cls in _classes.items() if key.endswith(f":{qualname}")]
            found = same_name[0] if len(same_name) == 1 else None
        return found


def registered_targets() -> tuple[str, ...]:
    """Every registered target, sorted."""
    with _lock:
        return tuple(sorted(_classes))
