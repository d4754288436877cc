/** 'Activo' / 'Deshabilitado' for a peer, 'Activo' / 'Inactivo' for a server. */
import { Badge } from '@mantine/core';
import { peerStatusText, serverStatusText } from '../peer-format';

export function PeerStatusBadge({ active }: { active: boolean }) {
  return (
    <Badge color={active ? 'green' : 'gray'} variant="light">
      {peerStatusText(active)}
    </Badge>
  );
}

export function ServerStatusBadge({ active }: { active: boolean }) {
  return (
    <Badge color={active ? 'green' : 'red'} variant="light">
      {serverStatusText(active)}
    </Badge>
  );
}
