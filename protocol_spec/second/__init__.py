"""A second, clean-room generator of the spec's test vectors (protocol_spec/README.md).

Written from the text of ``protocol_spec/*.md`` alone: it never imports ``truc_p2p``
and uses only the standard library, ``cryptography``, ``coincurve`` and ``msgpack``.
``python -I protocol_spec/second/run.py [--check] [NAME ...]``.
"""
