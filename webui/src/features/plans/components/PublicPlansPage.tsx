/** /plans: the public plan catalogue with loading, error-with-retry, empty and list states. */
import { Alert, Button, Center, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { Link } from 'react-router';
import { PublicHeader } from '../../../components/PublicHeader';
import { errorMessage } from '../../../lib/api';
import { usePageTitle } from '../../../lib/page-title';
import { usePublicConfig } from '../../../lib/public-config';
import { usePlans } from '../hooks/usePlans';
import { PlanCard } from './PlanCard';
import { PlanGrid } from './PlanGrid';

export function PublicPlansPage() {
  usePageTitle('Planes');
  const config = usePublicConfig();
  const { state, reload } = usePlans(false);

  return (
    <>
      <PublicHeader>
        <Button component={Link} to="/login" variant="subtle">
          Iniciar sesión
        </Button>
        {config.allow_registration && (
          <Button component={Link} to="/register">
            Registrarse
          </Button>
        )}
      </PublicHeader>
      <Container size="lg" py="xl">
        <Group justify="space-between" mb="lg">
          <Title order={1}>Planes</Title>
          <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={reload}>
            Actualizar
          </Button>
        </Group>
        {state.status === 'loading' && (
          <Center py="xl">
            <Loader aria-label="Cargando planes" />
          </Center>
        )}
        {state.status === 'error' && (
          <Alert color="red" title="Error" role="alert">
            <Stack gap="sm" align="flex-start">
              <Text size="sm">
                {errorMessage(
                  state.error,
                  'Hubo un problema al cargar los planes. Por favor, intente de nuevo más tarde.',
                )}
              </Text>
              <Button color="red" variant="light" onClick={reload}>
                Reintentar
              </Button>
            </Stack>
          </Alert>
        )}
        {state.status === 'success' && state.data.length === 0 && (
          <Stack align="center" py="xl">
            <Title order={2}>Planes Temporalmente No Disponibles</Title>
            <Button leftSection={<IconRefresh size={16} />} onClick={reload}>
              Actualizar
            </Button>
          </Stack>
        )}
        {state.status === 'success' && state.data.length > 0 && (
          <PlanGrid count={state.data.length}>
            {state.data.map((plan) => (
              <PlanCard
                key={plan.id}
                plan={plan}
                action={
                  <Button component={Link} to="/register" fullWidth>
                    Adquirir Plan
                  </Button>
                }
              />
            ))}
          </PlanGrid>
        )}
      </Container>
    </>
  );
}
