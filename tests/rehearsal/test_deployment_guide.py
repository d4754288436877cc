"""docs/deployment.md followed on Debian 12 hosts booted with systemd, with the guide's own commands.

The hosts are systemd-nspawn containers (hosts.py) in network namespaces made here:

    customer (10.231.1.2) --veth-- node eth1 (10.231.1.1, the server's public address)
    node eth0 (10.231.0.2, default route) --veth-- control plane eth0 (10.231.0.1: "the internet" for the node,
                                                   nginx on 443/7443, the git server)
    customer eth1 (10.231.2.2) --veth-- control plane eth1 (10.231.2.1: the customer's browser reaches the site)

The control-plane host runs the guide's marked blocks (guide.py) as root, as an operator pastes them. The hosts
start on the previous release (releases.py) and the guide's Upgrades blocks move them to this tree, the control
plane first, with the previous release's agent connected meanwhile: the node runs this release's steps
(packaging/node-install.sh, what the manager prints) for the server the previous manager created, its agent at the
previous tag, and the one line that tree cannot follow swapped for what that release installed
(docs/deployment.md, "Rehearsed by the tests", says what this proves and what not). What stands in for
the outside world, and only that: `apt-get update` (no internet: the image holds the guide's packages), `editor`
(the operator's edits of the lines marked EDIT), `certbot` (a certificate for the name from the rehearsal's CA,
after the same webroot challenge through nginx; that CA is trusted by every host, as Let's Encrypt's is), the
placeholders YOUR.NAME, vX.Y.Z and DATE, and the public git URL (git's `insteadOf` sends it to the test's git
server). The customer's device is wg-quick with wireguard-go in its own namespace, using the file the API handed out.

Steps run in order (each test is one step of the guide and what an operator would check after it); the timings are
written to var/rehearsal/last-run/steps.txt and printed at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.rehearsal.conftest import require_rehearsal
from tests.rehearsal.releases import PREVIOUS_TAG, THIS_TAG

HERE = Path(__file__).resolve().parent
NAME = "vpn.rehearsal.test"
ADMIN = ("jefa", "jefa-ensayo-clave-1")
CUSTOMER = ("ana", "ana-ensayo-clave-1")
CP_NODE_SIDE, NODE_UPLINK = "10.231.0.1", "10.231.0.2"
NODE_PUBLIC, CUSTOMER_DEVICE = "10.231.1.1", "10.231.1.2"
CP_SITE, CUSTOMER_BROWSER = "10.231.2.1", "10.231.2.2"
TUNNEL_SUBNET = "10.66.0.0/24"
REPOSITORY = f"git://{CP_NODE_SIDE}/vpn-service.git"
SECOND_NODE = ("Nodo nuevo", "10.231.1.5", "10.67.0.0/24")  # only created: the new manager's printed steps

pytestmark = pytest.mark.rehearsal


@dataclass
class Step:
    name: str
    seconds: float
    checks: str


@dataclass
class Rehearsal:
    workdir: Path
    logs: Path
    ca: Path
    namespaces: dict[str, Any]
    images: dict[str, Path]
    cache: Path
    hosts: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    started: float = 0.0  # when the bare hosts started booting
    state: dict[str, Any] = field(default_factory=dict)
    failed: bool = False

    # --- running things ------------------------------------------------------------------------------------
    def guide(self, host: str, script: str, *, input: str | None = None, timeout: float = 600) -> str:
        """A script of the guide's on a host, with the stand-ins for the outside world defined first."""
        text = script.replace("YOUR.NAME", NAME).replace("vX.Y.Z", THIS_TAG)
        text = text.replace("vpn-DATE.", "vpn-$(date +%F).")
        prelude = (
            'apt-get() { if [ "${1:-}" = update ]; then echo "(rehearsal) apt-get update: no internet here; the image'
            ' holds the packages"; else command apt-get "$@"; fi; }\n'
            'editor() { /rehearsal/bin/editor "$@"; }\n'
            'certbot() { /rehearsal/bin/certbot "$@"; }\n'
        )
        log = self.logs / f"{len(self.steps) + 1:02d}-{host}.log"
        return self.hosts[host].run(prelude + text, input=input, timeout=timeout, log=log).stdout

    def sh(self, host: str, script: str, check: bool = True) -> str:
        return self.hosts[host].run(script, check=check).stdout

    def browser(self, method: str, path: str, body: Any = None, token: str = "", **headers: str) -> dict[str, Any]:
        """An HTTPS request from the customer's browser address (10.231.2.2) to https://NAME through nginx."""
        argv = [sys.executable, str(HERE / "browser.py"), str(self.ca), method, f"https://{NAME}{path}"]
        argv.append("-" if body is None else json.dumps(body))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        argv += [f"{k.replace('_', '-')}:{v}" for k, v in headers.items()]
        proc = self.namespaces["customer"].run(argv, timeout=60)
        answer: dict[str, Any] = json.loads(proc.stdout)
        return answer

    def admin_token(self) -> str:
        answer = self.browser("POST", "/api/admin/login", {"username": ADMIN[0], "password": ADMIN[1]})
        assert answer["status"] == 200, answer
        return str(json.loads(answer["text"])["access"])

    def record(self, name: str, since: float, checks: str) -> None:
        self.steps.append(Step(name, time.monotonic() - since, checks))


