/** /dashboard/partys ('Salas'): the customer's rooms, creating and joining them, and one room's detail view. */
import { Alert, Button, Stack, Text, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { Link } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { useCurrentUser } from '../../../lib/current-user';
import { toast } from '../../../lib/toasts';
import { useRooms } from '../hooks/use-rooms';
import { findRoom } from '../room-lists';
import { MAX_OWNED_ROOMS, MESSAGES, canEnterRoom } from '../room-rules';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { AddPeerDialog, CreateRoomDialog, JoinRoomDialog } from './RoomDialogs';
import { RoomDetailView, type RoomAction } from './RoomDetailView';
import { JoinCreateButtons, type Blocked } from './JoinCreateButtons';
import { RoomTable } from './RoomTable';

type Dialog = { kind: 'create' } | { kind: 'join' } | (RoomAction & { roomId: string });

export function RoomsPage() {
  const { user } = useCurrentUser();
  const alias = user.alias?.trim() ? user.alias : null;

  let content;
  if (!user.web_settings.allow_partys) content = <Text c="dimmed">Las salas no están habilitadas para su cuenta.</Text>;
  else if (!alias) {
    content = (
      <Alert color="yellow">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">Antes de crear o unirse a una sala configure su alias.</Text>
          <Button component={Link} to="/dashboard/settings" size="xs">
            Configurar alias
          </Button>
        </Stack>
      </Alert>
    );
  } else content = <Rooms alias={alias} />;

  return (
    <Stack>
      <Title order={2}>Salas</Title>
      {content}
    </Stack>
  );
}

function Rooms({ alias }: { alias: string }) {
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [openRoomId, setOpenRoomId] = useState<string | null>(null);
  const closeDialog = useCallback(() => setDialog(null), []);
  const model = useRooms({ onReset: closeDialog });
  const { lists, ownPeers, freePeers } = model;
  // The buttons follow the free peers (docs/contract.md#rooms-page); the dialogs offer only those a room accepts.
  const eligiblePeers = freePeers.filter(canEnterRoom);

  if (model.load.status === 'loading') return <LoadingState />;
  if (model.load.status === 'error') return <SectionError message={model.load.message} onRetry={model.reload} />;

  // The view follows the lists: when its room is deleted (or left for good) the view closes by itself.
  const open = findRoom(lists, openRoomId);
  const dialogRoom = dialog && 'roomId' in dialog ? findRoom(lists, dialog.roomId)?.room : undefined;
  const ownedCount = lists.owned_partys.length;
  const noRooms = ownedCount === 0 && lists.guest_partys.length === 0;

  const blockedReason: Blocked | null =
    ownPeers.length === 0 ? 'no_peers' : freePeers.length === 0 ? 'all_in_rooms' : null;

  const openCreate = () => {
    // Checked before the form too, so nobody fills in a form that cannot succeed.
    if (ownedCount >= MAX_OWNED_ROOMS) toast.error(MESSAGES.tooManyRooms);
    else setDialog({ kind: 'create' });
  };

  return (
    <>
      {open ? (
        <RoomDetailView
          room={open.room}
          role={open.role}
          alias={alias}
          hasFreePeers={freePeers.length > 0}
          onBack={() => setOpenRoomId(null)}
          onAction={(action) => setDialog({ ...action, roomId: open.room.id })}
          onChoosePassword={(password) => model.setPassword(open.room, password)}
        />
      ) : (
        <Stack>
          <JoinCreateButtons
            blocked={blockedReason}
            onCreate={openCreate}
            onJoin={() => setDialog({ kind: 'join' })}
          />
          {!blockedReason && ownedCount === 0 && (
            <Text c="dimmed">No tiene ninguna sala creada, pero puede crear una ahora.</Text>
          )}
          {!noRooms && <RoomTable lists={lists} onView={(room) => setOpenRoomId(room.id)} />}
        </Stack>
      )}

      {dialog?.kind === 'create' && (
        <CreateRoomDialog ownedCount={ownedCount} freePeers={eligiblePeers} onCreate={model.create} onClose={closeDialog} />
      )}
      {dialog?.kind === 'join' && <JoinRoomDialog freePeers={eligiblePeers} onJoin={model.join} onClose={closeDialog} />}
      {dialog?.kind === 'add_peer' && dialogRoom && (
        <AddPeerDialog
          roomName={dialogRoom.name}
          freePeers={eligiblePeers}
          onAdd={(peer) => model.addPeer(dialogRoom, peer)}
          onClose={closeDialog}
        />
      )}
      {dialog?.kind === 'regenerate_password' && dialogRoom && (
        <ConfirmDialog color="red" onConfirm={() => model.regeneratePassword(dialogRoom)} onClose={closeDialog}>
          ¿Desea regenerar la contraseña de la sala <b>{dialogRoom.name}</b>? La contraseña actual dejará de servir
          para unirse.
        </ConfirmDialog>
      )}
      {dialog?.kind === 'delete' && dialogRoom && (
        <ConfirmDialog color="red" onConfirm={() => model.deleteRoom(dialogRoom)} onClose={closeDialog}>
          ¿Desea eliminar la sala <b>{dialogRoom.name}</b>? Todos sus peers dejarán de verse entre sí.
        </ConfirmDialog>
      )}
      {dialog?.kind === 'leave' && dialogRoom && (
        <ConfirmDialog color="red" onConfirm={() => model.leave(dialogRoom, dialog.peer.id)} onClose={closeDialog}>
          ¿Desea sacar su peer <b>{dialog.peer.name}</b> de la sala <b>{dialogRoom.name}</b>?
        </ConfirmDialog>
      )}
      {dialog?.kind === 'remove' && dialogRoom && (
        <ConfirmDialog color="red" onConfirm={() => model.removePeer(dialogRoom, dialog.peer.id)} onClose={closeDialog}>
          ¿Desea expulsar el peer <b>{dialog.peer.name}</b> de {dialog.peer.user} de la sala <b>{dialogRoom.name}</b>?
        </ConfirmDialog>
      )}
    </>
  );
}
