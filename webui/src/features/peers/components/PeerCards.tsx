/**
 * The peers as cards, for screens narrower than 1024 px: the name with its actions beside it, a full-width warning
 * when there is one, then each detail as a label over its value, two to a line.
 */
import { Card, SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { MirrorLink } from './MirrorLink';
import { PeerActions } from './PeerActions';
import { PeerActivity } from './PeerActivity';
import { PeerExpiry } from './PeerExpiry';
import { PeerMonthUsage } from './PeerMonthUsage';
import { PeerStatusBadge } from './PeerStatusBadge';
import { PeerHeading, PeerNotices, PeerServer, type PeerListProps } from './PeerTable';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}

export function PeerCards({ peers, stats, usage = {}, showRooms, isBusy, onDownload, onShowQr, onAction }: PeerListProps) {
  return (
    <SimpleGrid cols={1} spacing="sm">
      {peers.map((peer) => {
        const busy = isBusy(peer);
        return (
          <Card key={peer.id} withBorder padding="md" data-testid="peer-card">
            <Stack gap="sm">
              <Stack gap={4}>
                <PeerHeading
                  peer={peer}
                  busy={busy}
                  actions={
                    <PeerActions peer={peer} busy={busy} onDownload={onDownload} onShowQr={onShowQr} onAction={onAction} />
                  }
                />
                <PeerActivity stats={stats[peer.id]} />
              </Stack>
              <PeerNotices peer={peer} busy={busy} onAction={onAction} />
              <SimpleGrid cols={2} spacing="sm" verticalSpacing="sm">
                <Field label="Estado">
                  <PeerStatusBadge active={peer.active} reason={peer.disabled_reason} paused={peer.paused} />
                </Field>
                <Field label="Usado este mes">
                  <PeerMonthUsage usage={usage[peer.id]} />
                </Field>
                <Field label="Vencimiento">
                  <PeerExpiry peer={peer} />
                </Field>
                <Field label="Servidor">
                  <PeerServer peer={peer} showRooms={showRooms} />
                </Field>
              </SimpleGrid>
              <Field label="Mirror Link">
                <MirrorLink link={peer.mirror_link} />
              </Field>
            </Stack>
          </Card>
        );
      })}
    </SimpleGrid>
  );
}
