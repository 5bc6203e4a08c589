"""``Workflow``: a composable agent module, like ``torch.nn.Module``. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Self

from rath.budget import Budget
from rath.flow.agent_param import AgentParam, indent_tail
from rath.session.chunk import ChunkRow
from rath.session.host import current_host
from rath.session.session import Session
from rath.session.table_ref import TableRef

__all__ = ["Workflow"]

_STATE_PROVIDER_FIELDS = ("model", "base_url", "api_key_env", "provider_kind")


class Workflow:
    """Base class of agent modules: subclasses define ``forward`` (``__init__`` call optional)."""

    _agents: dict[str, AgentParam]
    _children: dict[str, Workflow]
    _budget: Budget | None
    #: True for modules whose call starts its own durable run (``Agent``, ``Compressor``):
    #: calling them never wraps them in a durable ``forward``.
    _runs_itself: ClassVar[bool] = False
    _rath_workflow: ClassVar[bool] = True  # what the worker registry accepts
    _is_agent: ClassVar[bool] = False  # listed in a forward's summary

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Make the module with empty registries, recording its constructor arguments."""
        # Recorded so a worker can rebuild this module for a durable forward (see _spec.py).
        module = super().__new__(cls)
        object.__setattr__(module, "_init_args", (args, kwargs))
        # Made here, as OpenRath allows, so an __init__ that never calls (or calls last)
        # super().__init__() can still assign agents and children.
        object.__setattr__(module, "_agents", {})
        object.__setattr__(module, "_children", {})
        object.__setattr__(module, "_budget", None)
        return module

    def __init__(self) -> None:
        """Keep the registries ``__new__`` made (a subclass may call this last)."""

    def with_budget(self, budget: Budget | None = None, **limits: Any) -> Self:
        """Give this module's durable runs one budget, shared by every agent they start."""
        object.__setattr__(self, "_budget", budget or Budget(**limits))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        registries = self.__dict__.get("_agents"), self.__dict__.get("_children")
        if isinstance(value, AgentParam | Workflow):
            if registries[0] is None or registries[1] is None:
                raise AttributeError(
                    f"cannot assign {type(value).__name__} {name!r} before "
                    f"Workflow.__init__() call; add super().__init__() to "
                    f"{type(self).__name__}.__init__"
                )
            self._check_name(name)
        for registry in registries:
            if registry is not None:
                registry.pop(name, None)
        if isinstance(value, AgentParam):
            self._agents[name] = value
        elif isinstance(value, Workflow):
            self._children[name] = value
            value._on_registered(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._agents.pop(name, None)
        self._children.pop(name, None)
        object.__delattr__(self, name)

    def _check_name(self, name: str) -> None:
        if not name or "." in name:
            raise KeyError(f"module name {name!r} must be non-empty and contain no '.'")

    def _on_registered(self, name: str) -> None:
        """Hook: called when this module is assigned to a parent attribute ``name``."""

    # -- running --------------------------------------------------------------------------

    def forward(self, session: Session) -> Session:
        """Compute the output session. Subclasses must override this."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def __call__(self, session: Session, *args: Any, **kwargs: Any) -> Session:
        """Run :meth:`forward` durably and return its (lazy) output session at once."""
        if self._runs_itself:
            return self.forward(session, *args, **kwargs)
        out: Session = current_host().run_forward(self, session, args, kwargs)
        return out

    # -- walking --------------------------------------------------------------------------

    def named_children(self) -> tuple[tuple[str, Workflow], ...]:
        """Direct child modules, in assignment order."""
        return tuple(self._children.items())

    def named_workflows(self, prefix: str = "") -> Iterator[tuple[str, Workflow]]:
        """This module and every descendant, with dotted names (this one is ``prefix``)."""
        seen: set[int] = set()
        stack: list[tuple[str, Workflow]] = [(prefix, self)]
        while stack:
            name, module = stack.pop(0)
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            stack.extend(
                (f"{name}.{child_name}" if name else child_name, child)
                for child_name, child in module._children.items()
            )

    def named_agents(self, *, recurse: bool = True) -> tuple[tuple[str, AgentParam], ...]:
        """Every registered ``AgentParam`` with its dotted name, sorted by name."""
        found: dict[str, AgentParam] = {}
        modules = self.named_workflows() if recurse else iter([("", self)])
        for module_name, module in modules:
            for name, param in module._agents.items():
                found[f"{module_name}.{name}" if module_name else name] = param
        return tuple(sorted(found.items()))

    def get_submodule(self, target: str) -> Workflow:
        """The descendant at dotted path ``target`` (``""`` is this module).

        Raises:
            AttributeError: No such child; the message names the missing part.
        """
        module = self
        for part in filter(None, target.split(".")):
            child = module._children.get(part)
            if child is None:
                raise AttributeError(f"{type(module).__name__} has no child workflow {part!r}")
            module = child
        return module

    # -- state ----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Every agent's prompt rows and provider settings (never API keys), by dotted name."""
        state: dict[str, Any] = {}
        for name, param in self.named_agents():
            rows = param.agent_session.table.inline_rows() or ()
            state[f"{name}.agent_session"] = [row.model_dump(mode="json") for row in rows]
            provider = param.provider
            state[f"{name}.provider"] = {
                field: getattr(provider, field) for field in _STATE_PROVIDER_FIELDS
            } | {"options": provider.sampling_options()}
        return state

    def load_state_dict(
        self, state: dict[str, Any], *, strict: bool = True
    ) -> tuple[list[str], list[str]]:
        """Load agent prompts saved by :meth:`state_dict`.

        Raises:
            KeyError: ``strict`` and some keys are missing or unexpected (all are listed).
        """
        agents = dict(self.named_agents())
        expected = {f"{name}.agent_session" for name in agents} | {
            f"{name}.provider" for name in agents
        }
        missing = sorted(expected - state.keys())
        unexpected = sorted(state.keys() - expected)
        if strict and (missing or unexpected):
            raise KeyError(f"state_dict mismatch: missing {missing}, unexpected {unexpected}")
        for name, param in agents.items():
            rows = state.get(f"{name}.agent_session")
            if rows is not None:
                param.agent_session = Session(
                    table=TableRef.inline(*(ChunkRow.model_validate(row) for row in rows))
                )
        return missing, unexpected

    # -- display --------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """Extra text shown inside this module's repr parentheses."""
        return ""

    def __repr__(self) -> str:
        """Torch-style: this module's agents sorted by name (as OpenRath), then its children."""
        agents = sorted(self._agents.items(), key=lambda item: item[0])
        members: list[tuple[str, object]] = [*agents, *self._children.items()]
        lines = [f"  ({name}): {indent_tail(repr(member))}" for name, member in members]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        return "\n".join([f"{type(self).__name__}({extra}", *lines, ")"])

    __str__ = __repr__
