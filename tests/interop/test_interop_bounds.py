"""The runner reads the peer's folder within bounds (issue 46, ``interop.md`` §5
"Bounds"): a named pipe, a link to ``/dev/zero``, a huge file or a link loop in
``TRUC_OUT`` cannot hang or exhaust the runner, a peer cannot pass by copying the
runner's own transcripts, and the frame proxy never buffers towards a frame
longer than the protocol allows."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from helpers.interop import REFERENCE

from truc_p2p.interop._peer_files import MAX_TRANSCRIPT_BYTES, peer_transcripts
from truc_p2p.interop._proxy import FrameProxy

#: Every variant first plants something in TRUC_OUT, then plays as the reference peer.
PLANTS = {
    # a reader blocks on a pipe nobody writes
    "fifo": 'mkfifo "$TRUC_OUT/a.truc"',
    # reading it whole never ends (MemoryError)
    "devzero": 'ln -s /dev/zero "$TRUC_OUT/a.truc"',
    # a sparse file longer than any transcript
    "huge": 'truncate -s 9G "$TRUC_OUT/a.truc"',
}


def _interop(peer: str, work: Path, case: str = "basic") -> dict[str, object]:
    """``truc-p2p interop`` as its own process, at most 2 GiB of address space and
    120 s: a runner that reads without bounds fails here instead of taking the
    machine with it."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    argv = [sys.executable, "-m", "truc_p2p", "interop", "--peer", peer, "--json"]
    argv += ["--case", case, "--role", "host", "--work", str(work), "--timeout", "30"]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=120, preexec_fn=limit, check=False
    )
    assert done.stdout, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout)["cases"][0]
    return result


@pytest.mark.slow
@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_what_a_peer_plants_in_its_folder_does_not_stop_the_runner(
    tmp_path: Path, plant: str
) -> None:
    result = _interop(f"{PLANTS[plant]}; exec {REFERENCE}", tmp_path / "work")
    assert result["result"] == "pass", result  # its real transcript is found and judged


@pytest.mark.slow
def test_a_peer_cannot_pass_by_copying_the_runners_transcripts(tmp_path: Path) -> None:
    """The peer plays, keeps its own transcript elsewhere and copies what it finds in
    the runner's folder beside its own (or links it) into TRUC_OUT."""
    copier = (
        'out="$TRUC_OUT"; mkdir -p "$out/../mine"; TRUC_OUT="$out/../mine" '
        f"{REFERENCE}; rc=$?; "
        'for f in "$out"/../runner/*.truc; do cp "$f" "$out/"; ln "$f" "$out/l-$(basename "$f")"; '
        "done; exit $rc"
    )
    result = _interop(copier, tmp_path / "work")
    assert result["result"] == "fail", result
    assert "no transcript" in str(result["detail"])
    # the runner's own transcripts are still where interop.md says, once judged
    assert list((tmp_path / "work" / "basic-host" / "runner").glob("*.truc"))


def test_the_reader_refuses_links_pipes_devices_huge_files_and_the_runners_own(
    tmp_path: Path,
) -> None:
    out = tmp_path / "peer"
    out.mkdir()
    runner = tmp_path / "runner.truc"
    runner.write_bytes(b"TRUC-P2P transcript v1\n")
    os.mkfifo(out / "a.truc")
    (out / "b.truc").symlink_to("/dev/zero")
    with (out / "c.truc").open("wb") as f:
        f.truncate(MAX_TRANSCRIPT_BYTES + 1)
    os.link(runner, out / "d.truc")
    (out / "loop").symlink_to(out)
    found, notes = peer_transcripts(out, {"00" * 32}, [runner])
    assert found == {}
    text = "\n".join(notes)
    assert "a.truc: not a regular file" in text
    assert "b.truc: Too many levels of symbolic links" in text
    assert "c.truc: longer than a transcript may be" in text
    assert "d.truc: it is the runner's own transcript" in text


async def test_the_proxy_closes_a_link_that_announces_an_oversize_frame() -> None:
    """A frame header announcing 4 GiB - 1 bytes: the proxy closes at once instead of
    buffering towards it (wire.md §1: at most the maximum envelope)."""
    got: list[bytes] = []

    async def upstream(stream: trio.SocketStream) -> None:
        while data := await stream.receive_some(65536):
            got.append(data)

    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, upstream, listeners)
        port = listeners[0].socket.getsockname()[1]
        proxy = FrameProxy("127.0.0.1", port, client_is_runner=False)
        listen_port = await nursery.start(proxy.serve)
        peer = await trio.open_tcp_stream("127.0.0.1", listen_port)
        await peer.send_all(bytes(4) + (0xFFFFFFFF).to_bytes(4, "big") + b"x" * 60000)
        with trio.fail_after(5):
            while True:
                try:
                    if not await peer.receive_some(100):
                        break
                except trio.BrokenResourceError:
                    break
        assert proxy.stats.oversize == 1
        assert b"".join(got) == bytes(4)  # the heartbeat before it went through
        await peer.aclose()
        nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_the_runner_never_writes_through_links_the_peer_plants(tmp_path: Path) -> None:
    """The peer knows the case folder's layout: links it puts at ``runner/`` (and
    where ``peer.stdout`` is) are not followed when the runner writes its files."""
    trap = tmp_path / "trap"
    trap.mkdir()
    planter = (
        f'ln -s "{trap}" "$TRUC_OUT/../runner"; '
        f'rm -f "$TRUC_OUT/../peer.stdout"; ln -s "{trap}/out" "$TRUC_OUT/../peer.stdout"; '
        f"exec {REFERENCE}"
    )
    result = _interop(planter, tmp_path / "work")
    assert result["result"] == "pass", result
    assert list(trap.iterdir()) == []
    runner = tmp_path / "work" / "basic-host" / "runner"
    assert not runner.is_symlink() and list(runner.glob("*.truc"))
