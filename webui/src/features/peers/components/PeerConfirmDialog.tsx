/** The confirmations of Regenerar Mirror Link, Regenerar Peer and Cambiar Servidor. */
import type { Peer } from '../api/peers';
import type { PeersModel } from '../hooks/use-peers';
import { ConfirmDialog } from '../../../components/ConfirmDialog';

export type PeerConfirmation =
  | { kind: 'regenerate_token' }
  | { kind: 'regenerate' }
  | { kind: 'change_server'; serverId: string; serverName: string };

interface Props {
  confirmation: PeerConfirmation;
  peer: Peer;
  model: Pick<PeersModel, 'regenerateMirrorLink' | 'regenerate' | 'changeServer'>;
  onClose: () => void;
  /** The server change was accepted: the page goes back to the list. */
  onServerChangeStarted: () => void;
}

export function PeerConfirmDialog({ confirmation, peer, model, onClose, onServerChangeStarted }: Props) {
  if (confirmation.kind === 'regenerate_token') {
    return (
      <ConfirmDialog
        opened
        title="Regenerar Mirror Link"
        confirmLabel="Regenerar"
        onClose={onClose}
        onConfirm={() => model.regenerateMirrorLink(peer)}
      >
        ¿Desea regenerar el mirror link del peer <b>{peer.name}</b>? El enlace actual dejará de funcionar y el peer
        quedará deshabilitado en el cliente game-connect, lo que puede tardar unos minutos.
      </ConfirmDialog>
    );
  }
  if (confirmation.kind === 'regenerate') {
    return (
      <ConfirmDialog
        opened
        title="Regenerar Peer"
        confirmLabel="Regenerar"
        onClose={onClose}
        onConfirm={async () => {
          await model.regenerate(peer); // closes on failure too: the toast says what happened
        }}
      >
        ¿Desea regenerar las claves del peer <b>{peer.name}</b>? La configuración actual dejará de funcionar y deberá
        descargarla de nuevo.
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      opened
      title="Cambiar Servidor"
      confirmLabel="Cambiar"
      onClose={onClose}
      onConfirm={async () => {
        if (await model.changeServer(peer, confirmation.serverId)) onServerChangeStarted();
      }}
    >
      ¿Desea mover el peer <b>{peer.name}</b> al servidor <b>{confirmation.serverName}</b>? Después deberá descargar
      de nuevo la configuración.
    </ConfirmDialog>
  );
}
