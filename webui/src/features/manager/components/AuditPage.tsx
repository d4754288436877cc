/** /manager/dashboard/audit: every staff action (who, what, when, from where), searchable, live. */
import { Badge, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
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
import { RowTable } from './RowTable';

const ACTION_OPTIONS = Object.entries(AUDIT_ACTION_LABELS)
  .map(([value, label]) => ({ value, label }))
  .sort((a, b) => a.label.localeCompare(b.label, 'es'));

const roleLabel = (role: string) => (role === 'admin' ? 'Administrador' : 'Soporte');

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
            // The action names the row; when, who and from where go under it on a phone, the detail stays a column.
            <RowTable
              rows={state.data.items}
              rowKey={(entry) => entry.id}
              name={{ header: 'Acción', cell: (entry) => <Text fw={600} size="sm">{auditActionLabel(entry.action)}</Text> }}
              columns={[
                { header: 'Fecha', cell: (entry) => dateTime(entry.created), detail: (entry) => dateTime(entry.created) },
                {
                  header: 'Autor',
                  cell: (entry) => (
                    <>
                      {entry.actor_username} <Badge size="xs" variant="light">{roleLabel(entry.actor_role)}</Badge>
                    </>
                  ),
                  detail: (entry) => `${entry.actor_username} (${roleLabel(entry.actor_role)})`,
                },
                { header: 'Detalle', cell: (entry) => entry.summary },
                { header: 'IP', cell: (entry) => entry.ip_address, detail: (entry) => `IP ${entry.ip_address}` },
              ]}
            />
          )}
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
    </Stack>
  );
}
