/** /manager/dashboard/peers: search every customer's peers; enable/disable, move, manual payment, extend by a plan. */
import { Button, Group, Menu, Modal, Select, SegmentedControl, Stack, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type StaffPeer } from '../api/manager';
import { validity } from '../format';
import { useAction } from '../hooks/use-action';
import { useKeyedRequest } from '../hooks/use-keyed-request';
import { useStaff } from '../staff';
import { Paginator } from './Paginator';
import { PeerList } from './PeerList';
import { StaffPeerRenameDialog } from './StaffPeerRenameDialog';

type Dialog = { kind: 'move' | 'extend' | 'rename'; peer: StaffPeer } | null;

function ChoiceDialog({
  dialog,
  onClose,
  onDone,
}: {
  dialog: { kind: 'move' | 'extend'; peer: StaffPeer };
  onClose: () => void;
  onDone: (peer: StaffPeer) => void;
}) {
  const servers = useRequest((signal) => managerApi.servers(signal));
  const plans = useRequest((signal) => managerApi.plans(signal));
  const [choice, setChoice] = useState<string | null>(null);
  const [busy, act, refused, clearRefused] = useAction();
  const { peer } = dialog;
  const options =
    dialog.kind === 'move'
      ? servers.state.status === 'success'
        ? servers.state.data
            .filter((s) => s.id !== peer.server_id)
            .map((s) => ({ value: s.id, label: `${s.name} (${s.address})`, disabled: !s.active }))
        : []
      : plans.state.status === 'success'
        ? plans.state.data.map((p) => ({ value: p.id, label: `${p.name}: ${validity(p.validity_hours)}, ${p.price} USD${p.visible ? '' : ' (oculto)'}` }))
        : [];
  const submit = async () => {
    if (!choice) return;
    const answer =
      dialog.kind === 'move'
        ? await act(() => managerApi.movePeer(peer.id, choice), `Moviendo el peer ${peer.name}...`)
        : await act(() => managerApi.extendPeer(peer.id, choice), `Plan añadido al peer ${peer.name}.`);
    if (answer) onDone(answer);
  };
  return (
    <Modal opened onClose={onClose} title={dialog.kind === 'move' ? `Mover ${peer.name} de ${peer.server_name}` : `Extender ${peer.name}`}>
      <Stack>
        <Select
          label={dialog.kind === 'move' ? 'Servidor de destino' : 'Plan'}
          data={options}
          value={choice}
          error={refused[dialog.kind === 'move' ? 'server' : 'plan']}
          onChange={(next) => {
            clearRefused();
            setChoice(next);
          }}
          placeholder="Elija uno"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancelar
          </Button>
          <Button disabled={!choice} loading={busy} onClick={() => void submit()}>
            {dialog.kind === 'move' ? 'Mover' : 'Añadir plan'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function PeerActions({ peer, isAdmin, onChanged, onDialog }: { peer: StaffPeer; isAdmin: boolean; onChanged: (peer: StaffPeer) => void; onDialog: (d: Dialog) => void }) {
  const [busy, act] = useAction();
  const update = async (body: { active?: boolean; manual_payment?: boolean }, message: string) => {
    const next = await act(() => managerApi.updatePeer(peer.id, body), message);
    if (next) onChanged(next);
  };
  return (
    <Menu withinPortal position="bottom-end">
      <Menu.Target>
        <Button size="xs" variant="light" loading={busy} aria-label={`Acciones de ${peer.name}`}>
          Acciones
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item disabled={!peer.active || peer.processing} onClick={() => onDialog({ kind: 'move', peer })}>
          Mover a otro servidor
        </Menu.Item>
        {isAdmin && (
          <>
            <Menu.Item onClick={() => onDialog({ kind: 'extend', peer })}>Extender con un plan</Menu.Item>
            <Menu.Item onClick={() => onDialog({ kind: 'rename', peer })}>Renombrar</Menu.Item>
            <Menu.Item onClick={() => void update({ active: !peer.active }, peer.active ? 'Peer deshabilitado.' : 'Peer habilitado.')}>
              {peer.active ? 'Deshabilitar' : 'Habilitar'}
            </Menu.Item>
            <Menu.Item
              onClick={() =>
                void update({ manual_payment: !peer.manual_payment }, peer.manual_payment ? 'Pago manual quitado.' : 'Marcado como pago manual.')
              }
            >
              {peer.manual_payment ? 'Quitar pago manual' : 'Marcar pago manual'}
            </Menu.Item>
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}

export function PeersPage() {
  useManagerTitle('Peers');
  const { isAdmin } = useStaff();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 300);
  const [active, setActive] = useState<'all' | 'yes' | 'no'>('all');
  const [page, setPage] = useState(1);
  const [dialog, setDialog] = useState<Dialog>(null);
  const filter = active === 'all' ? null : active === 'yes';
  const { state, reload, setData } = useKeyedRequest(`${q}|${active}|${page}`, (signal) =>
    managerApi.peers({ q, active: filter, page }, signal),
  );
  const replace = (peer: StaffPeer) => {
    if (state.status === 'success') setData({ ...state.data, items: state.data.items.map((p) => (p.id === peer.id ? peer : p)) });
  };

  return (
    <Stack>
      <Title order={2}>Peers</Title>
      <Group>
        <TextInput
          placeholder="Nombre, cliente, dirección o clave pública"
          aria-label="Buscar peers"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={340}
        />
        <SegmentedControl
          value={active}
          onChange={(value) => {
            setActive(value as 'all' | 'yes' | 'no');
            setPage(1);
          }}
          data={[
            { label: 'Todos', value: 'all' },
            { label: 'Activos', value: 'yes' },
            { label: 'Inactivos', value: 'no' },
          ]}
        />
        <Button variant="subtle" onClick={reload}>
          Actualizar
        </Button>
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && (
        <>
          <PeerList
            peers={state.data.items}
            actions={(peer) => <PeerActions peer={peer} isAdmin={isAdmin} onChanged={replace} onDialog={setDialog} />}
          />
          <Paginator total={state.data.total} page={page} pageSize={state.data.page_size} onChange={setPage} />
        </>
      )}
      {dialog?.kind === 'rename' && (
        <StaffPeerRenameDialog
          peer={dialog.peer}
          onClose={() => setDialog(null)}
          onDone={(peer) => {
            replace(peer);
            setDialog(null);
          }}
        />
      )}
      {dialog && dialog.kind !== 'rename' && (
        <ChoiceDialog
          dialog={{ kind: dialog.kind, peer: dialog.peer }}
          onClose={() => setDialog(null)}
          onDone={(peer) => {
            replace(peer);
            setDialog(null);
          }}
        />
      )}
    </Stack>
  );
}
