/** /manager/dashboard/servers: live status of every node, create (credential + install steps), edit, credentials. */
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Menu,
  Modal,
  NumberInput,
  ScrollArea,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useConfirmation } from '../../../components/ConfirmDialog';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type ServerCreated, type ServerInput, type ServerStatus } from '../api/manager';
import { bytes, dateTime } from '../format';
import { useAction } from '../hooks/use-action';
import { useStaffEvents } from '../hooks/use-staff-events';
import { useStaff } from '../staff';

/** What the server form edits: every field of a new server but the interface name, which keeps its default. */
type ServerFormValues = Required<Omit<ServerInput, 'interface_name'>>;

const EMPTY: ServerFormValues = {
  name: '',
  address: '',
  tunnel_subnet: '',
  port: 51820,
  ubication: '',
  active: true,
  allow_partys: false,
  dns: '1.1.1.1',
  capacity: 250,
  backbone_endpoint: '',
  backbone_port: 51821,
};

function toInput(server: ServerStatus): ServerFormValues {
  const { name, address, tunnel_subnet, port, ubication, active, allow_partys, dns, capacity, backbone_endpoint, backbone_port } = server;
  return { name, address, tunnel_subnet, port, ubication, active, allow_partys, dns, capacity, backbone_endpoint, backbone_port };
}

// What a WireGuard Endpoint takes before ":port": a DNS name or an IP (the server checks the same, docs/api.md).
const HOST_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** Field errors the form can tell before asking the server; the server checks the same and more. */
export function serverFormErrors(values: ServerFormValues): Partial<Record<keyof ServerFormValues, string>> {
  const errors: Partial<Record<keyof ServerFormValues, string>> = {};
  if (!isPort(values.port)) errors.port = 'Indique un puerto entre 1 y 65535.';
  const endpoint = values.backbone_endpoint.trim();
  if (endpoint && !HOST_NAME.test(endpoint) && !(endpoint.includes(':') && IPV6.test(endpoint))) {
    errors.backbone_endpoint = 'Indique un nombre de host o una IP, sin puerto ni esquema.';
  }
  if (!isPort(values.backbone_port)) errors.backbone_port = 'Indique un puerto entre 1 y 65535.';
  else if (values.backbone_port === values.port) errors.backbone_port = 'Debe ser distinto del puerto UDP de los clientes.';
  return errors;
}

export function StatusBadge({ server }: { server: ServerStatus }) {
  if (!server.online) return <Badge color="gray">Desconectado</Badge>;
  return server.in_sync ? <Badge color="green">En línea</Badge> : <Badge color="yellow">Sincronizando</Badge>;
}

