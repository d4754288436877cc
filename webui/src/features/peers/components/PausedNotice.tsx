/**
 * The notice on a peer its owner paused (docs/api.md, "Pause and resume"): the server's own Spanish text, after
 * since when, in the customer's own time zone (the server sends the moment, not a clock time).
 */
import { Alert, Text } from '@mantine/core';
import { IconPlayerPause } from '@tabler/icons-react';
import { formatDateTime } from '../peer-format';

export const PAUSED_TITLE = 'Peer en pausa';

interface PausedNoticeProps {
  peerName: string;
  notice: string;
  since?: string | null;
}

/** A full-width row or banner under the peer it is about (`data-peer` names it, for tests). */
export function PausedNotice({ peerName, notice, since }: PausedNoticeProps) {
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
      <Text size="sm">
        {since ? `En pausa desde el ${formatDateTime(since)}. ` : ''}
        {notice} Para reanudarlo, use «Reanudar» en el menú del peer.
      </Text>
    </Alert>
  );
}
