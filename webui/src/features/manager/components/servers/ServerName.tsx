/** One server of the table, with the admin's actions: edit, enable or disable, issue or revoke the credential. */
import { Badge, Button, Menu, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useConfirmation } from '../../../../components/ConfirmDialog';
import { managerApi, type ServerCreated, type ServerStatus } from '../../api/manager';
import { bytes, dateTime } from '../../format';
import { useAction } from '../../hooks/use-action';
import { NameWithActions } from '../NameWithActions';
import { StatusBadge } from './StatusBadge';

export function ServerRow({
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
    <Table.Tr>
      <Table.Td>
        {/* The actions beside the name: the table scrolls sideways on a phone, the actions stay in sight. */}
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
      </Table.Td>
      <Table.Td>
        <Stack gap={2}>
          <StatusBadge server={server} />
          {!server.active && <Badge color="red" variant="light">Deshabilitado</Badge>}
          {!server.has_credential && <Badge color="orange" variant="light">Sin credencial</Badge>}
        </Stack>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{server.agent_version ? `${server.agent_version} (${server.backend ?? '?'})` : '—'}</Text>
        <Text size="xs" c="dimmed">
          Visto: {dateTime(server.last_seen, 'nunca')}
        </Text>
      </Table.Td>
      <Table.Td>
        <Tooltip label={`Serial ${server.serial}, aplicado ${server.applied_serial}`}>
          <Text size="sm">{server.in_sync ? 'Al día' : `Faltan ${server.serial - server.applied_serial}`}</Text>
        </Tooltip>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {server.peers_active} / {server.capacity}
        </Text>
        <Text size="xs" c="dimmed">
          {server.stats_at ? `${server.stats_peers_connected} conectados · ↓${bytes(server.stats_tx_bytes)} ↑${bytes(server.stats_rx_bytes)}` : 'Sin estadísticas'}
        </Text>
      </Table.Td>
      <Table.Td>{server.allow_partys ? 'Sí' : 'No'}</Table.Td>
    </Table.Tr>
  );
}
