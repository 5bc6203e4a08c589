"""OpenRath's module path ``rath.utils.decoding``: decoding a subprocess's output.

Re-exported from ``rath.utils``.
"""

from rath.utils import decode_subprocess_output

__all__ = ["decode_subprocess_output"]
