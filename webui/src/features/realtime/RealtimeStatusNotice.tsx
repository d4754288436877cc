/** A small fixed notice while pushes cannot arrive: reconnecting, or refused for this page's address. */
import { Group, Loader, Paper, Text } from '@mantine/core';
import type { SocketStatus } from '../../lib/socket';

export const RECONNECTING_TEXT = 'Sin conexión en tiempo real, reconectando…';

export function refusedText(expectedOrigin: string): string {
  const base = 'Las actualizaciones en tiempo real no están disponibles desde esta dirección.';
  return expectedOrigin ? `${base} Abra ${expectedOrigin} para recibirlas.` : base;
}

export function RealtimeStatusNotice({ status }: { status: SocketStatus }) {
  if (status.state !== 'reconnecting' && status.state !== 'refused') return null;
  const text = status.state === 'refused' ? refusedText(status.expectedOrigin) : RECONNECTING_TEXT;
  return (
    <Paper
      role="status"
      data-testid="realtime-status"
      shadow="sm"
      withBorder
      px="sm"
      py={6}
      maw={360}
      style={{ position: 'fixed', left: 16, bottom: 16, zIndex: 300 }}
    >
      <Group gap="xs" wrap="nowrap">
        {status.state === 'reconnecting' && <Loader size={12} />}
        <Text size="sm" c={status.state === 'refused' ? 'orange.8' : 'dimmed'}>
          {text}
        </Text>
      </Group>
    </Paper>
  );
}