def _wait(predicate: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except AssertionError as error:
            last = error
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


# --- the world -----------------------------------------------------------------------------------------------
def _rehearsal_ca(folder: Path) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Rehearsal Public CA",
         "-keyout", str(folder / "ca.key"), "-out", str(folder / "ca.crt")],
        check=True, capture_output=True,
    )  # fmt: skip
    return folder / "ca.crt"


EDITOR = f"""#!/bin/sh
# The operator's edits (docs/deployment.md: "the lines marked EDIT").
set -eu
case "$1" in
*/controlplane.env)
    sed -i -e 's|^VPN_CLIENT_URL=.*|VPN_CLIENT_URL=https://{NAME}|' \\
        -e 's|^VPN_GRPC_PUBLIC_URL=.*|VPN_GRPC_PUBLIC_URL={NAME}:7443|' \\
        -e 's|^#\\{{0,1\\}}VPN_AGENT_REPOSITORY=.*|VPN_AGENT_REPOSITORY={REPOSITORY}|' \\
        -e 's|^#\\{{0,1\\}}VPN_AGENT_REF=.*|VPN_AGENT_REF={PREVIOUS_TAG}|' "$1"
    grep -q '^VPN_AGENT_REPOSITORY={REPOSITORY}$' "$1" && grep -q '^VPN_CLIENT_URL=https://{NAME}$' "$1"
    ;;
*) echo "rehearsal editor: the guide asks to edit $1, and the rehearsal does not know how" >&2; exit 1 ;;
esac
"""

