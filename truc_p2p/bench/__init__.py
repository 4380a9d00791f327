"""The ``truc-p2p bench`` sub-commands: deck, game and text benchmarks."""
