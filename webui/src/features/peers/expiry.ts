/** How close a peer is to its expiration: days left, the short text shown beside the date, and the Home warning's
 * rule (docs/webui.md, "Expiry"). */

const DAY_MS = 24 * 60 * 60 * 1000;
/** Home warns about peers that expire within this many days (the first reminder email goes out then too). */
export const WARN_WITHIN_DAYS = 3;

export interface Expiring {
  active: boolean;
  expiration_date: string | null;
}

/** Whole days left, rounded up (36 h left is 2 days); negative once expired; null without expiration. */
export function daysLeft(expiration: string | null, nowMs: number = Date.now()): number | null {
  if (expiration === null) return null;
  const ends = new Date(expiration).getTime();
  if (Number.isNaN(ends)) return null;
  return Math.ceil((ends - nowMs) / DAY_MS);
}

export function daysLeftText(expiration: string | null, nowMs: number = Date.now()): string | null {
  const days = daysLeft(expiration, nowMs);
  if (days === null) return null;
  if (days <= 0) return 'Vencido';
  if (days === 1) return 'Queda menos de 1 día';
  return `Quedan ${days} días`;
}

/** Red within the warning window (or expired), yellow within a week, otherwise quiet. */
export function daysLeftColor(expiration: string | null, nowMs: number = Date.now()): string {
  const days = daysLeft(expiration, nowMs);
  if (days === null) return 'gray';
  if (days <= WARN_WITHIN_DAYS) return 'red';
  return days <= 7 ? 'yellow' : 'teal';
}

/** An active peer whose plan ends within WARN_WITHIN_DAYS days. */
export function expiresSoon(peer: Expiring, nowMs: number = Date.now()): boolean {
  if (!peer.active || peer.expiration_date === null) return false;
  const left = new Date(peer.expiration_date).getTime() - nowMs;
  return left > 0 && left <= WARN_WITHIN_DAYS * DAY_MS;
}

/** The renew shortcut: the plans page opens the purchase dialog on this peer. */
export function renewPath(peerId: string): string {
  return `/dashboard/plans?renew=${encodeURIComponent(peerId)}`;
}
