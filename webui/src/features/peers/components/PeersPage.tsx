/** /dashboard/peers ('Peers Wireguard'): the customer's peers, their actions and live updates. */
import { Button, Stack, Text, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useNarrowScreen } from '../../../lib/screen';
import { useCurrentUser } from '../../../lib/current-user';
import { toast } from '../../../lib/toasts';
import { downloadPeerConfig, type Peer } from '../api/peers';
import { useMonthUsage } from '../hooks/use-month-usage';
import { INACTIVE_PEER, usePeers } from '../hooks/use-peers';
import { MOVE_PARAM } from '../peer-links';
import { saveBlob } from '../save-file';
import { serverLabel } from '../server-label';
import { ChangeServerView } from './ChangeServerView';
import type { PeerMenuAction } from './PeerActions';
import { PeerCards } from './PeerCards';
import { PeerConfigTextDialog } from './PeerConfigTextDialog';
import { PeerConfirmDialog, type PeerConfirmation } from './PeerConfirmDialog';
import { PeerDetailsDialog } from './PeerDetailsDialog';
import { PeerQrDialog } from './PeerQrDialog';
import { PeerRenameDialog } from './PeerRenameDialog';
import { PeerTable } from './PeerTable';

const INACTIVE_DOWNLOAD = 'No se puede descargar la configuración de un peer inactivo';
/** The server's own refusal (docs/operations.md, "Make before break"): new keys need a node that can take them. */
export const OWN_SERVER_OFFLINE =
  'El servidor de este peer no está en línea en este momento, así que no puede recibir claves nuevas. El peer' +
  ' conserva sus claves actuales; intente regenerarlo cuando el servidor vuelva.';

type Dialog = { peerId: string } & (
  | PeerConfirmation
  | { kind: 'details' }
  | { kind: 'qr' }
  | { kind: 'rename' }
  | { kind: 'config_text' }
);
/** Dialogs of their own, not a confirmation. */
const OWN_DIALOGS: ReadonlySet<Dialog['kind']> = new Set(['details', 'qr', 'rename', 'config_text']);
const isConfirmation = (dialog: Dialog): dialog is { peerId: string } & PeerConfirmation => !OWN_DIALOGS.has(dialog.kind);

async function downloadConfig(peer: Peer): Promise<void> {
  if (!peer.active) {
    toast.error(INACTIVE_DOWNLOAD);
    return;
  }
  try {
    saveBlob(await downloadPeerConfig(peer.id), `${peer.name}.conf`);
  } catch (error) {
    toast.error(errorMessage(error, 'Error al descargar la configuración'));
  }
}

export function PeersPage() {
  const { user } = useCurrentUser();
  // Under 1024 px the peers show as cards (src/lib/screen.ts).
  const narrow = useNarrowScreen();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // The peer whose change-server view is open; the list shows when null.
  // (`?mover={id}` from Home's "Cambiar de servidor" opens it at once.)
  const [searchParams] = useSearchParams();
  const [movingPeerId, setMovingPeerId] = useState<string | null>(() => searchParams.get(MOVE_PARAM));
  const closeDialog = useCallback(() => setDialog(null), []);
  const model = usePeers({ onReset: closeDialog });
  const { peers, stats, isBusy } = model;
  const usage = useMonthUsage();

  // Dialogs keep ids, so an `updated_peer` merged into the list shows in them at once.
  const peerById = (id: string | null | undefined) => peers.find((peer) => peer.id === id) ?? null;
  const dialogPeer = peerById(dialog?.peerId);
  const movingPeer = peerById(movingPeerId);

  const onAction = (action: PeerMenuAction, peer: Peer) => {
    // Refused before the confirmation: the server would refuse it after (docs/contract.md#validation).
    if ((action === 'regenerate' || action === 'regenerate_token') && !peer.active) toast.error(INACTIVE_PEER);
    else if (action === 'regenerate' && peer.server?.online === false) toast.error(OWN_SERVER_OFFLINE);
    else if (action === 'change_server') setMovingPeerId(peer.id);
    else if (action === 'pause' || action === 'resume') void model.setPaused(peer, action === 'pause');
    else if (action === 'details') setDialog({ kind: 'details', peerId: peer.id });
    else if (action === 'rename') setDialog({ kind: 'rename', peerId: peer.id });
    else if (action === 'config_text') onShowConfigText(peer);
    else if (action === 'regenerate') setDialog({ kind: 'regenerate', peerId: peer.id });
    else setDialog({ kind: 'regenerate_token', peerId: peer.id });
  };
  const onShowQr = (peer: Peer) => {
    if (!peer.active) toast.error(INACTIVE_DOWNLOAD);
    else setDialog({ kind: 'qr', peerId: peer.id });
  };
  function onShowConfigText(peer: Peer) {
    if (!peer.active) toast.error(INACTIVE_DOWNLOAD);
    else setDialog({ kind: 'config_text', peerId: peer.id });
  }

  const listProps = {
    peers,
    stats,
    usage,
    showRooms: user.web_settings.allow_partys,
    isBusy,
    onDownload: downloadConfig,
    onShowQr,
    onAction,
  };

  if (model.load.status === 'loading') return <LoadingState />;
  if (model.load.status === 'error') return <SectionError message={model.load.message} onRetry={model.reload} />;

  return (
    <Stack>
      <Title order={2}>Peers Wireguard</Title>
      {movingPeer ? (
        <ChangeServerView
          peer={movingPeer}
          busy={isBusy(movingPeer)}
          onBack={() => setMovingPeerId(null)}
          onSelect={(server) =>
            setDialog({ kind: 'change_server', peerId: movingPeer.id, serverId: server.id, serverName: serverLabel(server) })
          }
        />
      ) : peers.length === 0 ? (
        <Stack align="flex-start">
          <Text c="dimmed">Aún no tiene peers. Adquiera un plan para obtener su primer peer.</Text>
          <Button component={Link} to="/dashboard/plans">
            Ver planes
          </Button>
        </Stack>
      ) : narrow ? (
        <PeerCards {...listProps} />
      ) : (
        <PeerTable {...listProps} />
      )}
      {dialog && dialogPeer && isConfirmation(dialog) && (
        <PeerConfirmDialog
          confirmation={dialog}
          peer={dialogPeer}
          model={model}
          onClose={closeDialog}
          onServerChangeStarted={() => setMovingPeerId(null)}
        />
      )}
      <PeerDetailsDialog
        peer={dialog?.kind === 'details' ? dialogPeer : null}
        stats={dialog?.kind === 'details' && dialogPeer ? stats[dialogPeer.id] : undefined}
        onClose={closeDialog}
        onBindMirror={model.bindMirror}
      />
      <PeerQrDialog peer={dialog?.kind === 'qr' ? dialogPeer : null} onClose={closeDialog} />
      <PeerRenameDialog peer={dialog?.kind === 'rename' ? dialogPeer : null} onRename={model.rename} onClose={closeDialog} />
      <PeerConfigTextDialog peer={dialog?.kind === 'config_text' ? dialogPeer : null} onClose={closeDialog} />
    </Stack>
  );
}
