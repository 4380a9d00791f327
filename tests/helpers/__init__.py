"""Helpers shared by the tests: one module per part (``helpers.protocol``,
``helpers.net``, ...) and ``helpers.matrix`` for the fast loop's matrices."""
