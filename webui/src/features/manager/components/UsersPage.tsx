/** /manager/dashboard/users: find a customer, block or unblock, send reset or verification links, see their peers;
 * admins also delete accounts. */
import { Badge, Button, Drawer, Group, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useConfirmation } from '../../../components/ConfirmDialog';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { toast } from '../../../lib/toasts';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type UserDetail, type UserRow } from '../api/manager';
import { dateTime } from '../format';
import { useAction } from '../hooks/use-action';
import { useKeyedRequest } from '../hooks/use-keyed-request';
import { Paginator } from './Paginator';
import { InvoiceStatusBadge } from './InvoicesPage';
import { PeerList } from './PeerList';
import { RowTable } from './RowTable';
import { useStaff } from '../staff';

function UserInvoices({ userId }: { userId: string }) {
  const { state } = useRequest((signal) => managerApi.invoices({ user: userId }, signal));
  if (state.status === 'loading') return <LoadingState />;
  if (state.status === 'error') return <Text c="red">{errorMessage(state.error, 'Hubo un error al cargar los datos.')}</Text>;
  if (state.data.items.length === 0) return <Text c="dimmed">Sin facturas.</Text>;
  // Two columns, the date, amount and gateway as a detail line: five squeezed a phone's drawer until the state's
  // badge had no room left.
  return (
    <Table>
      <Table.Tbody>
        {state.data.items.map((invoice) => (
          <Table.Tr key={invoice.id}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>
              <Text size="sm">
                {invoice.plan_name} · {invoice.peer_name}
              </Text>
              <Text size="xs" c="dimmed">
                {dateTime(invoice.created)} · {invoice.amount} USD · {invoice.gateway_label}
              </Text>
            </Table.Td>
            <Table.Td>
              <InvoiceStatusBadge status={invoice.status} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

const roleLabel = (user: UserRow) =>
  user.role === 'customer' ? 'Cliente' : user.role === 'admin' ? 'Administrador' : 'Soporte';

type UserRoom = NonNullable<UserDetail['rooms']>[number];
const roomRelation = (room: UserRoom) => (room.relation === 'owner' ? 'Administrador' : `Invitado (de ${room.owner})`);
const roomMembers = (room: UserRoom) => (room.members === 1 ? '1 peer' : `${room.members} peers`);

function UserStatus({ user }: { user: UserRow }) {
  if (user.deleted) return <Badge color="gray">Eliminada</Badge>;
  return user.blocked ? <Badge color="red">Bloqueado</Badge> : <Badge color="green">Activo</Badge>;
}

// A long label wraps on a phone instead of running past the drawer's edge.
const WRAPS = { root: { height: 'auto', minHeight: 36, paddingBlock: 6 }, label: { whiteSpace: 'normal' } } as const;

export function UserDetailDrawer({ userId, onClose, onChanged }: { userId: string; onClose: () => void; onChanged: (user: UserRow) => void }) {
  const { state, reload } = useRequest((signal) => managerApi.user(userId, signal));
  const [busy, act] = useAction();
  const user = state.status === 'success' ? state.data.user : null;

  const confirmation = useConfirmation();
  const applyBlocked = async (blocked: boolean) => {
    if (!user) return;
    const next = await act(() => managerApi.setBlocked(user.id, blocked), blocked ? 'Usuario bloqueado.' : 'Usuario desbloqueado.');
    if (next) {
      onChanged(next);
      reload();
    }
  };
  const setBlocked = (blocked: boolean) => {
    if (!user) return;
    if (!blocked) void applyBlocked(false);
    else
      confirmation.ask({
        title: 'Bloquear usuario',
        message: `¿Bloquear a ${user.username}? Se cerrarán todas sus sesiones.`,
        confirmLabel: 'Bloquear',
        color: 'red',
        onConfirm: () => applyBlocked(true),
      });
  };
  const { isAdmin } = useStaff();
  const deleteUser = () => {
    if (!user) return;
    confirmation.ask({
      title: 'Eliminar cuenta',
      message:
        `¿Eliminar la cuenta de ${user.username}? No se puede deshacer: sus peers dejan de funcionar y se quitan de ` +
        'los servidores, sus salas se eliminan y se cierran todas sus sesiones. Las facturas se conservan.',
      confirmLabel: 'Eliminar cuenta',
      color: 'red',
      onConfirm: async () => {
        const next = await act(() => managerApi.deleteUser(user.id), 'Cuenta eliminada.');
        if (next) {
          onChanged(next);
          reload();
        }
      },
    });
  };
  const send = async (run: () => Promise<{ message: string }>) => {
    const answer = await act(run);
    if (answer) toast.success(answer.message);
  };

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={user ? `Usuario ${user.username}` : 'Usuario'}>
      {confirmation.dialog}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && user && (
        <Stack>
          <Stack gap={4}>
            <Text>
              <b>Email:</b> {user.email ?? 'sin email'} {user.email && (user.email_verified ? '(verificado)' : '(sin verificar)')}
            </Text>
            <Text>
              <b>Alias:</b> {user.alias ?? '—'}
            </Text>
            <Text>
              <b>Alta:</b> {dateTime(user.created)} · <b>Último acceso:</b> {dateTime(user.last_login, 'nunca')}
            </Text>
            <Group gap="xs">
              <Text fw={700}>Estado:</Text>
              <UserStatus user={user} />
            </Group>
          </Stack>
          {user.role === 'customer' && !user.deleted && (
            <Group>
              {user.blocked ? (
                <Button loading={busy} onClick={() => setBlocked(false)}>
                  Desbloquear
                </Button>
              ) : (
                <Button color="red" variant="light" loading={busy} onClick={() => setBlocked(true)}>
                  Bloquear
                </Button>
              )}
              <Button
                variant="light"
                disabled={!user.email || !user.email_verified || user.blocked}
                loading={busy}
                styles={WRAPS}
                onClick={() => void send(() => managerApi.sendPasswordReset(user.id))}
              >
                Enviar enlace para restablecer contraseña
              </Button>
              {user.email && !user.email_verified && (
                <Button variant="light" loading={busy} styles={WRAPS} onClick={() => void send(() => managerApi.resendVerification(user.id))}>
                  Reenviar verificación de email
                </Button>
              )}
              {isAdmin && (
                <Button color="red" loading={busy} onClick={deleteUser}>
                  Eliminar cuenta
                </Button>
              )}
            </Group>
          )}
          <Title order={4}>Peers</Title>
          <PeerList peers={state.data.peers} compact />
          <Title order={4}>Salas</Title>
          {(state.data.rooms ?? []).length === 0 ? (
            <Text c="dimmed">Sin salas.</Text>
          ) : (
            <RowTable
              rows={state.data.rooms ?? []}
              rowKey={(room) => room.id}
              compact
              striped={false}
              name={{ header: 'Sala', cell: (room) => <Text fw={600}>{room.name}</Text> }}
              columns={[
                {
                  header: 'Relación',
                  cell: (room) => roomRelation(room),
                  detail: (room) => roomRelation(room),
                },
                { header: 'Peers', cell: (room) => roomMembers(room), detail: (room) => roomMembers(room) },
                { header: 'Creada', cell: (room) => dateTime(room.created), detail: (room) => `Creada el ${dateTime(room.created)}` },
              ]}
            />
          )}
          <Title order={4}>Facturas</Title>
          <UserInvoices userId={user.id} />
        </Stack>
      )}
    </Drawer>
  );
}

export function UsersPage() {
  useManagerTitle('Usuarios');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 300);
  const [blocked, setBlocked] = useState<'all' | 'yes' | 'no'>('all');
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const filter = blocked === 'all' ? null : blocked === 'yes';
  const { state, reload, setData } = useKeyedRequest(`${q}|${blocked}|${page}`, (signal) =>
    managerApi.users({ q, blocked: filter, page }, signal),
  );

  const replace = (user: UserRow) => {
    if (state.status === 'success') setData({ ...state.data, items: state.data.items.map((u) => (u.id === user.id ? user : u)) });
  };

  return (
    <Stack>
      <Title order={2}>Usuarios</Title>
      <Group>
        <TextInput
          placeholder="Buscar por usuario, email o alias"
          aria-label="Buscar usuarios"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={320}
        />
        <SegmentedControl
          value={blocked}
          onChange={(value) => {
            setBlocked(value as 'all' | 'yes' | 'no');
            setPage(1);
          }}
          data={[
            { label: 'Todos', value: 'all' },
            { label: 'Activos', value: 'no' },
            { label: 'Bloqueados', value: 'yes' },
          ]}
        />
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && (
        <>
          <RowTable
            rows={state.data.items}
            rowKey={(user) => user.id}
            onRowClick={(user) => setOpenId(user.id)}
            name={{
              header: 'Usuario',
              cell: (user) => (
                <Button variant="subtle" size="compact-sm" onClick={() => setOpenId(user.id)}>
                  {user.username}
                </Button>
              ),
            }}
            columns={[
              { header: 'Email', cell: (user) => user.email ?? '—', detail: (user) => user.email ?? 'sin email' },
              { header: 'Rol', cell: roleLabel, detail: roleLabel },
              { header: 'Peers', cell: (user) => user.peers, detail: (user) => (user.peers === 1 ? '1 peer' : `${user.peers} peers`) },
              { header: 'Estado', cell: (user) => <UserStatus user={user} /> },
              { header: 'Alta', cell: (user) => dateTime(user.created), detail: (user) => `Alta: ${dateTime(user.created)}` },
            ]}
          />
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
      {openId && <UserDetailDrawer userId={openId} onClose={() => setOpenId(null)} onChanged={replace} />}
    </Stack>
  );
}
