/** The notice on a peer its owner paused (docs/api.md, "Pause and resume"): the server's own Spanish text. */
import { Alert, Text } from '@mantine/core';
import { IconPlayerPause } from '@tabler/icons-react';

export const PAUSED_TITLE = 'Peer en pausa';

/** A full-width row or banner under the peer it is about (`data-peer` names it, for tests). */
export function PausedNotice({ peerName, notice }: { peerName: string; notice: string }) {
  return (
    <Alert
      color="gray"
      variant="light"
      p="xs"
      icon={<IconPlayerPause size={16} />}
      title={PAUSED_TITLE}
      data-testid="paused-notice"
      data-peer={peerName}
    >
      <Text size="sm">{notice} Para reanudarlo, use «Reanudar» en el menú del peer.</Text>
    </Alert>
  );
}
