"""The commonest errors of the operating system in the player's language: a joiner
whose host is gone reads "connexion refusée", not trio's English "all attempts to
connect to ... failed" inside a French sentence."""

from __future__ import annotations

import errno
import os

import pytest
import trio
from helpers.net import free_port

from truc_p2p.i18n import speaking
from truc_p2p.net._join_game import Redialer
from truc_p2p.net._notice import os_error_facts
from truc_p2p.ui import notice_text


def test_trios_summary_is_told_by_its_first_cause() -> None:
    refused = OSError(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))
    summary = OSError("all attempts to connect to 127.0.0.1:9 failed")
    summary.__cause__ = ExceptionGroup("all attempts", [refused])
    assert os_error_facts(summary) == {"error": "Connection refused", "errno": "ECONNREFUSED"}
    assert os_error_facts(OSError("no such thing")) == {"error": "no such thing"}


async def test_a_refused_redial_is_said_in_french() -> None:
    heard: list[str] = []
    redialer = Redialer("127.0.0.1", free_port(), on_notice=heard.append)
    redialer.waiting_until(trio.current_time() + 60.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(redialer.next_stream)
        with trio.move_on_after(6.0):
            while not heard:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    (notice,) = heard
    assert "(Connection refused)" in notice  # the library's English is the system's
    with speaking("fr"):
        text = notice_text(notice)
    assert "(connexion refusée)" in text and "all attempts" not in text


@pytest.mark.parametrize("lang", ["ca", "es", "et", "fr", "gd", "gu", "is", "oc", "uk"])
def test_every_language_says_each_known_error(lang: str) -> None:
    from truc_p2p.i18n import _
    from truc_p2p.ui._outcome_text import OS_ERRORS

    with speaking(lang):
        words = {_(msgid) for msgid in OS_ERRORS.values()}
    assert not words & set(OS_ERRORS.values())  # each one translated
