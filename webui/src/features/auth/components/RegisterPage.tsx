/** Registration page (in progress). */
import { Title } from '@mantine/core';

export function RegisterPage() {
  return <Title order={2}>Registro</Title>;
}
