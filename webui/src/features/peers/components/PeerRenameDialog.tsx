/** 'Renombrar': a new name for the peer, under the peer name rule; a refusal shows beside the field. */
import { Modal } from '@mantine/core';
import { toast } from '../../../lib/toasts';
import type { Peer } from '../api/peers';
import { PeerNameForm } from './PeerNameForm';

interface Props {
  peer: Peer | null;
  onRename: (peer: Peer, name: string) => Promise<void>;
  onClose: () => void;
}

export function PeerRenameDialog({ peer, onRename, onClose }: Props) {
  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Renombrar ${peer.name}` : ''} closeButtonProps={{ 'aria-label': 'Cerrar' }} centered>
      {peer && (
        // Keyed by the peer: another peer starts from its own name; a push about this one does not reset typing.
        <PeerNameForm
          key={peer.id}
          initial={peer.name}
          save={async (name) => {
            await onRename(peer, name);
            toast.success('Nombre del peer cambiado.');
            onClose();
          }}
          onCancel={onClose}
        />
      )}
    </Modal>
  );
}
