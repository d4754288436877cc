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
import { managerApi, type UserRow } from '../api/manager';
import { dateTime } from '../format';
import { useAction } from '../hooks/use-action';
import { useKeyedRequest } from '../hooks/use-keyed-request';
import { Paginator } from './Paginator';
import { InvoiceStatusBadge } from './InvoicesPage';
import { PeerList } from './PeerList';
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
          <PeerList peers={state.data.peers} />
          <Title order={4}>Salas</Title>
          {(state.data.rooms ?? []).length === 0 ? (
            <Text c="dimmed">Sin salas.</Text>
          ) : (
            <Table>
              <Table.Tbody>
                {(state.data.rooms ?? []).map((room) => (
                  <Table.Tr key={room.id}>
                    <Table.Td>{room.name}</Table.Td>
                    <Table.Td>{room.relation === 'owner' ? 'Administrador' : `Invitado (de ${room.owner})`}</Table.Td>
                    <Table.Td>{room.members === 1 ? '1 peer' : `${room.members} peers`}</Table.Td>
                    <Table.Td>{dateTime(room.created)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
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
          <Table.ScrollContainer minWidth={700}>
            <Table striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Usuario</Table.Th>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Rol</Table.Th>
                  <Table.Th>Peers</Table.Th>
                  <Table.Th>Estado</Table.Th>
                  <Table.Th>Alta</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {state.data.items.map((user) => (
                  <Table.Tr key={user.id} onClick={() => setOpenId(user.id)} style={{ cursor: 'pointer' }}>
                    <Table.Td>
                      <Button variant="subtle" size="compact-sm" onClick={() => setOpenId(user.id)}>
                        {user.username}
                      </Button>
                    </Table.Td>
                    <Table.Td>{user.email ?? '—'}</Table.Td>
                    <Table.Td>{user.role === 'customer' ? 'Cliente' : user.role === 'admin' ? 'Administrador' : 'Soporte'}</Table.Td>
                    <Table.Td>{user.peers}</Table.Td>
                    <Table.Td>
                      <UserStatus user={user} />
                    </Table.Td>
                    <Table.Td>{dateTime(user.created)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
      {openId && <UserDetailDrawer userId={openId} onClose={() => setOpenId(null)} onChanged={replace} />}
    </Stack>
  );
}
