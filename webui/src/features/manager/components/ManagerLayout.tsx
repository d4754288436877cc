/** The manager shell: checks the staff session, then header, navigation by role and the section. */
import { AppShell, Badge, Burger, Button, Center, Group, Loader, NavLink, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense, useEffect, useState } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { ErrorBoundary } from '../../../components/ErrorBoundary';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { ApiError, errorMessage, getAccessToken } from '../../../lib/api';
import { useProductName } from '../../../lib/public-config';
import { toast } from '../../../lib/toasts';
import { clearTokens, getRefreshToken } from '../../../lib/tokens';
import { logout } from '../../../app/dashboard/logout';
import { managerApi, type StaffUser } from '../api/manager';
import { StaffContext } from '../staff';

interface Entry {
  label: string;
  path: string;
  adminOnly?: boolean;
}

export const MANAGER_NAVIGATION: Entry[] = [
  { label: 'Resumen', path: '/manager/dashboard' },
  { label: 'Usuarios', path: '/manager/dashboard/users' },
  { label: 'Servidores', path: '/manager/dashboard/servers' },
  { label: 'Peers', path: '/manager/dashboard/peers' },
  { label: 'Planes', path: '/manager/dashboard/plans' },
  { label: 'Facturas', path: '/manager/dashboard/invoices' },
  { label: 'Anuncios y versiones', path: '/manager/dashboard/announcements' },
  { label: 'Interruptores', path: '/manager/dashboard/switches' },
  { label: 'Auditoría', path: '/manager/dashboard/audit' },
];

const ROLE_LABEL: Record<string, string> = { admin: 'Administrador', support: 'Soporte' };

function StaffIdentity({ staff }: { staff: StaffUser }) {
  return (
    <>
      <Text size="sm" fw={700}>
        {staff.username}
      </Text>
      <Badge variant="light">{(staff.role && ROLE_LABEL[staff.role]) ?? staff.role}</Badge>
    </>
  );
}

type State = { status: 'verifying' } | { status: 'ready'; staff: StaffUser } | { status: 'login' } | { status: 'error'; message: string };

function useStaffSession(): [State, () => void] {
  const hasToken = getAccessToken() !== null || getRefreshToken() !== null;
  const [state, setState] = useState<State>(hasToken ? { status: 'verifying' } : { status: 'login' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!hasToken) return;
    const controller = new AbortController();
    managerApi
      .verify(controller.signal)
      .then((staff) => setState({ status: 'ready', staff }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          if (error.message) toast.error(error.message);
          clearTokens();
          setState({ status: 'login' });
        } else setState({ status: 'error', message: errorMessage(error, 'Hubo un error al cargar los datos.') });
      });
    return () => controller.abort();
  }, [attempt, hasToken]);
  return [state, () => setAttempt((n) => n + 1)];
}

export function ManagerLayout() {
  const [state, retry] = useStaffSession();
  const productName = useProductName();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const [opened, { toggle, close }] = useDisclosure(false);

  if (state.status === 'login') return <Navigate to="/manager/login" replace />;
  if (state.status === 'error') {
    return (
      <Center mih="100vh" p="md">
        <SectionError message={state.message} onRetry={retry} />
      </Center>
    );
  }
  if (state.status === 'verifying') {
    return (
      <Center mih="100vh">
        <Stack align="center" gap="sm">
          <Loader />
          <Text>Verificando acceso</Text>
        </Stack>
      </Center>
    );
  }
  const { staff } = state;
  const signOut = async () => {
    await logout();
    navigate('/manager/login', { replace: true });
  };

  return (
    <StaffContext.Provider value={staff}>
      <AppShell header={{ height: 60 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
        <AppShell.Header>
          {/* At 390 px the name truncates and who is signed in moves into the menu (docs/webui.md, "Manager"). */}
          <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
            <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: 1 }}>
              <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Abrir menú" />
              <Text fw={700} truncate="end" miw={0} title={`${productName} · Administración`}>
                {productName} · Administración
              </Text>
            </Group>
            <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
              <Group gap="sm" wrap="nowrap" visibleFrom="sm">
                <StaffIdentity staff={staff} />
              </Group>
              <Button size="xs" variant="subtle" color="red" px={6} onClick={() => void signOut()}>
                Cerrar sesión
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="sm" aria-label="Navegación">
          <Group gap="sm" hiddenFrom="sm" mb="sm" px="xs">
            <StaffIdentity staff={staff} />
          </Group>
          {MANAGER_NAVIGATION.map((entry) => (
            <NavLink
              key={entry.path}
              component={Link}
              to={entry.path}
              label={entry.label}
              active={entry.path === '/manager/dashboard' ? pathname === entry.path : pathname.startsWith(entry.path)}
              onClick={close}
            />
          ))}
        </AppShell.Navbar>
        <AppShell.Main>
          <ErrorBoundary startPath="/manager/dashboard" resetKey={pathname}>
            <Suspense fallback={<LoadingState />}>
              <Outlet />
            </Suspense>
          </ErrorBoundary>
        </AppShell.Main>
      </AppShell>
    </StaffContext.Provider>
  );
}
