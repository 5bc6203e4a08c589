"""The memory plane's backends: ``local`` (files under the data dir) and ``openviking``."""
