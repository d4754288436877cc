/** /login: username, password, 'Recordarme', the captcha once the server asks for it, and the links the public
 * switches allow. */
import { Alert, Anchor, Button, Checkbox, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { usePublicConfig, usePublicConfigState } from '../../../lib/public-config';
import { publicToast } from '../../../lib/toasts';
import { storeLoginTokens } from '../../../lib/tokens';
import { fetchStatus, login } from '../api/session';
import { AuthCard } from './AuthCard';
import { SessionEndedNotice } from './SessionEndedNotice';
import { useLoginCaptcha } from './login-captcha';

export const LOGIN_REQUIRED_MESSAGE = 'El usuario y la contraseña son obligatorios.';

function loginFailureText(error: unknown): string {
  if (error instanceof ApiError && error.status !== 0) return error.message || 'Hubo un error al intentar iniciar sesión';
  return 'Error al iniciar sesión. Por favor, intente de nuevo.';
}

/**
 * A public configuration read this recently already said whether the service is in maintenance (its `maintenance`
 * field): the status check would ask again what the page learnt a moment ago.
 */
export const FRESH_CONFIG_MS = 60_000;

/**
 * On /login load the status check runs; maintenance (or a 503) sends the user to /maintenance. Not when the public
 * configuration was read in the last minute, as on a login page opened by address: one request less on a metered
 * link (docs/contract.md, rule 8 of the gate; docs/benchmarks.md, "Session 17: data costs").
 */
function useMaintenanceCheck() {
  const { state, markMaintenance } = usePublicConfigState();
  const readAt = state.status === 'ready' ? state.readAt : undefined;
  useEffect(() => {
    if (readAt !== undefined && Date.now() - readAt < FRESH_CONFIG_MS) return;
    const controller = new AbortController();
    fetchStatus(controller.signal)
      .then((status) => {
        if (status.maintenance) markMaintenance();
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 503) markMaintenance();
      });
    return () => controller.abort();
  }, [readAt, markMaintenance]);
}

export function LoginPage() {
  usePageTitle('Login');
  useMaintenanceCheck();
  const config = usePublicConfig();
  const navigate = useNavigate();
  // A guest pass's claim page sends its friend here and back (docs/webui.md); no other page is a destination.
  const next = useSearchParams()[0].get('next');
  const destination = next && /^\/pase\/[\w-]+$/.test(next) ? next : '/dashboard/home';
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const captcha = useLoginCaptcha();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) {
      setFailure(LOGIN_REQUIRED_MESSAGE);
      publicToast.blank(LOGIN_REQUIRED_MESSAGE);
      return;
    }
    const captchaProblem = captcha.problem();
    if (captchaProblem) {
      setFailure(captchaProblem);
      publicToast.blank(captchaProblem);
      return;
    }
    setFailure(null);
    setBusy(true);
    const loading = publicToast.loading('Iniciando sesión...');
    try {
      const answer = await login({ username: username.trim(), password, remember, ...captcha.field() });
      storeLoginTokens(answer.access, answer.refresh, remember);
      publicToast.dismiss(loading);
      if (answer.message) publicToast.success(answer.message);
      navigate(destination, { replace: true });
    } catch (error) {
      captcha.afterAttempt(error);
      publicToast.dismiss(loading);
      const text = loginFailureText(error);
      setFailure(text);
      publicToast.error(text);
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Iniciar sesión">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <SessionEndedNotice />
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
            visibilityToggleButtonProps={{ 'aria-label': 'Mostrar u ocultar contraseña' }}
          />
          <Checkbox
            label="Recordarme"
            checked={remember}
            onChange={(event) => setRemember(event.currentTarget.checked)}
          />
          {captcha.widget}
          {failure && (
            <Alert color="red" role="alert">
              {failure}
            </Alert>
          )}
          <Button type="submit" disabled={busy} fullWidth>
            {busy ? 'Procesando...' : 'Iniciar sesión'}
          </Button>
        </Stack>
      </form>
      <Stack gap={4} align="center">
        {config.allow_email && config.allow_password_recovery && (
          <Anchor component={Link} to="/password-recovery" size="sm">
            ¿Olvidó su contraseña?
          </Anchor>
        )}
        {config.allow_registration && (
          <Group gap={4}>
            <Anchor component={Link} to="/register" size="sm">
              Crear una cuenta
            </Anchor>
          </Group>
        )}
        {config.show_landing && (
          <Anchor component={Link} to="/" size="sm">
            Volver al inicio
          </Anchor>
        )}
      </Stack>
    </AuthCard>
  );
}
