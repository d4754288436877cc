/** /maintenance: 'Servicio en Mantenimiento'; checks the status now and then and leaves when the service is back. */
import { Anchor, Center, Stack, Text, Title } from '@mantine/core';
import { IconTool } from '@tabler/icons-react';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { usePublicConfigState } from '../../../lib/public-config';

const STATUS_POLL_MS = 30_000;

export function MaintenancePage() {
  usePageTitle('Servicio en Mantenimiento');
  const { reload } = usePublicConfigState();

  useEffect(() => {
    // Reloading the config once maintenance ends lets the guest gate send the visitor home. The first check runs
    // at once: a 503 that was not maintenance (an overloaded server) should not keep the visitor here.
    const check = () => {
      api
        .get<{ maintenance: boolean }>('/api/client/status', { auth: false })
        .then((status) => {
          if (!status.maintenance) void reload();
        })
        .catch(() => undefined);
    };
    check();
    const timer = window.setInterval(check, STATUS_POLL_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  return (
    <Center mih="100vh" p="md">
      <Stack align="center" gap="md" maw={520}>
        <IconTool size={56} stroke={1.5} />
        <Title order={1} ta="center">
          Servicio en Mantenimiento
        </Title>
        <Text c="dimmed" ta="center">
          Estamos realizando tareas de mantenimiento para mejorar el servicio. Por favor, vuelva a intentarlo en unos
          minutos.
        </Text>
        <Anchor component={Link} to="/">
          Volver al inicio
        </Anchor>
      </Stack>
    </Center>
  );
}
