/** Dashboard plans (in progress). */
import { Title } from '@mantine/core';

export function DashboardPlansPage() {
  return <Title order={2}>Planes</Title>;
}
