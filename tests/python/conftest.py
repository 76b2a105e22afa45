"""Shared setup for the whole suite.

The testing.* functions and types (testing.echo, testing.Pair, ...) live in libtvmlite_testing.so, which
``import tvmlite.testing`` loads; import it once here so every test may look them up. Code a test runs in a child
interpreter does not get this: it imports tvmlite.testing itself.
"""
import tvmlite.testing  # noqa: F401  (loads libtvmlite_testing.so)