CERTBOT = """#!/bin/bash
# certbot's stand-in: Let's Encrypt is out of reach. Like `certbot certonly --webroot`, it first proves that the name
# serves the webroot on port 80 (a token fetched through nginx), then writes the files where certbot does, signed
# by the rehearsal's CA (trusted on every host, as Let's Encrypt's is), and runs the deploy hook.
set -euo pipefail
[ "${1:-}" = certonly ] || { echo "rehearsal certbot: only 'certonly' is rehearsed" >&2; exit 1; }
shift
webroot= name= hook=
while [ $# -gt 0 ]; do
    case "$1" in
    --webroot) ;;
    -w) webroot=$2; shift ;;
    -d) name=$2; shift ;;
    --deploy-hook) hook=$2; shift ;;
    *) echo "rehearsal certbot: unknown option $1" >&2; exit 1 ;;
    esac
    shift
done
[ -n "$webroot" ] && [ -n "$name" ] || { echo "rehearsal certbot: -w and -d are needed" >&2; exit 1; }
token=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \\n')
install -d "$webroot/.well-known/acme-challenge"
echo "$token" > "$webroot/.well-known/acme-challenge/$token"
got=$(curl -fsS --resolve "$name:80:127.0.0.1" "http://$name/.well-known/acme-challenge/$token")
rm -f "$webroot/.well-known/acme-challenge/$token"
[ "$got" = "$token" ] || { echo "rehearsal certbot: the challenge was not served on port 80" >&2; exit 1; }
live=/etc/letsencrypt/live/$name
install -d -m 0700 /etc/letsencrypt /etc/letsencrypt/live "$live"
openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$live/privkey.pem" -out "$live/req.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s\\n' "$name" > "$live/san.ext"
openssl x509 -req -in "$live/req.csr" -CA /rehearsal/ca/ca.crt -CAkey /rehearsal/ca/ca.key -CAcreateserial \\
    -CAserial "$live/ca.srl" -days 2 -extfile "$live/san.ext" -out "$live/cert.pem" 2>/dev/null
cat "$live/cert.pem" /rehearsal/ca/ca.crt > "$live/fullchain.pem"
rm -f "$live/req.csr" "$live/san.ext" "$live/ca.srl"
if [ -n "$hook" ]; then sh -c "$hook"; fi
echo "Successfully received certificate (rehearsal CA) for $name"
"""


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rehearsal]:
    require_rehearsal()
    import caches
    from hosts import Host, var_dir
    from netns import Namespace, veth
    from prepare import prepare
    from releases import served_repository

    logs = var_dir() / "last-run"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    workdir = tmp_path_factory.mktemp("rehearsal")
    prepared = time.monotonic()
    images, cache = prepare(logs)
    git_root, _ = served_repository(workdir)
    ca = _rehearsal_ca(workdir / "ca")
    preparation = time.monotonic() - prepared

    # The hosts' own writes (overlay upper layers: the code, its virtualenv, node_modules) on a tmpfs: written at
    # memory speed and gone in one umount, where deleting them from disk took minutes on a busy machine.
    on_tmpfs = workdir / "hosts"
    on_tmpfs.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6g,mode=0755", "rehearsal-hosts", str(on_tmpfs)], check=True)
    made: list[Any] = []
    hosts: dict[str, Host] = {}
    daemon: subprocess.Popen[bytes] | None = None
    etc_netns: Path | None = None
    world: Rehearsal | None = None
    try:
        cp_ns, node_ns, customer_ns = Namespace("rcp"), Namespace("rnode"), Namespace("rcust")
        made += [cp_ns, node_ns, customer_ns]
        veth(cp_ns, "eth0", f"{CP_NODE_SIDE}/30", node_ns, "eth0", f"{NODE_UPLINK}/30")
        veth(node_ns, "eth1", f"{NODE_PUBLIC}/30", customer_ns, "eth0", f"{CUSTOMER_DEVICE}/30")
        veth(cp_ns, "eth1", f"{CP_SITE}/30", customer_ns, "eth1", f"{CUSTOMER_BROWSER}/30")
        node_ns.run(["ip", "route", "add", "default", "via", CP_NODE_SIDE])
        # The customer's resolver knows the site's name (what DNS does for a real customer).
        etc_netns = Path("/etc/netns") / customer_ns.name
        etc_netns.mkdir(parents=True)
        (etc_netns / "hosts").write_text(f"127.0.0.1 localhost\n{CP_SITE} {NAME}\n")
        daemon = cp_ns.popen(
            ["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={git_root}", f"--listen={CP_NODE_SIDE}"],
            stdout=subprocess.DEVNULL, stderr=(logs / "git-daemon.log").open("ab"),
        )  # fmt: skip

        bin_dir = workdir / "bin"
        bin_dir.mkdir()
        for name, text in (("editor", EDITOR), ("certbot", CERTBOT)):
            (bin_dir / name).write_text(text)
            (bin_dir / name).chmod(0o755)
        binds = [f"--bind={cache}:/rehearsal/cache", f"--bind-ro={bin_dir}:/rehearsal/bin"]
        hosts["control-plane"] = Host(
            "rh-control", images["control-plane"], cp_ns.name, on_tmpfs / "control-plane",
            binds=[*binds, f"--bind-ro={ca.parent}:/rehearsal/ca"], env=dict(caches.HOST_ENV),
        )  # fmt: skip
        hosts["node"] = Host(
            "rh-node", images["node"], node_ns.name, on_tmpfs / "node",
            binds=[*binds, "--bind=/dev/net/tun"], env=dict(caches.HOST_ENV),
        )  # fmt: skip
        for host in hosts.values():
            host.mount()
            # The rehearsal's CA among the host's public CAs (update-ca-certificates runs after boot).
            host.write("/usr/local/share/ca-certificates/rehearsal-ca.crt", ca.read_text())
        hosts["control-plane"].write(
            "/root/.gitconfig", f'[url "{REPOSITORY}"]\n\tinsteadOf = https://git.example.net/vpn-service.git\n'
        )
        hosts["node"].write("/etc/hosts", f"127.0.0.1 localhost\n{CP_NODE_SIDE} {NAME}\n")

        world = Rehearsal(
            workdir, logs, ca, {"control-plane": cp_ns, "node": node_ns, "customer": customer_ns}, images, cache, hosts
        )
        world.steps.append(
            Step("images and caches (cached after the first run)", preparation, "mmdebstrap images, uv/npm caches")
        )
        yield world
    finally:
        for host in hosts.values():  # each host's journal, for whoever reads a failure
            if host.leader:
                with contextlib.suppress(Exception):
                    journal = host.run("journalctl -b --no-pager -o short-monotonic", check=False, timeout=60).stdout
                    (logs / f"journal-{host.name}.log").write_text(journal)
            host.shutdown()
        if daemon is not None and daemon.poll() is None:
            daemon.terminate()
        for ns in reversed(made):
            ns.delete()
        if etc_netns is not None:
            shutil.rmtree(etc_netns, ignore_errors=True)
        for host in hosts.values():  # what the containers wrote to the console, kept with the logs
            if (host.workdir / "console.log").exists():
                shutil.copy(host.workdir / "console.log", logs / f"console-{host.name}.log")
        subprocess.run(["umount", "-l", str(on_tmpfs)], check=False)
        if world is not None:
            report = "\n".join(f"{s.seconds:7.1f} s  {s.name}: {s.checks}" for s in world.steps)
            (logs / "steps.txt").write_text(report + "\n")
            print("\nrehearsal steps:\n" + report)
        if os.environ.get("VPN_REHEARSAL_KEEP") != "1":
            shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(autouse=True)
