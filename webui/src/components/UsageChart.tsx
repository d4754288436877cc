/** The usage bars, loaded only when a chart is first shown: recharts is larger than the page that holds it, so the
 * peers list and the manager load without it (docs/webui.md, "Usage history"). */
import { Skeleton } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { UsageBarsProps } from './UsageBars';

const UsageBars = lazy(() => import('./UsageBars'));

export function UsageChart(props: UsageBarsProps) {
  return (
    <Suspense fallback={<Skeleton h={props.height ?? 220} role="status" aria-label="Cargando gráfico..." />}>
      <UsageBars {...props} />
    </Suspense>
  );
}
