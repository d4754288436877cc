import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../testing/render';
import { roomPeer, testRoom } from '../testing/room-factory';
import { RoomDetailView } from './RoomDetailView';

function renderRoom(peers: ReturnType<typeof roomPeer>[], processing = false) {
  renderWithProviders(
    <RoomDetailView
      room={testRoom({ peers, processing })}
      role="owner"
      alias="ana_alias"
      hasFreePeers={false}
      onBack={() => undefined}
      onAction={() => undefined}
      onChoosePassword={async () => null}
    />,
    { route: '/dashboard/partys' },
  );
}

const row = (name: string) => {
  const found = screen.getAllByTestId('room-peer-row').find((element) => within(element).queryByText(name));
  if (!found) throw new Error(`no room peer row for ${name}`);
  return found;
};

describe("a room member's server", () => {
  it('is marked offline when its agent is not connected, and only then', () => {
    renderRoom([
      roomPeer({ id: 'a', name: 'movil', server: 'Miami 1', server_online: true, server_in_sync: true }),
      roomPeer({ id: 'b', name: 'portatil', user: 'Beto', server: 'Madrid 1', server_online: false, server_in_sync: true }),
    ]);
    const offline = within(row('portatil')).getByText('Servidor sin conexión');
    expect(offline).toBeInTheDocument();
    expect(within(row('portatil')).getByText('Madrid 1')).toBeInTheDocument();
    expect(within(row('movil')).getByText('Miami 1')).toBeInTheDocument();
    expect(within(row('movil')).queryByText('Servidor sin conexión')).not.toBeInTheDocument();
    // The member's own presence is still shown beside it.
    expect(within(row('portatil')).getByTestId('room-peer-presence')).toHaveTextContent('Desconectado');
  });

  it('is not marked while it applies a room change, nor when an older answer says nothing of it', () => {
    renderRoom(
      [
        roomPeer({ id: 'a', name: 'movil', server: 'Miami 1', server_online: true, server_in_sync: false }),
        roomPeer({ id: 'b', name: 'portatil', user: 'Beto', server: 'Madrid 1' }),
      ],
      true,
    );
    expect(screen.queryByText('Servidor sin conexión')).not.toBeInTheDocument();
    expect(within(row('movil')).getByText('Miami 1')).toBeInTheDocument();
  });
});