def _in_order(rehearsal: Rehearsal, request: pytest.FixtureRequest) -> Iterator[None]:
    """A step after a failed one would only fail for the same reason: say so instead."""
    if rehearsal.failed:
        pytest.fail("an earlier step of the rehearsal failed", pytrace=False)
    failed_before = request.session.testsfailed
    yield
    if request.session.testsfailed > failed_before:
        rehearsal.failed = True


# --- the steps -----------------------------------------------------------------------------------------------
def test_control_plane_host_from_the_guide(rehearsal: Rehearsal) -> None:
    """Install: packages, code, web build, settings, migrations, the first admin, the unit, nginx with TLS."""
    import guide

    rehearsal.started = time.monotonic()
    booted = time.monotonic()
    seconds = rehearsal.hosts["control-plane"].boot()
    rehearsal.sh("control-plane", "update-ca-certificates >/dev/null")
    rehearsal.record("boot the control-plane host", booted, f"systemd up ({seconds:.1f} s)")

    since = time.monotonic()
    out = rehearsal.guide("control-plane", guide.block("control-plane"), input=f"{ADMIN[1]}\n", timeout=900)
    assert '"status":"ok"' in out.replace(" ", ""), out[-2000:]
    state = rehearsal.sh(
        "control-plane",
        "systemctl is-enabled vpn-controlplane nginx; systemctl is-active vpn-controlplane nginx;"
        " stat -c '%a %U' /var/lib/vpn-service/secret.key;"
        " test -f /opt/vpn-service/webui/dist/index.html && echo built",
    ).split()
    assert state == ["enabled", "enabled", "active", "active", "600", "vpn", "built"], state
    # The clone took the repository's default branch: the previous release (the upgrade step moves it on).
    assert rehearsal.sh("control-plane", "git -C /opt/vpn-service describe --tags").strip() == PREVIOUS_TAG
    rehearsal.record(
        "control plane: the guide's install block",
        since,
        f"this guide's block installing the previous release ({PREVIOUS_TAG}): readyz ok on 127.0.0.1:8000; both"
        " units enabled and active; secret.key 0600 vpn; web client built",
    )

    since = time.monotonic()
    home = rehearsal.browser("GET", "/")
    assert home["status"] == 200 and '<div id="root">' in home["text"], home
    assert rehearsal.browser("GET", "/readyz")["status"] == 200
    rehearsal.state["token"] = rehearsal.admin_token()
    for path in ("/metrics", "/metrics/"):
        assert rehearsal.browser("GET", path)["status"] == 404, path
    rehearsal.record(
        "control plane: from the customer's side",
        since,
        f"https://{NAME}/ over TLS (certificate checked) serves the web client; the admin made by create-admin logs"
        " in; /metrics and /metrics/ answer 404",
    )


