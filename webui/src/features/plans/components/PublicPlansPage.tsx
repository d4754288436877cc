/** Public plan catalogue (in progress). */
import { Title } from '@mantine/core';

export function PublicPlansPage() {
  return <Title order={2}>Planes</Title>;
}
