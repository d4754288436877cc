/**
 * /dashboard/sessions ('Sesiones abiertas'): where the account is logged in (device, address, since when, last use),
 * this one marked; 'Cerrar esta sesión' on each, 'Cerrar las demás sesiones'. Closing another session takes the
 * account's password (a stolen session must not close the owner's: docs/api.md, "Sessions"); a wrong one is said
 * beside the field.
 */
import { Badge, Button, Card, Group, Modal, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { IconDeviceDesktop } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';
import { useRequest } from '../../../lib/use-request';
import { logout } from '../../../app/dashboard/logout';
import { formatDateTime } from '../../peers/peer-format';
import { closeOtherSessions, closeSession, fetchSessions, type SessionView } from '../api/sessions';
import { describeDevice } from '../device';

const FAILED = 'Hubo un error al realizar la operación.';

/** What the password confirms: closing one other session, or all of them. */
type Confirmation = { kind: 'one'; session: SessionView } | { kind: 'others' };

function PasswordDialog({
  confirmation,
  onClose,
  onDone,
}: {
  confirmation: Confirmation | null;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => {
    setPassword('');
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (!confirmation) return;
    if (!password) {
      setError('Escriba su contraseña para confirmar.');
      return;
    }
    setBusy(true);
    try {
      const answer =
        confirmation.kind === 'others'
          ? await closeOtherSessions(password)
          : await closeSession(confirmation.session.id, password);
      setPassword('');
      setError(null);
      onDone(answer.message);
    } catch (caught) {
      setError(errorMessage(caught, FAILED));
    } finally {
      setBusy(false);
    }
  };
  const title =
    confirmation?.kind === 'others'
      ? 'Cerrar las demás sesiones'
      : confirmation
        ? `Cerrar la sesión de ${describeDevice(confirmation.session.device)}`
        : '';
  return (
    <Modal opened={confirmation !== null} onClose={close} title={title} closeButtonProps={{ 'aria-label': 'Cerrar' }} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack>
          <Text size="sm">
            {confirmation?.kind === 'others'
              ? 'Se cerrarán todas las sesiones de su cuenta salvo esta. Escriba su contraseña para confirmar.'
              : 'Ese dispositivo tendrá que iniciar sesión de nuevo. Escriba su contraseña para confirmar.'}
          </Text>
          <PasswordInput
            label="Contraseña"
            value={password}
            onChange={(event) => {
              setPassword(event.currentTarget.value);
              setError(null);
            }}
            error={error}
            autoComplete="current-password"
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancelar
            </Button>
            <Button type="submit" color="red" loading={busy}>
              {busy ? 'Procesando...' : 'Cerrar sesiones'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function SessionCard({ session, onClose }: { session: SessionView; onClose: (session: SessionView) => void }) {
  const device = describeDevice(session.device);
  return (
    <Card withBorder padding="sm" aria-label={`Sesión: ${device}`} component="section">
      <Stack gap={6}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <IconDeviceDesktop size={18} aria-hidden />
            <Text fw={700} title={session.device ?? undefined} style={{ overflowWrap: 'anywhere' }}>
              {device}
            </Text>
            {session.current && (
              <Badge color="green" variant="light">
                Esta sesión
              </Badge>
            )}
          </Group>
          <Button size="xs" variant="light" color="red" onClick={() => onClose(session)}>
            Cerrar esta sesión
          </Button>
        </Group>
        <Text size="sm">Dirección: {session.address ?? 'Desconocida'}</Text>
        <Text size="sm">Iniciada: {formatDateTime(session.created)}</Text>
        <Text size="sm">Último uso: {formatDateTime(session.last_used)}</Text>
      </Stack>
    </Card>
  );
}

export function SessionsPage() {
  const navigate = useNavigate();
  const { state, reload } = useRequest(fetchSessions);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);

  const closeOne = async (session: SessionView) => {
    if (!session.current) {
      setConfirmation({ kind: 'one', session });
      return;
    }
    // This session: a logout, no password needed.
    const ok = await logout();
    if (!ok) toast.error('Hubo un error al intentar cerrar la sesión.');
    navigate('/login', { replace: true });
  };

  if (state.status === 'loading') return <LoadingState />;
  if (state.status === 'error') {
    return <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />;
  }
  const sessions = state.data;
  const others = sessions.filter((session) => !session.current).length;
  return (
    <Stack>
      <Title order={2}>Sesiones abiertas</Title>
      <Text>
        Dispositivos donde su cuenta tiene la sesión iniciada. Si no reconoce alguno, cierre su sesión y cambie la
        contraseña.
      </Text>
      <Group>
        <Button color="red" variant="outline" disabled={others === 0} onClick={() => setConfirmation({ kind: 'others' })}>
          Cerrar las demás sesiones
        </Button>
        {others === 0 && <Text size="sm">No hay otras sesiones abiertas.</Text>}
      </Group>
      <Stack gap="sm">
        {sessions.map((session) => (
          <SessionCard key={session.id} session={session} onClose={(s) => void closeOne(s)} />
        ))}
      </Stack>
      <PasswordDialog
        confirmation={confirmation}
        onClose={() => setConfirmation(null)}
        onDone={(message) => {
          setConfirmation(null);
          toast.success(message);
          reload();
        }}
      />
    </Stack>
  );
}