def _steps_of_this_release(answer: dict[str, Any], ref: str) -> str:
    """This release's node steps (packaging/node-install.sh, what its manager prints) for a server the manager
    created: its values, its credential, the agent at `ref`."""
    from controlplane.domain.servers.install_steps import AgentSource, AgentTrust, NodeFacts, render

    server = answer["server"]
    facts = NodeFacts(
        server_id=server["id"], name=server["name"], address=server["address"], port=server["port"],
        interface=server["interface_name"], allow_partys=server["allow_partys"],
        backbone_port=server["backbone_port"], backbone_endpoint=server["backbone_endpoint"] or "",
    )  # fmt: skip
    text, _ = render(facts, answer["credential"], f"{NAME}:7443", AgentTrust("system"), AgentSource(REPOSITORY, ref))
    return text


# The one line of this release's node steps the previous release's tree cannot follow: it has no `node` dependency
# group, so its agent gets the whole set, as that release's own steps installed it.
NODE_GROUP_SYNC = "uv sync --frozen --no-dev --only-group node --compile-bytecode"
WHOLE_SYNC = "uv sync --frozen --no-dev --compile-bytecode"


def test_a_node_on_the_previous_release(rehearsal: Rehearsal) -> None:
    """The admin creates the server in the previous release's manager; a fresh host runs this release's node steps
    for it with the agent's code at the previous tag (the previous release printed steps that hard-code the kernel
    backend, which a container cannot run); the node comes online, in sync."""
    since = time.monotonic()
    token = rehearsal.state["token"]
    created = rehearsal.browser(
        "POST",
        "/api/admin/servers",
        {"name": "Nodo ensayo", "address": NODE_PUBLIC, "tunnel_subnet": TUNNEL_SUBNET, "ubication": "Ensayo"},
        token=token,
    )
    assert created["status"] == 201, created
    answer = json.loads(created["text"])
    assert answer["install_missing"] == [], answer["install_missing"]
    assert "FALTA" not in answer["install"]
    rehearsal.state["server_id"] = answer["server"]["id"]
    (rehearsal.logs / "node-install-printed-by-the-previous-release.sh").write_text(answer["install"])
    steps = _steps_of_this_release(answer, PREVIOUS_TAG)
    assert steps.count(NODE_GROUP_SYNC) == 1, steps
    steps = steps.replace(NODE_GROUP_SYNC, WHOLE_SYNC)
    (rehearsal.logs / "node-install.sh").write_text(steps)

    booted = time.monotonic()
    seconds = rehearsal.hosts["node"].boot()
    rehearsal.sh("node", "update-ca-certificates >/dev/null")
    rehearsal.record("boot the node host", booted, f"systemd up ({seconds:.1f} s)")

    since = time.monotonic()
    rehearsal.guide("node", steps, timeout=600)
    config = rehearsal.sh("node", "cat /etc/vpn-node/agent.toml; systemctl is-active vpn-node-agent")
    assert 'backend = "userspace"' in config and 'egress_interface = "eth0"' in config, config
    assert config.split()[-1] == "active"
    assert rehearsal.sh("node", "git -C /opt/vpn-service describe --tags").strip() == PREVIOUS_TAG

    def online() -> bool:
        server = _server(rehearsal)
        return bool(server["online"] and server["in_sync"] and server["backend"] == "userspace")

    _wait(online, 60, "the node online and in sync in the manager")
    rehearsal.state["agent_version"] = _server(rehearsal)["agent_version"]
    rehearsal.record(
        "node: this release's steps, the agent at the previous tag",
        since,
        f"the previous manager's answer has no FALTA; this release's steps for it, agent at {PREVIOUS_TAG}: active"
        " with backend userspace, egress eth0; the manager shows it online, in sync, backend userspace",
    )


