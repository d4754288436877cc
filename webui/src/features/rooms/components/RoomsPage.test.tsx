import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api';
import type { CurrentUser } from '../../../lib/current-user';
import { renderWithProviders, testUser } from '../../../testing/render';
import { RealtimeProvider } from '../../realtime';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as roomsApi from '../api/rooms';
import type { OwnPeer, RoomLists } from '../api/rooms';
import { ownPeer, roomPeer, testRoom } from '../testing/room-factory';
import { RoomsPage } from './RoomsPage';

vi.mock('../api/rooms', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../api/rooms')>()),
  fetchRooms: vi.fn(),
  fetchOwnPeers: vi.fn(),
  createRoom: vi.fn(),
  joinRoom: vi.fn(),
  regenerateRoomPassword: vi.fn(),
  setRoomPassword: vi.fn(),
  leaveRoom: vi.fn(),
  removeRoomPeer: vi.fn(),
  deleteRoom: vi.fn(),
}));
const api = vi.mocked(roomsApi);

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
  window.localStorage.setItem('access_token', 'acc');
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
});

const guestRoom = testRoom({
  id: 'r2',
  name: 'Amigos',
  user: 'luis',
  password: undefined,
  peers: [roomPeer({ id: 'rp7', name: 'pc-luis', user: 'luis' }), roomPeer({ id: 'rp8', name: 'tablet', user: 'ana_alias' })],
});

interface Setup {
  rooms?: Partial<RoomLists>;
  peers?: OwnPeer[];
  user?: CurrentUser;
}

async function renderRooms({ rooms = {}, peers = [ownPeer()], user = testUser() }: Setup = {}) {
  api.fetchRooms.mockResolvedValue({ owned_partys: [], guest_partys: [], ...rooms });
  api.fetchOwnPeers.mockResolvedValue(peers);
  renderWithProviders(
    <RealtimeProvider>
      <RoomsPage />
    </RealtimeProvider>,
    { route: '/dashboard/partys', user },
  );
  await screen.findByRole('heading', { name: 'Salas' });
  const socket = FakeWebSocket.instances.at(-1);
  if (socket) act(() => socket.open());
  const push = (message: unknown) => act(() => socket?.receive(message));
  return { push, actor: userEvent.setup() };
}

async function loaded() {
  await waitFor(() => expect(screen.queryByText('Cargando información...')).not.toBeInTheDocument());
}

const roomRow = (name: string) => {
  const row = screen.getAllByTestId('room-row').find((element) => within(element).queryByText(name));
  if (!row) throw new Error(`no room row for ${name}`);
  return row;
};

async function choosePeer(actor: ReturnType<typeof userEvent.setup>, label: string, peerName: string) {
  await actor.click(screen.getByLabelText(label, { selector: 'input' }));
  await actor.click(await screen.findByRole('option', { name: peerName }));
}

