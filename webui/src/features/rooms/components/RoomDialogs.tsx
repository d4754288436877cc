/** The create, join and add-peer dialogs; each validates with the contract's messages (docs/contract.md#validation) before calling the server. */
import { Alert, Anchor, PasswordInput, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { toast } from '../../../lib/toasts';
import type { OwnPeer } from '../api/rooms';
import { addPeerProblem, createRoomProblem, joinRoomProblem, NO_ELIGIBLE_PEER, serverOffline } from '../room-rules';
import { PeerSelect } from './PeerSelect';

/** The first problem the dialog's checks find, shown instead of calling the server; else the call. */
function checked(problem: string | null, call: () => Promise<boolean>): Promise<boolean> | false {
  if (problem === null) return call();
  toast.error(problem);
  return false;
}

/** The peer selector over the peers a room accepts; the only one is chosen already, none is explained. */
function EligiblePeerSelect({ label, peers, value, onChange }: { label: string; peers: OwnPeer[]; value: string | null; onChange: (id: string | null) => void }) {
  if (peers.length === 0) {
    return (
      <Alert color="yellow" role="alert" title="Sin peers disponibles">
        {NO_ELIGIBLE_PEER}{' '}
        <Anchor component={Link} to="/dashboard/peers" size="sm">
          Ir a Peers
        </Anchor>
      </Alert>
    );
  }
  return <PeerSelect label={label} peers={peers} value={value} onChange={onChange} />;
}

/** The initial choice: the only eligible peer, or none. */
const onlyPeer = (peers: OwnPeer[]) => (peers.length === 1 ? (peers[0]?.id ?? null) : null);

/** The first peer whose server is not offline, else the first. */
const firstPeer = (peers: OwnPeer[]) => (peers.find((peer) => !serverOffline(peer)) ?? peers[0])?.id ?? null;

interface CreateProps {
  ownedCount: number;
  freePeers: OwnPeer[];
  onCreate: (name: string, peer: string | null) => Promise<boolean>;
  onClose: () => void;
}

export function CreateRoomDialog({ ownedCount, freePeers, onCreate, onClose }: CreateProps) {
  const [name, setName] = useState('');
  const [peer, setPeer] = useState<string | null>(firstPeer(freePeers));
  return (
    <ConfirmDialog
      fields
      title="Crear Nueva Sala"
      confirmLabel="Crear"
      onClose={onClose}
      onConfirm={() => checked(createRoomProblem(ownedCount, name), () => onCreate(name, peer))}
    >
      <TextInput label="Nombre de la sala" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
      <EligiblePeerSelect label="Peer inicial" peers={freePeers} value={peer} onChange={setPeer} />
    </ConfirmDialog>
  );
}

interface JoinProps {
  freePeers: OwnPeer[];
  onJoin: (name: string, password: string, peer: string) => Promise<boolean>;
  onClose: () => void;
}

export function JoinRoomDialog({ freePeers, onJoin, onClose }: JoinProps) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [peer, setPeer] = useState<string | null>(onlyPeer(freePeers));
  return (
    <ConfirmDialog
      fields
      title="Unirse a una sala"
      confirmLabel="Unirse"
      onClose={onClose}
      onConfirm={() => checked(joinRoomProblem(name, password, peer), () => onJoin(name, password, peer ?? ''))}
    >
      <TextInput label="Nombre de la sala" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
      <PasswordInput
        label="Contraseña de la sala"
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
      />
      <EligiblePeerSelect label="Peer" peers={freePeers} value={peer} onChange={setPeer} />
    </ConfirmDialog>
  );
}

interface AddPeerProps {
  roomName: string;
  freePeers: OwnPeer[];
  onAdd: (peer: string) => Promise<boolean>;
  onClose: () => void;
}

export function AddPeerDialog({ roomName, freePeers, onAdd, onClose }: AddPeerProps) {
  const [peer, setPeer] = useState<string | null>(onlyPeer(freePeers));
  return (
    <ConfirmDialog
      fields
      title={`Añadir Peer a ${roomName}`}
      confirmLabel="Añadir"
      onClose={onClose}
      onConfirm={() => checked(addPeerProblem(peer), () => onAdd(peer ?? ''))}
    >
      <EligiblePeerSelect label="Peer" peers={freePeers} value={peer} onChange={setPeer} />
    </ConfirmDialog>
  );
}