def test_a_customers_wg_quick_tunnel_pings_through_the_node(rehearsal: Rehearsal) -> None:
    from netns import wg_quick_up

    since = time.monotonic()
    token = rehearsal.state["token"]
    registered = rehearsal.browser("PUT", "/api/client/register", {"username": CUSTOMER[0], "password": CUSTOMER[1]})
    assert registered["status"] == 201, registered
    peer = rehearsal.browser(
        "POST", "/api/admin/peers", {"username": CUSTOMER[0], "name": "movil", "server": rehearsal.state["server_id"]},
        token=token,
    )  # fmt: skip
    assert peer["status"] == 201, peer
    peer_id = json.loads(peer["text"])["id"]
    login = rehearsal.browser("POST", "/api/client/login", {"username": CUSTOMER[0], "password": CUSTOMER[1]})
    customer_token = json.loads(login["text"])["access"]
    download = rehearsal.browser("GET", f"/api/client/accounts/peers/{peer_id}", token=customer_token)
    assert download["status"] == 200 and "[Interface]" in download["text"], download
    assert f"Endpoint = {NODE_PUBLIC}:" in download["text"]
    customer = rehearsal.namespaces["customer"]
    assert not customer.ping(CP_NODE_SIDE, 1, 1), "the customer reaches the node's uplink without a tunnel"
    conf = wg_quick_up(customer, download["text"], "rhcust0", rehearsal.workdir)
    rehearsal.state.update(peer_id=peer_id, customer_token=customer_token, conf=conf, config=download["text"])
    _wait(lambda: customer.ping(CP_NODE_SIDE, 1, 1), 30, "the customer's first ping through the tunnel", 0.2)
    first_ping = time.monotonic() - rehearsal.started
    rehearsal.state["first_ping"] = first_ping
    rehearsal.record(
        "customer: wg-quick tunnel",
        since,
        f"registered through nginx, a peer made by the admin, its file downloaded; no route to {CP_NODE_SIDE} without"
        f" the tunnel, a ping through the node's NAT with it. Bare hosts to first ping: {first_ping:.0f} s",
    )


def test_upgrade_with_the_node_on_the_previous_release(rehearsal: Rehearsal) -> None:
    """The guide's upgrade block moves the control plane to this release; the node's agent stays on the previous one,
    connected throughout; the new manager prints this release's steps for the next node."""
    import guide
    from alembic.script import ScriptDirectory

    from controlplane.migrate import alembic_config
    from tests.rehearsal.releases import publish_this_release

    since = time.monotonic()
    customer = rehearsal.namespaces["customer"]
    schema = "sqlite3 /var/lib/vpn-service/vpn.sqlite3 'select version_num from alembic_version'"
    before = rehearsal.sh("control-plane", schema).strip()
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert before and before != head, (before, head)
    publish_this_release(rehearsal.workdir)
    out = rehearsal.guide("control-plane", guide.block("upgrade"), timeout=900)
    assert '"status":"ok"' in out.replace(" ", ""), out[-2000:]
    assert rehearsal.sh("control-plane", "git -C /opt/vpn-service describe --tags").strip() == THIS_TAG
    assert rehearsal.sh("control-plane", schema).strip() == head
    rehearsal.state["token"] = rehearsal.admin_token()

    def old_agent_in_sync() -> bool:
        server = _server(rehearsal)
        return bool(server["online"] and server["in_sync"])

    _wait(old_agent_in_sync, 60, "the previous release's agent back in sync")
    assert _server(rehearsal)["agent_version"] == rehearsal.state["agent_version"]
    assert rehearsal.sh("node", "git -C /opt/vpn-service describe --tags").strip() == PREVIOUS_TAG
    assert customer.ping(CP_NODE_SIDE, 3, 2), "the customer's tunnel stopped across the upgrade"

    # The next node: the new manager prints this release's steps, the agent at the new tag (VPN_AGENT_REF moved).
    name, address, subnet = SECOND_NODE
    created = rehearsal.browser(
        "POST", "/api/admin/servers",
        {"name": name, "address": address, "tunnel_subnet": subnet, "ubication": "Ensayo"},
        token=rehearsal.state["token"],
    )  # fmt: skip
    assert created["status"] == 201, created
    answer = json.loads(created["text"])
    assert answer["install_missing"] == [], answer["install_missing"]
    assert answer["install"] == _steps_of_this_release(answer, THIS_TAG), answer["install"]
    rehearsal.record(
        "upgrade",
        since,
        f"the guide's upgrade block ({PREVIOUS_TAG} -> {THIS_TAG}: fetch, checkout, sync, web build, agent ref,"
        f" migrate, restart): schema {before} -> {head}, readyz ok, the admin logs in, the agent still at"
        f" {PREVIOUS_TAG} is online and in sync, the tunnel pings; a server created now gets this release's steps at"
        f" {THIS_TAG}. Later steps run on this release with that agent (the backup's new peer reaches it)",
    )


