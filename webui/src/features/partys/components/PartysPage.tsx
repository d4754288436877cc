/** Placeholder for /dashboard/partys ('Salas'); replaced by the rooms screen. */
import { Title } from '@mantine/core';

export function PartysPage() {
  return <Title order={2}>Salas</Title>;
}
