"""Backends that run relay modules: the debug executor (numpy references)."""
