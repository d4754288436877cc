/** Maintenance page (in progress). */
import { Title } from '@mantine/core';

export function MaintenancePage() {
  return <Title order={2}>Servicio en Mantenimiento</Title>;
}
