/** The manager's 'Renombrar' for a customer's peer (admins): the same form and peer name rule as the customer's; the
 * server records it in the audit log (peer.rename). */
import { Modal } from '@mantine/core';
import { toast } from '../../../lib/toasts';
import { PeerNameForm } from '../../peers/components/PeerNameForm';
import { managerApi, type StaffPeer } from '../api/manager';

export function StaffPeerRenameDialog({
  peer,
  onClose,
  onDone,
}: {
  peer: StaffPeer;
  onClose: () => void;
  onDone: (peer: StaffPeer) => void;
}) {
  return (
    <Modal opened onClose={onClose} title={`Renombrar ${peer.name} de ${peer.username}`} closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <PeerNameForm
        initial={peer.name}
        save={async (name) => {
          const renamed = await managerApi.updatePeer(peer.id, { name });
          toast.success(`Peer renombrado a ${renamed.name}.`);
          onDone(renamed);
        }}
        onCancel={onClose}
      />
    </Modal>
  );
}
