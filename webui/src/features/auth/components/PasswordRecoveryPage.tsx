/** Password recovery page (in progress). */
import { Title } from '@mantine/core';

export function PasswordRecoveryPage() {
  return <Title order={2}>Recuperar Contraseña</Title>;
}
