/** Help centre (in progress). */
import { Title } from '@mantine/core';

export function HelpPage() {
  return <Title order={2}>Centro de Ayuda</Title>;
}
