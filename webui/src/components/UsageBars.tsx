/** Traffic per hour, day or month as stacked bars (Bajada, Subida), shared by the customer and the manager.
 * @mantine/charts (on recharts) is its own chunk, loaded through UsageChart when a chart first shows. */
import { BarChart } from '@mantine/charts';
import '@mantine/charts/styles.css';

export interface UsageBar {
  start: string;
  download: number;
  upload: number;
}

export type UsageBucket = 'hour' | 'day' | 'month';

// Hours in the viewer's time zone; days and months start at 00:00 UTC on the server, so they are named in UTC (else
// 1 Nov would read "31 oct" west of Greenwich).
const LABELS: Record<UsageBucket, Intl.DateTimeFormat> = {
  hour: new Intl.DateTimeFormat('es-ES', { hour: '2-digit', minute: '2-digit' }),
  day: new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'short', timeZone: 'UTC' }),
  month: new Intl.DateTimeFormat('es-ES', { month: 'short', year: '2-digit', timeZone: 'UTC' }),
};

export interface UsageBarsProps {
  points: UsageBar[];
  bucket: UsageBucket;
  /** Bytes as text ('1.5 GB'): each feature passes its own formatter. */
  formatBytes: (bytes: number) => string;
  label: string;
  height?: number;
}

export default function UsageBars({ points, bucket, formatBytes, label, height = 220 }: UsageBarsProps) {
  const data = points.map((point) => ({
    momento: LABELS[bucket].format(new Date(point.start)),
    Bajada: point.download,
    Subida: point.upload,
  }));
  return (
    <div role="img" aria-label={label} data-testid="usage-chart">
      <BarChart
        h={height}
        data={data}
        dataKey="momento"
        type="stacked"
        series={[
          { name: 'Bajada', color: 'blue.6' },
          { name: 'Subida', color: 'teal.5' },
        ]}
        valueFormatter={formatBytes}
        withLegend
        tickLine="y"
      />
    </div>
  );
}
