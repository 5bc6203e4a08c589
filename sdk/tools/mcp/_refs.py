"""Environment references: how specs name secrets without holding them.

A spec's stdio ``env`` values and HTTP ``headers`` values are *references*: a bare variable
name (``API_TOKEN``) or a template with ``${NAME}`` placeholders (``Bearer ${API_TOKEN}``).
The spec, and so workflow history, keeps only the reference; the worker substitutes its own
environment when it connects. A value with no reference at all is refused, since it could be a
literal secret on its way into history.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rath.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def is_name(text: str) -> bool:
    """Whether ``text`` is a valid environment variable name."""
    return _NAME.fullmatch(text) is not None


def normalise_reference(value: str, where: str) -> str:
    """A reference in template form: ``NAME`` becomes ``${NAME}``; templates are kept.

    Args:
        value: A variable name or a template with at least one ``${NAME}``.
        where: What the value configures (``env 'X'``, ``header 'Y'``), for the message.

    Raises:
        ValueError: The value holds no reference (it may be a literal secret).
    """
    if is_name(value):
        return "${" + value + "}"
    if _PLACEHOLDER.search(value):
        return value
    raise ValueError(
        f"{where}: values must name environment variables (NAME or a template such as "
        "'Bearer ${NAME}'), never hold literal values: specs are stored in workflow history. "
        "Set the variable in the worker's environment instead"
    )


def referenced_names(template: str) -> list[str]:
    """The variable names a template refers to, in order."""
    return _PLACEHOLDER.findall(template)


def resolve(template: str, environ: Mapping[str, str], where: str) -> str:
    """Substitute the worker's environment into a template.

    Raises:
        ConfigError: A referenced variable is not set on this worker (the message names it,
            never a value).
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise ConfigError(
                f"{where} refers to the environment variable {name!r}, which is not set on "
                "this worker; set it in the worker's environment"
            )
        return environ[name]

    return _PLACEHOLDER.sub(substitute, template)
