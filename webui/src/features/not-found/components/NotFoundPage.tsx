/** Any unknown path: 'Página no encontrada' with a button back to login, or, with a session, back to where the
 * visitor works (the dashboard, or the manager's panel under /manager): docs/webui.md, "Page not found". */
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { usePageTitle } from '../../../lib/page-title';
import { getAccessToken, getRefreshToken } from '../../../lib/tokens';

function wayBack(pathname: string): { to: string; label: string } {
  const signedIn = getAccessToken() !== null || getRefreshToken() !== null;
  if (pathname.startsWith('/manager')) {
    return signedIn ? { to: '/manager/dashboard', label: 'Volver al panel' } : { to: '/manager/login', label: 'Volver al login' };
  }
  return signedIn ? { to: '/dashboard/home', label: 'Volver al Dashboard' } : { to: '/login', label: 'Volver al login' };
}

export function NotFoundPage() {
  usePageTitle('Página no encontrada');
  const { pathname } = useLocation();
  const back = wayBack(pathname);
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" gap="md">
        <Title order={1}>404</Title>
        <Title order={2}>Página no encontrada</Title>
        <Text c="dimmed">La página que busca no existe o fue movida.</Text>
        <Button component={Link} to={back.to}>
          {back.label}
        </Button>
      </Stack>
    </Center>
  );
}
