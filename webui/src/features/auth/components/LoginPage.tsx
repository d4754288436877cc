/** Login page (in progress). */
import { Title } from '@mantine/core';

export function LoginPage() {
  return <Title order={2}>Login</Title>;
}
