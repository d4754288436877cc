/** A node's live status: disconnected, online, or still applying queued changes. */
import { Badge } from '@mantine/core';
import type { ServerStatus } from '../../api/manager';

export function StatusBadge({ server }: { server: ServerStatus }) {
  if (!server.online) return <Badge color="gray">Desconectado</Badge>;
  return server.in_sync ? <Badge color="green">En línea</Badge> : <Badge color="yellow">Sincronizando</Badge>;
}
