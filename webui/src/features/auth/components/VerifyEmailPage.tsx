/** /verify-email?token=: confirms the account email from the verification link. */
import { Alert, Button, Loader, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { useRequest } from '../../../lib/use-request';
import { verifyEmail } from '../api/session';
import { AuthCard } from './AuthCard';

// A verification token is single use: React may mount the page twice, so each token is sent once per page load.
const verifications = new Map<string, ReturnType<typeof verifyEmail>>();

function verifyOnce(token: string): ReturnType<typeof verifyEmail> {
  let pending = verifications.get(token);
  if (!pending) {
    pending = verifyEmail(token);
    verifications.set(token, pending);
  }
  return pending;
}

export function VerifyEmailPage() {
  usePageTitle('Verificar Email');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { state } = useRequest(() =>
    token ? verifyOnce(token) : Promise.reject(new Error('El enlace no es válido.')),
  );

  return (
    <AuthCard title="Verificar Email">
      {state.status === 'loading' && <Loader aria-label="Verificando" />}
      {state.status === 'success' && <Text>{state.data.message || 'Su email fue verificado correctamente.'}</Text>}
      {state.status === 'error' && (
        <Alert color="red" role="alert">
          {errorMessage(state.error, 'El enlace no es válido o ha caducado.')}
        </Alert>
      )}
      <Button component={Link} to="/login">
        Iniciar sesión
      </Button>
    </AuthCard>
  );
}
