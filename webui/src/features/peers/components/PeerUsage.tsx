/** 'Consumo' in the peer's details: its traffic per hour (24 h), day (30 días) or month (12 meses), and the totals. */
import { Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { SectionError } from '../../../components/SectionError';
import { UsageChart } from '../../../components/UsageChart';
import { errorMessage } from '../../../lib/api';
import { useRequest } from '../../../lib/use-request';
import { fetchPeerUsage, type UsageRange } from '../api/usage';
import { formatBytes } from '../peer-format';

const RANGES: { value: UsageRange; label: string }[] = [
  { value: '24h', label: '24 horas' },
  { value: '30d', label: '30 días' },
  { value: '1y', label: '12 meses' },
];

const RANGE_TEXT: Record<UsageRange, string> = {
  '24h': 'en las últimas 24 horas',
  '30d': 'en los últimos 30 días',
  '1y': 'en los últimos 12 meses',
};

export function PeerUsage({ peerId }: { peerId: string }) {
  const [range, setRange] = useState<UsageRange>('30d');
  const { state, reload } = useRequest((signal) => fetchPeerUsage(peerId, range, signal));
  const choose = (value: string) => {
    setRange(value as UsageRange);
    reload();
  };
  return (
    <Stack gap="xs" data-testid="peer-usage">
      <Group justify="space-between" wrap="wrap">
        <Text fw={600}>Consumo</Text>
        <SegmentedControl size="xs" value={range} onChange={choose} data={RANGES} aria-label="Período del consumo" />
      </Group>
      {state.status === 'loading' && (
        <Text size="sm" c="dimmed">
          Cargando consumo...
        </Text>
      )}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'No se pudo cargar el consumo.')} onRetry={reload} />
      )}
      {state.status === 'success' && (
        <>
          <Text size="sm" data-testid="usage-totals">
            Bajada {formatBytes(state.data.download)} · Subida {formatBytes(state.data.upload)} {RANGE_TEXT[state.data.range]}
          </Text>
          <UsageChart
            points={state.data.points}
            bucket={state.data.bucket}
            formatBytes={formatBytes}
            label={`Consumo ${RANGE_TEXT[state.data.range]}`}
          />
        </>
      )}
    </Stack>
  );
}
