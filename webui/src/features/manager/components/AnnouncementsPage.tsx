/** /manager/dashboard/announcements: what the customer home shows, and the client app versions. */
import { Badge, Button, Card, Group, Stack, Switch, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useConfirmation } from '../../../components/ConfirmDialog';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi } from '../api/manager';
import { dateTime } from '../format';
import { useAction } from '../hooks/use-action';
import { useStaff } from '../staff';
import { NameWithActions } from './NameWithActions';

function Announcements({ isAdmin }: { isAdmin: boolean }) {
  const { state, reload, setData } = useRequest((signal) => managerApi.announcements(signal));
  const [busy, act, refused, clearRefused] = useAction();
  const confirmation = useConfirmation();
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const items = state.status === 'success' ? state.data : [];

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const created = await act(() => managerApi.createAnnouncement({ name, message, visible: true }), 'Anuncio publicado.');
    if (created) {
      setData([created, ...items]);
      setName('');
      setMessage('');
    }
  };
  const toggle = async (id: string, visible: boolean) => {
    const next = await act(() => managerApi.updateAnnouncement(id, { visible }), visible ? 'Anuncio visible.' : 'Anuncio ocultado.');
    if (next) setData(items.map((a) => (a.id === id ? next : a)));
  };
  const remove = (id: string) =>
    confirmation.ask({
      title: 'Eliminar anuncio',
      message: '¿Eliminar el anuncio?',
      confirmLabel: 'Eliminar',
      color: 'red',
      onConfirm: async () => {
        if (await act(() => managerApi.deleteAnnouncement(id), 'Anuncio eliminado.')) setData(items.filter((a) => a.id !== id));
      },
    });

  return (
    <Card withBorder>
      {confirmation.dialog}
      <Title order={4} mb="sm">
        Anuncios en el inicio de los clientes
      </Title>
      {isAdmin && (
        <form onSubmit={(e) => void create(e)} noValidate>
          <Stack gap="xs" mb="md">
            <TextInput label="Título" value={name} error={refused.name} onChange={(e) => { clearRefused('name'); setName(e.currentTarget.value); }} />
            <Textarea
              label="Mensaje"
              autosize
              minRows={2}
              value={message}
              error={refused.message}
              onChange={(e) => { clearRefused('message'); setMessage(e.currentTarget.value); }}
            />
            <Group justify="flex-end">
              <Button type="submit" loading={busy}>
                Publicar anuncio
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && items.length === 0 && <Text c="dimmed">No hay anuncios.</Text>}
      <Stack gap="sm">
        {items.map((a) => (
          <Card key={a.id} withBorder padding="sm">
            <Group justify="space-between" align="flex-start">
              <div>
                <Group gap="xs">
                  <Text fw={700}>{a.name}</Text>
                  {!a.visible && <Badge color="gray">Oculto</Badge>}
                </Group>
                <Text size="xs" c="dimmed">
                  {dateTime(a.created)}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {a.message}
                </Text>
              </div>
              {isAdmin && (
                <Group gap="xs">
                  <Switch label="Visible" checked={a.visible} onChange={(e) => void toggle(a.id, e.currentTarget.checked)} />
                  <Button size="xs" color="red" variant="subtle" onClick={() => remove(a.id)}>
                    Eliminar
                  </Button>
                </Group>
              )}
            </Group>
          </Card>
        ))}
      </Stack>
    </Card>
  );
}

function Releases({ isAdmin }: { isAdmin: boolean }) {
  const { state, reload, setData } = useRequest((signal) => managerApi.releases(signal));
  const [busy, act, refused, clearRefused] = useAction();
  const [version, setVersion] = useState('');
  const [url, setUrl] = useState('');
  const items = state.status === 'success' ? state.data : [];

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const created = await act(() => managerApi.createRelease({ version, url }), 'Versión publicada.');
    if (created) {
      setData([created, ...items]);
      setVersion('');
      setUrl('');
    }
  };
  const remove = async (id: string) => {
    if (await act(() => managerApi.deleteRelease(id), 'Versión eliminada.')) setData(items.filter((r) => r.id !== id));
  };

  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        Versiones del cliente
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        La más reciente es la que anuncia el aviso de nueva versión en el inicio de los clientes.
      </Text>
      {isAdmin && (
        <form onSubmit={(e) => void create(e)} noValidate>
          <Group align="flex-start" mb="md">
            <TextInput
              label="Versión"
              placeholder="1.2.0"
              value={version}
              error={refused.version}
              onChange={(e) => { clearRefused('version'); setVersion(e.currentTarget.value); }}
            />
            <TextInput
              label="Enlace de descarga"
              placeholder="https://..."
              value={url}
              error={refused.url}
              onChange={(e) => { clearRefused('url'); setUrl(e.currentTarget.value); }}
              style={{ flex: 1, minWidth: 200 }}
            />
            <Button type="submit" loading={busy} mt={24}>
              Publicar versión
            </Button>
          </Group>
        </form>
      )}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && (
        <Table>
          <Table.Tbody>
            {items.map((r, index) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <NameWithActions
                    actions={
                      isAdmin && (
                        <Button size="xs" color="red" variant="subtle" onClick={() => void remove(r.id)} aria-label={`Eliminar la versión ${r.version}`}>
                          Eliminar
                        </Button>
                      )
                    }
                  >
                    <Text fw={600}>{r.version}</Text>
                    {index === 0 && <Badge>Actual</Badge>}
                  </NameWithActions>
                </Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  {r.url}
                  <Text size="xs" c="dimmed">
                    {dateTime(r.created)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

export function AnnouncementsPage() {
  useManagerTitle('Anuncios y versiones');
  const { isAdmin } = useStaff();
  return (
    <Stack>
      <Title order={2}>Anuncios y versiones</Title>
      <Announcements isAdmin={isAdmin} />
      <Releases isAdmin={isAdmin} />
    </Stack>
  );
}
