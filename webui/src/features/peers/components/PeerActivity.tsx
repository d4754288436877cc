/** A peer's live activity from `peer_stats`: latest handshake and traffic, as the customer's device sees it. */
import { Text } from '@mantine/core';
import type { PeerStats } from '../api/peers';
import { formatBytes, formatHandshake } from '../peer-format';

export function PeerActivity({ stats }: { stats: PeerStats | undefined }) {
  if (!stats) return null;
  // The agent counts on the server: what the server sent is what the device downloaded.
  return (
    <Text size="xs" c="dimmed" data-testid="peer-activity">
      Último handshake: {formatHandshake(stats.latest_handshake)} · Bajada {formatBytes(stats.tx_bytes)} · Subida{' '}
      {formatBytes(stats.rx_bytes)}
    </Text>
  );
}
