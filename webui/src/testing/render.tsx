/** Test render wrapper: Mantine, toasts, a ready public config, an optional signed-in user and a memory router. */
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { RouterProvider, createMemoryRouter, type RouteObject } from 'react-router';
import { theme } from '../app/theme';
import { CurrentUserProvider, type CurrentUser } from '../lib/current-user';
import { PublicConfigProvider, type PublicConfig } from '../lib/public-config';

export function testConfig(overrides: Partial<PublicConfig> = {}): PublicConfig {
  return {
    maintenance: false,
    allow_registration: true,
    allow_password_recovery: true,
    show_landing: true,
    allow_payments_qvapay: true,
    allow_payments_remesita: false,
    allow_email: true,
    allow_partys: true,
    product_name: 'VPN Prueba',
    support_url: 'https://t.me/soporte',
    client_url: 'http://127.0.0.1:8000',
    captcha: null,
    ...overrides,
  };
}

export function testUser(overrides: Partial<CurrentUser> = {}): CurrentUser {
  return {
    username: 'ana',
    alias: 'ana_alias',
    email: 'ana@example.com',
    web_settings: { allow_partys: true, allow_email: true },
    ...overrides,
  };
}

interface Options {
  config?: PublicConfig;
  user?: CurrentUser;
  setUser?: (user: CurrentUser) => void;
  /** When the config was read from the server (default: never, as if the app had it from elsewhere). */
  configReadAt?: number;
  /** Initial URL of the memory router. */
  route?: string;
  /** Path pattern the element is mounted at (default: the route's pathname). */
  path?: string;
  /** Extra routes, e.g. redirect targets to assert on. */
  otherRoutes?: RouteObject[];
  /** A whole route tree instead of `ui` at `path` (e.g. to render under the RootLayout gate). */
  routes?: RouteObject[];
}

export function renderWithProviders(ui: ReactElement, options: Options = {}): RenderResult & {
  router: ReturnType<typeof createMemoryRouter>;
} {
  const route = options.route ?? '/';
  const path = options.path ?? route.split('?')[0] ?? '/';
  const user = options.user;
  const element = user ? (
    <CurrentUserProvider value={{ user, setUser: options.setUser ?? (() => undefined) }}>{ui}</CurrentUserProvider>
  ) : (
    ui
  );
  const tree = options.routes ?? [{ path, element }, ...(options.otherRoutes ?? [])];
  const router = createMemoryRouter(tree, { initialEntries: [route] });
  const result = render(
    <MantineProvider theme={theme} env="test">
      <Notifications position="top-right" limit={20} />
      <PublicConfigProvider initialState={{ status: 'ready', config: options.config ?? testConfig(), readAt: options.configReadAt }}>
        <RouterProvider router={router} />
      </PublicConfigProvider>
    </MantineProvider>,
  );
  return { ...result, router };
}
