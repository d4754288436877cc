import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { ownPeer } from '../testing/room-factory';
import { CreateRoomDialog, JoinRoomDialog } from './RoomDialogs';

const peers = [
  ownPeer({ id: 'p1', name: 'movil', server: { allow_partys: true, name: 'Madrid 1', online: false } }),
  ownPeer({ id: 'p2', name: 'portatil', server: { allow_partys: true, name: 'Miami 1', online: true } }),
];

describe('the rooms peer selectors', () => {
  it('say which peer is on an offline server, and preselect one whose server is up', async () => {
    const onCreate = vi.fn().mockResolvedValue(true);
    renderWithProviders(<CreateRoomDialog ownedCount={0} freePeers={peers} onCreate={onCreate} onClose={() => undefined} />, {
      route: '/dashboard/partys',
    });
    const dialog = await screen.findByRole('dialog', { name: 'Crear Nueva Sala' });
    const select = within(dialog).getByLabelText('Peer inicial', { selector: 'input' });
    expect(select).toHaveValue('portatil');
    const actor = userEvent.setup();
    await actor.click(select);
    expect(within(dialog).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'movil (servidor Madrid 1 sin conexión)',
      'portatil',
    ]);
  });

  it('keep the only peer selectable when its server is offline, saying so', async () => {
    const onJoin = vi.fn().mockResolvedValue(true);
    renderWithProviders(<JoinRoomDialog freePeers={[peers[0]!]} onJoin={onJoin} onClose={() => undefined} />, {
      route: '/dashboard/partys',
    });
    const dialog = await screen.findByRole('dialog', { name: 'Unirse a una sala' });
    expect(within(dialog).getByLabelText('Peer', { selector: 'input' })).toHaveValue('movil (servidor Madrid 1 sin conexión)');
    const actor = userEvent.setup();
    await actor.type(within(dialog).getByLabelText('Nombre de la sala'), 'Amigos');
    await actor.type(within(dialog).getByLabelText('Contraseña de la sala'), 'clave');
    await actor.click(within(dialog).getByRole('button', { name: 'Unirse' }));
    expect(onJoin).toHaveBeenCalledWith('Amigos', 'clave', 'p1');
  });
});
