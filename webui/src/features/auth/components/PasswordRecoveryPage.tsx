/** /password-recovery: one username field; submitting shows 'Email enviado' with a way to try again. */
import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { publicToast } from '../../../lib/toasts';
import { requestPasswordRecovery } from '../api/session';
import { AuthCard } from './AuthCard';

export const USERNAME_REQUIRED_MESSAGE = 'Por favor, ingrese su usuario.';
const SENT_TEXT = 'Si la cuenta existe y tiene un email verificado, le enviamos un enlace para restablecer la contraseña.';

export function PasswordRecoveryPage() {
  usePageTitle('Recuperar Contraseña');
  const [username, setUsername] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim()) {
      setProblem(USERNAME_REQUIRED_MESSAGE);
      publicToast.blank(USERNAME_REQUIRED_MESSAGE);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const answer = await requestPasswordRecovery(username.trim());
      setSent(answer.message || SENT_TEXT);
    } catch (error) {
      const text = errorMessage(error, 'Hubo un error al realizar la solicitud');
      setProblem(text);
      publicToast.error(text);
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    return (
      <AuthCard title="Email enviado">
        <Text>{sent}</Text>
        <Anchor
          component="button"
          type="button"
          onClick={() => {
            setSent(null);
            setUsername('');
          }}
        >
          Intentar de nuevo
        </Anchor>
        <Anchor component={Link} to="/login" size="sm">
          Volver a iniciar sesión
        </Anchor>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Recuperar Contraseña">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            Ingrese su usuario y le enviaremos un enlace al email verificado de su cuenta.
          </Text>
          <TextInput
            label="Usuario"
            autoComplete="username"
            value={username}
            onChange={(event) => setUsername(event.currentTarget.value)}
          />
          {problem && (
            <Alert color="red" role="alert">
              {problem}
            </Alert>
          )}
          <Button type="submit" disabled={busy} fullWidth>
            {busy ? 'Procesando...' : 'Enviar'}
          </Button>
        </Stack>
      </form>
      <Anchor component={Link} to="/login" size="sm" ta="center">
        Volver a iniciar sesión
      </Anchor>
    </AuthCard>
  );
}
