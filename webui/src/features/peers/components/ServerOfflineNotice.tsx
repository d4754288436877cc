/**
 * A full-width banner under a peer whose server is offline: the server's own words on what that means for the
 * customer (the view's `server_notice`), the server recommended for a move (`GET /api/client/network/{peer id}`)
 * and a button that opens the change-server screen.
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useRequest } from '../../../lib/use-request';
import { fetchAvailableServers, type Peer } from '../api/peers';
import { serverLabel } from '../server-label';

interface Props {
  peer: Peer;
  busy: boolean;
  onChangeServer: (peer: Peer) => void;
}

export function ServerOfflineNotice({ peer, busy, onChangeServer }: Props) {
  const { state } = useRequest((signal) => fetchAvailableServers(peer.id, signal));
  const recommended = state.status === 'success' ? state.data.find((server) => server.recommended) : undefined;
  const none = state.status === 'success' && !recommended;
  return (
    <Alert
      color="orange"
      variant="light"
      p="xs"
      icon={<IconPlugConnectedX size={16} />}
      title={`Servidor fuera de línea: ${peer.server ? serverLabel(peer.server) : ''}`}
      data-testid="server-offline-notice"
      data-peer={peer.name}
    >
      <Stack gap={6}>
        <Text size="sm">{peer.server_notice}</Text>
        <Group gap="xs" justify="space-between" wrap="wrap">
          {recommended && (
            <Text size="sm" data-testid="recommended-server">
              Servidor recomendado: <b>{serverLabel(recommended)}</b>
            </Text>
          )}
          {none && (
            <Text size="sm" c="dimmed">
              Ahora no hay otro servidor en línea que admita este peer: espere a que el suyo vuelva.
            </Text>
          )}
          {!none && (
            <Button size="xs" disabled={busy} onClick={() => onChangeServer(peer)}>
              Cambiar de servidor
            </Button>
          )}
        </Group>
      </Stack>
    </Alert>
  );
}
