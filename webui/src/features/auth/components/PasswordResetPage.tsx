/** Password reset page (in progress). */
import { Title } from '@mantine/core';

export function PasswordResetPage() {
  return <Title order={2}>Restablecer Contraseña</Title>;
}
