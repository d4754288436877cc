/** Account settings (in progress). */
import { Title } from '@mantine/core';

export function SettingsPage() {
  return <Title order={2}>Configuración de Cuenta</Title>;
}
