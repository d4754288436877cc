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
  customers: Record<'ana' | 'beto' | 'carla' | 'dani' | 'eva', Customer>;
  servers: { id: string; name: string; address: string }[];
  plans: { name: string; price: string }[];
  /** Folder the control plane writes mail to (one .eml file per message). */
  outbox: string;
  captcha: { site_key: string; token: string };
  log: string;
  /** Base URLs of the fake payment gateways (their pages are the only off-loopback-address pages allowed). */
  gateways: { qvapay: string; remesita: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    harness: Harness;
  }
}

export function harness(): Harness {
  return inject('harness');
}
