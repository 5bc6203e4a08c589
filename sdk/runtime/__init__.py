"""The client runtime: connecting, the embedded server, runs, workers. See docs/modules.md."""

from rath.runtime.client_host import install

install()
