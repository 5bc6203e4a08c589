"""Temporal workflow definitions: deterministic code only (no I/O, clock, randomness, env)."""
