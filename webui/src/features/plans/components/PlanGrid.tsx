/** Plan grid: one column for a single plan, up to three otherwise. */
import { SimpleGrid } from '@mantine/core';
import type { ReactNode } from 'react';

export function PlanGrid({ count, children }: { count: number; children: ReactNode }) {
  const cols = count === 1 ? { base: 1 } : { base: 1, sm: Math.min(count, 2), md: Math.min(count, 3) };
  return (
    <SimpleGrid cols={cols} spacing="lg" maw={count === 1 ? 420 : undefined} mx={count === 1 ? 'auto' : undefined}>
      {children}
    </SimpleGrid>
  );
}
