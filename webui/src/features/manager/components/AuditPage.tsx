/** /manager/dashboard/audit: every staff action (who, what, when, from where), searchable, live. */
import { Badge, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { managerApi } from '../api/manager';
import { AUDIT_ACTION_LABELS, auditActionLabel } from '../audit-actions';
import { dateTime } from '../format';
import { useKeyedRequest } from '../hooks/use-keyed-request';
import { useStaffEvents } from '../hooks/use-staff-events';
import { Paginator } from './Paginator';

const ACTION_OPTIONS = Object.entries(AUDIT_ACTION_LABELS)
  .map(([value, label]) => ({ value, label }))
  .sort((a, b) => a.label.localeCompare(b.label, 'es'));

export function AuditPage() {
  useManagerTitle('Auditoría');
  const [search, setSearch] = useState('');
  const [actorInput, setActorInput] = useState('');
  const [action, setAction] = useState<string | null>(null);
  const [q] = useDebouncedValue(search, 300);
  const [actor] = useDebouncedValue(actorInput, 300);
  const [page, setPage] = useState(1);
  const { state, reload, setData } = useKeyedRequest(`${q}|${actor}|${action}|${page}`, (signal) =>
    managerApi.audit({ q, actor, action: action ?? '', page }, signal),
  );
  // A new entry appears on top while the unfiltered first page is shown.
  useStaffEvents('audit', (entry) => {
    if (state.status !== 'success' || page !== 1 || q || actor || action) return;
    if (state.data.items.some((e) => e.id === entry.id)) return;
    setData({ ...state.data, total: state.data.total + 1, items: [entry, ...state.data.items].slice(0, state.data.page_size) });
  });

  return (
    <Stack>
      <Title order={2}>Auditoría</Title>
      <Group>
        <TextInput aria-label="Buscar en la auditoría" placeholder="Texto, usuario o id" value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1); }} />
        <TextInput aria-label="Filtrar por autor" placeholder="Autor" value={actorInput} onChange={(e) => { setActorInput(e.currentTarget.value); setPage(1); }} />
        <Select
          aria-label="Filtrar por acción"
          placeholder="Todas las acciones"
          clearable
          searchable
          data={ACTION_OPTIONS}
          value={action}
          onChange={(next) => { setAction(next); setPage(1); }}
        />
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && (
        <>
          {state.data.items.length === 0 ? (
            <Text c="dimmed">Sin entradas.</Text>
          ) : (
            <Table.ScrollContainer minWidth={800}>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Fecha</Table.Th>
                    <Table.Th>Autor</Table.Th>
                    <Table.Th>Acción</Table.Th>
                    <Table.Th>Detalle</Table.Th>
                    <Table.Th>IP</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {state.data.items.map((entry) => (
                    <Table.Tr key={entry.id}>
                      <Table.Td>{dateTime(entry.created)}</Table.Td>
                      <Table.Td>
                        {entry.actor_username} <Badge size="xs" variant="light">{entry.actor_role === 'admin' ? 'Administrador' : 'Soporte'}</Badge>
                      </Table.Td>
                      <Table.Td>{auditActionLabel(entry.action)}</Table.Td>
                      <Table.Td>{entry.summary}</Table.Td>
                      <Table.Td>{entry.ip_address}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
    </Stack>
  );
}
