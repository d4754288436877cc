// What a customer's browser transfers on a Cuban mobile link (bench/web_data.py starts the control plane and runs
// this). Debian's Chromium through playwright-core (the browser tests' copy, webui/node_modules), throttled with
// CDP's Network.emulateNetworkConditions to 1.6 Mbit/s each way and 300 ms of latency per request.
//
// Argument: the browser harness's description (tests/browser/harness.py, one line of JSON). Prints one line of
// JSON with the figures; bench/web_data.py turns them into RESULT lines.
//
// Bytes are counted as the network saw them: every HTTP answer's encoded length (headers included, as received),
// every request's headers and body, every WebSocket handshake and frame (payload plus the frame's 2-6 header bytes).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../webui/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const harness = JSON.parse(process.argv[2]);
const CHROMIUM = process.env.VPN_CHROMIUM ?? '/usr/bin/chromium';
const LINK = { offline: false, latency: 300, downloadThroughput: 1_600_000 / 8, uploadThroughput: 1_600_000 / 8 };
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 180);
const HIDDEN_SECONDS = Number(process.env.BENCH_HIDDEN_SECONDS ?? 60);
const REPORT_SECONDS = 5; // a node agent's stats cadence (node_agent/config.py, stats_interval)
const CUSTOMER = harness.customers.ana;
const ACTIVE_PEER = CUSTOMER.peers[0]; // the customer's phone, connected and moving traffic

/** Byte and request counts of one page, from CDP's Network domain. */
class Meter {
  constructor() {
    this.reset();
  }

  reset() {
    this.received = 0;
    this.sent = 0;
    this.requests = 0;
    this.cached = 0; // answered from the browser's cache: no bytes, no round trip
    this.frames = 0;
    this.urls = [];
    this.byUrl = {}; // received bytes per path (the breakdown docs/benchmarks.md quotes)
    this.pathOf = new Map(); // CDP request id -> path
  }

  /** Requests that went over the network. */
  get sentRequests() {
    return this.requests - this.cached;
  }

  get total() {
    return this.received + this.sent;
  }

  async attach(page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', LINK);
    const headerBytes = (headers) =>
      Object.entries(headers ?? {}).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
      if (request.url.startsWith('data:') || request.url.startsWith('blob:')) return;
      this.requests += 1;
      this.urls.push(`${request.method} ${new URL(request.url).pathname}`);
      this.pathOf.set(requestId, new URL(request.url).pathname);
      this.sent += (request.postData?.length ?? 0) + request.url.length + 16;
    });
    cdp.on('Network.responseReceived', ({ response }) => {
      if (response.fromDiskCache || response.fromMemoryCache || response.fromPrefetchCache) this.cached += 1;
    });
    cdp.on('Network.requestWillBeSentExtraInfo', ({ headers }) => {
      this.sent += headerBytes(headers);
    });
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      this.received += encodedDataLength;
      const path = this.pathOf.get(requestId) ?? '?';
      this.byUrl[path] = (this.byUrl[path] ?? 0) + encodedDataLength;
    });
    cdp.on('Network.webSocketCreated', ({ url }) => {
      this.requests += 1;
      this.urls.push(`WS ${new URL(url).pathname}`);
    });
    cdp.on('Network.webSocketWillSendHandshakeRequest', ({ request }) => {
      this.sent += headerBytes(request.headers) + 40;
    });
    cdp.on('Network.webSocketHandshakeResponseReceived', ({ response }) => {
      this.received += headerBytes(response.headers) + 40;
    });
    const frameBytes = (payload) => payload.length + (payload.length < 126 ? 2 : 4);
    cdp.on('Network.webSocketFrameReceived', ({ response }) => {
      this.frames += 1;
      this.received += frameBytes(response.payloadData);
    });
    cdp.on('Network.webSocketFrameSent', ({ response }) => {
      this.frames += 1;
      this.sent += frameBytes(response.payloadData) + 4; // the browser masks its frames: 4 more bytes
    });
    return cdp;
  }

  /** Waits until no request has started for `quiet` ms (trailing requests of a screen belong to it). */
  async settle(quiet = 2000) {
    let seen = -1;
    while (seen !== this.requests) {
      seen = this.requests;
      await sleep(quiet);
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const HANDSHAKE_SECONDS = 120; // WireGuard's rekey interval: an active peer's handshake is renewed every 2 minutes
const traffic = { rx: 40_000_000, tx: 900_000_000, handshake: 0 };

/**
 * The node of the customer's phone reports it, as an agent does every 5 s while the phone moves traffic (about a
 * video call's worth, as the demo's node does): counters that grow each time, a handshake renewed every 2 minutes.
 */
async function reportActivePeer() {
  const now = Math.floor(Date.now() / 1000);
  if (now - traffic.handshake >= HANDSHAKE_SECONDS) traffic.handshake = now;
  traffic.rx += 40_000;
  traffic.tx += 550_000;
  await fetch(`${harness.node_reports.control}/stats`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      customer: CUSTOMER.username,
      peer: ACTIVE_PEER,
      endpoint: '198.51.100.20:40000',
      latest_handshake: traffic.handshake,
      rx_bytes: traffic.rx,
      tx_bytes: traffic.tx,
    }),
  });
}

