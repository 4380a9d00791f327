"""Helpers shared by every test directory (each directory's own helpers sit beside its
tests as ``<part>_helpers.py``)."""
