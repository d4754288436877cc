/** A selector over the customer's free peers (those not in any room). A peer whose server is offline is offered
 * too (the room reaches that server when its agent returns), but says so. */
import { Select } from '@mantine/core';
import type { OwnPeer } from '../api/rooms';
import { peerOptionLabel } from '../room-rules';

interface Props {
  label: string;
  peers: OwnPeer[];
  value: string | null;
  onChange: (peerId: string | null) => void;
}

export function PeerSelect({ label, peers, value, onChange }: Props) {
  return (
    <Select
      label={label}
      placeholder="Seleccione un peer"
      data={peers.map((peer) => ({ value: peer.id, label: peerOptionLabel(peer) }))}
      value={value}
      onChange={onChange}
      allowDeselect={false}
      comboboxProps={{ withinPortal: false }}
    />
  );
}
