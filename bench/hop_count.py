"""How many project files one regenerate walks through, from the customer's request to the owner's push.

Issue 32 measures "file-to-file hops": how far a newcomer must follow one operation. This tool measures it on a
real run, not by reading: the real app (in process, SQLite in a temporary folder), the agents' real gRPC server on
a Unix socket, a scripted agent answering every operation with ok (tests/multiprocess/scripted_agent.py) and the
owner's browser tab as an inbox on the push hub. Between the customer's `PATCH .../peers/{id}` with
`operation=regenerate` and the `updated_peer` push that shows it settled, every Python call is seen
(sys.setprofile):

- a *call hop*: a function in project file A calls (or awaits) one in project file B, A != B, library frames in
  between skipped (a controller reached through Litestar counts as called from the nearest project frame, if any);
- a *hand-off*: a function starts with no project frame below it (an asyncio task, a bus subscriber, the gRPC
  stream's next message, an after-commit hook): it is counted as a hop from the project file that ran last.

The figures are the distinct (from file, to file) pairs of each kind and the distinct project files that ran.
Project files are those under controlplane/, node_agent/ and protos/ (this tool, the tests and the libraries are
not). A coroutine resumed after an await is not a new call. The run is deterministic up to timing: a background
task waking inside the window (none is started: jobs are off) would add hand-offs; run it twice if in doubt.

Run (from the repository root; a few seconds):

    .venv/bin/python bench/hop_count.py            # the figures
    .venv/bin/python bench/hop_count.py --list     # and every hop, in the order first taken

Today's figure is in docs/architecture.md ("One operation: a customer regenerates a peer's keys").
"""

from __future__ import annotations

import argparse
import asyncio
import dis
import inspect
import sys
import tempfile
import threading
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from litestar.testing import AsyncTestClient  # noqa: E402

from controlplane.app import create_app  # noqa: E402
from controlplane.migrate import upgrade  # noqa: E402
from controlplane.nodes.servicer import NodeControlServicer, start_grpc_server  # noqa: E402
from controlplane.services import build_services  # noqa: E402
from tests.api.conftest import make_settings  # noqa: E402
from tests.api.factories import bearer, login, make_peer, make_server, make_user  # noqa: E402
from tests.api.test_rooms import Inbox  # noqa: E402
from tests.multiprocess.scripted_agent import ScriptedAgent  # noqa: E402

PROJECT = tuple(str(REPO / part) + "/" for part in ("controlplane", "node_agent", "protos"))
PEERS = "/api/client/accounts/peers"
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class HopRecorder:
    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = {}  # (from, to) -> order first seen
        self.handoffs: dict[tuple[str, str], int] = {}
        self.files: dict[str, int] = {}
        self.active = False
        self._last = threading.local()  # per thread: the app runs in the test client's portal thread
        self._first_resume: dict[CodeType, int] = {}
        self._order = 0

    def _project(self, filename: str) -> str | None:
        return filename[len(str(REPO)) + 1 :] if filename.startswith(PROJECT) else None

    def _is_resume(self, frame: FrameType) -> bool:
        """A coroutine or generator going on after a yield or an await: not a call."""
        code = frame.f_code
        if not code.co_flags & _GENERATOR_FLAGS:
            return False
        start = self._first_resume.get(code)
        if start is None:
            start = next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), 0)
            self._first_resume[code] = start
        return frame.f_lasti > start

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or not self.active:
            return
        here = self._project(frame.f_code.co_filename)
        if here is None or self._is_resume(frame):
            return
        self._order += 1
        self.files.setdefault(here, self._order)
        caller = frame.f_back
        while caller is not None and self._project(caller.f_code.co_filename) is None:
            caller = caller.f_back
        if caller is not None:
            source = self._project(caller.f_code.co_filename)
            if source is not None and source != here:
                self.calls.setdefault((source, here), self._order)
        else:
            last = getattr(self._last, "file", None)
            if last is not None and last != here:
                self.handoffs.setdefault((last, here), self._order)
        self._last.file = here


async def regenerate_once(recorder: HopRecorder, folder: Path, url: str) -> None:
    services = build_services(make_settings(url, folder))
    app = create_app(services=services)
    # The test client serves the app from a thread of its own, started now: it is traced too.
    threading.setprofile(recorder.profile)
    sys.setprofile(recorder.profile)
    async with AsyncTestClient(app=app, base_url="http://testserver.local") as client:
        server = await make_server(services, "Miami 1", "10.8.0.0/24")
        async with services.sessionmaker.begin() as db:
            credential = await services.servers.reissue_credential(db, server.id)
        ana = await make_user(services, "ana")
        peer = await make_peer(services, ana, "movil", server)
        headers = bearer(await login(client, "ana"))
        target = f"unix:{folder / 'grpc.sock'}"
        grpc_server = await start_grpc_server(NodeControlServicer(services.agent_sessions, services.agents), target)
        agent = ScriptedAgent(target, server.id, credential, retry_seconds=0.05)
        inbox = Inbox()
        try:
            agent.start()
            await agent.wait_full_state(1)
            await _settled(client, headers)  # the agent's answer to its full state ended the peer's creation
            services.hub.attach(ana.id, inbox)
            # A first regenerate outside the window: caches, lazy imports and statements built once are warm.
            await _regenerate(client, headers, peer.id, inbox)
            recorder.active = True
            try:
                await _regenerate(client, headers, peer.id, inbox)
            finally:
                recorder.active = False
        finally:
            await agent.stop()
            await grpc_server.stop(grace=0.5)
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    await services.close()


async def _settled(client: AsyncTestClient[Any], headers: dict[str, str]) -> None:
    for _ in range(1000):
        peers = (await client.get(PEERS, headers=headers)).json()
        if not any(p["processing"] for p in peers):
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the peer stayed busy")


async def _regenerate(client: AsyncTestClient[Any], headers: dict[str, str], peer_id: str, inbox: Inbox) -> None:
    inbox.clear()
    answer = await client.patch(f"{PEERS}/{peer_id}", json={"operation": "regenerate"}, headers=headers)
    assert answer.status_code == 202, answer.text
    for _ in range(1000):
        settled = [m for m in inbox.of("updated_peer") if not m["data"]["processing"]]
        if settled:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"no settled updated_peer push; got {inbox.types()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print every hop in the order first taken")
    args = parser.parse_args()
    recorder = HopRecorder()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'hops.sqlite3'}"
        upgrade(url)  # outside the loop: the migrations run their own
        asyncio.run(regenerate_once(recorder, Path(tmp), url))
    hops = len(recorder.calls) + len(recorder.handoffs)
    if args.list:
        marked = [(o, "call", pair) for pair, o in recorder.calls.items()]
        marked += [(o, "hand-off", pair) for pair, o in recorder.handoffs.items()]
        for _order, kind, (source, target) in sorted(marked):
            print(f"{kind:9} {source} -> {target}")
        print()
        for name in sorted(recorder.files, key=recorder.files.__getitem__):
            print(f"file      {name}")
        print()
    print(
        f"regenerate: {hops} file-to-file hops ({len(recorder.calls)} calls, {len(recorder.handoffs)} hand-offs) "
        f"in {len(recorder.files)} files"
    )


if __name__ == "__main__":
    main()
