/** Landing page (in progress). */
import { Title } from '@mantine/core';

export function LandingPage() {
  return <Title order={2}>Bienvenido</Title>;
}
