/** Email verification page (in progress). */
import { Title } from '@mantine/core';

export function VerifyEmailPage() {
  return <Title order={2}>Verificar Email</Title>;
}
