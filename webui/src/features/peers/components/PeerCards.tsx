/** The peers as cards, for screens narrower than 768 px. */
import { Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { roomsText } from '../peer-format';
import { MirrorLink } from './MirrorLink';
import { PeerActions } from './PeerActions';
import { PeerExpiry } from './PeerExpiry';
import { PeerMonthUsage } from './PeerMonthUsage';
import { PeerStatusBadge, ServerStatusBadge } from './PeerStatusBadge';
import { PeerName, type PeerListProps } from './PeerTable';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Group>
  );
}

export function PeerCards({ peers, stats, usage = {}, showRooms, isBusy, onDownload, onShowQr, onAction }: PeerListProps) {
  return (
    <SimpleGrid cols={1} spacing="sm">
      {peers.map((peer) => {
        const busy = isBusy(peer);
        return (
          <Card key={peer.id} withBorder padding="md" data-testid="peer-card">
            <Stack gap="xs">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <PeerName peer={peer} busy={busy} stats={stats[peer.id]} />
                <PeerActions peer={peer} busy={busy} onDownload={onDownload} onShowQr={onShowQr} onAction={onAction} />
              </Group>
              <Field label="Estado">
                <PeerStatusBadge active={peer.active} reason={peer.disabled_reason} />
              </Field>
              <Field label="Vencimiento">
                <PeerExpiry peer={peer} align="flex-end" />
              </Field>
              <Field label="Usado este mes">
                <PeerMonthUsage usage={usage[peer.id]} align="flex-end" />
              </Field>
              <Field label="Servidor">
                <Text size="sm">{peer.server?.address ?? '—'}</Text>
              </Field>
              <Field label="Estado del servidor">
                {peer.server ? <ServerStatusBadge server={peer.server} /> : '—'}
              </Field>
              <Field label="Ubicación">
                <Text size="sm">{peer.server?.ubication ?? '—'}</Text>
              </Field>
              {showRooms && (
                <Field label="Salas">
                  <Text size="sm">{peer.server ? roomsText(peer.server.allow_partys) : '—'}</Text>
                </Field>
              )}
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
