/** /password-reset?token=: sets a new password from the recovery email's single-use link. */
import { Alert, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { publicToast } from '../../../lib/toasts';
import { resetPassword } from '../api/session';
import { AuthCard } from './AuthCard';

export const BLANK_PASSWORDS_MESSAGE = 'Las contraseñas no pueden estar en blanco.';
export const RESET_MISMATCH_MESSAGE = 'Las contraseñas no coinciden.';
const INVALID_LINK = 'El enlace no es válido o ha caducado. Solicite uno nuevo.';

export function PasswordResetPage() {
  usePageTitle('Restablecer Contraseña');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = !password || !confirm ? BLANK_PASSWORDS_MESSAGE : password !== confirm ? RESET_MISMATCH_MESSAGE : null;
    if (invalid) {
      setProblem(invalid);
      publicToast.blank(invalid);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const answer = await resetPassword(token, password);
      setDone(answer.message || 'Su contraseña fue cambiada. Ya puede iniciar sesión.');
    } catch (error) {
      const text = errorMessage(error, 'Hubo un error al realizar la operación.');
      setProblem(text);
      publicToast.error(text);
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <AuthCard title="Contraseña restablecida">
        <Text>{done}</Text>
        <Button component={Link} to="/login">
          Iniciar sesión
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Restablecer Contraseña">
      {!token ? (
        <Alert color="red" role="alert">
          {INVALID_LINK}
        </Alert>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Stack gap="sm">
            <PasswordInput
              label="Nueva contraseña"
              autoComplete="new-password"
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <PasswordInput
              label="Confirmar contraseña"
              autoComplete="new-password"
              value={confirm}
              onChange={(event) => setConfirm(event.currentTarget.value)}
            />
            {problem && (
              <Alert color="red" role="alert">
                {problem}
              </Alert>
            )}
            <Button type="submit" disabled={busy} fullWidth>
              {busy ? 'Procesando...' : 'Cambiar contraseña'}
            </Button>
          </Stack>
        </form>
      )}
      <Button component={Link} to="/login" variant="subtle">
        Volver a iniciar sesión
      </Button>
    </AuthCard>
  );
}
