"""Import each of Rath's modules first, in a process of its own: ``python tests/import_alone.py``.

A fresh interpreter per module took most of the suite's time (about 1.2 s of CPU each, 308
modules), nearly all of it in third-party imports. So one parent process first learns which
third-party modules Rath loads (importing all of Rath in a forked child), imports those, and
then forks one child per Rath module: each child imports that module as the first Rath module
of its process. That checks what "imports alone" is about here: Rath's own import order (a
module that works only after another Rath module was imported, a cycle, a lazy export that
fails). A Rath module that reaches a third-party submodule it never imported would pass here;
ruff and mypy see those.

Prints ``<module>\\t<last lines of its error>`` for each module that failed, then
``checked <n> modules``; exits 1 if any failed.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import sys
import traceback

PARALLEL = 2


def rath_modules() -> list[str]:
    """Every module of the ``rath`` package (imports the package itself, only)."""
    import rath

    names = ["rath", *(info.name for info in pkgutil.walk_packages(rath.__path__, "rath."))]
    return sorted(set(names))


def _forked(work: str) -> tuple[int, int]:
    """Fork a child that runs ``work`` (``list`` or a module name); its pid and output fd."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    os.close(read)
    status = 0
    try:
        if work == "--list":
            modules = rath_modules()
            for name in modules:
                importlib.import_module(name)
            third = [n for n in sys.modules if n.split(".")[0] != "rath" and n != "__main__"]
            out = "\n".join(modules) + "\n--\n" + "\n".join(third)
        else:
            importlib.import_module(work)
            out = ""
    except BaseException:
        status, out = 1, traceback.format_exc()[-800:]
    os.write(write, out.encode())
    os._exit(status)


def _collect(pid: int, fd: int) -> tuple[int, str]:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return status, b"".join(chunks).decode()


def main() -> int:
    """Check every module; print the failures."""
    status, listing = _collect(*_forked("--list"))
    if status:
        print(f"(importing all of rath)\t{listing}")
        return 1
    names, third = listing.split("\n--\n")
    for name in third.split("\n"):
        # A private third-party module that cannot load on its own is not Rath's concern.
        with contextlib.suppress(BaseException):
            importlib.import_module(name)
    loaded = [n for n in sys.modules if n.split(".")[0] == "rath"]
    assert not loaded, f"a third-party import loaded {loaded}"
    failed = 0
    modules = names.split("\n")
    while modules:
        batch, modules = modules[:PARALLEL], modules[PARALLEL:]
        for name, (status, error) in zip(
            batch, [_collect(*fork) for fork in [_forked(name) for name in batch]], strict=True
        ):
            if status:
                failed += 1
                print(f"{name}\t{error}")
    print(f"checked {len(names.splitlines())} modules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
