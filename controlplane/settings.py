"""Settings read from the environment once, at start-up.

Every `VPN_` name and its default is below; docs/deployment.md shows them in use."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

import msgspec

DEFAULT_VAR_DIR = Path("var")
# The built web client beside this program, wherever it is started from (VPN_WEBUI_DIST overrides it).
DEFAULT_WEBUI_DIST = Path(__file__).resolve().parent.parent / "webui" / "dist"
DEFAULT_HTTP_BIND = "127.0.0.1:8000"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def client_url_for_bind(bind: str) -> str:
    """The address a browser on this machine opens when `VPN_CLIENT_URL` is not set (docs/deployment.md, client
    URL): the bind's own host and port, with a wildcard bind (`0.0.0.0`, `::`) shown as 127.0.0.1."""
    host, _, port = bind.rpartition(":")
    host = host.strip("[]")
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}" if port == "80" else f"http://{host}:{port}"


def default_origins(client_url: str) -> tuple[str, ...]:
    """Origins the live socket accepts when `VPN_ALLOWED_ORIGINS` is not set: the client URL's, and for a client
    on loopback every loopback spelling of the same port (a newcomer types `localhost` as often as 127.0.0.1)."""
    parts = urlsplit(client_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    host = parts.netloc.rsplit(":", 1)[0] if not parts.netloc.endswith("]") else parts.netloc
    if host not in LOOPBACK_HOSTS:
        return (origin,)
    port = f":{parts.port}" if parts.port else ""
    return (origin, *(f"{parts.scheme}://{other}{port}" for other in LOOPBACK_HOSTS if other != host))


class PasswordHashing(msgspec.Struct, frozen=True):
    """argon2id cost (docs/security.md, "Password hashing"): OWASP's first configuration, 46 MiB, one pass, one lane.

    Its memory is what makes a stolen hash expensive to guess on GPUs; its single pass keeps one login at about a
    sixth of RFC 9106's 64 MiB, three passes, four lanes (used until session 15), so a burst of 200 logins fits in
    its wait on two cores. One lane: hashes run one per core already, so more lanes only queue in the kernel.
    Hashes made with the old cost are rehashed at the owner's next login."""

    time_cost: int = 1
    memory_cost_kib: int = 46 * 1024
    parallelism: int = 1
    # Hashes computed at once (0: one per core): each takes a core and its memory, so more only queue in the kernel.
    concurrent: int = 0
    # How long a login may wait for its turn before it is refused with 429, and how many may wait at once
    # (docs/security.md, "Login storms"): 200 logins at once on 2 cores are all served within the wait.
    queue_seconds: float = 30.0
    max_waiting: int = 1000


HASHING = PasswordHashing()


class RateLimit(msgspec.Struct, frozen=True):
    attempts: int
    window_seconds: int


class RateLimits(msgspec.Struct, frozen=True):
    # Failed logins to one account from one address before each further try waits (30 s, doubling); per address,
    # failed logins to any accounts (spraying). docs/security.md, "Logins".
    login_per_account: RateLimit = RateLimit(5, 3600)
    login_per_address: RateLimit = RateLimit(50, 300)
    # With a captcha configured: failed logins to one account from any address before every further try on that
    # account needs a solved captcha (the owner solves it and gets in; a guesser with many addresses pays per try).
    login_captcha_per_account: RateLimit = RateLimit(3, 3600)
    # A signed-in customer: verification emails sent by changing the address, and wrong current passwords (password
    # change, closing other sessions, deleting the account) before each further try waits (30 s, doubling). Counted
    # per session, never per account, so a stolen session's guesses never keep the owner's session out; per address
    # with room for more than one session can fail in its hour (about 11). docs/security.md, "Settings".
    verification_emails_per_account: RateLimit = RateLimit(5, 3600)
    password_checks_per_session: RateLimit = RateLimit(5, 3600)
    password_checks_per_address: RateLimit = RateLimit(30, 3600)
    register_per_address: RateLimit = RateLimit(10, 3600)
    recovery_per_account: RateLimit = RateLimit(3, 3600)
    recovery_per_address: RateLimit = RateLimit(20, 3600)
    # Mirror fetches per token: the bound device's (or every device's, with the binding off), and apart, those of any
    # other device of a bound link, so a stranger holding the link cannot spend the owner's.
    mirror_per_token: RateLimit = RateLimit(30, 60)
    mirror_others_per_token: RateLimit = RateLimit(30, 60)
    invoices_per_user: RateLimit = RateLimit(20, 3600)  # payment pages opened at the gateways
    # Guessing: unknown mirror tokens from one address (a scraper), then every mirror request from it is refused.
    mirror_misses_per_address: RateLimit = RateLimit(20, 600)
    # Single-use links (password reset, email verification) and refresh tokens presented from one address.
    tokens_per_address: RateLimit = RateLimit(120, 600)
    # WebSocket handshakes from one address (each checks a token against the database).
    socket_handshakes_per_address: RateLimit = RateLimit(120, 60)
    # Unsigned payment notifications (QvaPay's webhook as its SDK describes it) from one address: each one costs a
    # question to the gateway. Roomy, since QvaPay's own servers send every customer's from a few addresses.
    payment_hints_per_address: RateLimit = RateLimit(60, 60)
    # A customer coming back "canceled" from a gateway makes us read the payment back (docs/payments.md, "Coming
    # back"); the return URL can be replayed by anyone who saw it, so those read-backs are counted per invoice.
    payment_returns_per_invoice: RateLimit = RateLimit(5, 600)
    # Payment links (docs/payments.md, "Payment links"): reads of a link's page from one address (also what
    # bounds guessing tokens), and payments started from one address and through one link (each opens an invoice
    # at a gateway).
    payment_link_reads_per_address: RateLimit = RateLimit(60, 600)
    payment_link_payments_per_address: RateLimit = RateLimit(10, 3600)
    payment_link_payments_per_link: RateLimit = RateLimit(10, 3600)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str
    redis_url: str | None = None
    redis_prefix: str = "vpn:"  # channels and keys; lets several deployments (or test runs) share one Redis
    product_name: str = "VPN Service"
    support_url: str = ""
    client_url: str = client_url_for_bind(DEFAULT_HTTP_BIND)
    captcha_provider: str = "hcaptcha"
    captcha_site_key: str = ""
    captcha_secret: str = ""
    captcha_verify_url: str = "https://api.hcaptcha.com/siteverify"
    smtp_url: str = ""
    mail_from: str = "no-reply@localhost"
    secret_key_file: Path = DEFAULT_VAR_DIR / "secret.key"
    http_bind: str = DEFAULT_HTTP_BIND
    grpc_bind: str = "127.0.0.1:50051"
    grpc_public_url: str = "127.0.0.1:50051"  # what agents dial (shown in the install steps)
    grpc_tls_cert: str = ""
    grpc_tls_key: str = ""
    # A unix socket the agents' server listens on besides grpc_bind, plaintext; no environment variable sets it. The
    # demo's real node runs in a network namespace of its own, whose 127.0.0.1 is not this one: a TCP VPN_GRPC_BIND on
    # loopback cannot reach it, the socket file (shared across namespaces) does.
    grpc_local_socket: str = ""
    # Agents' streams not yet authenticated, from one address and in all (nodes/agent_port.py): raise them only
    # where many agents share one address.
    grpc_unauthenticated_per_address: int = 4
    grpc_unauthenticated_total: int = 32
    webui_dist: Path = DEFAULT_WEBUI_DIST
    allowed_origins: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    access_token_minutes: int = 15
    refresh_token_days_remember: int = 30
    refresh_token_days_session: int = 1
    max_body_bytes: int = 64 * 1024
    password_hashing: PasswordHashing = HASHING
    rate_limits: RateLimits = RateLimits()
    # Live sockets: open at once from one address (per process; CGNAT puts many customers behind one address),
    # and messages a socket may send a minute (the client only pings).
    socket_connections_per_address: int = 50
    socket_messages_per_minute: int = 60
    run_jobs: bool = True
    run_grpc: bool = True
    operation_timeout_seconds: float = 60.0
    expiry_interval_seconds: float = 30.0  # how often the expiry job looks for peers past their date
    reminder_interval_seconds: float = 300.0  # how often the reminder job looks for peers about to expire
    database_pool: bool = True
    log_format: str = "text"  # "json": one JSON object per line, for log collectors
    log_level: str = "INFO"
    metrics_token: str = ""  # "" = /metrics answers only to loopback clients not coming through the proxy
    # Where a new node fetches the agent's code (the install steps on the manager pages): a git URL and the tag,
    # branch or commit to check out (the version this control plane runs). "" = not set: the steps say so.
    agent_repository: str = ""
    agent_ref: str = ""
    # What the install steps tell agents to trust: "", "none", "system" or a PEM file (install_steps.agent_trust).
    agent_tls_ca: str = ""
    # Payment gateways (docs/payments.md): credentials, base URLs (tests point them at local fakes), timeouts.
    qvapay_app_id: str = ""
    qvapay_app_secret: str = ""
    qvapay_base_url: str = "https://api.qvapay.com/v2"
    remesita_api_key: str = ""
    remesita_api_secret: str = ""
    remesita_business_unit_id: str = ""
    remesita_base_url: str = "https://api.remesita.com/rest/v1"
    remesita_sandbox: bool = False
    payments_timeout_seconds: float = 15.0
    invoice_ttl_hours: int = 24
    # Peers one room may hold (docs/settings.md): the relay makes one copy per other member of every discovery
    # packet, so a room's size bounds its fan-out.
    room_max_members: int = 32

    @property
    def captcha_enabled(self) -> bool:
        return bool(self.captcha_secret)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env

        def get(name: str, default: str = "") -> str:
            return env.get(f"VPN_{name}", default).strip()

        var_dir = Path(get("VAR_DIR", str(DEFAULT_VAR_DIR)))
        http_bind = get("HTTP_BIND", DEFAULT_HTTP_BIND)
        client_url = (get("CLIENT_URL") or client_url_for_bind(http_bind)).rstrip("/")
        origins = tuple(o.strip().rstrip("/") for o in get("ALLOWED_ORIGINS").split(",") if o.strip())
        return cls(
            database_url=get("DATABASE_URL", f"sqlite+aiosqlite:///{var_dir / 'vpn.sqlite3'}"),
            redis_url=get("REDIS_URL") or None,
            redis_prefix=get("REDIS_PREFIX", "vpn:"),
            product_name=get("PRODUCT_NAME") or "VPN Service",
            support_url=get("SUPPORT_URL"),
            client_url=client_url,
            captcha_provider=get("CAPTCHA_PROVIDER", "hcaptcha").lower(),
            captcha_site_key=get("CAPTCHA_SITE_KEY"),
            captcha_secret=get("CAPTCHA_SECRET"),
            captcha_verify_url=get("CAPTCHA_VERIFY_URL", "https://api.hcaptcha.com/siteverify"),
            smtp_url=get("SMTP_URL"),
            mail_from=get("MAIL_FROM", "no-reply@localhost"),
            secret_key_file=Path(get("SECRET_KEY_FILE", str(var_dir / "secret.key"))),
            http_bind=http_bind,
            grpc_bind=get("GRPC_BIND", "127.0.0.1:50051"),
            grpc_public_url=get("GRPC_PUBLIC_URL") or get("GRPC_BIND", "127.0.0.1:50051"),
            grpc_tls_cert=get("GRPC_TLS_CERT"),
            grpc_tls_key=get("GRPC_TLS_KEY"),
            grpc_unauthenticated_per_address=int(get("GRPC_UNAUTHENTICATED_PER_ADDRESS", "4")),
            grpc_unauthenticated_total=int(get("GRPC_UNAUTHENTICATED_TOTAL", "32")),
            webui_dist=Path(get("WEBUI_DIST")) if get("WEBUI_DIST") else DEFAULT_WEBUI_DIST,
            allowed_origins=origins or default_origins(client_url),
            trusted_proxies=tuple(p.strip() for p in get("TRUSTED_PROXIES").split(",") if p.strip()),
            operation_timeout_seconds=float(get("OPERATION_TIMEOUT", "60")),
            expiry_interval_seconds=float(get("EXPIRY_INTERVAL", "30")),
            reminder_interval_seconds=float(get("REMINDER_INTERVAL", "300")),
            log_format=get("LOG_FORMAT", "text").lower(),
            log_level=get("LOG_LEVEL", "INFO").upper(),
            metrics_token=get("METRICS_TOKEN"),
            agent_repository=get("AGENT_REPOSITORY"),
            agent_ref=get("AGENT_REF"),
            agent_tls_ca=get("AGENT_TLS_CA"),
            qvapay_app_id=get("QVAPAY_APP_ID"),
            qvapay_app_secret=get("QVAPAY_APP_SECRET"),
            qvapay_base_url=get("QVAPAY_BASE_URL", "https://api.qvapay.com/v2").rstrip("/"),
            remesita_api_key=get("REMESITA_API_KEY"),
            remesita_api_secret=get("REMESITA_API_SECRET"),
            remesita_business_unit_id=get("REMESITA_BUSINESS_UNIT_ID"),
            remesita_base_url=get("REMESITA_BASE_URL", "https://api.remesita.com/rest/v1").rstrip("/"),
            remesita_sandbox=get("REMESITA_SANDBOX").lower() in ("1", "true", "yes"),
            # argon2id's cost (docs/security.md, "Password hashing"): a host with little memory may lower it;
            # hashes made with other parameters still verify and are remade with these at the next login.
            password_hashing=PasswordHashing(
                time_cost=int(get("ARGON2_TIME_COST", str(HASHING.time_cost))),
                memory_cost_kib=int(get("ARGON2_MEMORY_KIB", str(HASHING.memory_cost_kib))),
                parallelism=int(get("ARGON2_PARALLELISM", str(HASHING.parallelism))),
                queue_seconds=float(get("LOGIN_QUEUE_SECONDS", str(HASHING.queue_seconds))),
            ),
            payments_timeout_seconds=float(get("PAYMENTS_TIMEOUT", "15")),
            invoice_ttl_hours=int(get("INVOICE_TTL_HOURS", "24")),
            room_max_members=int(get("ROOM_MAX_MEMBERS", "32")),
        )