/** The one-time credential and the exact install steps, shown right after creating or reissuing. */
export function InstallSteps({ created, onClose }: { created: ServerCreated; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} title={`Instalar el agente en ${created.server.name}`} size="xl">
      <Stack>
        <Alert color="yellow" title="La credencial se muestra una sola vez">
          Guárdela ahora: el servidor solo conserva un hash. Si la pierde, emita una nueva.
        </Alert>
        <Group gap="xs">
          <Text size="sm">Credencial:</Text>
          <Code data-testid="credential">{created.credential}</Code>
          <CopyButton value={created.credential}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copiada' : 'Copiar'}
              </Button>
            )}
          </CopyButton>
        </Group>
        {(created.install_missing ?? []).length > 0 && (
          <Alert color="red" title="Pasos incompletos: faltan ajustes en el panel">
            Defina {(created.install_missing ?? []).join(', ')} en la configuración del panel (controlplane.env) y emita una credencial nueva para ver
            los pasos exactos. Mientras tanto, complete a mano las líneas marcadas con FALTA.
          </Alert>
        )}
        <Text size="sm">Ejecute como root en el servidor nuevo (Debian 12 o posterior):</Text>
        <ScrollArea.Autosize mah={360}>
          <Code block data-testid="install-steps">
            {created.install}
          </Code>
        </ScrollArea.Autosize>
        <Group justify="space-between">
          <CopyButton value={created.install}>
            {({ copied, copy }) => (
              <Button variant="light" onClick={copy}>
                {copied ? 'Pasos copiados' : 'Copiar los pasos'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>Listo</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ServerForm({
  initial,
  creating,
  busy,
  onSubmit,
  onCancel,
}: {
  initial: ServerFormValues;
  creating: boolean;
  busy: boolean;
  onSubmit: (values: ServerFormValues) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [checked, setChecked] = useState(false);
  const set = <K extends keyof ServerFormValues>(key: K, value: ServerFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const errors = checked ? serverFormErrors(values) : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(serverFormErrors(values)).length > 0) return;
    onSubmit({ ...values, backbone_endpoint: values.backbone_endpoint.trim() });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label="Nombre" required value={values.name} onChange={(e) => set('name', e.currentTarget.value)} />
        <TextInput
          label="Dirección pública (host o IP que marcan los clientes)"
          required
          value={values.address}
          onChange={(e) => set('address', e.currentTarget.value)}
        />
        <Group grow>
          <NumberInput label="Puerto UDP" min={1} max={65535} value={values.port} error={errors.port} onChange={(v) => set('port', Number(v))} />
          <NumberInput label="Capacidad (peers)" min={1} value={values.capacity} onChange={(v) => set('capacity', Number(v))} />
        </Group>
        {creating && (
          <TextInput
            label="Subred del túnel"
            description="No se puede cambiar después, p. ej. 10.8.0.0/24"
            required
            value={values.tunnel_subnet}
            onChange={(e) => set('tunnel_subnet', e.currentTarget.value)}
          />
        )}
        <Group grow>
          <TextInput label="Ubicación" value={values.ubication} onChange={(e) => set('ubication', e.currentTarget.value)} />
          <TextInput label="DNS" value={values.dns} onChange={(e) => set('dns', e.currentTarget.value)} />
        </Group>
        <Switch label="Habilitado para peers nuevos" checked={values.active} onChange={(e) => set('active', e.currentTarget.checked)} />
        <Switch label="Permite salas" checked={values.allow_partys} onChange={(e) => set('allow_partys', e.currentTarget.checked)} />
        <Group grow align="flex-start">
          <TextInput
            label="Endpoint del backbone"
            description="Host o IP que marcan los otros servidores para las salas; vacío: la dirección pública"
            placeholder={values.address || 'la dirección pública'}
            value={values.backbone_endpoint}
            error={errors.backbone_endpoint}
            onChange={(e) => set('backbone_endpoint', e.currentTarget.value)}
          />
          <NumberInput
            label="Puerto UDP del backbone"
            description="Red 10.255.0.0/16 entre servidores; distinto del puerto de los clientes"
            min={1}
            max={65535}
            value={values.backbone_port}
            error={errors.backbone_port}
            onChange={(v) => set('backbone_port', Number(v))}
          />
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancelar
          </Button>
          <Button type="submit" loading={busy}>
            {creating ? 'Crear servidor' : 'Guardar'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ServerRow({
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
        <Text fw={600}>{server.name}</Text>
        <Text size="xs" c="dimmed">
          {server.address}:{server.port} · {server.ubication || 'sin ubicación'}
        </Text>
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
      <Table.Td>
        {isAdmin && (
          <Menu withinPortal position="bottom-end">
            <Menu.Target>
              <Button size="xs" variant="light" loading={busy}>
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
        )}
        {confirmation.dialog}
      </Table.Td>
    </Table.Tr>
  );
}

export function ServersPage() {
  usePageTitle('Servidores');
  const { isAdmin } = useStaff();
  const { state, reload, setData } = useRequest((signal) => managerApi.servers(signal));
  const [editing, setEditing] = useState<ServerStatus | 'new' | null>(null);
  const [created, setCreated] = useState<ServerCreated | null>(null);
  const [busy, act] = useAction();
  const servers = state.status === 'success' ? state.data : [];

  const replace = (next: ServerStatus) => setData(servers.map((s) => (s.id === next.id ? next : s)));
  // Live: a node connecting or leaving, and its stats, update the row in place.
  useStaffEvents<{ id: string; online: boolean }>('node_status', (data) => {
    if (state.status !== 'success') return;
    setData(servers.map((s) => (s.id === data.id ? { ...s, online: data.online, last_seen: new Date().toISOString() } : s)));
    if (data.online) reload();
  });
  useStaffEvents<Partial<ServerStatus> & { id: string }>('node_stats', (data) => {
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
        {isAdmin && <Button onClick={() => setEditing('new')}>Nuevo servidor</Button>}
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && servers.length === 0 && <Text c="dimmed">Todavía no hay servidores.</Text>}
      {state.status === 'success' && servers.length > 0 && (
        <Table.ScrollContainer minWidth={900}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Servidor</Table.Th>
                <Table.Th>Estado</Table.Th>
                <Table.Th>Agente</Table.Th>
                <Table.Th>Serial</Table.Th>
                <Table.Th>Peers</Table.Th>
                <Table.Th>Salas</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {servers.map((server) => (
                <ServerRow
                  key={server.id}
                  server={server}
                  isAdmin={isAdmin}
                  onEdit={() => setEditing(server)}
                  onChanged={replace}
                  onCredential={setCreated}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {editing !== null && (
        <Modal opened onClose={() => setEditing(null)} title={editing === 'new' ? 'Nuevo servidor' : `Editar ${editing.name}`} size="lg">
          <ServerForm
            initial={editing === 'new' ? EMPTY : toInput(editing)}
            creating={editing === 'new'}
            busy={busy}
            onSubmit={(values) => void save(values)}
            onCancel={() => setEditing(null)}
          />
        </Modal>
      )}
      {created && <InstallSteps created={created} onClose={() => setCreated(null)} />}
    </Stack>
  );
}
