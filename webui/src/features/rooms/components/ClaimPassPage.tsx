/** /pase/{token}: a friend's guest pass. It shows the room, who invites and for how long; once logged in, the friend
 * claims it and gets a peer in that room only, which ends by itself (docs/payments.md, "Guest passes"). */
import { Alert, Anchor, Button, Card, Center, Container, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { PublicHeader } from '../../../components/PublicHeader';
import { ApiError, errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { getAccessToken } from '../../../lib/tokens';
import { claimGuestPass, fetchPublicGuestPass, type PublicGuestPass } from '../api/guest-passes';
import { formatDateTime } from '../room-format';

type State = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; pass: PublicGuestPass };

function ClaimForm({ token }: { token: string }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ message: string; alias: boolean } | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const claim = async () => {
    setProblem(null);
    setBusy(true);
    try {
      setDone((await claimGuestPass(token, name)).message);
    } catch (error) {
      const alias = error instanceof ApiError && error.code === 'alias_required';
      setProblem({ message: errorMessage(error, 'No se pudo reclamar el pase'), alias });
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <Alert color="teal" title="Pase reclamado">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{done} Descargue su configuración en Peers.</Text>
          <Group gap="xs">
            <Button component={Link} to="/dashboard/peers" size="xs">
              Ir a Peers
            </Button>
            <Button component={Link} to="/dashboard/partys" size="xs" variant="light">
              Ver salas
            </Button>
          </Group>
        </Stack>
      </Alert>
    );
  }
  return (
    <Stack gap="xs">
      <TextInput
        label="Nombre del peer"
        placeholder="invitado"
        description="Letras, números, guion o guion bajo; hasta 32 caracteres."
        value={name}
        maxLength={32}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      {problem && (
        <Alert color="red">
          {problem.message}{' '}
          {problem.alias && (
            <Anchor component={Link} to="/dashboard/settings">
              Configurar alias
            </Anchor>
          )}
        </Alert>
      )}
      <Button size="md" loading={busy} onClick={() => void claim()}>
        Reclamar pase
      </Button>
    </Stack>
  );
}

export function ClaimPassPage() {
  usePageTitle('Pase de invitado');
  const { token = '' } = useParams();
  const [state, setState] = useState<State>({ status: 'loading' });
  const loggedIn = Boolean(getAccessToken());

  useEffect(() => {
    const controller = new AbortController();
    fetchPublicGuestPass(token, controller.signal).then(
      (pass) => setState({ status: 'ready', pass }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'error', message: errorMessage(error, 'No se pudo abrir el pase') });
      },
    );
    return () => controller.abort();
  }, [token]);

  return (
    <>
      <PublicHeader />
      <Container size="xs" py="xl">
        <Stack gap="lg">
          <Title order={1}>Pase de invitado</Title>
          {state.status === 'loading' && (
            <Center py="xl">
              <Loader aria-label="Cargando el pase" />
            </Center>
          )}
          {state.status === 'error' && (
            <Alert color="red" title="No se puede usar este pase">
              {state.message}
            </Alert>
          )}
          {state.status === 'ready' && (
            <Card withBorder padding="lg" data-testid="guest-pass-card">
              <Stack gap="xs">
                <Text size="sm" c="dimmed">
                  {state.pass.owner ? `${state.pass.owner} le regala un lugar en su sala:` : 'Le regalan un lugar en la sala:'}
                </Text>
                <Title order={2} style={{ overflowWrap: 'anywhere' }}>
                  {state.pass.party_name}
                </Title>
                <Text>
                  {state.pass.plan_name}: {state.pass.hours} horas desde que lo reclame.
                </Text>
                <Text size="sm" c="dimmed">
                  Recibirá un peer que solo sirve en esta sala y vence solo; su internet sigue yendo por su conexión de siempre. Se puede reclamar una vez, hasta el{' '}
                  {formatDateTime(state.pass.claim_by)}.
                </Text>
                {loggedIn ? (
                  <ClaimForm token={token} />
                ) : (
                  <Stack gap="xs">
                    <Text size="sm">Para reclamarlo necesita una cuenta.</Text>
                    <Group gap="xs">
                      <Button component={Link} to={`/login?next=${encodeURIComponent(`/pase/${token}`)}`}>
                        Iniciar sesión
                      </Button>
                      <Button component={Link} to="/register" variant="light">
                        Crear una cuenta
                      </Button>
                    </Group>
                    <Text size="xs" c="dimmed">
                      Si crea una cuenta nueva, vuelva a abrir este enlace después de entrar.
                    </Text>
                  </Stack>
                )}
              </Stack>
            </Card>
          )}
        </Stack>
      </Container>
    </>
  );
}
