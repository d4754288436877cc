/** 'Activo' / 'Deshabilitado' for a peer; 'Activo' / 'Inactivo' / 'Fuera de línea' for a server (with
 * 'Sincronizando' while its node applies queued changes, docs/operations.md); never cut short by a narrow cell. */
import { Badge, Group, Stack, Text } from '@mantine/core';
import type { Peer } from '../api/peers';
import { disabledReasonText, peerStatusText, serverStatusText } from '../peer-format';

/** A disabled peer also says why: staff disabled it (renewing will not help) or its plan ran out. An active peer its
 * owner paused reads 'En pausa' (docs/api.md, "Pause and resume"). */
export function PeerStatusBadge({
  active,
  reason,
  paused = false,
}: {
  active: boolean;
  reason?: Peer['disabled_reason'];
  paused?: boolean;
}) {
  const why = active ? null : disabledReasonText(reason);
  const badge = (
    <Badge color={active && !paused ? 'green' : 'gray'} variant="light" miw="max-content" data-testid="peer-status">
      {active && paused ? 'En pausa' : peerStatusText(active)}
    </Badge>
  );
  if (why === null) return badge;
  return (
    <Stack gap={2} align="flex-start">
      {badge}
      <Text size="xs" c="dimmed">
        {why}
      </Text>
    </Stack>
  );
}

interface ServerStatus {
  active: boolean;
  /** Live status; absent from older answers, which then read as online and in sync. */
  online?: boolean;
  in_sync?: boolean;
}

/**
 * `showSync`: also say when the node is applying queued changes (the change-server list). A peer's own row leaves it
 * out: there a change that waits for its node is the peer's running operation, told in the server's words.
 */
export function ServerStatusBadge({ server, showSync = false }: { server: ServerStatus; showSync?: boolean }) {
  const offline = server.active && server.online === false;
  const syncing = showSync && server.active && !offline && server.in_sync === false;
  return (
    <Group gap={4}>
      <Badge color={server.active && !offline ? 'green' : offline ? 'orange' : 'red'} variant="light" miw="max-content">
        {offline ? 'Fuera de línea' : serverStatusText(server.active)}
      </Badge>
      {syncing && (
        <Badge color="blue" variant="dot" miw="max-content">
          Sincronizando
        </Badge>
      )}
    </Group>
  );
}
