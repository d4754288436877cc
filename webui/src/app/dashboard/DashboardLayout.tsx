/** The authenticated shell: header greeting and user menu, navigation (collapsible under 768 px), the section. */
import { Anchor, AppShell, Burger, Group, Menu, NavLink, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconDevices, IconLogout, IconSettings } from '@tabler/icons-react';
import { Suspense } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import { LoadingState } from '../../components/LoadingState';
import { useCurrentUser } from '../../lib/current-user';
import { usePageTitle } from '../../lib/page-title';
import { useProductName } from '../../lib/public-config';
import { toast } from '../../lib/toasts';
import { logout } from './logout';
import { dashboardTitle, navigationFor } from './navigation';
import { RequireSession } from './RequireSession';

function UserMenu({ username }: { username: string }) {
  const navigate = useNavigate();
  const signOut = async () => {
    const ok = await logout();
    if (!ok) toast.error('Hubo un error al intentar cerrar la sesión.');
    navigate('/login', { replace: true });
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        {/* The name says what is shown too (WCAG 2.5.3, label in name), then what the button is. */}
        <UnstyledButton aria-label={`Bienvenido ${username}, menú de usuario`}>
          <Group gap={6} wrap="nowrap">
            <Text size="sm">
              Bienvenido{' '}
              <Text span size="sm" fw={700}>
                {username}
              </Text>
            </Text>
            <IconChevronDown size={14} />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to="/dashboard/settings" leftSection={<IconSettings size={16} />}>
          Configuración de cuenta
        </Menu.Item>
        <Menu.Item component={Link} to="/dashboard/sessions" leftSection={<IconDevices size={16} />}>
          Sesiones abiertas
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={() => void signOut()}>
          Cerrar sesión
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function DashboardShell() {
  const productName = useProductName();
  const { user } = useCurrentUser();
  const { pathname } = useLocation();
  // Set here, by path, rather than in each page: a page's own effect would run before this layout's and be undone.
  usePageTitle(dashboardTitle(pathname));
  const [opened, { toggle, close }] = useDisclosure(false);

  return (
    <AppShell
      header={{ height: 60 }}
      // Mantine's "sm" breakpoint is 48em = 768 px: narrower screens get the collapsible menu.
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Abrir menú" />
            <Anchor component={Link} to="/dashboard/home" fw={700} c="inherit" underline="never">
              {productName}
            </Anchor>
          </Group>
          <UserMenu username={user.username} />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Navegación">
        {navigationFor(user.web_settings).map((entry) => (
          <NavLink
            key={entry.path}
            component={Link}
            to={entry.path}
            label={entry.label}
            active={pathname === entry.path || pathname.startsWith(`${entry.path}/`)}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <ErrorBoundary startPath="/dashboard/home" resetKey={pathname}>
          <Suspense fallback={<LoadingState />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </AppShell.Main>
    </AppShell>
  );
}

export function DashboardLayout() {
  return (
    <RequireSession>
      <DashboardShell />
    </RequireSession>
  );
}
