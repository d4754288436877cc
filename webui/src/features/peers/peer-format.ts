/** How peer values read on screen: Spanish dates, prices, status words, traffic and handshake age. */

const dateTime = new Intl.DateTimeFormat('es-ES', { dateStyle: 'long', timeStyle: 'short' });

export function formatDateTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

/** docs/contract.md#peer-fields: a null expiration reads 'Indeterminado'. */
export function formatExpiration(value: string | null): string {
  return value === null ? 'Indeterminado' : formatDateTime(value);
}

export function formatPrice(value: string): string {
  return `$${value} USD`;
}

export const peerStatusText = (active: boolean) => (active ? 'Activo' : 'Deshabilitado');
/** Why a disabled peer is so, shown under its status (docs/security.md, "admin disable"). */
export function disabledReasonText(reason: 'admin' | 'expired' | null | undefined): string | null {
  if (reason === 'admin') return 'Deshabilitado por un administrador. Contacte con soporte.';
  if (reason === 'expired') return 'Plan vencido. Renuévelo para reactivarlo.';
  return null;
}
export const serverStatusText = (active: boolean) => (active ? 'Activo' : 'Inactivo');
export const roomsText = (allowed: boolean) => (allowed ? 'Sí' : 'No');

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1536 -> '1.5 KB' (powers of 1024, one decimal from KB up). */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Age of the latest handshake ('hace 42 s', 'hace 3 min', 'hace 2 h', 'hace 5 d'); 0 means there was none. */
export function formatHandshake(latestHandshake: number, nowMs: number = Date.now()): string {
  if (latestHandshake <= 0) return 'Sin conexión todavía';
  const seconds = Math.max(0, Math.round(nowMs / 1000 - latestHandshake));
  if (seconds < 60) return `hace ${seconds} s`;
  if (seconds < 3600) return `hace ${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `hace ${Math.floor(seconds / 3600)} h`;
  return `hace ${Math.floor(seconds / 86400)} d`;
}
