/** Spanish formatting shared by the manager pages. */

const DATE_TIME = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium', timeStyle: 'short' });

export function dateTime(value: string | null | undefined, empty = '—'): string {
  if (!value) return empty;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? empty : DATE_TIME.format(date);
}

export function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let amount = value;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  return `${amount.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** "720 h" -> "30 días"; hours that are not whole days stay hours. */
export function validity(hours: number): string {
  if (hours % 24 !== 0) return `${hours} h`;
  const days = hours / 24;
  return days === 1 ? '1 día' : `${days} días`;
}

export const OPERATION_KIND: Record<string, string> = {
  create: 'Crear peer',
  regenerate: 'Regenerar',
  change_server: 'Cambiar servidor',
  disable: 'Deshabilitar',
  enable: 'Habilitar',
  remove: 'Quitar del nodo',
};
