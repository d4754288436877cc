import { notifications } from '@mantine/notifications';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../../realtime/testing/fake-web-socket';
import * as manager from '../api/manager';
import { renderManagerPage, SUPPORT } from '../testing/manager-factory';
import { SwitchesPage } from './SwitchesPage';

vi.mock('../api/manager', async (importOriginal) => {
  const original = await importOriginal<typeof import('../api/manager')>();
  return { ...original, managerApi: { ...original.managerApi, switches: vi.fn(), updateSwitches: vi.fn() } };
});
const api = vi.mocked(manager.managerApi);

const SWITCHES: manager.Switches = {
  maintenance: false,
  allow_registration: true,
  allow_password_recovery: true,
  show_landing: true,
  allow_email: true,
  allow_partys: true,
  allow_payments_qvapay: true,
  allow_payments_remesita: false,
};

beforeEach(() => {
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
});

afterEach(() => {
  act(() => notifications.clean());
  vi.unstubAllGlobals();
  vi.clearAllMocks();
});

describe('switches page', () => {
  it('lets an admin turn maintenance on', async () => {
    api.switches.mockResolvedValue(SWITCHES);
    api.updateSwitches.mockResolvedValue({ ...SWITCHES, maintenance: true });
    renderManagerPage(<SwitchesPage />);
    const maintenance = await screen.findByRole('switch', { name: /Modo mantenimiento/ });
    expect(maintenance).not.toBeChecked();
    await userEvent.setup({ delay: null }).click(maintenance);
    expect(api.updateSwitches).toHaveBeenCalledWith({ maintenance: true });
    await waitFor(() => expect(screen.getByRole('switch', { name: /Modo mantenimiento/ })).toBeChecked());
    expect(await screen.findByText('Modo mantenimiento: activado.')).toBeInTheDocument();
    expect(await screen.findByRole('switch', { name: /Pagos con Remesita/ })).not.toBeChecked();
  }, 20_000);

  it('shows support every switch but lets them flip none', async () => {
    api.switches.mockResolvedValue(SWITCHES);
    renderManagerPage(<SwitchesPage />, SUPPORT);
    expect(await screen.findByText('Solo un administrador puede cambiar los interruptores.')).toBeInTheDocument();
    const all = screen.getAllByRole('switch');
    expect(all).toHaveLength(8);
    for (const item of all) expect(item).toBeDisabled();
  }, 20_000);
});
