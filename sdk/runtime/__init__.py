"""The client runtime: connecting, the embedded server, launching and following runs, workers.

Loading it makes its :class:`~rath.runtime.client_host.ClientHost` the host of the sessions
made in this process.
"""

from rath.runtime.client_host import install

install()
