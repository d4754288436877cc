/** 'Cambiar Servidor': the servers a peer may move to (`GET /api/client/network/{peer id}`), each selectable and
 * named by its name and location, never by its address. */
import { Alert, Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowLeft } from '@tabler/icons-react';
import { useEffect } from 'react';
import { LoadingState } from '../../../components/LoadingState';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { useRequest } from '../../../lib/use-request';
import { fetchAvailableServers, type Peer, type ServerOption } from '../api/peers';
import { roomsText } from '../peer-format';
import { serverLabel } from '../server-label';
import { ServerStatusBadge } from './PeerStatusBadge';

const LOAD_ERROR = 'Hubo un error al intentar obtener los servidores disponibles.';

/** '12 peers · 3 conectados'; an offline server's connected figure would be stale, so it shows its peers only. */
export function loadText(server: ServerOption): string {
  const peers = server.peers ?? 0;
  const placed = `${peers} ${peers === 1 ? 'peer' : 'peers'}`;
  if (server.online === false) return placed;
  const connected = server.connected_peers ?? 0;
  return `${placed} · ${connected} ${connected === 1 ? 'conectado' : 'conectados'}`;
}

interface Props {
  peer: Peer;
  busy: boolean;
  onBack: () => void;
  onSelect: (server: ServerOption) => void;
}

export function ChangeServerView({ peer, busy, onBack, onSelect }: Props) {
  const { state } = useRequest((signal) => fetchAvailableServers(peer.id, signal));
  const failure = state.status === 'error' ? errorMessage(state.error, LOAD_ERROR) : null;
  useEffect(() => {
    if (failure) toast.error(failure);
  }, [failure]);

  return (
    <Stack>
      <Group>
        <Button variant="subtle" leftSection={<IconArrowLeft size={16} />} onClick={onBack}>
          Volver a Peers
        </Button>
      </Group>
      <Title order={3}>Cambiar servidor del peer {peer.name}</Title>
      {peer.server && (
        <Text size="sm" c="dimmed">
          Servidor actual: {serverLabel(peer.server)}
        </Text>
      )}
      {state.status === 'loading' && <LoadingState text="Cargando servidores disponibles..." />}
      {failure && <Alert color="red">{failure}</Alert>}
      {state.status === 'success' && state.data.length === 0 && (
        <Text c="dimmed" data-testid="only-server">
          Su peer ya está en el único servidor disponible por ahora. Cuando haya más servidores, podrá elegirlos aquí.
        </Text>
      )}
      {state.status === 'success' && state.data.length > 0 && (
        <ServerTable servers={state.data} disabled={busy} onSelect={onSelect} />
      )}
    </Stack>
  );
}

const COMPACT_QUERY = '(max-width: 991.98px)';

function ServerTable({
  servers,
  disabled,
  onSelect,
}: {
  servers: ServerOption[];
  disabled: boolean;
  onSelect: (server: ServerOption) => void;
}) {
  const showRooms = servers.some((server) => server.allow_partys);
  // Under 992 px (a phone, or a tablet beside the navigation) the server's status, load, location and rooms go
  // under its address, so 'Seleccionar' stays on screen (docs/webui.md, "Every screen fits").
  const compact = useMediaQuery(COMPACT_QUERY, undefined, { getInitialValueInEffect: false });
  const someOffline = servers.some((server) => server.online === false);
  return (
    <Stack gap="xs">
      {servers.some((server) => server.recommended) && (
        <Text size="sm" c="dimmed">
          «Recomendado» marca el servidor en línea con menos carga que admite su peer tal como está (con salas si
          está en una).
        </Text>
      )}
      {someOffline && (
        <Text size="sm" c="dimmed">
          Los servidores fuera de línea no se pueden elegir hasta que vuelvan a estar en línea.
        </Text>
      )}
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Servidor</Table.Th>
            {!compact && (
              <>
                <Table.Th>Estado</Table.Th>
                <Table.Th>Carga</Table.Th>
                <Table.Th>Ubicación</Table.Th>
                {showRooms && <Table.Th>Salas</Table.Th>}
              </>
            )}
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {servers.map((server) => (
            <Table.Tr key={server.id} data-testid="server-row">
              <Table.Td>
                <Stack gap={4} align="flex-start">
                  <Group gap={6}>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {server.name}
                    </Text>
                    {server.recommended && (
                      <Badge color="teal" variant="light" miw="max-content" data-testid="recommended">
                        Recomendado
                      </Badge>
                    )}
                  </Group>
                  {compact && (
                    <>
                      <Group gap={6}>
                        <Text size="sm">{server.ubication}</Text>
                        <ServerStatusBadge server={server} showSync />
                      </Group>
                      <Text size="xs" c="dimmed">
                        {loadText(server)}
                        {showRooms && ` · Salas: ${roomsText(Boolean(server.allow_partys))}`}
                      </Text>
                    </>
                  )}
                </Stack>
              </Table.Td>
              {!compact && (
                <>
                  <Table.Td>
                    <ServerStatusBadge server={server} showSync />
                  </Table.Td>
                  <Table.Td>{loadText(server)}</Table.Td>
                  <Table.Td>{server.ubication}</Table.Td>
                  {showRooms && <Table.Td>{roomsText(Boolean(server.allow_partys))}</Table.Td>}
                </>
              )}
              <Table.Td ta="right">
                <Button
                  size="xs"
                  disabled={disabled || !server.active || server.online === false}
                  onClick={() => onSelect(server)}
                >
                  Seleccionar
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
