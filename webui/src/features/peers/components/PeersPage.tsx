/** Placeholder for /dashboard/peers ('Peers Wireguard'); replaced by the peers screen. */
import { Title } from '@mantine/core';

export function PeersPage() {
  return <Title order={2}>Peers Wireguard</Title>;
}
