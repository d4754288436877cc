/** Any unknown path: 'Página no encontrada' with a button back to login. */
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { usePageTitle } from '../../../lib/page-title';

export function NotFoundPage() {
  usePageTitle('Página no encontrada');
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" gap="md">
        <Title order={1}>404</Title>
        <Title order={2}>Página no encontrada</Title>
        <Text c="dimmed">La página que busca no existe o fue movida.</Text>
        <Button component={Link} to="/login">
          Volver al login
        </Button>
      </Stack>
    </Center>
  );
}
