/**
 * One server of the table: its name with the admin's actions beside it (edit, enable or disable, issue or revoke the
 * credential) and its columns, which go under the name on a narrow screen (RowTable).
 */
import { Badge, Button, Menu, Stack, Text, Tooltip } from '@mantine/core';
import { useConfirmation } from '../../../../components/ConfirmDialog';
import { managerApi, type ServerCreated, type ServerStatus } from '../../api/manager';
import { bytes, dateTime } from '../../format';
import { useAction } from '../../hooks/use-action';
import { NameWithActions } from '../NameWithActions';
import type { Column } from '../RowTable';
import { StatusBadge } from './StatusBadge';

export function ServerName({
  server,
  isAdmin,
  onEdit,
  onChanged,
  onCredential,
}: {
  server: ServerStatus;
  isAdmin: boolean;
  onEdit: () => void;
  onChanged: (server: ServerStatus) => void;
  onCredential: (created: ServerCreated) => void;
}) {
  const [busy, act] = useAction();
  const toggle = async () => {
    const next = await act(
      () => managerApi.updateServer(server.id, { active: !server.active }),
      server.active ? 'Servidor deshabilitado.' : 'Servidor habilitado.',
    );
    if (next) onChanged(next);
  };
  const confirmation = useConfirmation();
  const reissue = () =>
    confirmation.ask({
      title: 'Nueva credencial',
      message: `¿Emitir una credencial nueva para ${server.name}? La actual dejará de valer y el agente se desconectará.`,
      confirmLabel: 'Emitir',
      color: 'red',
      onConfirm: async () => {
        const created = await act(() => managerApi.reissueCredential(server.id));
        if (created) {
          onChanged(created.server);
          onCredential(created);
        }
      },
    });
  const revoke = () =>
    confirmation.ask({
      title: 'Revocar credencial',
      message: `¿Revocar la credencial de ${server.name}? El agente se desconectará.`,
      confirmLabel: 'Revocar',
      color: 'red',
      onConfirm: async () => {
        const next = await act(() => managerApi.revokeCredential(server.id), 'Credencial revocada.');
        if (next) onChanged(next);
      },
    });
  return (
    <>
      <NameWithActions
        actions={
          isAdmin && (
            <Menu withinPortal position="bottom-end">
              <Menu.Target>
                <Button size="xs" variant="light" loading={busy} aria-label={`Acciones de ${server.name}`}>
                  Acciones
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={onEdit}>Editar</Menu.Item>
                <Menu.Item onClick={() => void toggle()}>{server.active ? 'Deshabilitar' : 'Habilitar'}</Menu.Item>
                <Menu.Item onClick={reissue}>Emitir credencial nueva</Menu.Item>
                {server.has_credential && (
                  <Menu.Item color="red" onClick={revoke}>
                    Revocar credencial
                  </Menu.Item>
                )}
              </Menu.Dropdown>
            </Menu>
          )
        }
      >
        <Text fw={600}>{server.name}</Text>
        <Text size="xs" c="dimmed">
          {server.address}:{server.port} · {server.ubication || 'sin ubicación'}
        </Text>
      </NameWithActions>
      {confirmation.dialog}
    </>
  );
}

const agent = (server: ServerStatus) => (server.agent_version ? `${server.agent_version} (${server.backend ?? '?'})` : '—');
const sync = (server: ServerStatus) => (server.in_sync ? 'Al día' : `Faltan ${server.serial - server.applied_serial}`);
const load = (server: ServerStatus) => `${server.peers_active} / ${server.capacity}`;
const traffic = (server: ServerStatus) =>
  server.stats_at
    ? `${server.stats_peers_connected} conectados · ↓${bytes(server.stats_tx_bytes)} ↑${bytes(server.stats_rx_bytes)}`
    : 'Sin estadísticas';

/** The columns after the name; the state stays a column on a phone, the rest becomes its detail line. */
export const SERVER_COLUMNS: Column<ServerStatus>[] = [
  {
    header: 'Estado',
    cell: (server) => (
      <Stack gap={2} align="flex-start">
        <StatusBadge server={server} />
        {!server.active && <Badge color="red" variant="light">Deshabilitado</Badge>}
        {!server.has_credential && <Badge color="orange" variant="light">Sin credencial</Badge>}
      </Stack>
    ),
  },
  {
    header: 'Agente',
    cell: (server) => (
      <>
        <Text size="sm">{agent(server)}</Text>
        <Text size="xs" c="dimmed">
          Visto: {dateTime(server.last_seen, 'nunca')}
        </Text>
      </>
    ),
    detail: (server) => `Agente ${agent(server)}, visto: ${dateTime(server.last_seen, 'nunca')}`,
  },
  {
    header: 'Serial',
    cell: (server) => (
      <Tooltip label={`Serial ${server.serial}, aplicado ${server.applied_serial}`}>
        <Text size="sm">{sync(server)}</Text>
      </Tooltip>
    ),
    detail: (server) => `Serial: ${sync(server)}`,
  },
  {
    header: 'Peers',
    cell: (server) => (
      <>
        <Text size="sm">{load(server)}</Text>
        <Text size="xs" c="dimmed">
          {traffic(server)}
        </Text>
      </>
    ),
    detail: (server) => `Peers ${load(server)} (${traffic(server)})`,
  },
  {
    header: 'Salas',
    cell: (server) => (server.allow_partys ? 'Sí' : 'No'),
    detail: (server) => `Salas: ${server.allow_partys ? 'Sí' : 'No'}`,
  },
];
