"""OpenRath's module path ``rath.backend.persistence.paths``: where sandbox records live.

Re-exported from ``rath.backend.persistence``.
"""

from rath.backend.persistence import (
    LOCAL_SUBDIR,
    OPENSANDBOX_INDEX_SUFFIX,
    OPENSANDBOX_SUBDIR,
    SANDBOXES_DIR_NAME,
    ensure_local_root,
    ensure_opensandbox_root,
    local_root,
    local_sandbox_dir,
    opensandbox_index_path,
    opensandbox_root,
    sandboxes_dir,
)

__all__ = [
    "LOCAL_SUBDIR",
    "OPENSANDBOX_INDEX_SUFFIX",
    "OPENSANDBOX_SUBDIR",
    "SANDBOXES_DIR_NAME",
    "ensure_local_root",
    "ensure_opensandbox_root",
    "local_root",
    "local_sandbox_dir",
    "opensandbox_index_path",
    "opensandbox_root",
    "sandboxes_dir",
]
