/** /manager/dashboard/switches: the runtime switches (admins flip them; support sees them). */
import { Alert, Card, Stack, Switch, Text, Title } from '@mantine/core';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type Switches } from '../api/manager';
import { useAction } from '../hooks/use-action';
import { useStaff } from '../staff';

export const SWITCH_LABELS: { key: keyof Switches; label: string; description: string }[] = [
  { key: 'maintenance', label: 'Modo mantenimiento', description: 'Los clientes ven la página de mantenimiento; el panel sigue funcionando.' },
  { key: 'allow_registration', label: 'Registro de cuentas', description: 'Permite crear cuentas nuevas.' },
  { key: 'show_landing', label: 'Página de inicio pública', description: 'Sin ella, los visitantes van directo al login.' },
  { key: 'allow_password_recovery', label: 'Recuperación de contraseña', description: 'Enlace "¿Olvidó su contraseña?" por email.' },
  { key: 'allow_email', label: 'Email', description: 'Los clientes pueden añadir y verificar su email.' },
  { key: 'allow_partys', label: 'Salas', description: 'Redes privadas entre peers.' },
  { key: 'allow_payments_qvapay', label: 'Pagos con QvaPay', description: 'Ofrece QvaPay al comprar planes.' },
  { key: 'allow_payments_remesita', label: 'Pagos con Remesita', description: 'Ofrece Remesita al comprar planes.' },
];

export function SwitchesPage() {
  useManagerTitle('Interruptores');
  const { isAdmin } = useStaff();
  const { state, reload, setData } = useRequest((signal) => managerApi.switches(signal));
  const [busy, act] = useAction();

  const flip = async (key: keyof Switches, value: boolean) => {
    const label = SWITCH_LABELS.find((s) => s.key === key)?.label ?? key;
    const next = await act(() => managerApi.updateSwitches({ [key]: value }), `${label}: ${value ? 'activado' : 'desactivado'}.`);
    if (next) setData(next);
  };

  return (
    <Stack>
      <Title order={2}>Interruptores</Title>
      {!isAdmin && <Alert color="blue">Solo un administrador puede cambiar los interruptores.</Alert>}
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && (
        <Card withBorder>
          <Stack>
            {SWITCH_LABELS.map(({ key, label, description }) => (
              <Switch
                key={key}
                label={label}
                description={description}
                checked={state.data[key]}
                disabled={!isAdmin || busy}
                color={key === 'maintenance' ? 'red' : undefined}
                onChange={(e) => void flip(key, e.currentTarget.checked)}
              />
            ))}
          </Stack>
        </Card>
      )}
      <Text size="xs" c="dimmed">
        Los cambios llegan a todos los procesos en un segundo.
      </Text>
    </Stack>
  );
}
