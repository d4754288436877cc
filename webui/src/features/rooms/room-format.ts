/** How room values read on screen: Spanish dates and role names. */
import type { RoomRole } from './room-lists';

const dateTime = new Intl.DateTimeFormat('es-ES', { dateStyle: 'long', timeStyle: 'short' });

export function formatDateTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

export const roleText = (role: RoomRole) => (role === 'owner' ? 'Administrador' : 'Invitado');
