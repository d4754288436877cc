/** The game-connect client version this web build knows, and the comparison that decides the update notice. */

/**
 * The client version shipped alongside this web build. The home page shows the update notice when
 * `GET /api/client/agent` reports a newer one. Set `VITE_KNOWN_CLIENT_VERSION` at build time to change it.
 */
export const KNOWN_CLIENT_VERSION: string = import.meta.env.VITE_KNOWN_CLIENT_VERSION || '1.0.0';

/** Numeric comparison of dotted versions ('1.10.0' > '1.9.2'); a leading 'v' and suffixes like '-beta' are ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    version
      .trim()
      .replace(/^v/i, '')
      .split(/[-+]/)[0]!
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const left = parts(a);
  const right = parts(b);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export function isNewerClient(reported: string | null | undefined, known: string = KNOWN_CLIENT_VERSION): boolean {
  return !!reported && compareVersions(reported, known) > 0;
}
