"""Played games on disk: records, the games list, replay, export, matches."""