def test_through_nginx_the_app_sees_the_customer(rehearsal: Rehearsal) -> None:
    since = time.monotonic()
    token = rehearsal.state["token"]
    audit = json.loads(rehearsal.browser("GET", "/api/admin/audit?action=server.create", token=token)["text"])
    created = [item for item in audit["items"] if item["action"].startswith("server.")]
    assert created and created[0]["ip_address"] == CUSTOMER_BROWSER, audit["items"][:3]
    # One request through each location that proxies to the app (packaging/nginx-vpn.conf).
    for method, path, body in (
        ("GET", "/", None),
        ("GET", "/api/client/status", None),
        ("GET", "/api/admin/login", None),  # POST only: the router's own 405
        ("GET", "/mirror/enlace-que-no-existe", None),
        ("GET", "/password-reset?token=ninguno", None),
        ("POST", "/api/payments/remesita/factura-ensayo?key=x", {}),
    ):
        answer = rehearsal.browser(method, path, body)
        assert answer["status"] < 500, (path, answer)
        request_id = answer["headers"].get("x-request-id", "")
        assert len(request_id) == 32 and all(c in "0123456789abcdef" for c in request_id), (path, answer["headers"])
        logged = rehearsal.sh(
            "control-plane", f"journalctl -u vpn-controlplane --no-pager -o cat | grep -c {request_id} || true"
        )
        assert int(logged.strip() or 0) >= 1, f"{path}: nginx's request id {request_id} is not in the app's log"
    rehearsal.record(
        "nginx passes the customer",
        since,
        f"the audit entry of the server's creation names {CUSTOMER_BROWSER}; on /, /api (a 405 too), /mirror,"
        " /password-reset and /api/payments the answer's X-Request-ID is nginx's $request_id and the app logged it",
    )


def test_restarts_and_a_node_reboot_lose_nothing(rehearsal: Rehearsal) -> None:
    since = time.monotonic()
    customer = rehearsal.namespaces["customer"]
    rehearsal.sh("control-plane", "systemctl restart vpn-controlplane")
    rehearsal.sh(
        "control-plane", "curl -fsS --retry 30 --retry-delay 1 --retry-connrefused http://127.0.0.1:8000/readyz"
    )
    assert customer.ping(CP_NODE_SIDE, 3, 2), "the tunnel stopped while the control plane restarted"
    rehearsal.sh("node", "systemctl restart vpn-node-agent")
    assert customer.ping(CP_NODE_SIDE, 3, 2), "the tunnel stopped while the agent restarted"

    node = rehearsal.hosts["node"]
    node.run("systemctl reboot", check=False)
    assert node.wait_stopped(60) in (0, 133)
    node.boot()

    def synced() -> bool:
        server = _server(rehearsal)
        return bool(server["online"] and server["in_sync"])

    _wait(synced, 90, "the node back online after its reboot")
    _wait(lambda: customer.ping(CP_NODE_SIDE, 1, 1), 60, "the customer's tunnel through the rebooted node", 0.5)
    peers = rehearsal.browser("GET", "/api/client/accounts/peers", token=rehearsal.state["customer_token"])
    again = rehearsal.browser(
        "GET", f"/api/client/accounts/peers/{rehearsal.state['peer_id']}", token=rehearsal.state["customer_token"]
    )
    assert peers["status"] == 200 and again["text"] == rehearsal.state["config"]
    rehearsal.record(
        "restarts and a node reboot",
        since,
        "pings go on through restarts of both services; after the node's reboot the agent starts by itself, the node is"
        " back in sync and the customer's unchanged file pings again",
    )


