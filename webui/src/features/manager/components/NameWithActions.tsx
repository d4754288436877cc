/**
 * A row's name with its actions right beside it (as wg-easy does), in a box of bounded width: however long the
 * name and however wide the table that scrolls sideways on a phone, the actions stay within the first ~300 px,
 * in sight, next to what they act on. A name longer than the box breaks inside its words rather than push them away,
 * and anywhere (`overflow-wrap: anywhere`), so the name does not hold its table wider than a phone either.
 */
import { Group } from '@mantine/core';
import type { ReactNode } from 'react';

export function NameWithActions({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start" maw={280}>
      <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>{children}</div>
      {/* Never squeezed: the name wraps instead. */}
      {actions && <div style={{ flexShrink: 0 }}>{actions}</div>}
    </Group>
  );
}
