/** What tests/browser/harness.py prints once it serves: the control plane's address and the seeded data. */
import { inject } from 'vitest';

export interface Account {
  username: string;
  password: string;
}

export interface Customer extends Account {
  alias: string | null;
  peers: string[];
}

export interface Harness {
  url: string;
  admin: Account;
  customers: Record<
    'ana' | 'beto' | 'carla' | 'dani' | 'eva' | 'fran' | 'hugo' | 'ines' | 'julia' | 'kiko' | 'lola' | 'memo' | 'nico' | 'olga' | 'pepe' | 'rita' | 'saul',
    Customer
  >;
  servers: { id: string; name: string; address: string }[];
  plans: { name: string; price: string }[];
  /** Folder the control plane writes mail to (one .eml file per message). */
  outbox: string;
  captcha: { site_key: string; token: string };
  log: string;
  /** Base URLs of the fake payment gateways (their pages are the only off-loopback-address pages allowed). */
  gateways: { qvapay: string; remesita: string };
  /** The same control plane opened as http://localhost:PORT (no VPN_CLIENT_URL is set: it follows the bind). */
  localhost_url: string;
  /** The same control plane through a proxy on [::1]:PORT that can refuse, stall or cut the live socket alone. */
  socket_proxy: { url: string; control: string };
  /** Usage seeded in the current UTC hour for one customer's peer (bytes). */
  usage: { customer: 'ana'; peer: string; download: number; upload: number };
  /** The scripted agents' control address: POST /stats, /discovery (a peer's node reports it), /stop, /start, /hold,
   * /release (tests/browser/harness.py, NodeReports). */
  node_reports: { control: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    harness: Harness;
  }
}

export function harness(): Harness {
  return inject('harness');
}