/**
 * The tab hidden or shown, as the browser reports it: headless Chromium never hides a page (no window to
 * minimise or cover), so the page's `document.visibilityState` is set and `visibilitychange` fired the way a
 * switched-away tab gets them. The same stand-in as the browser tests (webui/e2e/visibility.ts).
 */
async function setHidden(page, hidden) {
  await page.evaluate((value) => {
    const state = value ? 'hidden' : 'visible';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage'],
  });
  const figures = {};
  try {
    const context = await browser.newContext({ baseURL: harness.url, viewport: { width: 1280, height: 800 } });
    // Cold: an empty cache, the login page opened by address, 'Recordarme' ticked (a return visit needs it).
    const page = await context.newPage();
    const meter = new Meter();
    await meter.attach(page);
    let started = Date.now();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Iniciar sesión' }).waitFor();
    const loginShown = Date.now() - started;
    await page.getByLabel('Usuario').fill(CUSTOMER.username);
    await page.getByLabel('Contraseña', { exact: true }).fill(CUSTOMER.password);
    await page.getByLabel('Recordarme').check();
    started = Date.now();
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/dashboard/home');
    await page.getByRole('link', { name: 'Peers' }).first().waitFor();
    const homeShown = Date.now() - started;
    // The customer reads Home before going on: its calls are part of the visit (with the dashboard in one chunk,
    // a click at the first sight of the 'Peers' link cancelled Home before it asked for anything).
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    await meter.settle();
    started = Date.now();
    await page.getByRole('link', { name: 'Peers' }).first().click();
    await page.getByText(ACTIVE_PEER, { exact: true }).first().waitFor();
    const peersShown = Date.now() - started;
    await meter.settle();
    figures.cold = {
      bytes: meter.total,
      received: meter.received,
      requests: meter.sentRequests,
      waits_ms: { login: loginShown, home: homeShown, peers: peersShown },
      urls: meter.urls,
      by_url: meter.byUrl,
    };
    await page.close();

    // A return visit: the same browser (its cache, the remembered session) opens Peers by address.
    const again = await context.newPage();
    const back = new Meter();
    await back.attach(again);
    started = Date.now();
    await again.goto('/dashboard/peers');
    await again.getByText(ACTIVE_PEER, { exact: true }).first().waitFor();
    const returnShown = Date.now() - started;
    await back.settle();
    figures.return_visit = { bytes: back.total, received: back.received, requests: back.sentRequests, waits_ms: { peers: returnShown }, urls: back.urls, by_url: back.byUrl };

    // The same Peers page left open while the phone is connected: its node reports it every 5 s.
    back.reset();
    let reporting = true;
    const reports = (async () => {
      while (reporting) {
        await reportActivePeer();
        await sleep(REPORT_SECONDS * 1000);
      }
    })();
    await sleep(IDLE_SECONDS * 1000);
    figures.idle = {
      seconds: IDLE_SECONDS,
      bytes: back.total,
      frames: back.frames,
      requests: back.sentRequests,
      per_hour: Math.round((back.total * 3600) / IDLE_SECONDS),
      urls: back.urls,
    };

    // The tab hidden (another tab, the phone's screen off) for a minute, the reports going on; then shown again.
    await setHidden(again, true);
    await sleep(1000); // the page's own word that it is hidden leaves in this second
    back.reset();
    await sleep(HIDDEN_SECONDS * 1000);
    figures.hidden = { seconds: HIDDEN_SECONDS, bytes: back.total, frames: back.frames, requests: back.sentRequests };
    back.reset();
    await setHidden(again, false);
    await back.settle();
    figures.shown_again = { bytes: back.total, frames: back.frames, requests: back.sentRequests, urls: back.urls };
    reporting = false;
    await reports;
    await again.close();
    await context.close();
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(figures));
}

await main();
