/** /register: account creation with captcha (when configured) and an optional email (when allowed). */
import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { usePublicConfig } from '../../../lib/public-config';
import { publicToast } from '../../../lib/toasts';
import { register } from '../api/session';
import { AuthCard } from './AuthCard';
import { CaptchaWidget } from './CaptchaWidget';

export const CAPTCHA_MESSAGE = 'Por favor, complete el captcha.';
export const REQUIRED_MESSAGE = 'El usuario y contraseña son obligatorios.';
export const MISMATCH_MESSAGE = 'Las contraseñas no coinciden.';

interface Fields {
  username: string;
  password: string;
  confirm: string;
  email: string;
}

/** The contract's checks (docs/contract.md#validation) in its order: captcha, required fields, matching passwords. */
export function registrationProblem(fields: Fields, captchaRequired: boolean, captchaToken: string | null) {
  if (captchaRequired && !captchaToken) return CAPTCHA_MESSAGE;
  if (!fields.username.trim() || !fields.password) return REQUIRED_MESSAGE;
  if (fields.password !== fields.confirm) return MISMATCH_MESSAGE;
  return null;
}

function registerFailureText(error: unknown): string {
  if (error instanceof ApiError && error.status !== 0) return error.message || 'Hubo un error al intentar registrar el usuario';
  return 'Ocurrió un error durante el registro. Por favor, intente de nuevo.';
}

export function RegisterPage() {
  usePageTitle('Registro');
  const config = usePublicConfig();
  const [fields, setFields] = useState<Fields>({ username: '', password: '', confirm: '', email: '' });
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const [captchaResets, setCaptchaResets] = useState(0);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<{ email: string } | null>(null);

  const set = (name: keyof Fields) => (event: React.ChangeEvent<HTMLInputElement>) => {
    const { value } = event.currentTarget;
    setFields((current) => ({ ...current, [name]: value }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = registrationProblem(fields, config.captcha !== null, captchaToken);
    if (invalid) {
      setProblem(invalid);
      publicToast.blank(invalid);
      return;
    }
    setProblem(null);
    setBusy(true);
    const email = config.allow_email ? fields.email.trim() : '';
    const loading = publicToast.loading('Registrando...');
    try {
      await register({
        username: fields.username.trim(),
        password: fields.password,
        captcha_token: captchaToken ?? '',
        ...(email ? { email } : {}),
      });
      publicToast.dismiss(loading);
      publicToast.success('Registro Completado');
      setDone({ email });
    } catch (error) {
      publicToast.dismiss(loading);
      const text = registerFailureText(error);
      setProblem(text);
      publicToast.error(text);
    } finally {
      setBusy(false);
      // Captcha tokens are single use: a new challenge after every attempt.
      setCaptchaResets((n) => n + 1);
    }
  };

  if (done) {
    return (
      <AuthCard title="Registro Completado">
        <Text>Su cuenta fue creada correctamente.</Text>
        {done.email && (
          <Text>
            Le enviamos un email de verificación a <strong>{done.email}</strong>.
          </Text>
        )}
        <Button component={Link} to="/login">
          Iniciar sesión
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Registro">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <TextInput label="Usuario" autoComplete="username" value={fields.username} onChange={set('username')} />
          <PasswordInput
            label="Contraseña"
            autoComplete="new-password"
            value={fields.password}
            onChange={set('password')}
          />
          <PasswordInput
            label="Confirmar contraseña"
            autoComplete="new-password"
            value={fields.confirm}
            onChange={set('confirm')}
          />
          {config.allow_email && (
            <TextInput
              label="Email (opcional)"
              type="email"
              autoComplete="email"
              value={fields.email}
              onChange={set('email')}
            />
          )}
          {config.captcha && (
            <CaptchaWidget
              provider={config.captcha.provider}
              siteKey={config.captcha.site_key}
              onToken={setCaptchaToken}
              resetCount={captchaResets}
            />
          )}
          {problem && (
            <Alert color="red" role="alert">
              {problem}
            </Alert>
          )}
          <Button type="submit" disabled={busy} fullWidth>
            {busy ? 'Procesando...' : 'Registrarse'}
          </Button>
        </Stack>
      </form>
      <Anchor component={Link} to="/login" size="sm" ta="center">
        ¿Ya tiene una cuenta? Iniciar sesión
      </Anchor>
    </AuthCard>
  );
}
