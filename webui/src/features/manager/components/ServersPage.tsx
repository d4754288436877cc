/** /manager/dashboard/servers: live status of every node, create (credential + install steps), edit, credentials. */
import { Button, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type ServerCreated, type ServerStatus } from '../api/manager';
import { useAction } from '../hooks/use-action';
import { useStaffEvents } from '../hooks/use-staff-events';
import { useStaff } from '../staff';
import { InstallSteps } from './servers/InstallSteps';
import { ServerForm } from './servers/ServerForm';
import { SERVER_COLUMNS, ServerName } from './servers/ServerName';
import { RowTable } from './RowTable';
import { EMPTY_SERVER, formValuesOf, type ServerFormValues } from './servers/server-form-values';

export function ServersPage() {
  useManagerTitle('Servidores');
  const { isAdmin } = useStaff();
  const { state, reload, setData } = useRequest((signal) => managerApi.servers(signal));
  const [editing, setEditing] = useState<ServerStatus | 'new' | null>(null);
  const [created, setCreated] = useState<ServerCreated | null>(null);
  const [busy, act, refused, clearRefused] = useAction();
  const servers = state.status === 'success' ? state.data : [];

  const replace = (next: ServerStatus) => setData(servers.map((s) => (s.id === next.id ? next : s)));
  // Live: a node connecting or leaving, and its stats, update the row in place.
  useStaffEvents('node_status', (data) => {
    if (state.status !== 'success') return;
    setData(servers.map((s) => (s.id === data.id ? { ...s, online: data.online, last_seen: new Date().toISOString() } : s)));
    if (data.online) reload();
  });
  useStaffEvents('node_stats', (data) => {
    if (state.status !== 'success') return;
    setData(servers.map((s) => (s.id === data.id ? { ...s, ...data, online: true, last_seen: new Date().toISOString() } : s)));
  });

  const save = async (values: ServerFormValues) => {
    if (editing === 'new') {
      const answer = await act(() => managerApi.createServer(values), 'Servidor creado.');
      if (answer) {
        setData([...servers, answer.server].sort((a, b) => a.name.localeCompare(b.name)));
        setEditing(null);
        setCreated(answer);
      }
    } else if (editing) {
      const { tunnel_subnet: _subnet, ...patch } = values;
      const answer = await act(() => managerApi.updateServer(editing.id, patch), 'Servidor actualizado.');
      if (answer) {
        replace(answer);
        setEditing(null);
      }
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Servidores</Title>
        {isAdmin && <Button onClick={() => { clearRefused(); setEditing('new'); }}>Nuevo servidor</Button>}
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && servers.length === 0 && <Text c="dimmed">Todavía no hay servidores.</Text>}
      {state.status === 'success' && servers.length > 0 && (
        <RowTable
          rows={servers}
          rowKey={(server) => server.id}
          name={{
            header: 'Servidor',
            cell: (server) => (
              <ServerName
                server={server}
                isAdmin={isAdmin}
                onEdit={() => { clearRefused(); setEditing(server); }}
                onChanged={replace}
                onCredential={setCreated}
              />
            ),
          }}
          columns={SERVER_COLUMNS}
        />
      )}
      {editing !== null && (
        <Modal opened onClose={() => setEditing(null)} title={editing === 'new' ? 'Nuevo servidor' : `Editar ${editing.name}`} size="lg">
          <ServerForm
            initial={editing === 'new' ? EMPTY_SERVER : formValuesOf(editing)}
            creating={editing === 'new'}
            busy={busy}
            onSubmit={(values) => void save(values)}
            onCancel={() => setEditing(null)}
            refused={refused}
            onEdited={clearRefused}
          />
        </Modal>
      )}
      {created && <InstallSteps created={created} onClose={() => setCreated(null)} />}
    </Stack>
  );
}
