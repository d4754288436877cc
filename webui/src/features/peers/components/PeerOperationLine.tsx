/**
 * What runs on a peer, in the server's words (the view's `operation.message`, e.g. "Moviendo a Madrid 1 (Madrid)…
 * su configuración actual sigue funcionando."), beside a small spinner: a pending operation after a reload reads the
 * same as when it started (docs/api.md, "Peer operations").
 */
import { Group, Loader, Text } from '@mantine/core';
import type { Peer } from '../api/peers';
import { RUNNING_FALLBACK } from '../hooks/peer-state';

/** Why the peer's actions wait: the running operation's text, or a neutral one while its call is on its way. */
export function runningText(peer: Peer): string {
  return peer.operation?.message ?? RUNNING_FALLBACK;
}

/** The line's id: the waiting actions are described by it (their accessible description is the reason). */
export const operationLineId = (peer: Peer) => `peer-operation-${peer.id}`;

export function PeerOperationLine({ peer }: { peer: Peer }) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" data-testid="peer-operation" role="status">
      <Loader size={12} mt={4} aria-hidden />
      <Text id={operationLineId(peer)} size="sm" c="blue.9" style={{ overflowWrap: 'anywhere' }}>
        {runningText(peer)}
      </Text>
    </Group>
  );
}