def _server(rehearsal: Rehearsal) -> dict[str, Any]:
    path = f"/api/admin/servers/{rehearsal.state['server_id']}"
    answer: dict[str, Any] = json.loads(rehearsal.browser("GET", path, token=rehearsal.state["token"])["text"])
    return answer


def _node_peers(rehearsal: Rehearsal) -> set[str]:
    return set(rehearsal.sh("node", "wg show all peers | awk '{print $2}'").split())


def test_backup_then_restore(rehearsal: Rehearsal) -> None:
    """A peer made after the backup is gone from the database and from the node once the backup is restored."""
    import guide

    since = time.monotonic()
    customer = rehearsal.namespaces["customer"]
    rehearsal.guide("control-plane", guide.block("backup-sqlite"))
    before = _node_peers(rehearsal)
    body = {"username": CUSTOMER[0], "name": "tableta", "server": rehearsal.state["server_id"]}
    later = rehearsal.browser("POST", "/api/admin/peers", body, token=rehearsal.state["token"])
    assert later["status"] == 201, later
    _wait(lambda: len(_node_peers(rehearsal)) == len(before) + 1, 30, "the new peer on the node")

    rehearsal.guide("control-plane", guide.block("restore"))
    rehearsal.sh(
        "control-plane", "curl -fsS --retry 30 --retry-delay 1 --retry-connrefused http://127.0.0.1:8000/readyz"
    )
    rehearsal.state["token"] = rehearsal.admin_token()
    names = [p["name"] for p in json.loads(rehearsal.browser(
        "GET", "/api/client/accounts/peers", token=rehearsal.state["customer_token"])["text"])]  # fmt: skip
    assert names == ["movil"], names
    _wait(lambda: _node_peers(rehearsal) == before, 60, "the node back to the restored peers")
    assert customer.ping(CP_NODE_SIDE, 3, 2), "the customer's tunnel stopped across the restore"
    rehearsal.record(
        "backup and restore (SQLite)",
        since,
        "the guide's backup while serving; a peer made after it; the guide's restore: the peer is gone from the"
        " customer's list and from the node's WireGuard, the customer's session and tunnel still work",
    )


def test_the_node_upgraded_last(rehearsal: Rehearsal) -> None:
    """The guide's node upgrade block: the agent moves to this release, keeps its key and its peers, and the node's
    environment keeps only the agent's dependencies (the previous release's steps had installed the whole set)."""
    import guide

    since = time.monotonic()
    customer = rehearsal.namespaces["customer"]
    peers = _node_peers(rehearsal)
    key = rehearsal.sh("node", "cat /var/lib/vpn-node/private.key")
    control_plane_only = "test -d /opt/vpn-service/.venv/lib/python3.11/site-packages/litestar && echo yes || echo no"
    assert rehearsal.sh("node", control_plane_only).strip() == "yes"
    rehearsal.guide("node", guide.block("upgrade-node"))
    assert rehearsal.sh("node", "git -C /opt/vpn-service describe --tags").strip() == THIS_TAG
    assert rehearsal.sh("node", control_plane_only).strip() == "no"

    def in_sync() -> bool:
        server = _server(rehearsal)
        return bool(server["online"] and server["in_sync"] and server["backend"] == "userspace")

    _wait(in_sync, 60, "the upgraded agent online and in sync")
    assert rehearsal.sh("node", "cat /var/lib/vpn-node/private.key") == key
    assert _node_peers(rehearsal) == peers
    assert customer.ping(CP_NODE_SIDE, 3, 2), "the customer's tunnel stopped across the agent's upgrade"
    rehearsal.record(
        "node upgrade",
        since,
        f"the guide's node block ({PREVIOUS_TAG} -> {THIS_TAG}): the control plane's packages gone from the node's"
        " environment, the agent back online and in sync with the same key and peers, the tunnel pings",
    )
