/** How a lobby entry and a member's discovery read on screen (docs/webui.md, "Rooms: Partidas en la sala"). */
import type { LobbyGame, RoomPeer } from './api/rooms';

/** docs/api.md, rooms: an entry leaves 30 s after its last announcement. The page drops it by itself too, so a
 * game whose host went quiet leaves even when no push comes. */
export const LOBBY_EXPIRY_SECONDS = 30;

const GAME_NAMES: Record<LobbyGame['game'], string> = {
  minecraft: 'Minecraft',
  quake3: 'Quake III',
  source: 'Juego de Source',
  warcraft3: 'Warcraft III',
  mdns: 'Servicio (mDNS)',
  ssdp: 'Servicio (SSDP)',
  other: 'Otro',
};

export function gameName(game: LobbyGame['game']): string {
  return GAME_NAMES[game] ?? 'Otro';
}

/** The entry's title: the game's or service's own name; an unknown announcement says where it came from. */
export function entryTitle(entry: LobbyGame): string {
  if (entry.game === 'other' || !entry.name) return `Anuncio en el puerto ${entry.port} de ${entry.user}`;
  return entry.name;
}

export function joinAddress(entry: LobbyGame): string {
  return entry.port ? `${entry.address}:${entry.port}` : entry.address;
}

export function playersText(entry: LobbyGame): string | null {
  if (entry.players == null && entry.max_players == null) return null;
  if (entry.max_players == null) return `${entry.players} jugadores`;
  return `${entry.players ?? '?'}/${entry.max_players} jugadores`;
}

export function agoText(seconds: number): string {
  if (seconds < 5) return 'ahora mismo';
  if (seconds < 60) return `hace ${Math.floor(seconds)} s`;
  if (seconds < 3600) return `hace ${Math.floor(seconds / 60)} min`;
  return `hace ${Math.floor(seconds / 3600)} h`;
}

/** Who can hear whom: what the member's server received from it since it joined the room. */
export function hearingText(peer: Pick<RoomPeer, 'heard_packets' | 'heard_seconds_ago'>, elapsed = 0): string {
  if (peer.heard_seconds_ago == null || !peer.heard_packets) return 'Anuncios: ninguno desde que entró';
  const packets = peer.heard_packets === 1 ? '1 paquete' : `${peer.heard_packets} paquetes`;
  return `Anuncios: ${packets}, el último ${agoText(peer.heard_seconds_ago + elapsed)}`;
}
