"""A custom bot, in a few dozen lines, that joins a host through the public API.

    truc-p2p host --bot heuristic                  # prints an invite: truc://...
    python examples/custom_bot.py 'truc://...'     # this bot joins and plays it

A strategy is any object with ``async choose(game, legal) -> Action``;
``game`` is the bot's own view of the rules engine (its hand, the table, the
scores), ``legal`` the actions it may take.  ``join_game`` does the rest:
connection, key check against the invite, signatures, deck, transcript.
"""

from __future__ import annotations

import argparse
import sys

import trio

from truc_p2p.identity import Identity
from truc_p2p.net import Clocks, GameSettings, SessionOptions, Storage, join_game
from truc_p2p.rules import Action, ActionKind, Game


class HighCardBot:
    """Plays its strongest card; accepts a raise only holding a 7 or an 8; never raises."""

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        assert game.view is not None
        hand = game.hand(game.view) or ()
        strong = any(card.strength >= 6 for card in hand)  # a 7 or an 8
        kinds = {action.kind for action in legal}
        if ActionKind.ACCEPT in kinds:  # "2 more?" or "my rest" is pending
            return Action.ACCEPT if strong else Action.REFUSE
        if ActionKind.DECLINE_REDEAL in kinds:
            return Action.DECLINE_REDEAL
        plays = [a for a in legal if a.kind is ActionKind.PLAY and a.card is not None]
        return max(plays, key=lambda a: a.card.strength if a.card else -1)


async def main(invite: str, out: str) -> int:
    outcome = await join_game(
        invite,
        HighCardBot(),
        identity=Identity.ephemeral().key,
        settings=GameSettings(
            session=SessionOptions(name="highcard"), clocks=Clocks(turn_timeout=30)
        ),
        storage=Storage(out_dir=out),
    )
    print(outcome.summary())
    return outcome.exit_code


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("invite", help="the host's invite, truc://HOST:PORT/?fp=...")
    parser.add_argument("--out", default="games", help="transcript directory (default games/)")
    args = parser.parse_args()
    sys.exit(trio.run(main, args.invite, args.out))
