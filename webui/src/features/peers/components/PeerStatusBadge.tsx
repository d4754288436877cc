/** 'Activo' / 'Deshabilitado' for a peer, 'Activo' / 'Inactivo' for a server; never cut short by a narrow cell. */
import { Badge } from '@mantine/core';
import { peerStatusText, serverStatusText } from '../peer-format';

export function PeerStatusBadge({ active }: { active: boolean }) {
  return (
    <Badge color={active ? 'green' : 'gray'} variant="light" miw="max-content">
      {peerStatusText(active)}
    </Badge>
  );
}

export function ServerStatusBadge({ active }: { active: boolean }) {
  return (
    <Badge color={active ? 'green' : 'red'} variant="light" miw="max-content">
      {serverStatusText(active)}
    </Badge>
  );
}
