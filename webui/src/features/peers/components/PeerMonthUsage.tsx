/** 'Usado este mes' in the peers list: download plus upload since the 1st (UTC), with the split below. */
import { Stack, Text } from '@mantine/core';
import type { MonthUsage } from '../api/usage';
import { formatBytes } from '../peer-format';

export function PeerMonthUsage({ usage, align = 'flex-start' }: { usage: MonthUsage | undefined; align?: 'flex-start' | 'flex-end' }) {
  if (!usage) return <Text size="sm">—</Text>;
  return (
    <Stack gap={0} align={align} data-testid="peer-month-usage">
      <Text size="sm">{formatBytes(usage.download + usage.upload)}</Text>
      <Text size="xs" c="dimmed">
        ↓ {formatBytes(usage.download)} · ↑ {formatBytes(usage.upload)}
      </Text>
    </Stack>
  );
}
