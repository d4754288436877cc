/** /manager/login: staff sign in with the admin audience; customers are refused by the server. */
import { Alert, Button, Checkbox, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { useProductName } from '../../../lib/public-config';
import { publicToast } from '../../../lib/toasts';
import { storeLoginTokens } from '../../../lib/tokens';
import { SessionEndedNotice } from '../../auth/components/SessionEndedNotice';
import { useLoginCaptcha } from '../../auth/components/login-captcha';
import { managerApi } from '../api/manager';

export function ManagerLoginPage() {
  usePageTitle('Iniciar sesión · Administración');
  const productName = useProductName();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const captcha = useLoginCaptcha();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) {
      setFailure('El usuario y la contraseña son obligatorios.');
      return;
    }
    const captchaProblem = captcha.problem();
    if (captchaProblem) {
      setFailure(captchaProblem);
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const answer = await managerApi.login({ username: username.trim(), password, remember, ...captcha.field() });
      storeLoginTokens(answer.access, answer.refresh, remember);
      publicToast.success(answer.message || 'Sesión iniciada correctamente.');
      navigate('/manager/dashboard', { replace: true });
    } catch (error) {
      captcha.afterAttempt(error);
      setFailure(errorMessage(error, 'Error al iniciar sesión. Por favor, intente de nuevo.'));
      setBusy(false);
    }
  };

  return (
    <Stack align="center" justify="center" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Stack gap="sm">
            <SessionEndedNotice />
            <Title order={2} ta="center">
              Administración
            </Title>
            <Title order={5} ta="center" c="dimmed">
              {productName}
            </Title>
            <TextInput
              label="Usuario"
              autoComplete="username"
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
            />
            <PasswordInput
              label="Contraseña"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <Checkbox label="Recordarme" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} />
            {captcha.widget}
            {failure && (
              <Alert color="red" role="alert">
                {failure}
              </Alert>
            )}
            <Button type="submit" loading={busy} fullWidth>
              Iniciar sesión
            </Button>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
