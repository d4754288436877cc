/** Links into the peers screen: `?mover={peer id}` opens that peer's change-server screen (Home's next step for a
 * peer whose server is offline). */
export const MOVE_PARAM = 'mover';

export function changeServerPath(peerId: string): string {
  return `/dashboard/peers?${MOVE_PARAM}=${encodeURIComponent(peerId)}`;
}
