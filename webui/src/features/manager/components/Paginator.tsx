/** Page numbers under a paged list, with the total. */
import { Group, Pagination, Text } from '@mantine/core';

/** Mantine's arrows are icons only: screen readers need their names (axe's button-name rule). */
const CONTROL_NAMES = {
  first: 'Primera página',
  previous: 'Página anterior',
  next: 'Página siguiente',
  last: 'Última página',
} as const;

export function Paginator({
  total,
  page,
  pageSize,
  onChange,
}: {
  total: number;
  page: number;
  pageSize: number;
  onChange: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <Group justify="space-between" mt="sm">
      <Text size="sm" c="dimmed">
        {total === 1 ? '1 resultado' : `${total} resultados`}
      </Text>
      {pages > 1 && (
        <Pagination
          total={pages}
          value={page}
          onChange={onChange}
          size="sm"
          getControlProps={(control) => ({ 'aria-label': CONTROL_NAMES[control] })}
          getItemProps={(item) => ({ 'aria-label': `Página ${item}` })}
        />
      )}
    </Group>
  );
}