describe('before any room', () => {
  it('asks for an alias first, linking to the settings', async () => {
    await renderRooms({ user: testUser({ alias: null }) });
    expect(await screen.findByText('Antes de crear o unirse a una sala configure su alias.')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Configurar alias' })).toHaveAttribute('href', '/dashboard/settings');
    expect(api.fetchRooms).not.toHaveBeenCalled();
  });

  it('asks for a peer first when the user has none: create and join shown disabled, with the way to Planes', async () => {
    await renderRooms({ peers: [] });
    expect(await screen.findByText('Primero debe adquirir un peer para poder crear o unirse a una sala.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Crear Nueva Sala' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Unirse a una sala' })).toBeDisabled();
    expect(screen.getByRole('link', { name: 'Adquirir un peer en Planes' })).toHaveAttribute('href', '/dashboard/plans');
  });

  it('invites to create one when the user has free peers and no room', async () => {
    await renderRooms();
    expect(await screen.findByText('No tiene ninguna sala creada, pero puede crear una ahora.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Crear Nueva Sala' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Unirse a una sala' })).toBeInTheDocument();
  });

  it('replaces the page with the section error when the rooms fail to load', async () => {
    api.fetchRooms.mockRejectedValue(new ApiError(500, ''));
    api.fetchOwnPeers.mockResolvedValue([]);
    renderWithProviders(
      <RealtimeProvider>
        <RoomsPage />
      </RealtimeProvider>,
      { route: '/dashboard/partys', user: testUser() },
    );
    expect(await screen.findByText('Error al cargar la sección')).toBeInTheDocument();
    expect(await screen.findByText('Hubo un error al cargar los datos de la sección')).toBeInTheDocument();
  });
});

describe('room list', () => {
  it('lists owned rooms as Administrador and guest rooms as Invitado', async () => {
    await renderRooms({
      rooms: { owned_partys: [testRoom({ processing: true })], guest_partys: [guestRoom] },
      peers: [ownPeer({ party: { id: 'r1', name: 'LAN Party' } })],
    });
    await loaded();
    const owned = roomRow('LAN Party');
    expect(within(owned).getByText('Administrador')).toBeInTheDocument();
    expect(within(owned).getByText('1')).toBeInTheDocument();
    expect(within(owned).getByText(/20 de noviembre de 2026/)).toBeInTheDocument();
    expect(within(owned).getByText('Operación en curso')).toBeInTheDocument();
    const guest = roomRow('Amigos');
    expect(within(guest).getByText('Invitado')).toBeInTheDocument();
    expect(within(guest).getByText('2')).toBeInTheDocument();
    expect(within(guest).queryByText('Operación en curso')).not.toBeInTheDocument();
    expect(within(guest).getByRole('button', { name: 'Ver' })).toBeInTheDocument();
    // Every peer is in a room: the buttons are off, and the page says why and what to do.
    expect(screen.getByRole('button', { name: 'Crear Nueva Sala' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Unirse a una sala' })).toBeDisabled();
    expect(screen.getByTestId('rooms-blocked')).toHaveTextContent(/Todos sus peers ya están en una sala.*saque uno de sus peers de su sala/);
  });
});

describe('create a room', () => {
  it('refuses a sixth room', async () => {
    const owned = [1, 2, 3, 4, 5].map((n) => testRoom({ id: `r${n}`, name: `Sala ${n}` }));
    const { actor } = await renderRooms({ rooms: { owned_partys: owned } });
    await actor.click(await screen.findByRole('button', { name: 'Crear Nueva Sala' }));
    expect(await screen.findByText('No se pueden crear más de 5 salas')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('requires a name, then creates the room with its initial peer', async () => {
    api.createRoom.mockResolvedValue({ success: true, message: '', data: testRoom({ id: 'r9', name: 'Nueva' }) });
    const { actor } = await renderRooms({ peers: [ownPeer(), ownPeer({ id: 'p2', name: 'portatil' })] });
    await actor.click(await screen.findByRole('button', { name: 'Crear Nueva Sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Crear Nueva Sala' });
    await actor.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(await screen.findByText('Por favor, ingrese un nombre para la sala')).toBeInTheDocument();
    expect(api.createRoom).not.toHaveBeenCalled();

    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'Nueva');
    await choosePeer(actor, 'Peer inicial', 'portatil');
    await actor.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(await screen.findByText('Sala creada correctamente')).toBeInTheDocument();
    expect(api.createRoom).toHaveBeenCalledWith('Nueva', 'p2');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(within(roomRow('Nueva')).getByText('Administrador')).toBeInTheDocument();
  });

  it('shows the server message or the fallback when creating fails', async () => {
    api.createRoom.mockRejectedValueOnce(new ApiError(409, 'Ya existe una sala con ese nombre.'));
    api.createRoom.mockRejectedValueOnce(new ApiError(500, ''));
    const { actor } = await renderRooms();
    await actor.click(await screen.findByRole('button', { name: 'Crear Nueva Sala' }));
    await actor.type(await screen.findByLabelText('Nombre de la sala'), 'Nueva');
    await actor.click(await screen.findByRole('button', { name: 'Crear' }));
    expect(await screen.findByText('Ya existe una sala con ese nombre.')).toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: 'Crear' }));
    expect(await screen.findByText('Error al crear la sala')).toBeInTheDocument();
    expect(await screen.findByRole('dialog', { name: 'Crear Nueva Sala' })).toBeInTheDocument();
  });
});

describe('peers a room accepts', () => {
  it('offers only active free peers on servers with rooms, and preselects the only one', async () => {
    api.joinRoom.mockResolvedValue({ success: true, message: 'Peer añadido a la sala.' });
    const { actor } = await renderRooms({
      peers: [
        ownPeer({ id: 'p1', name: 'movil', server: { allow_partys: false, name: 'Miami 1' } }),
        ownPeer({ id: 'p2', name: 'portatil' }),
        ownPeer({ id: 'p3', name: 'viejo', active: false }),
      ],
    });
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    expect(within(dialog).getByLabelText('Peer', { selector: 'input' })).toHaveValue('portatil');
    await actor.click(within(dialog).getByLabelText('Peer', { selector: 'input' }));
    expect(within(dialog).getAllByRole('option').map((option) => option.textContent)).toEqual(['portatil']);
    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'Amigos');
    await actor.type(within(dialog).getByLabelText('Contraseña de la sala'), 'clave');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(api.joinRoom).toHaveBeenCalledWith('Amigos', 'clave', 'p2');
  });

  it('explains why no peer can enter a room when every free peer is on a server without rooms', async () => {
    const { actor } = await renderRooms({ peers: [ownPeer({ server: { allow_partys: false, name: 'Miami 1' } })] });
    await actor.click(await screen.findByRole('button', { name: 'Crear Nueva Sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Crear Nueva Sala' });
    expect(within(dialog).getByRole('alert')).toHaveTextContent('en un servidor que permita salas');
    expect(within(dialog).getByRole('link', { name: 'Ir a Peers' })).toHaveAttribute('href', '/dashboard/peers');
    expect(within(dialog).queryByLabelText('Peer inicial', { selector: 'input' })).not.toBeInTheDocument();
  });
});

describe('join a room', () => {
  it('requires name, password and peer, then joins with them', async () => {
    api.joinRoom.mockResolvedValue({ success: true, message: 'Peer añadido a la sala.' });
    const { actor } = await renderRooms({ peers: [ownPeer(), ownPeer({ id: 'p2', name: 'portatil' })] });
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'Amigos');
    await actor.type(within(dialog).getByLabelText('Contraseña de la sala'), 'clave');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await screen.findByText('Por favor, complete todos los campos')).toBeInTheDocument();
    expect(api.joinRoom).not.toHaveBeenCalled();

    await choosePeer(actor, 'Peer', 'movil');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await screen.findByText('Peer añadido a la sala.')).toBeInTheDocument();
    expect(api.joinRoom).toHaveBeenCalledWith('Amigos', 'clave', 'p1');
  });

  it('shows the fallback when joining fails', async () => {
    api.joinRoom.mockRejectedValue(new ApiError(0, ''));
    const { actor } = await renderRooms();
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    await actor.type(await screen.findByLabelText('Nombre de la sala'), 'Amigos');
    await actor.type(await screen.findByLabelText('Contraseña de la sala'), 'clave');
    await choosePeer(actor, 'Peer', 'movil');
    await actor.click(await screen.findByRole('button', { name: 'Unirse' }));
    expect(await screen.findByText('Error al unirse a la sala')).toBeInTheDocument();
  });

  it('shows the server\'s sentence when the room is full, and keeps the dialog to try another room', async () => {
    const full = 'La sala está llena: admite como máximo 32 peers. Pida al administrador que quite alguno.';
    api.joinRoom.mockRejectedValue(new ApiError(409, full, 'party_full'));
    const { actor } = await renderRooms();
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'Amigos');
    await actor.type(within(dialog).getByLabelText('Contraseña de la sala'), 'clave');
    await choosePeer(actor, 'Peer', 'movil');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await screen.findByText(full)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Unirse a una sala' })).toBeInTheDocument();
  });

  it('keeps the own room under Administrador when the owner joins it through the join dialog', async () => {
    const joined = testRoom({ peers: [roomPeer(), roomPeer({ id: 'p2', name: 'portatil' })] });
    api.joinRoom.mockResolvedValue({ success: true, message: 'Peer añadido a la sala LAN Party.', data: joined });
    const { actor } = await renderRooms({
      rooms: { owned_partys: [testRoom()] },
      peers: [ownPeer({ party: { id: 'r1', name: 'LAN Party' } }), ownPeer({ id: 'p2', name: 'portatil' })],
    });
    await loaded();
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'LAN Party');
    await actor.type(within(dialog).getByLabelText('Contraseña de la sala'), 'secreta123');
    await choosePeer(actor, 'Peer', 'portatil');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(await screen.findByText('Peer añadido a la sala LAN Party.')).toBeInTheDocument();
    await waitFor(() => expect(within(roomRow('LAN Party')).getByText('2')).toBeInTheDocument());
    expect(screen.getAllByTestId('room-row')).toHaveLength(1);
    expect(within(roomRow('LAN Party')).getByText('Administrador')).toBeInTheDocument();
  });
});

describe('room detail', () => {
  const twoPeerRoom = testRoom({
    peers: [roomPeer(), roomPeer({ id: 'rp2', name: 'pc-luis', user: 'luis', private_ip: '10.9.0.4' })],
  });

  async function openRoom(setup: Setup, name: string) {
    const result = await renderRooms(setup);
    await loaded();
    await result.actor.click(within(roomRow(name)).getByRole('button', { name: 'Ver' }));
    await screen.findByRole('button', { name: 'Volver a Salas' });
    return result;
  }

  const peerRow = (name: string) => {
    const row = screen.getAllByTestId('room-peer-row').find((element) => within(element).queryByText(name));
    if (!row) throw new Error(`no peer row for ${name}`);
    return row;
  };

  it('shows the owner everything: masked password with reveal, leave on own peers, remove on others', async () => {
    await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    expect(await screen.findByText('ana_alias', { selector: 'p' })).toHaveTextContent('Propietario: ana_alias');
    expect(await screen.findByText(/20 de noviembre de 2026/)).toHaveTextContent(/^Fecha de creación: 20 de noviembre/);
    const password = await screen.findByTestId('room-password');
    expect(password).not.toHaveTextContent('secreta123');
    await actor.click(await screen.findByRole('button', { name: 'Mostrar contraseña' }));
    expect(password).toHaveTextContent('secreta123');
    await actor.click(await screen.findByRole('button', { name: 'Ocultar contraseña' }));
    expect(password).not.toHaveTextContent('secreta123');

    expect(within(peerRow('movil')).getByText('IP privada: 10.8.0.2')).toBeInTheDocument();
    expect(within(peerRow('movil')).getByRole('button', { name: 'Salir' })).toBeInTheDocument();
    expect(within(peerRow('pc-luis')).getByRole('button', { name: 'Expulsar' })).toBeInTheDocument();
    expect(within(peerRow('pc-luis')).queryByRole('button', { name: 'Salir' })).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Añadir Peer' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Eliminar Sala' })).toBeInTheDocument();
    expect(await screen.findByTestId('room-peers')).toHaveStyle({ maxHeight: '400px' });
  });

  it('shows each member\'s server and whether it is online, and follows the pushes live', async () => {
    const room = testRoom({
      peers: [roomPeer({ online: true }), roomPeer({ id: 'rp2', name: 'pc-luis', user: 'luis', server: 'Madrid 1' })],
    });
    const { push } = await openRoom({ rooms: { owned_partys: [room] } }, 'LAN Party');
    expect(within(peerRow('movil')).getByText('Miami 1')).toBeInTheDocument();
    expect(within(peerRow('movil')).getByTestId('room-peer-presence')).toHaveTextContent('En línea');
    expect(within(peerRow('pc-luis')).getByText('Madrid 1')).toBeInTheDocument();
    expect(within(peerRow('pc-luis')).getByTestId('room-peer-presence')).toHaveTextContent('Desconectado');
    // Luis's device connects: the server's report reaches the page as the room's update.
    push({
      type: 'updated_owner_party',
      data: { ...room, peers: [room.peers[0], { ...room.peers[1], online: true }] },
    });
    await waitFor(() =>
      expect(within(peerRow('pc-luis')).getByTestId('room-peer-presence')).toHaveTextContent('En línea'),
    );
  });

  it('shows a guest only the leave button on their own peers, no password, no delete', async () => {
    await openRoom({ rooms: { guest_partys: [guestRoom] } }, 'Amigos');
    expect(screen.queryByTestId('room-password')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Eliminar Sala' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Añadir Peer' })).not.toBeInTheDocument();
    expect(within(peerRow('tablet')).getByRole('button', { name: 'Salir' })).toBeInTheDocument();
    expect(within(peerRow('pc-luis')).queryByRole('button')).not.toBeInTheDocument();
  });

  it('hides Añadir Peer from the owner without free peers', async () => {
    await openRoom(
      { rooms: { owned_partys: [twoPeerRoom] }, peers: [ownPeer({ party: { id: 'r1', name: 'LAN Party' } })] },
      'LAN Party',
    );
    expect(screen.queryByRole('button', { name: 'Añadir Peer' })).not.toBeInTheDocument();
  });

  it('regenerates the password after the generic confirmation', async () => {
    api.regenerateRoomPassword.mockResolvedValue({ success: true, message: '', password: 'nueva456' });
    await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(await screen.findByRole('button', { name: 'Regenerar contraseña' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirmar Acción' });
    expect(within(dialog).getByRole('button', { name: 'Cancelar' })).toBeInTheDocument();
    await actor.click(within(dialog).getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Contraseña regenerada con éxito')).toBeInTheDocument();
    expect(api.regenerateRoomPassword).toHaveBeenCalledWith('r1');
    await actor.click(await screen.findByRole('button', { name: 'Mostrar contraseña' }));
    expect(await screen.findByTestId('room-password')).toHaveTextContent('nueva456');
  });

  it('adds a free peer by joining the own room with its name and password', async () => {
    api.joinRoom.mockResolvedValue({ success: true, message: '' });
    await openRoom(
      {
        rooms: { owned_partys: [twoPeerRoom] },
        // Two free peers: none is chosen for the owner (a single one would be).
        peers: [
          ownPeer({ party: { id: 'r1', name: 'LAN Party' } }),
          ownPeer({ id: 'p2', name: 'portatil' }),
          ownPeer({ id: 'p3', name: 'tablet' }),
        ],
      },
      'LAN Party',
    );
    const actor = userEvent.setup();
    await actor.click(await screen.findByRole('button', { name: 'Añadir Peer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Añadir Peer a LAN Party' });
    await actor.click(within(dialog).getByRole('button', { name: 'Añadir' }));
    expect(await screen.findByText('Por favor, selecciona un peer para añadir')).toBeInTheDocument();
    expect(api.joinRoom).not.toHaveBeenCalled();

    await choosePeer(actor, 'Peer', 'portatil');
    await actor.click(within(dialog).getByRole('button', { name: 'Añadir' }));
    await waitFor(() => expect(api.joinRoom).toHaveBeenCalledWith('LAN Party', 'secreta123', 'p2'));
  });

  it('leaves with an own peer and removes another user\'s peer', async () => {
    api.leaveRoom.mockResolvedValue({ success: true, message: 'Peer retirado de la sala.' });
    api.removeRoomPeer.mockResolvedValue({ success: true, message: '', data: testRoom({ peers: [roomPeer()] }) });
    await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();

    await actor.click(within(peerRow('movil')).getByRole('button', { name: 'Salir' }));
    await actor.click(within(await screen.findByRole('dialog', { name: 'Confirmar Acción' })).getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Peer retirado de la sala.')).toBeInTheDocument();
    expect(api.leaveRoom).toHaveBeenCalledWith('r1', 'rp1');

    await actor.click(within(peerRow('pc-luis')).getByRole('button', { name: 'Expulsar' }));
    await actor.click(within(await screen.findByRole('dialog', { name: 'Confirmar Acción' })).getByRole('button', { name: 'Confirmar' }));
    expect(api.removeRoomPeer).toHaveBeenCalledWith('r1', 'rp2');
    await waitFor(() => expect(screen.queryByText('pc-luis')).not.toBeInTheDocument());
  });

  it('keeps what the pushes said when they arrive before the answer of the change (fast agents)', async () => {
    // Found in the browser: the remove answer, carrying the room still processing, came after the pushes that
    // ended the operation, and 'Operación en curso' stayed for good.
    let answer: (value: roomsApi.RoomAnswer) => void = () => undefined;
    api.removeRoomPeer.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const { push } = await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(within(peerRow('pc-luis')).getByRole('button', { name: 'Expulsar' }));
    await actor.click(within(await screen.findByRole('dialog', { name: 'Confirmar Acción' })).getByRole('button', { name: 'Confirmar' }));
    const after = testRoom({ peers: [roomPeer()], processing: false });
    push({ type: 'new_party_operation', data: { id: 'r1' } });
    push({ type: 'updated_owner_party', data: { ...after, processing: true } });
    push({ type: 'stop_party_operation', data: { id: 'r1' } });
    push({ type: 'updated_owner_party', data: after });
    await act(async () => answer({ success: true, message: '', data: { ...after, processing: true } }));
    await waitFor(() => expect(screen.queryByText('pc-luis')).not.toBeInTheDocument());
    expect(screen.queryByText('Operación en curso')).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Eliminar Sala' })).toBeEnabled();
  });

  it.each([
    ['Salir', 'movil', 'leaveRoom', 'Error al abandonar la sala'],
    ['Expulsar', 'pc-luis', 'removeRoomPeer', 'Error al remover el peer de la sala'],
  ] as const)('shows the fallback when %s fails', async (button, peer, call, message) => {
    api[call].mockRejectedValue(new ApiError(500, ''));
    await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(within(peerRow(peer)).getByRole('button', { name: button }));
    await actor.click(await screen.findByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it('the owner chooses one; the server\'s refusal shows beside the field and nothing changes', async () => {
    api.setRoomPassword.mockRejectedValueOnce(
      new ApiError(422, 'La contraseña de la sala debe tener entre 8 y 64 caracteres.', 'party_password_invalid'),
    );
    api.setRoomPassword.mockResolvedValueOnce({
      success: true,
      message: 'Contraseña de la sala cambiada.',
      password: 'noche de LAN',
    });
    await openRoom({ rooms: { owned_partys: [testRoom()] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(screen.getByRole('button', { name: 'Elegir contraseña' }));
    const dialog = await screen.findByRole('dialog', { name: 'Elegir contraseña de la sala' });
    await actor.type(within(dialog).getByLabelText(/Nueva contraseña/), 'corta');
    await actor.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    expect(await within(dialog).findByText('La contraseña de la sala debe tener entre 8 y 64 caracteres.')).toBeInTheDocument();
    await actor.clear(within(dialog).getByLabelText(/Nueva contraseña/));
    await actor.type(within(dialog).getByLabelText(/Nueva contraseña/), 'noche de LAN');
    await actor.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText('Contraseña de la sala cambiada.')).toBeInTheDocument();
    expect(api.setRoomPassword).toHaveBeenLastCalledWith('r1', 'noche de LAN');
    await actor.click(screen.getByRole('button', { name: 'Mostrar contraseña' }));
    expect(screen.getByTestId('room-password')).toHaveTextContent('noche de LAN');
    expect(screen.getByRole('button', { name: 'Copiar contraseña' })).toBeInTheDocument();
  });

  it('deletes the room: the room named once, the view closes and the room is gone', async () => {
    api.deleteRoom.mockResolvedValue({ success: true, message: 'Sala «LAN Party» eliminada.' });
    const { push } = await openRoom({ rooms: { owned_partys: [twoPeerRoom], guest_partys: [guestRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(await screen.findByRole('button', { name: 'Eliminar Sala' }));
    await actor.click(within(await screen.findByRole('dialog', { name: 'Confirmar Acción' })).getByRole('button', { name: 'Confirmar' }));

    expect(await screen.findByText('Sala «LAN Party» eliminada.')).toBeInTheDocument();
    expect(api.deleteRoom).toHaveBeenCalledWith('r1');
    expect(screen.queryByRole('button', { name: 'Volver a Salas' })).not.toBeInTheDocument();
    expect(screen.getAllByTestId('room-row')).toHaveLength(1);
    // The server's push for the same deletion does not toast a second time.
    push({ type: 'deleted_owner_party', data: { id: 'r1' } });
    expect(screen.getAllByText('Sala «LAN Party» eliminada.')).toHaveLength(1);
  });

  it('shows the fallback when deleting fails or regenerating the password fails', async () => {
    api.deleteRoom.mockRejectedValue(new ApiError(500, ''));
    api.regenerateRoomPassword.mockRejectedValue(new ApiError(500, ''));
    await openRoom({ rooms: { owned_partys: [twoPeerRoom] } }, 'LAN Party');
    const actor = userEvent.setup();
    await actor.click(await screen.findByRole('button', { name: 'Eliminar Sala' }));
    await actor.click(await screen.findByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Hubo un error al eliminar la sala')).toBeInTheDocument();
    await actor.click(await screen.findByRole('button', { name: 'Regenerar contraseña' }));
    await actor.click(await screen.findByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Error al regenerar la contraseña')).toBeInTheDocument();
  });
});

describe('room push messages', () => {
  it('marks and unmarks a room with new_party_operation and stop_party_operation', async () => {
    const { push } = await renderRooms({ rooms: { owned_partys: [testRoom()] } });
    await loaded();
    push({ type: 'new_party_operation', data: { id: 'r1' } });
    expect(within(roomRow('LAN Party')).getByText('Operación en curso')).toBeInTheDocument();
    push({ type: 'stop_party_operation', data: { id: 'r1' } });
    expect(within(roomRow('LAN Party')).queryByText('Operación en curso')).not.toBeInTheDocument();
  });

  it('replaces or adds rooms on updated_owner_party / updated_guest_party, then reloads the free peers', async () => {
    const { push } = await renderRooms({ rooms: { owned_partys: [testRoom()] } });
    await loaded();
    expect(await screen.findByRole('button', { name: 'Crear Nueva Sala' })).toBeInTheDocument();
    // The load, and the refetch of the socket's opening when the load had ended by then.
    await waitFor(() => expect(api.fetchRooms).toHaveBeenCalledTimes(api.fetchOwnPeers.mock.calls.length));
    const before = api.fetchOwnPeers.mock.calls.length;

    // The only free peer has just joined a room: the create and join buttons are turned off.
    api.fetchOwnPeers.mockResolvedValue([ownPeer({ party: { id: 'r2', name: 'Amigos' } })]);
    push({ type: 'updated_guest_party', data: guestRoom });
    expect(within(roomRow('Amigos')).getByText('Invitado')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Crear Nueva Sala' })).toBeDisabled());
    expect(api.fetchOwnPeers).toHaveBeenCalledTimes(before + 1);

    push({
      type: 'updated_owner_party',
      data: testRoom({ name: 'LAN Party 2', peers: [roomPeer(), roomPeer({ id: 'rp3', name: 'x', user: 'eva' })] }),
    });
    expect(screen.getAllByTestId('room-row')).toHaveLength(2);
    expect(within(roomRow('LAN Party 2')).getByText('2')).toBeInTheDocument();
    expect(api.fetchOwnPeers).toHaveBeenCalledTimes(before + 2);
  });

  it('removes the room on deleted_owner_party and deleted_guest_party with the server\'s sentence, closing the open view', async () => {
    const { push, actor } = await renderRooms({ rooms: { owned_partys: [testRoom()], guest_partys: [guestRoom] } });
    await loaded();
    await actor.click(within(roomRow('Amigos')).getByRole('button', { name: 'Ver' }));
    expect(await screen.findByRole('button', { name: 'Volver a Salas' })).toBeInTheDocument();

    const expelled = 'El administrador de la sala «Amigos» sacó a su peer «movil» de la sala.';
    push({ type: 'deleted_guest_party', data: { id: 'r2' }, message: expelled });
    expect(await screen.findByText(expelled)).toBeInTheDocument();
    expect(screen.queryByText('Haz salido de una sala')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Volver a Salas' })).not.toBeInTheDocument();
    expect(screen.getAllByTestId('room-row')).toHaveLength(1);

    const emptied = 'La sala «LAN Party» se eliminó porque se quedó sin peers.';
    push({ type: 'deleted_owner_party', data: { id: 'r1' }, message: emptied });
    expect(await screen.findByText(emptied)).toBeInTheDocument();
    expect(screen.queryAllByTestId('room-row')).toHaveLength(0);
  });

  it('closes dialogs and clears the room mark on an error push', async () => {
    const { push, actor } = await renderRooms({ rooms: { owned_partys: [testRoom({ processing: true })] } });
    await loaded();
    await actor.click(await screen.findByRole('button', { name: 'Unirse a una sala' }));
    expect(await screen.findByRole('dialog', { name: 'Unirse a una sala' })).toBeInTheDocument();

    push({ type: 'error', message: 'No se pudo aplicar la sala en el servidor.', data: { party_id: 'r1' } });
    expect(await screen.findByText('No se pudo aplicar la sala en el servidor.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(within(roomRow('LAN Party')).queryByText('Operación en curso')).not.toBeInTheDocument();
  });
});

describe('when pushes do not come (docs/webui.md, live socket)', () => {
  it('refetches the rooms when the socket reopens: a room changed while it was down shows', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // the shortest reconnect delay: 2.5 s
    await renderRooms({ rooms: { owned_partys: [testRoom({ version: 5 })] } });
    expect(await screen.findByText('LAN Party')).toBeInTheDocument();

    // While the socket is down, luis joins the room and ana is let into 'Amigos' from another device.
    api.fetchRooms.mockResolvedValue({
      owned_partys: [
        testRoom({ version: 20, peers: [roomPeer(), roomPeer({ id: 'rp2', name: 'pc-luis', user: 'luis' })] }),
      ],
      guest_partys: [{ ...guestRoom, version: 20 }],
    });
    act(() => FakeWebSocket.latest().serverClose());
    expect(await screen.findByText('Sin conexión en tiempo real, reconectando…')).toBeInTheDocument();
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(1), { timeout: 8000 });
    // Nothing told the page yet: the change shows only with the reopened socket.
    expect(screen.queryByText('Amigos')).not.toBeInTheDocument();

    act(() => FakeWebSocket.latest().open());
    expect(await screen.findByText('Amigos')).toBeInTheDocument();
    await waitFor(() => expect(within(roomRow('Amigos')).getByText('Invitado')).toBeInTheDocument());
    await waitFor(() => expect(within(roomRow('LAN Party')).getByText('2')).toBeInTheDocument());
    await waitFor(() =>
      expect(screen.queryByText('Sin conexión en tiempo real, reconectando…')).not.toBeInTheDocument(),
    );
  }, 20_000);

  it('polls a room left busy without a push and ends its busy state when the server says so', async () => {
    await renderRooms({ rooms: { owned_partys: [testRoom({ processing: true, version: 5 })] } });
    expect(await screen.findByText('Operación en curso')).toBeInTheDocument();

    // The socket stays silent. A first look finds luis already in the room but the change still running on the
    // servers: the room shows him and stays busy.
    const withLuis = [roomPeer(), roomPeer({ id: 'rp2', name: 'pc-luis', user: 'luis' })];
    api.fetchRooms.mockResolvedValue({
      owned_partys: [testRoom({ processing: true, version: 10, peers: withLuis })],
      guest_partys: [],
    });
    await waitFor(() => expect(within(roomRow('LAN Party')).getByText('2')).toBeInTheDocument(), { timeout: 10_000 });
    expect(within(roomRow('LAN Party')).getByText('Operación en curso')).toBeInTheDocument();

    // Then the server has finished: the mark goes away without any push.
    api.fetchRooms.mockResolvedValue({
      owned_partys: [testRoom({ processing: false, version: 20, peers: withLuis })],
      guest_partys: [],
    });
    await waitFor(() => expect(screen.queryByText('Operación en curso')).not.toBeInTheDocument(), { timeout: 10_000 });
    await waitFor(() => expect(within(roomRow('LAN Party')).getByText('2')).toBeInTheDocument());
  }, 30_000);
});

